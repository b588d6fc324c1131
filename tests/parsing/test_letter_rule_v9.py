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
