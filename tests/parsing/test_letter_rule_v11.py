"""letters-v11 (issue 27): other writings of an option's own text (option_variants.py: "category 4", "T3 N2 M0",
"non-contrast head CT", "computed tomography", "矢状位"), a Chinese yes/no and "Present." on yes/no items
(option_yes_no.py), a "No <finding>" option answered by "no acute <finding>", "B. yes" is no genus abbreviation,
"Ans: e", an option a choice "would ignore" is rejected, an if-clause's consequent after the mention, a Chinese
denial reaching only its own clause, a correction ending on a bare letter, lobar collapse and ICDR grades. Each rule
with cases that fire and near-misses that must not; docs/parsing.md step 10."""
import pytest

from leaderboard.scoring.letters import parse_letter
from leaderboard.scoring.option_text import fold
from leaderboard.scoring.option_variants import _WHOLE_OPTION, imaging_study, numbered_family, tnm_spaced

BIRADS = ["BI-RADS 2", "BI-RADS 3", "BI-RADS 4", "BI-RADS 5"]
TNM = ["T1N0M0", "T2N1M0", "T3N2M0", "T4N3M1"]
NEXT = ["MRI of the brain with contrast", "CT of the head without contrast", "Lumbar puncture", "Observation"]
HEAD_CT = ["CT of the head with contrast", "CT of the head without contrast", "MRI of the brain", "Lumbar puncture"]
MODALITY = ["CT", "MRI", "X-ray", "Ultrasound"]
PLANE = ["Axial", "Sagittal", "Coronal", "Oblique"]
VIEW = ["PA view", "AP view", "Lateral view", "Oblique view"]
YES_NO = ["no", "yes"]
NORMAL = ["Normal", "Abnormal"]
WRIST = ["Non-displaced fracture of the distal radius", "Displaced fracture of the distal radius", "Scaphoid fracture",
         "No fracture"]
ICDR = ["no apparent retinopathy", "mild NPDR", "moderate NPDR", "severe NPDR", "proliferative DR"]
QUALITY = ["excellent", "good", "fair", "poor"]
CHEST = ["Pneumothorax", "Pleural effusion", "Lobar pneumonia", "Pulmonary edema", "Atelectasis"]
BRAIN = ["Meningioma", "Glioblastoma", "Brain metastasis", "Cerebral abscess"]


def _parse(text, options):
    return parse_letter(text, "ABCDE"[:len(options)], options)


@pytest.mark.parametrize("text, options, expected", [
    ("This is most consistent with category 4.", BIRADS, "C"),
    ("Category: 3 — probably benign, short-interval follow-up.", BIRADS, "B"),
    ("BIRADS 5", BIRADS, "D"),
    ("Staging: T3 N2 M0.", TNM, "C"),
    ("Stage is T2, N1, M0.", TNM, "B"),
    ("I would recommend an urgent noncontrast CT of the head.", NEXT, "B"),
    ("Non-contrast CT head.", NEXT, "B"),
    ("The next best step is a non-contrast head CT to rule out hemorrhage.", NEXT, "B"),
    ("Get a CT scan first.", NEXT, "B"),
    ("Contrast-enhanced head CT", HEAD_CT, "A"),
    ("CT head.", HEAD_CT, None),  # both CT options are head CTs: the contrast tells them apart, and it is not said
    ("A CT scan.", HEAD_CT, None),
    ("This appears to be a magnetic resonance image.", MODALITY, "B"),
    ("Computed tomography", MODALITY, "A"),
    ("这是一张X光片。", MODALITY, "C"),
    ("超声", MODALITY, "D"),
    ("矢状位", PLANE, "B"),
    ("The image is in the coronal plane.", PLANE, "C"),
    ("PA", VIEW, "A"),
    ("pa", VIEW, None),  # the projection's initials count in capitals only
    ("This is a posteroanterior chest radiograph.", VIEW, "A"),
])
def test_other_writings_of_an_option(text, options, expected):
    assert _parse(text, options) == expected


