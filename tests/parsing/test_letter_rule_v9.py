"""letters-v9 (issue 27): a description a careful clinician-reader takes as one option although it names none. A
normal study answers the normal option (letter_normal.py); a classic sign answers the option it is the sign of
(letter_signs.py). Each rule with cases that fire and near-misses that must not; docs/parsing.md step 8."""
import pytest

from leaderboard.scoring.letter_signs import SIGNS
from leaderboard.scoring.letters import parse_letter

CXR = ["Left lower lobe pneumonia", "Small right pleural effusion", "Left apical pneumothorax",
       "No acute cardiopulmonary abnormality"]
MACULA = ["Diabetic macular edema", "Normal macula", "Macular atrophy", "Serous retinal detachment"]
DEMENTIA = ["Normal pressure hydrocephalus", "Alzheimer disease", "Normal brain MRI", "Vascular dementia"]
TWINS = ["Dichorionic diamniotic twins", "Monochorionic diamniotic twins", "Monochorionic monoamniotic twins",
         "Conjoined twins"]
BRAIN = ["Alzheimer disease (neurofibrillary tangles)", "Pick disease", "Creutzfeldt-Jakob disease",
         "Dementia with Lewy bodies"]
CHEST = ["Pneumothorax", "Pleural effusion", "Lobar pneumonia", "Pulmonary edema"]


def _parse(text, options):
    return parse_letter(text, "ABCDE"[:len(options)], options)


@pytest.mark.parametrize("text, options, expected", [
    ("The chest X-ray appears to be normal, with no signs of pneumonia, pleural effusion or pneumothorax.", CXR, "D"),
    ("The image shows a normal OCT scan of the macula.", MACULA, "B"),
    ("No acute cardiopulmonary abnormality is seen.", CXR, "D"),
    ("Normal study.", CXR, "D"),
    ("The MRI appears normal.", DEMENTIA, "C"),
    ("胸片未见明显异常。", CXR, "D"),
    ("The fundus looks normal. No diabetic retinopathy.",
     ["Mild NPDR", "Moderate NPDR", "Severe NPDR", "No diabetic retinopathy"], "D"),
    # not a normal study: an organ, a qualification, a negation, a finding beside it
    ("The heart is normal.", CXR, None),
    ("The X-ray is not normal.", CXR, None),
    ("The chest X-ray appears normal except for a small effusion.", CXR, None),
    ("The chest X-ray appears largely normal, but there may be a subtle opacity.", CXR, None),
    ("There is a small right pleural effusion. Heart size normal on this film.", CXR, "B"),
    ("The image shows a left apical pneumothorax. No other abnormality is seen.", CXR, "C"),
    # no single normal option: "Normal pressure hydrocephalus" names a disease; a bare "No" answers a question
    ("The image shows normal pressure hydrocephalus.", DEMENTIA, "A"),
    ("The MRI appears normal.", ["Normal pressure hydrocephalus", "Alzheimer disease", "Lewy body dementia",
                                 "Vascular dementia"], None),
    ("The radiograph appears normal.", ["Yes", "No"], None),
    ("The radiograph appears normal.", ["Fracture", "No further imaging needed", "Dislocation", "Effusion"], None),
])
def test_a_normal_study_answers_the_normal_option(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("The image shows spongiform changes in the brain tissue, with numerous small vacuoles in the neuropil.", BRAIN,
     "C"),
    ("The first-trimester ultrasound shows a twin pregnancy with a thin membrane meeting the placenta at a right "
     "angle (T-sign), without a twin-peak (lambda) sign.", TWINS, "B"),
    ("There is a twin-peak sign at the membrane insertion.", TWINS, "A"),
    ("I see a meniscus sign at the right costophrenic angle.", CHEST, "B"),
    ("Kerley B lines.", CHEST, "D"),
    ("Bilateral perihilar haziness with Kerley B lines.", CHEST, "D"),
    # denied, conditional, expected or two conditions: no answer
    ("No meniscus sign is seen.", CHEST, None),
    ("If pulmonary edema were present, Kerley lines would be seen.", CHEST, None),
    ("A meniscus sign would suggest fluid.", CHEST, None),
    ("There is a meniscus sign and a deep sulcus sign.", CHEST, None),
    # the sign's condition is not among the options, or is in two of them
    ("Kerley B lines.", ["Pneumothorax", "Pleural effusion", "Lobar pneumonia", "Sarcoidosis"], None),
    ("Dot-and-blot hemorrhages and microaneurysms.",
     ["Proliferative diabetic retinopathy", "Non-proliferative diabetic retinopathy", "Hypertensive retinopathy",
      "Central retinal vein occlusion"], None),
    # an option named by its text decides as before; a sign never overrides it
    ("There is a meniscus sign, but this is a pneumothorax.", CHEST, "A"),
    ("The answer is C. There is a meniscus sign.", CHEST, "C"),
])
def test_a_classic_sign_answers_its_condition(text, options, expected):
    assert _parse(text, options) == expected


