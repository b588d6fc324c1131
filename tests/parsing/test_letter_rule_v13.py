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
    ("答案：B。病灶边界无法确定。", CEREBELLUM, "B"),  # a margin that cannot be determined is no refusal to choose
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


# the second part of letters-v13: blind sets 39-42, 44 and 45 (measured unseen first under letters-v13 at 71b6dfb)
AORTA_ZH = ["主动脉瘤", "主动脉夹层", "主动脉壁内血肿", "穿透性动脉粥样硬化性溃疡"]
LUNG_ZH = ["慢性阻塞性肺疾病", "间质性肺病", "急性呼吸窘迫综合征", "肺栓塞"]
HIP_ZH = ["发育性髋关节发育不良", "股骨头骨骺滑脱", "股骨头骨骺骨软骨病（Perthes病）", "化脓性髋关节炎"]
LICHEN = ["苔藓样药疹", "扁平苔藓", "银屑病", "慢性单纯性苔藓"]
SARCOID = ["Sarcoidosis", "Lymphoma", "Tuberculosis", "Silicosis"]
INFARCT = ["Pulmonary embolism without infarction", "Pulmonary infarction", "Pneumonia", "Atelectasis"]
OVARY_CYST = ["Mucinous cystadenoma", "Mature cystic teratoma", "Hydrosalpinx", "Paraovarian cyst"]
TESTIS = ["Classic seminoma", "Embryonal carcinoma", "Mature teratoma", "Yolk sac tumor", "Leydig cell tumor"]
KIDNEY_RX = ["Radical nephrectomy with renal vein thrombectomy", "Percutaneous renal mass biopsy", "Partial nephrectomy",
             "Active surveillance"]
TRAUMA = ["Splenic laceration", "Liver laceration", "Renal laceration", "No solid organ injury"]
BONE_CYST = ["Aneurysmal bone cyst", "Simple bone cyst", "Fibrous dysplasia", "Enchondroma"]
LIPOMA = ["Simple lipoma", "Atypical lipomatous tumour / well-differentiated liposarcoma", "Myxoid liposarcoma",
          "Intramuscular haemangioma"]
COALITION = ["Calcaneonavicular coalition", "Talocalcaneal coalition", "Os trigonum syndrome", "Accessory navicular"]
BOWEL = ["Pneumoperitoneum", "Portal venous gas", "Pneumatosis intestinalis", "Dilated bowel loops"]
DYSPLASIA = ["Paget disease of bone", "Fibrous dysplasia", "Osteoblastic metastasis", "Melorheostosis"]
CXR_LOBES = ["Right lower lobe pneumonia", "Right middle lobe pneumonia", "Right lower lobe atelectasis",
             "Right pleural effusion"]