def test_variant_tables_are_what_responses_fold_to():
    assert numbered_family(["bi", "rads", "4"], [["bi", "rads", "4"], ["lumbar", "puncture"]]) == set()  # no sibling
    family = [["bi", "rads", "3"], ["bi", "rads", "4"]]
    assert {"category 4", "birads 4", "grade 4"} <= numbered_family(family[1], family)
    assert tnm_spaced(["t3n2m0"]) == {"t3 n2 m0"} and tnm_spaced(["t3", "n2"]) == set()
    assert "non contrast head ct" in imaging_study("ct of the head without contrast".split())
    assert imaging_study("lumbar puncture".split()) == set()
    assert all(fold(key).text.strip() == key for key in _WHOLE_OPTION)  # keys meet folded option texts


@pytest.mark.parametrize("text, options, expected", [
    ("是", YES_NO, "B"),
    ("是的，存在青光眼性视神经病变。", YES_NO, "B"),
    ("否，未见异常。", YES_NO, "A"),
    ("不存在。", YES_NO, "A"),
    ("这是一张CT图像", YES_NO, None),  # 是 as a copula inside a sentence
    ("It is present.", YES_NO, "B"),
    ("Not present.", YES_NO, "A"),
    ("It is present in the left eye but not the right.", YES_NO, None),
    ("B. yes", YES_NO, "B"),  # not a genus abbreviation
    ("A. yes", YES_NO, None),  # the letter and the text disagree
    ("E. coli is the cause.", ["Staphylococcus aureus", "Escherichia coli"], "B"),  # still a genus
    ("图像未见明显异常。", NORMAL, "A"),  # 未见 denies the abnormal
    ("异常", NORMAL, "B"),
])
def test_yes_no_and_normal_items(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("No acute fracture is seen.", WRIST, "D"),
    ("There is no evidence of fracture.", WRIST, "D"),
    ("No displaced fracture is seen; there is a scaphoid fracture.", WRIST, "C"),
    ("Severe non-proliferative diabetic retinopathy.", ICDR, "D"),
    ("This is proliferative diabetic retinopathy given neovascularization.", ICDR, "E"),
    ("No DR.", ICDR, "A"),
    ("重度非增殖期糖尿病视网膜病变", ICDR, "D"),
    ("图像质量良好。", QUALITY, "B"),
    ("My final answer: collapse of the left lower lobe.", CHEST, "E"),
    ("It looks like fluid in the lungs.", CHEST, "D"),
    ("Fluid around the lungs.", CHEST, "B"),
    ("Free air under the diaphragm suggests a perforated ulcer.",
     ["Acute appendicitis", "Acute cholecystitis", "Acute pancreatitis", "Perforated peptic ulcer"], "D"),
])
def test_findings_and_grades_by_their_other_names(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("Going with A would ignore the dural tail.", BRAIN, None),
    ("Choosing B would overlook the ring enhancement. C.", BRAIN, "C"),
    ("Option B would fail to explain the dural tail, so A.", BRAIN, "A"),
    ("Going with C.", BRAIN, "C"),
    ("Ans: e", CHEST, "E"),
    ("Ans.: d", CHEST, "D"),
    ("The ans: e", CHEST, None),  # a label opens its line
    ("Most likely D; less likely B.", CHEST, "D"),
    ("A is less likely than B.", CHEST, "B"),
    ("Likely A, possibly D.", CHEST, None),  # a hedge (letter_v5 corpus W546), unchanged
    ("The answer is B) Pleural effusion. Actually no, looking again at the Kerley lines, D.", CHEST, "D"),
    ("The answer is B. Actually, D is a common mimic, but B stands.", CHEST, "B"),
    ("I am not able to view images. However, if this is a typical case, pneumothorax would be the answer.", CHEST,
     None),
    ("If I had to choose, pneumothorax would be the answer.", CHEST, "A"),
    ("In a patient with thunderclap headache, the initial step is non-contrast CT; if negative, lumbar puncture.",
     NEXT, "B"),
    ("这不是气胸，而是胸腔积液。", CHEST, "B"),  # the denial stays in its own clause
    ("不能排除气胸。", CHEST, None),
])
def test_rejections_labels_corrections_and_conditions(text, options, expected):
    assert _parse(text, options) == expected