def test_every_sign_names_a_condition_and_is_read_as_written():
    for signs, conditions in SIGNS:
        assert conditions, signs  # a sign that names no condition answers nothing: it does not belong here
    # the table is folded as responses are: a British spelling, a hyphen and a diphthong still match
    assert _parse("Michaelis-Gutmann bodies in the bladder wall.", ["Malakoplakia", "Tuberculosis",
                                                                  "Urothelial carcinoma", "Xanthogranuloma"]) == "A"
    assert _parse("Haemorrhages: blood-and-thunder fundus.", ["Central retinal artery occlusion",
                                                               "Central retinal vein occlusion",
                                                               "Diabetic retinopathy", "Retinal detachment"]) == "B"


DVT = ["Deep vein thrombosis", "Cellulitis", "Ruptured Baker cyst", "Lymphedema"]
ECG = ["Hypercalcemia", "Brugada pattern", "Benign early repolarization", "Subarachnoid hemorrhage", "Hypothermia"]
SKIN = ["Keratoacanthoma", "Actinic keratosis", "Basal cell carcinoma", "Verruca vulgaris"]
PSYCH = ["Schizophrenia", "Major depressive disorder", "Bipolar I disorder", "No psychiatric disorder"]
TOX = ["N-acetylcysteine", "Fomepizole", "Flumazenil", "Octreotide"]
DERM = ["Seborrheic keratosis", "Melanoma", "Basal cell carcinoma", "Junctional nevus"]


@pytest.mark.parametrize("text, options, expected", [
    # a stated letter, then a conclusion phrase right before another option's text: neither
    ("Answer: C\n\nThe unilateral calf swelling after a long flight is most consistent with deep vein thrombosis.", DVT,
     None),
    ("C\n\nThese features are characteristic of deep vein thrombosis.", DVT, None),
    # ... but not when the letter's own option is named too, the other is offered or rejected, or the phrase comes first
    ("Answer: C\n\nThe history is consistent with deep vein thrombosis, but the ruptured Baker cyst explains the "
     "crescent sign.", DVT, "C"),
    ("Answer: C\n\nThis would be consistent with deep vein thrombosis if the veins were non-compressible.", DVT, "C"),
    ("Answer: C\n\nThe findings are not consistent with deep vein thrombosis.", DVT, "C"),
    ("The swelling is most consistent with deep vein thrombosis. However, the ultrasound settles it. Answer: C", DVT,
     "C"),
    ("Answer: C\n\nThe swelling points to option C.", DVT, "C"),
])
def test_a_letter_against_a_later_concluded_option_commits_to_neither(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    # a temperature's unit is no answer letter
    ("Osborn waves in a man found outdoors with a core temperature of 29 °C → hypothermia.\n\n**E**", ECG, "E"),
    ("Temperature 29 °C.", ECG, None),
    # a response ending on a comma (or 是/的) is cut off: a passing mention is no answer
    ("首先，病变不对称，颜色不均匀。其次，粟粒样囊肿和粉刺样开口是脂溢性角化病的典型特征。在这张图片中，",
     ["恶性黑色素瘤", "脂溢性角化病", "基底细胞癌", "交界痣"], None),
    ("The lesion shows scale and a keratin plug, which are features of keratoacanthoma,", SKIN, None),
    ("Keratoacanthoma.", SKIN, "A"),
    # declining to choose, or to diagnose at all
    ("This pattern fits keratoacanthoma and actinic keratosis alike; without a history I can't confidently select a "
     "single answer.", SKIN, None),
    ("I can't make a psychiatric diagnosis based on someone's appearance in a photograph. Conditions like schizophrenia "
     "are diagnosed through clinical interviews.", PSYCH, None),
    ("I can't be certain, but the crater with a keratin plug makes keratoacanthoma most likely.", SKIN, "A"),
    ("Answer: A. I cannot select a single answer with certainty, but A fits best.", SKIN, "A"),  # a statement stands
    # a disclaimer that goes on to answer is no refusal
    ("I'm not able to provide a medical diagnosis, but based on the stuck-on appearance, the option that best fits is "
     "seborrheic keratosis.", DERM, "A"),
    ("I can't make a diagnosis from an image. Seborrheic keratosis is a common benign lesion.", DERM, None),
    # possibilities listed past commas assert none of them
    ("The lesion may be consistent with a keratoacanthoma, a wart, or actinic keratosis. A biopsy is needed.", SKIN,
     None),
    ("The lesion, given its scale, is actinic keratosis.", SKIN, "B"),
    ("This may be a keratoacanthoma, which is most likely.", SKIN, "A"),
    # a drug by the abbreviation clinicians write; a dermoscopic sign
    ("Give NAC.", TOX, "A"),
    ("Give nac.", TOX, None),  # an abbreviation counts in capitals only
    ("Dermoscopy shows milia-like cysts and comedo-like openings.", DERM, "A"),
    ("Velvety hyperpigmented plaques in the axilla of an obese adolescent.",
     ["Acanthosis nigricans", "Confluent and reticulated papillomatosis", "Erythrasma", "Tinea nigra"], "A"),
])
def test_letters_v9_additions_after_sets_8_to_10(text, options, expected):
    assert _parse(text, options) == expected