@pytest.mark.parametrize("text, options, expected", [
    ("病变累及升主动脉，属于Stanford A型。\n\n综上所述，最可能的诊断是主动脉夹层。", AORTA_ZH, "B"),
    ("未见胸腔积液及克氏B线。结合急性起病，考虑ARDS。", LUNG_ZH, "C"),
    ("B超示胆囊壁增厚。答案：A", AORTA_ZH, "A"),  # near miss: a stated letter after the term still counts
    ("答案：B", AORTA_ZH, "B"),
])
def test_letters_inside_chinese_terms(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("## 鉴别\n股骨头骨骺滑脱多见于青少年；Perthes病表现为骨骺碎裂；化脓性髋关节炎以骨质破坏为主。本例均不符合。\n\n## 诊断\nDDH（左侧）",
     HIP_ZH, "A"),
    ("Findings: the lesion is central with a fallen fragment.\n\n**Diagnosis**\nSimple bone cyst", BONE_CYST, "B"),
    # near miss: a heading that does not conclude
    ("## 鉴别\n股骨头骨骺滑脱多见于青少年；化脓性髋关节炎以骨质破坏为主。\n\n## 影像表现\n发育性髋关节发育不良可能", HIP_ZH, None),
])
def test_the_line_under_a_conclusion_heading_concludes(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("最可能为扁平苔藓（B），但苔藓样药疹（A）不能完全除外，需结合用药史。", LICHEN, "B"),
    ("The ulcer is dendritic with terminal bulbs. Most likely D, though an Acanthamoeba pseudodendrite (C) is a "
     "consideration in contact lens wearers.", ["Bacterial keratitis", "Fungal keratitis", "Acanthamoeba keratitis",
                                               "Herpes simplex keratitis"], "D"),
    # near miss: no concession, two options offered
    ("可能为扁平苔藓（B）或苔藓样药疹（A）。", LICHEN, None),
])
def test_leans(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("These findings point to sarcoidosis.\n\nAnswer: C", SARCOID, None),
    ("Answer: B\n\nActually, I'm not sure. The opacity could be an infarct, but pneumonia can look similar. It could be "
     "B or C.", INFARCT, None),
    ("**B** — actually, no. Looking more carefully, the lesion follows simple fluid signal and is separate from the "
     "ovary. That is not a teratoma; it is a paraovarian cyst.\n\n**D**", OVARY_CYST, "D"),
    ("I can't provide a medical diagnosis.\n\nFor educational purposes, though: these features are typical of option B.",
     DYSPLASIA, "B"),
    # near misses: the letter's own option is concluded; a sure correction; an echoed option list of two lines
    ("These findings point to tuberculosis.\n\nAnswer: C", SARCOID, "C"),
    ("Answer: B\n\nActually, I'm sure now: it is C.", INFARCT, "C"),
    ("A. Mucinous cystadenoma\nB. Mature cystic teratoma", OVARY_CYST, None),
])
def test_pairs_corrections_and_statements(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("The image is most consistent with a mixed germ cell tumor.", TESTIS, None),  # "cell tumor" names no Leydig
    ("The CT shows a large enhancing mass arising from the left kidney, with tumor extending into the left renal vein.",
     KIDNEY_RX, None),
    ("The image is a CT scan of the abdomen showing the liver, kidneys and spleen.", TRAUMA, None),
    ("On the lateral radiograph there is a continuous C-shaped line (the \"C sign\"). These findings indicate a "
     "talocalcaneal coalition.", COALITION, "B"),
    ("These features favour an atypical lipomatous tumour / well-differentiated liposarcoma over a simple lipoma.",
     LIPOMA, "B"),
    ("Given the central location and the fallen fragment sign, I'd favour a unicameral bone cyst here.", BONE_CYST, "B"),
    ("The image shows air in the wall of the small intestine.", BOWEL, "C"),
    ("The image shows a chest X-ray with signs of pneumonia in the right lower lobe.", CXR_LOBES, "A"),
    # near misses: the organ as a closing label still names its option; a different lobe
    ("Liver.", TRAUMA, "B"),
    ("There is pneumonia in the right middle lobe.", CXR_LOBES, "B"),
])
def test_places_parts_and_signs(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("This is most consistent with colorectal carcinoma.", ["Diverticular stricture", "Colorectal adenocarcinoma",
                                                           "Ischemic colitis", "Crohn disease stricture"], "B"),
    ("The image shows a GIST in the stomach.", ["Gastric leiomyoma", "Gastrointestinal stromal tumor",
                                                "Gastric schwannoma", "Gastric adenocarcinoma"], "B"),
    ("The findings are classic for Kienböck disease.", ["Scaphoid nonunion", "Avascular necrosis of the lunate",
                                                        "Scapholunate advanced collapse", "Ulnar impaction syndrome"], "B"),
    ("PCP.", ["Pneumocystis jirovecii pneumonia", "Cytomegalovirus pneumonitis", "Disseminated Mycobacterium avium complex",
              "Pulmonary Kaposi sarcoma"], "A"),
    ("This looks like Erb's palsy after shoulder dystocia.", ["Upper brachial plexus injury (C5–C6)",
                                                              "Lower brachial plexus injury (C8–T1)",
                                                              "Clavicle fracture with pseudoparalysis"], "A"),
    ("This is a stye.", ["Chalazion", "External hordeolum", "Preseptal cellulitis", "Sebaceous gland carcinoma"], "B"),
    ("This is housemaid's knee.", ["Baker cyst", "Infrapatellar bursitis", "Pes anserine bursitis",
                                   "Prepatellar bursitis"], "D"),
    ("This is Ménétrier disease.", ["Hypertrophic protein-losing gastropathy", "Zollinger-Ellison syndrome",
                                    "Gastric lymphoma", "Linitis plastica"], "A"),
    ("Taken together, this is most consistent with a Klatskin tumor.", ["Hilar cholangiocarcinoma",
                                                                         "Gallbladder carcinoma invading the hepatic hilum",
                                                                         "Mirizzi syndrome"], "A"),
    ("This is Ormond's disease.", ["Retroperitoneal lymphoma", "Retroperitoneal liposarcoma",
                                   "Retroperitoneal fibrosis"], "C"),
    ("Answer: AVN of the femoral head", ["Transient osteoporosis of the hip", "Avascular necrosis of the femoral head",
                                         "Femoral neck stress fracture"], "B"),
    ("诊断：冠心病。", ["冠状动脉粥样硬化性心脏病", "扩张型心肌病", "肥厚型心肌病"], "A"),
    ("内生软骨瘤", ["Enchondroma", "Bone infarct", "Chondrosarcoma"], "A"),
    ("Hydronephrosis", ["肾盂积水", "肾囊肿", "肾结石"], "A"),
    ("Answer: Tuberous sclerosis", ["神经纤维瘤病1型", "神经纤维瘤病2型", "结节性硬化症"], "C"),
    ("腹部超声可见“同心圆征”，纵切面呈“套筒征”。", ["肠套叠", "肠扭转", "阑尾炎"], "A"),
    # near misses: another carcinoma among the options; GIST in lower case is no initialism
    ("This is most consistent with colorectal carcinoma.", ["Colorectal adenocarcinoma", "Colorectal squamous cell "
                                                           "carcinoma", "Ischemic colitis"], None),
    ("The gist of it is a stromal lesion.", ["Gastric leiomyoma", "Gastrointestinal stromal tumor"], None),
])
def test_other_names_second_part(text, options, expected):
    assert _parse(text, options) == expected