CROWE = ["Crowe I", "Crowe II", "Crowe III", "Crowe IV"]
GARDEN = ["Garden I", "Garden II", "Garden III", "Garden IV"]
GRADE = ["Grade I", "Grade II", "Grade III", "Grade IV"]
C_SPINE = ["Jefferson fracture", "Hangman's fracture", "Type III odontoid fracture", "Teardrop fracture of C2"]
TENSION = ["Needle decompression", "CT of the chest", "Observation", "Repeat chest X-ray in 6 hours"]
HIPS = ["左侧股骨头坏死", "右侧股骨头坏死", "双侧股骨头坏死", "未见股骨头坏死"]


@pytest.mark.parametrize("text, options, expected", [
    # after blind set 16 (measured unseen first: 190/200 under letters-v10 and under this rule before these fixes)
    ("Crowe's grades:\n- Crowe I: <50%\n- Crowe II: 50-75%\n- Crowe III: 75-100%\n\nA 60% subluxation puts this hip "
     "in the Crowe II category.", CROWE, "B"),
    ("Grade I is softening; Grade II is fissuring; Grade III reaches bone; Grade IV exposes it.\n\nTherefore, the "
     "correct choice is Grade III.", GRADE, "C"),
    ("The line crosses both cortices, so I don't think this is an incomplete (Garden I) fracture. If the tilt is "
     "genuine, this would be a Garden III. But I'd lean toward Garden II.", GARDEN, "B"),
    ("Findings are suspicious, so the category would be BI-RADS 4 or BI-RADS 5.", BIRADS, None),
    ("Stanford type B would spare the ascending aorta.\n\nBottom line: this is a Stanford type A dissection, "
     "extending into the descending aorta, i.e. DeBakey type I.",
     ["Stanford type A (DeBakey I)", "Stanford type B (DeBakey III)", "Intramural hematoma",
      "Penetrating atherosclerotic ulcer"], "A"),
    ("My answer is a burst fracture of the C1 ring (atlas).", C_SPINE, "A"),
    ("The dens is intact. I don't see a triangular fragment at the corner of the C2 body, which would indicate a "
     "teardrop fracture. The injury is a traumatic spondylolisthesis of the axis.", C_SPINE, "B"),
    ("A triangular fragment breaks off the C2 body, which would indicate a teardrop fracture.", C_SPINE, "D"),
    ("The key abnormality is at C2.", C_SPINE, None),  # a vertebral level names no option
    ("The fracture line doesn't extend into the body, so this isn't a Type III odontoid fracture.", C_SPINE, None),
    ("The correct option is 1.", TENSION, "A"),
    ("The best choice is 3", TENSION, "C"),
    ("双侧股骨头均可见坏死", HIPS, "C"),
    ("双侧股骨头未见坏死", HIPS, None),  # 未见: not seen
    ("答案是C（胸腔积液）", ["气胸", "胸腔积液", "大叶性肺炎", "肺水肿"], None),  # a letter glossed with another option
    ("答案是B（胸腔积液）", ["气胸", "胸腔积液", "大叶性肺炎", "肺水肿"], "B"),
])
def test_blind_set_16_misses(text, options, expected):
    assert _parse(text, options) == expected


def test_doesnt_is_not_folded_as_a_british_spelling():
    assert "doesnt" in fold("It doesn't fit.").text.split()
    assert "hemorrhage" in fold("haemorrhage").text.split()


BONE = ["Osteosarcoma", "Ewing sarcoma", "Chondrosarcoma", "Giant cell tumor"]