ADRENAL = ["Autoimmune adrenalitis (Addison disease)", "Adrenal adenoma", "Adrenocortical carcinoma",
           "Waterhouse-Friderichsen syndrome"]
COLON = ["Diverticulitis", "Colorectal adenocarcinoma", "Ischemic colitis", "Crohn disease stricture"]
HEART = ["Dilated cardiomyopathy", "Pericardial effusion", "Mitral stenosis", "Normal cardiac silhouette"]
HIV_BRAIN = ["Toxoplasmosis", "Progressive multifocal leukoencephalopathy",
             "Cryptococcal infection (gelatinous pseudocysts)", "HIV encephalopathy", "Primary CNS lymphoma"]
BCC = ["Squamous cell carcinoma in situ", "Nodular basal cell carcinoma", "Keratoacanthoma", "Amelanotic melanoma"]
MASS = ["Addison disease", "Cushing syndrome", "Pheochromocytoma", "Adrenal myelolipoma", "Adrenal metastasis"]


@pytest.mark.parametrize("text, options, expected", [
    # a re-examination revises the first statement
    ("The answer is A. Autoimmune adrenalitis.\n\nHowever, upon re-examining the image, the glands are enlarged and "
     "hyperdense. Therefore, the correct answer is D.", ADRENAL, "D"),
    ("The answer is A.\n\nThe correct answer is D.", ADRENAL, None),  # two statements, nothing resolves them
    # "classic for", and a "Diagnosis:" label, conclude their clause
    ('This "apple-core" appearance is classic for colorectal adenocarcinoma.\n\nIschemic colitis shows thumbprinting.',
     COLON, "B"),
    ("Diagnosis: Cryptococcal infection (gelatinous pseudocysts)\n\nToxoplasmosis would show ring enhancement, and PML "
     "produces asymmetric white matter lesions.", HIV_BRAIN, "C"),
    # a part of a normal option without its "normal" names nothing; the option's own noun called normal does
    ("The chest X-ray shows an enlarged heart. The cardiac silhouette appears increased in size.", HEART, None),
    ("The cardiac silhouette appears normal.", HEART, "D"),
    ("The optic disc appears normal.", ["Papilledema", "Optic neuritis", "Glaucoma", "Normal optic disc"], "D"),
    # a disclaimer that only describes is no answer, even with a classic sign in it
    ("I'm not able to provide a definitive diagnosis from an image, but I can describe what I see. The image shows a "
     "pearly nodule with rolled borders. A biopsy would determine the exact diagnosis.", BCC, None),
    ("A pearly nodule with rolled borders.", BCC, "B"),
    # cut off while evaluating the options one by one, on an option's own line
    ("Step 4: Evaluate the options.\n\n* Addison disease: This refers to primary adrenal insufficiency. A unilateral "
     "fat-containing", MASS, None),
    ("Step 4: Evaluate the options.\n\n* Adrenal myelolipoma: macroscopic fat is diagnostic.", MASS, "D"),
])
def test_letters_v9_additions_after_set_12(text, options, expected):
    assert _parse(text, options) == expected


MEDIASTINUM = ["Thymoma", "Mature teratoma", "Lymphoma", "Retrosternal thyroid goiter", "Neurogenic tumor"]
SMEAR = ["Sickle cell disease", "Hereditary spherocytosis", "Hereditary elliptocytosis", "Alpha-thalassemia trait",
         "Iron deficiency anemia"]


@pytest.mark.parametrize("text, options, expected", [
    # reasoning that labels options by letter, then the answer alone on the last line
    ("Neurogenic tumors (E), which are posterior, are unlikely. Thymoma would be separate from the thyroid. "
     "Continuity with the thyroid is the key feature of a retrosternal goiter.\n\n**D**", MEDIASTINUM, "D"),
    ("Thymoma (A) and lymphoma (C) remain possible.\n\nC", MEDIASTINUM, "C"),
    ("Options:\nA\nB", MEDIASTINUM, None),  # a column of letters is no answer
    ("Thymoma (A) or lymphoma (C)?\n\nD", MEDIASTINUM, "D"),
    # a smear: sickled cells answer sickle cell disease; target cells alone tell no single condition
    ("Peripheral smear with elongated, crescent-shaped red blood cells with pointed ends and target cells.", SMEAR, "A"),
    ("Peripheral smear with numerous target cells.", SMEAR, None),
    ("Sheets of tumor cells with clear cytoplasm and prominent nucleoli separated by fibrous septa.",
     ["Seminoma", "Embryonal carcinoma", "Yolk sac tumor", "Choriocarcinoma", "Mature teratoma"], "A"),
])
def test_letters_v9_additions_after_set_11(text, options, expected):
    assert _parse(text, options) == expected
