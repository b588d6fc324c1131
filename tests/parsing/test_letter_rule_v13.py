"""letters-v13 (issue 27, after blind sets 32-34 and 36-38, each measured unseen first under letters-v12): a pair the
response narrows to and settles by text, walks and step-by-step analyses cut off partway, "cannot tell which" after a
stated letter, "sorry, that is option D", new statements ("most likely represents A —", "Probably D:", "the most
fitting option is C", "A is more consistent", "option is number 4"), an echoed option list, coordinated rejections
("X and Y less likely") and other names. Each rule with cases that fire and near misses that must not;
docs/parsing.md step 12."""
import pytest

from leaderboard.scoring.letters import parse_letter

SKULL_BASE = ["Chordoma", "Chondrosarcoma", "Giant cell tumour", "Nasopharyngeal carcinoma invading the skull base"]
CXR = ["Pneumothorax", "Pleural effusion", "Lobar pneumonia", "Pulmonary edema"]
COLITIS = ["Ulcerative colitis", "Crohn disease", "Ischemic colitis", "Pseudomembranous colitis"]
BONE = ["Osteosarcoma", "Ewing sarcoma", "Osteochondroma", "Giant cell tumor of bone"]
GALLBLADDER = ["急性胆囊炎", "胆囊结石", "胆囊息肉", "胆囊癌"]
SPLEEN = ["Normal splenic cleft", "Splenic laceration", "Splenic infarct", "Perisplenic ascites"]
ALOPECIA = ["Tinea capitis", "Alopecia areata", "Trichotillomania", "Telogen effluvium"]
DURAL = ["Schwannoma", "Meningioma", "Dural metastasis", "Solitary fibrous tumour (haemangiopericytoma)"]
CEREBELLUM = ["毛细胞型星形细胞瘤", "髓母细胞瘤", "血管母细胞瘤", "室管膜瘤"]
WEBER = ["Weber A fracture", "Weber B fracture", "Weber C fracture", "Bimalleolar fracture"]
MR = ["Mild mitral regurgitation", "Moderate mitral regurgitation", "Moderately severe mitral regurgitation",
      "Severe mitral regurgitation"]
OVARY = ["Ovarian torsion", "Hemorrhagic ovarian cyst", "Tubo-ovarian abscess", "Ectopic pregnancy"]
ORADS = ["O-RADS US 2", "O-RADS US 3", "O-RADS US 4", "O-RADS US 5"]
CERVIX = ["Normal cervix", "Short cervix without funneling", "Short cervix with funneling", "Cervical cerclage in situ"]
DOPPLER = ["Normal umbilical artery Doppler", "Increased umbilical artery pulsatility index",
           "Absent end-diastolic flow in the umbilical artery", "Reversed end-diastolic flow in the umbilical artery"]
DIASTOLIC = ["Grade I diastolic dysfunction (impaired relaxation)", "Grade II diastolic dysfunction (pseudonormal)",
             "Grade III diastolic dysfunction (restrictive filling)", "Normal diastolic function"]
ECG_K = ["Hyperkalemia", "Hypokalemia", "Hypercalcemia", "Hypocalcemia"]
INFANT = ["Infantile cortical hyperostosis", "Non-accidental injury with healing fractures", "Hypervitaminosis A", "Scurvy"]
NECK = ["Second branchial cleft cyst", "Thyroglossal duct cyst", "Lymphatic malformation", "Cystic nodal metastasis"]
QUALITY = ["Diagnostic quality", "Limited by fetal motion artefact", "Limited by poor acoustic window", "Non-diagnostic"]
LUNG = ["Pulmonary hamartoma", "Bronchial carcinoid", "Solitary pulmonary metastasis", "Primary lung adenocarcinoma"]
NODULE = ["Pure ground-glass nodule", "Part-solid nodule", "Solid nodule", "Perifissural nodule"]


def _parse(text, options):
    return parse_letter(text, "ABCDE"[:len(options)], options)