@pytest.mark.parametrize("text, expected", [
    ("Answer: A\n\nQuestion: What is the next step?\nOptions: A. Biopsy B. MRI\nAnswer: B", "A"),  # runs on: cut
    ("You are a helpful medical assistant. Answer with the letter.\nUser: Which?\nAssistant: B", "B"),  # echoed dialogue
    ("ASSISTANT: A\nUSER: are you sure?\nASSISTANT: B", "A"),  # the first turn is the model's own
    ("Question: Which tumor?\nAnswer: D", "D"),  # an echoed question before the answer is not a next turn
    ("The assistant should say B.", "B"),
])
def test_the_models_own_turn(text, expected):
    assert _parse(text, BONE) == expected


@pytest.mark.parametrize("text, options, expected", [
    # after blind set 19 (measured unseen first: 192/200 under letters-v10, 193/200 under letters-v11 at eb57c70)
    ("齿状突骨折（II型）", ["Jefferson fracture", "Hangman fracture", "Type II odontoid fracture", "Clay-shoveler fracture"],
     "C"),
    ("部分缓解", ["Complete response", "Partial response", "Stable disease", "Progressive disease"], "B"),
    ("答案：A、C", BONE, None),  # two letters, joined by the Chinese enumeration comma
    ("答案：A和C", BONE, None),
    ('{"answer": "B", "answer_text": "Ewing sarcoma"}', BONE, "B"),
    ('{"answer": "B", "answer_text": "Chondrosarcoma"}', BONE, None),  # the letter and its text field disagree
    ("option (4)", BONE, "D"),
    ("option (4.5 mm)", BONE, None),
    ("Reverse Colles fracture", ["Scaphoid waist fracture", "Distal radius fracture (Colles type)",
                                 "Distal radius fracture (Smith type)", "Perilunate dislocation"], "C"),
    ("As an AI, I can't provide a medical diagnosis. However, if I must choose from the given options: D.", BONE, "D"),
    ("As an AI, I can't provide a medical diagnosis.", BONE, None),
])
def test_blind_set_19_misses(text, options, expected):
    assert _parse(text, options) == expected


RVO = ["Central retinal artery occlusion", "Central retinal vein occlusion", "Branch retinal vein occlusion",
       "Diabetic retinopathy"]
CIN = ["高级别鳞状上皮内病变", "低级别鳞状上皮内病变", "浸润性鳞状细胞癌", "宫颈腺癌"]
BREAST_ZH = ["浸润性导管癌", "导管原位癌", "纤维腺瘤", "乳腺增生症"]


@pytest.mark.parametrize("text, options, expected", [
    ("central vein occlusion", RVO, "B"),  # a qualifier inside the name left out
    ("retinal occlusion", RVO, None),  # shared by three options: names none
    ("DR", RVO, "D"),
    ("Dr. Smith would say", RVO, None),  # the title, not the initialism
    ("Free air: a perforated ulcer.", ["Acute appendicitis", "Perforated peptic ulcer", "Acute pancreatitis"], "B"),
    # after blind set 20 (measured unseen first: 195/200 under letters-v10 and under letters-v11 at 8136c17)
    ("C。\n不对，再仔细看：异型细胞累及上皮全层，但基底膜完整，未见间质浸润，应为A。", CIN, "A"),  # "C。" opens the response
    ("C。", CIN, "C"),
    ("This is classic watermelon stomach.", ["Gastric antral vascular ectasia", "Portal hypertensive gastropathy",
                                             "Dieulafoy lesion", "Erosive gastritis"], "A"),
    ("浸润性导管癌多伴不规则毛刺状肿块；纤维腺瘤可见粗大钙化。\n综上，考虑为 DCIS。", BREAST_ZH, "B"),  # DCIS of 导管原位癌
])
def test_blind_set_20_misses_and_left_out_words(text, options, expected):
    assert _parse(text, options) == expected


VIEWS = ["Posteroanterior", "Anteroposterior", "Lateral", "Oblique"]
ABNORMAL = ["Yes, abnormal findings are present", "No, this is a normal study", "Cannot be determined",
            "Image quality is inadequate"]