@pytest.mark.parametrize("text, options, expected", [
    ("The expansile skull-base lesion suggests one of A or B. The midline location favours chordoma. Since this one is "
     "off-midline with chondroid calcifications, the diagnosis is chondrosarcoma.", SKULL_BASE, "B"),
    ("It is either A or B. Given the chondroid matrix, the diagnosis is chondrosarcoma.", SKULL_BASE, "B"),
    # near misses: several answers, not a narrowing; the text after the pair does not conclude; it names neither
    ("The correct answers are A and B. The matrix is typical of chondrosarcoma.", SKULL_BASE, None),
    ("I think it is either A or B. The matrix could also indicate chondrosarcoma. Let me consider...", SKULL_BASE, None),
    ("It is one of A or B. The diagnosis is a giant cell tumour.", SKULL_BASE, None),
])
def test_a_pair_the_response_narrows_to_is_settled_by_its_conclusion(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("## Findings\n\nContinuous mucosal involvement from the rectum.\n\n## Evaluating the options\n\n"
     "- **A. Ulcerative colitis** —", COLITIS, None),
    ("**Image Findings:** an aggressive metaphyseal lesion.\n\n**Differential Diagnosis:**\n\n*   **A) Osteosarcoma:** "
     "This is the most common primary malignant bone tumor and the image shows a \"sunburst\"", BONE, None),
    ("图像为右上腹超声检查。胆囊壁增厚。\n\n下面逐一分析各选项：\nA. 急性胆囊炎：符合急性胆囊炎的表现。\nB. 胆囊结石：图中确实可见结石，但",
     GALLBLADDER, None),
    # near misses: no analysis announced (a labelled answer); the walk ends its sentence; it reaches every option
    ("Findings:\n\nA. Ulcerative colitis – continuous involvement from the rectum", COLITIS, "A"),
    ("Let's evaluate the options.\n\nA. Ulcerative colitis – continuous involvement.\nB. Crohn disease – no skip "
     "lesions.\nC. Ischemic colitis – no.\nD. Pseudomembranous colitis – no plaques.\n\nSo the answer is ulcerative colitis",
     COLITIS, "A"),
])
def test_an_option_walk_cut_off_partway_answers_nothing(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("Let me analyze the CT step by step.\n\n**Step 1: Identify the plane.**\nAxial CT.\n\n**Step 2: Evaluate the "
     "spleen.**\nA linear hypodensity with perisplenic fluid, which would favor a splenic laceration.\n\n**Step 3: "
     "Evaluate the kidneys.**\nBoth kidneys", SPLEEN, None),
    # near misses: the cut falls in the concluding step; the analysis ends its sentence
    ("**Step 1: Identify the plane.**\nAxial CT.\n\n**Step 2: Conclusion.**\nThis is a splenic laceration", SPLEEN, "B"),
    ("**Step 1: Identify the plane.**\nAxial CT.\n\n**Step 2: Evaluate the spleen.**\nThis is a splenic laceration.",
     SPLEEN, "B"),
])
def test_a_step_by_step_analysis_cut_off_in_a_middle_step_answers_nothing(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("It could represent either a meningioma (B) or a solitary fibrous tumour (D). The flow voids raise the possibility "
     "of D, while the dural tail favours B. Without perfusion imaging I can't reliably distinguish between these two.",
     DURAL, None),
    ("This could be either alopecia areata (B) or trichotillomania (C). Exclamation-mark hairs would favor alopecia "
     "areata. Without a closer view, it's not possible to determine which is more likely.", ALOPECIA, None),
    ("这一表现首先考虑毛细胞型星形细胞瘤；但如果是成人，血管母细胞瘤也需要考虑。两者都有可能，无法确定。", CEREBELLUM, None),
    ("I'm not able to determine this from the image provided — it appears to be cropped. Could you share a "
     "higher-quality image?", QUALITY, None),
    ("I'm not able to provide medical diagnoses, but I can describe what's visible: a focal ground-glass opacity "
     "without a solid component.", NODULE, None),
    ("Honestly, I can't narrow this to one option with confidence. The smooth margins could point to a bronchial "
     "carcinoid, but an adenocarcinoma can look the same.", LUNG, None),
    # near misses: it decides after all; an unrelated disclaimer after a stated letter; a description that concludes
    ("The dural tail favours B. I can't reliably distinguish between these two on CT, but the most likely is "
     "meningioma.", DURAL, "B"),
    ("Answer: B. Note: I cannot provide a medical diagnosis; please consult a doctor.", DURAL, "B"),
    ("无法确定病变的大小，但最可能为毛细胞型星形细胞瘤。", CEREBELLUM, "A"),
    ("I am an AI and cannot provide medical diagnoses. However, based on the image, the features are most consistent "
     "with a pure ground-glass nodule.", NODULE, "A"),
])
def test_cannot_tell_which_undoes_the_choice(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("B. Weber C fracture — sorry, I meant C. Weber C fracture, since the fibular fracture is above the syndesmosis.",
     WEBER, "C"),
    ("C. Severe mitral regurgitation — sorry, that is option D.", MR, "D"),
    # near misses: an apology that corrects nothing; no other letter after it
    ("C. Moderately severe mitral regurgitation — sorry for the brief answer.", MR, "C"),
    ("D. Severe mitral regurgitation. Sorry, that is all I can tell from this image.", MR, "D"),
])
def test_a_correction_after_sorry(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("This most likely represents A — the right ovary is enlarged with peripheral follicles and absent venous flow. "
     "A haemorrhagic cyst (B) remains possible.", OVARY, "A"),
    ("Probably D: a multilocular cyst with a large solid component and strong flow. C can't be entirely excluded.",
     ORADS, "D"),
    ("Let's look at each option:\n\n* **A. Normal cervix:** no, it is short.\n* **B. Short cervix without funneling:** "
     "the os is open.\n* **C. Short cervix with funneling:** matches.\n* **D. Cervical cerclage in situ:** no suture.\n\n"
     "The most fitting option is C.", CERVIX, "C"),
    ("Between A and B: the E/A is well below 0.8 and the atrium is normal. So A is more consistent with the tracing, "
     "though B can't be fully excluded.", DIASTOLIC, "A"),
    ("The correct option is number 4.", DOPPLER, "D"),
    # near misses: an article, not a letter; a number that is a measurement
    ("The findings most likely represent a cholangiocarcinoma — a hilar lesion.", OVARY, None),
    ("The correct option is number 4 cm away from the hilum.", DOPPLER, None),
])
def test_new_statements(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("Question: What is the most likely diagnosis? A. Pneumothorax B. Pleural effusion C. Lobar pneumonia D. Pulmonary "
     "edema Answer with the option's letter from the given choices directly.", CXR, None),
    ("A. Pneumothorax B. Pleural effusion C. Lobar pneumonia D. Pulmonary edema", CXR, None),
    # near miss: the echoed list, then the answer by its text (letters-v13: the echo leads with no answer)
    ("A. Pneumothorax B. Pleural effusion C. Lobar pneumonia D. Pulmonary edema\n\nThe answer is pulmonary edema.",
     CXR, "D"),
])
def test_an_echoed_option_list_names_nothing(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("This is Caffey disease: layered periosteal new bone in a 3-month-old. The metaphyses are normal, which makes "
     "scurvy and inflicted injury less likely.", INFANT, "A"),
    ("Flattened T waves with prominent U waves; calcium changes the ST segment instead (shortened in hypercalcemia). "
     "Taken together, these findings point to hypokalemia.", ECG_K, "B"),
    ("The image shows a typical case of a branchial cleft cyst. Answer: B.", NECK, None),
    ("The smooth margins could point to a bronchial carcinoid; a primary lung adenocarcinoma can look the same.", LUNG,
     None),  # a modal: no conclusion
    ("The smooth margins point to a bronchial carcinoid; a primary lung adenocarcinoma can look the same.", LUNG, "B"),
    # near misses: the pair is not rejected; the letter's own option is named
    ("Scurvy and hypervitaminosis A both remain possible.", INFANT, None),
    ("The image shows a typical case of a thyroglossal duct cyst. Answer: B.", NECK, "B"),
])
def test_rejections_conclusions_and_pairs(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("eFAST: no lung sliding and a lung point. Consistent with PTX.", ["Hemothorax", "Pulmonary contusion", "Pneumothorax",
                                                                          "Normal lung"], "C"),
    ("Asymmetric septal thickening with systolic anterior motion — findings typical of HOCM.",
     ["Dilated cardiomyopathy", "Hypertrophic cardiomyopathy", "Restrictive cardiomyopathy", "Takotsubo cardiomyopathy"], "B"),
    ("These are Mongolian spots over the sacrum of a newborn.",
     ["Congenital dermal melanocytosis", "Bruising from non-accidental injury", "Nevus of Ito", "Café-au-lait macule"], "A"),
    ("Chocolate cyst of the ovary.", ["Hemorrhagic corpus luteum cyst", "Endometrioma", "Mature cystic teratoma",
                                      "Tubo-ovarian abscess"], "B"),
    ("Cephalhaematoma — the swelling stops at the suture lines.", ["Caput succedaneum", "Cephalohematoma",
                                                                   "Subgaleal hemorrhage", "Depressed skull fracture"], "B"),
    ("The image therefore shows comet-tail artifacts.", ["A-lines", "B-lines", "Lung point", "Barcode sign"], "B"),
    ("Open-book pelvis.", ["Lateral compression type I", "Anteroposterior compression type III", "Vertical shear",
                           "Combined mechanism injury"], "B"),
    ("诊断为颈部淋巴管畸形。", ["甲状舌管囊肿", "第二鳃裂囊肿", "囊性淋巴管瘤", "颈部血管瘤"], "C"),
    ("This unilateral dermatomal pattern is the hallmark of shingles. Herpes simplex produces a single cluster, and "
     "bullous impetigo produces flaccid bullae.", ["Herpes simplex", "Contact dermatitis", "Bullous impetigo",
                                                   "Herpes zoster"], "D"),
    # near misses: the initialism in lower case is a word; both HCM options present
    ("The ptx value is normal.", ["Hemothorax", "Pulmonary contusion", "Pneumothorax", "Normal lung"], None),
    ("Findings typical of HOCM.", ["Hypertrophic cardiomyopathy", "Hypertrophic obstructive cardiomyopathy",
                                   "Dilated cardiomyopathy", "Restrictive cardiomyopathy"], None),
])
def test_other_names(text, options, expected):
    assert _parse(text, options) == expected