PLANES = ["Axial", "Sagittal", "Coronal", "Oblique"]
AMYLOID = ["Cardiac MRI with late gadolinium enhancement", "Coronary angiography", "Endomyocardial biopsy",
           "Technetium pyrophosphate scintigraphy", "Repeat transthoracic echocardiography in 6 months"]
CAVITY = ["Sarcoidosis", "Tuberculosis", "Lymphoma", "Hypersensitivity pneumonitis"]
BLASTOMA = ["Wilms tumor", "Neuroblastoma", "Rhabdomyosarcoma", "Hepatoblastoma"]


@pytest.mark.parametrize("text, options, expected", [
    # after blind sets 17 and 22 (measured unseen first: 187/200 and 188/200 under letters-v11 at 692d8ce)
    ("PA", VIEWS, "A"),
    ("Yes, there is an abnormality in the image.", ABNORMAL, "A"),  # a yes/no option that says more
    ("Yes or no depends on the context.", ["Yes", "No"], None),
    ("It is not possible to determine from this single image whether a fracture is present.",
     ["Yes, a fracture is present", "No fracture is present", "Cannot be determined", "Wrong body part"], "C"),
    ("This is a Colles fracture.", ["Smith fracture", "Barton fracture", "Distal radius fracture with dorsal angulation",
                                    "Scaphoid fracture"], "C"),
    ("DWI", ["T1加权成像", "T2加权成像", "液体衰减反转恢复序列", "弥散加权成像"], "D"),
    ("I can't provide a medical diagnosis. However, I can tell you that the image appears to show a sagittal view.",
     PLANES, "B"),
    ("The image depicts a sagittal MRI of the cervical spine showing a herniated disc compressing the spinal cord.",
     ["Cervical disc herniation", "Spinal cord tumor", "Syringomyelia", "Normal cervical spine"], "A"),
    ("Answer: A\n\nThe image shows a sagittal view of the brain.", PLANES, None),  # the letter against a later text
    ("- B. Coronary angiography - not indicated.\n\nSo the next best step is **D. Technetium pyrophosphate "
     "scintigraphy**.", AMYLOID, "D"),
    ("I'll go through each option.\n\n**C. Lymphoma** - no cavitation.\n**D. Hypersensitivity pneumonitis** - no "
     "cavitation.\n\n**B. Tuberculosis**",
     CAVITY, "B"),  # the closing line: a letter with its own option's text
    ("A. Sarcoidosis\nB. Tuberculosis", CAVITY, None),  # an echoed option list
    ("Let's evaluate each option:\n\nA. Wilms tumor: triphasic.\nB. Neuroblastoma: Homer Wright rosettes.\n"
     "C. Rhabdomyosarcoma:", BLASTOMA, None),  # cut off on an option's own line
    ("原发性中枢神经系统淋巴瘤", ["Glioblastoma", "Primary CNS lymphoma", "Cerebral abscess", "Metastatic disease"], "B"),
    ("Sarcoid.", CAVITY, "A"),
    ("The answer is C) Right.", ["Left", "Right", "Bilateral", "No abnormality"], None),  # a one-word option after C)
    ("The answer is B) Right.", ["Left", "Right", "Bilateral", "No abnormality"], "B"),
    ("The image shows a central lung mass with bulky nodes. It is small cell.",
     ["Small cell lung cancer", "Squamous cell carcinoma of the lung", "Adenocarcinoma of the lung",
      "Large cell neuroendocrine carcinoma"], "A"),
    ("Hemorrhagic stroke can be caused by hypertension, cerebral amyloid angiopathy, or venous thrombosis.",
     ["Left MCA territory ischemic stroke", "Hypertensive intracerebral hemorrhage in the left basal ganglia",
      "Cerebral amyloid angiopathy-related lobar hemorrhage", "Cerebral venous sinus thrombosis"], None),
])
def test_blind_sets_17_and_22_misses(text, options, expected):
    assert _parse(text, options) == expected
