"""letters-v12 (issue 27, after blind sets 15, 18 and 21): an option-by-option walk only labels the options, Chinese
and "correcting myself" revisions, an unsure retraction, Chinese if-clauses, "most closely matches option A", "makes
A the answer", "最可能的诊断是 D", a possibility list ending at "but", species epithets, one-word labels ("good enough",
"rejected", "Severe NPDR") and more other names. Each rule with cases that fire and near-misses that must not;
docs/parsing.md step 11."""
import pytest

from leaderboard.scoring.letter_text import genus_abbreviation
from leaderboard.scoring.letters import parse_letter

FUNDUS = ["Normal fundus", "Hypertensive retinopathy", "Diabetic retinopathy", "Retinal vein occlusion"]
QUALITY = ["good", "usable", "reject", "cannot be assessed"]
QUALITY_SHUFFLED = ["good", "reject", "usable", "cannot be assessed"]
GRADES = ["mild", "moderate", "severe", "proliferative"]
BLEED = ["硬膜外血肿", "蛛网膜下腔出血", "脑挫裂伤", "高血压性脑出血"]
HEMATOMA = ["硬膜外血肿", "硬膜下血肿", "蛛网膜下腔出血", "脑实质内出血"]
CPA = ["脑膜瘤", "听神经瘤", "表皮样囊肿", "孤立性纤维瘤"]
PLACENTA = ["Placenta previa", "Placental abruption", "Velamentous insertion", "Placenta accreta"]
UTERUS = ["Retained products of conception", "Normal postpartum uterus", "Endometritis", "Uterine arteriovenous malformation"]
OCT = ["Cystoid macular edema", "Macular hole", "Central serous chorioretinopathy", "X-linked retinoschisis"]
AMD = ["early AMD", "intermediate AMD", "late AMD - geographic atrophy", "late AMD - neovascular"]
AMD_NAMES = ["Dry (atrophic) age-related macular degeneration", "Neovascular age-related macular degeneration",
             "Pattern dystrophy", "Myopic choroidal neovascularization"]
DR_TREATMENT = ["observation with repeat imaging in 3 months", "intravitreal anti-VEGF injection",
                "focal/grid laser photocoagulation", "panretinal photocoagulation", "pars plana vitrectomy"]
DR_LESIONS = ["microaneurysms only", "intraretinal hemorrhages", "venous beading", "IRMA", "neovascularization elsewhere"]
ABDOMEN = ["Pneumoperitoneum", "Subphrenic abscess", "Chilaiditi sign", "Elevated right hemidiaphragm"]
ECG = ["First-degree AV block", "Second-degree AV block, Mobitz I (Wenckebach)", "Second-degree AV block, Mobitz II",
       "Third-degree AV block"]
MACULA = ["Central serous chorioretinopathy", "Polypoidal choroidal vasculopathy", "Neovascular AMD", "Vitelliform dystrophy"]


def _parse(text, options):
    return parse_letter(text, "ABCDE"[:len(options)], options)


@pytest.mark.parametrize("text, options, expected", [
    # the walk labels the options in Chinese; the conclusion names B
    ("逐一分析：\nA. 正常眼底——不符合\nB. 高血压视网膜病变——符合\nC. 糖尿病视网膜病变——不典型\nD. 视网膜静脉阻塞——不符合\n\n"
     "综上所述，最可能的诊断为高血压视网膜病变。", FUNDUS, "B"),
    ("Looking at each option:\nA. Good – no, blurred.\nB. Usable – vessels obscured.\nC. Reject – too dark.\n"
     "D. Cannot be assessed – not appropriate.\nMore than half of the field is ungradable, so this image should be rejected.",
     QUALITY, "C"),
    # near misses: the letters are not all the options in order, or a walk with no conclusion
    ("A. 正常眼底——不符合\nC. 糖尿病视网膜病变——不典型\nB. 高血压视网膜病变——符合", FUNDUS, None),
    ("A. 正常眼底——不符合\nB. 高血压视网膜病变——符合\nC. 糖尿病视网膜病变——不典型\nD. 视网膜静脉阻塞——不符合", FUNDUS, None),
])
def test_an_option_by_option_walk_labels_and_its_conclusion_decides(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("This fits X-linked retinoschisis. So the answer is C. Sorry, correcting myself: X-linked retinoschisis is option "
     "D, not C. The answer is D.", OCT, "D"),
    ("答案是A。不对，再仔细看一下，血肿呈新月形并跨越颅缝，答案应为B。", HEMATOMA, "B"),
    # an unsure retraction withdraws the answer; a retraction that settles does not
    ("Answer: A. Hmm, actually looking at the endometrial thickness again, it might be C. I'm not sure which one is right.",
     UTERUS, None),
    ("Answer: A. Hmm, actually looking at the endometrial thickness again, the answer is C.", UTERUS, "C"),
    ("Answer: A. Actually, the vascularity confirms it. I'm not sure why I hesitated.", UTERUS, "A"),
])
def test_corrections_and_an_unsure_retraction(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("CT 显示颅内高密度出血灶。如果患者有明确外伤史，则选 A。", BLEED, None),
    ("CT 显示颅内高密度出血灶。如果患者有明确外伤史，则选 A；如果有长期高血压病史，则更倾向于 D。", BLEED, None),
    ("如果必须选择，答案是A。", BLEED, "A"),
    ("CT 显示颅内高密度出血灶。答案是A。", BLEED, "A"),
    ("可见脑膜尾征。倾向于 A，但需与 D 鉴别。", CPA, "A"),
    ("更倾向于D，但B也有可能。", CPA, None),
])
def test_chinese_if_clauses_and_a_lean_beside_a_differential(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("While I can't make a definitive diagnosis, the hypodense area most closely matches option A.", HEMATOMA, "A"),
    ("The presence of a retinal tear and corrugated retina makes A the answer.", OCT, "A"),
    ("As an AI, I cannot provide a medical diagnosis. 但从影像上看，最可能的诊断是 D。", HEMATOMA, "D"),
    ("综合分析，首先考虑 C。", HEMATOMA, "C"),
    # near misses: matching a letter without concluding, a letter read as part of the phrase
    ("The enhancement most closely matches option A, but the age matches option C.", HEMATOMA, None),
])
def test_more_answer_statements(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("It could be either placenta previa or placental abruption, but the retroplacental collection makes placental "
     "abruption more likely.", PLACENTA, "B"),
    ("It could be either 前置胎盘 or 胎盘早剥，but the retroplacental collection makes 胎盘早剥 more likely.",
     ["前置胎盘", "胎盘早剥", "帆状胎盘", "胎盘植入"], "B"),
    ("It may be placenta previa, placental abruption, or placenta accreta.", PLACENTA, None),
])
def test_a_list_of_possibilities_ends_at_but(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, index, expected", [
    ("Culture grew E. coli.", 13, True), ("S. aureus", 0, True), ("C. difficile", 0, True), ("C. albicans", 0, True),
    ("P. ovale", 0, True), ("B. usable", 0, False), ("C. reject", 0, False), ("B. yes", 0, False),
])
def test_a_genus_abbreviation_needs_a_species_epithet(text, index, expected):
    assert genus_abbreviation(text, index) is expected


@pytest.mark.parametrize("text, options, expected", [
    ("The answer is B. usable", QUALITY_SHUFFLED, None),  # B is reject: a letter against another option's text
    ("The answer is C. usable", QUALITY_SHUFFLED, "C"),
    ("The infection is caused by E. coli.", ["Escherichia coli", "Klebsiella", "Proteus", "Enterococcus"], "A"),
])
def test_a_letter_and_a_lower_case_option_text(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("The image quality is good enough to grade, so the answer is A (usable).", QUALITY, None),
    ("The image quality is good.", QUALITY, "A"),
    ("Severe NPDR", GRADES, "C"),
    ("Mild DR.", GRADES, "A"),
    ("Mild to moderate", GRADES, None),
    ("Not severe", GRADES, None),
    ("Severe or moderate", GRADES, None),
    ("No idea", ["yes", "no"], None),
])
def test_one_word_labels(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("wet AMD", AMD, "D"), ("Wet AMD", AMD_NAMES, "B"), ("GA", AMD, "C"), ("dry AMD", AMD_NAMES, "A"),
    ("PRP", DR_TREATMENT, "D"), ("NVE", DR_LESIONS, "E"),
    ("Nummular dermatitis", ["Psoriasis", "Tinea corporis", "Discoid eczema", "Granuloma annulare"], "C"),
    ("Left-sided Bochdalek hernia with the stomach in the left hemithorax.",
     ["Congenital pulmonary airway malformation", "Congenital diaphragmatic hernia", "Bronchopulmonary sequestration",
      "Fetal pleural effusion"], "B"),
    ("Free air under the right hemidiaphragm.", ABDOMEN, "A"),
    ("This is the proliferative stage.", ["no DR", "mild NPDR", "moderate NPDR", "severe NPDR", "PDR"], "E"),
    ("答案：文氏型房室传导阻滞", ECG, "B"),
    ("Looking at the angiogram, there is a smokestack pattern of leakage.",
     ["Central serous chorioretinopathy", "Cystoid macular edema", "Choroidal neovascularization",
      "Macular telangiectasia"], "A"),
    # both named in Chinese, neither chosen
    ("可能是中心性浆液性脉络膜视网膜病变或者息肉状脉络膜血管病变，无法仅凭此图确定。", MACULA, None),
    # a letter with PVNS, which is option A's condition: a letter against another option's text
    ("The answer is B. Pigmented villonodular synovitis",
     ["Giant cell tumor of tendon sheath", "Rheumatoid nodule", "Gouty tophus", "Synovial sarcoma"], None),
    # near miss: "GA" in lower case is no abbreviation
    ("ga", AMD, None),
])
def test_other_names(text, options, expected):
    assert _parse(text, options) == expected


# ---------------------------------------------------------------- after blind sets 26 and 27
KL = ["Kellgren-Lawrence grade 1", "Kellgren-Lawrence grade 2", "Kellgren-Lawrence grade 3", "Kellgren-Lawrence grade 4"]
KL_GLOSSED = ["Grade 1 (doubtful)", "Grade 2 (minimal)", "Grade 3 (moderate)", "Grade 4 (severe)"]
BIRADS = ["BI-RADS 2", "BI-RADS 3", "BI-RADS 4", "BI-RADS 5"]
ROMAN = ["Grade I", "Grade II", "Grade III", "Grade IV"]
SIDE = ["Left", "Right", "Bilateral", "No pneumothorax"]
EFFUSION_SIDE = ["Left", "Right", "Bilateral", "No pleural effusion"]
BREAST = ["Left breast", "Right breast", "Both breasts", "Neither breast"]
HILAR = ["Left hilar", "Right hilar", "Bilateral hilar", "No hilar adenopathy"]
COUNTS = ["1", "2", "3", "4 or more"]
COUNT_WORDS = ["One", "Two", "Three", "No fracture"]
CARDIO = ["Dilated cardiomyopathy", "Hypertrophic obstructive cardiomyopathy", "Hypertrophic non-obstructive cardiomyopathy",
          "Cardiac amyloidosis"]
BONE = ["Ewing sarcoma", "Osteosarcoma", "Osteomyelitis", "Lymphoma of bone"]
HEMATOMA_EN = ["Epidural hematoma", "Subdural hematoma", "Subarachnoid hemorrhage", "Hemorrhagic contusion"]


@pytest.mark.parametrize("text, options, expected", [
    # a number that is also an option's value counts when both readings name the same option
    ("2", KL, "B"), ("Answer: 1", COUNTS, "A"), ("4", BIRADS, None), ("Answer: 3", BIRADS, None),
    # roman and arabic numerals name the same grade
    ("The image shows a grade 4 tumor.", ROMAN, "D"),
    ("Grade 2", ["Meyerding grade I", "Meyerding grade II", "Meyerding grade III", "Meyerding grade IV"], "B"),
    # an option's bracketed gloss names it
    ("The knee shows moderate osteoarthritis.", KL_GLOSSED, "C"), ("There is moderate to severe narrowing.", KL_GLOSSED, None),
])
def test_numbers_numerals_and_glosses(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("The pneumothorax is on the right side.", SIDE, "B"), ("left", BREAST, "A"), ("右侧", BREAST, "B"),
    ("Step 1: look at both hila.\nStep 2: both hilar shadows are enlarged.\n\nThe final answer is Bilateral.", HILAR, "C"),
    ("Left or right, hard to say.", BREAST, None),  # two sides: no label
    # a sign of an effusion never answers "No pleural effusion"
    ("There appears to be blunting of the costophrenic angle and a meniscus sign.", EFFUSION_SIDE, None),
])
def test_sides(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("There are 3 hypodense lesions in the liver.", COUNTS, "C"), ("There are 6 nodules.", COUNTS, "D"),
    ("There are two stones in the left kidney.", ["One", "Two", "Three", "Four"], "B"),
    ("共可见3个结节。", COUNTS, "C"),
    ("There are 2 or 3 lesions.", COUNTS, None), ("The 3 cm lesion is at level 2.", COUNTS, None),
    ("The image does not show any signs of rib fracture.", COUNT_WORDS, "D"),
    ("The image shows a rib fracture.", COUNT_WORDS, None),
])
def test_counts_and_a_denied_finding(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("The answer is A. Acute myocarditis. However, the subendocardial enhancement makes infarction more likely, so the "
     "correct answer is B.", ["Acute myocarditis", "Myocardial infarction", "Takotsubo cardiomyopathy", "Sarcoidosis"], "B"),
    ("Answer: B\nHowever, looking more carefully, the line runs through the epiphysis only. This is type III.\nAnswer: C",
     ["Salter-Harris type I", "Salter-Harris type II", "Salter-Harris type III", "Salter-Harris type IV"], "C"),
    ("B — no wait, the mass crosses the midline and involves both hemispheres. C.",
     ["Left", "Right", "Bilateral", "Midline only"], "C"),
    # a diagnosis concluded before a letter naming another option: neither
    ("The most likely diagnosis is Ewing's sarcoma, because of the onion-skin periosteal reaction.\n\nAnswer: B", BONE, None),
    ("The most likely diagnosis is Ewing's sarcoma. Actually, on reflection, the sunburst pattern fits better.\n\nAnswer: B",
     BONE, "B"),
    ("The most likely diagnosis is osteosarcoma, given the sunburst pattern.\n\nAnswer: B", BONE, "B"),
    # a shortened name two options hold names neither
    ("The answer is hypertrophic cardiomyopathy.", CARDIO, None),
    ("central vein occlusion", ["Central retinal vein occlusion", "Branch retinal vein occlusion",
                                "Central retinal artery occlusion", "Normal"], "A"),
    # cut inside a word: a description before the cut answers nothing
    ("The image shows an axial CT of the head. There is a hyperdense crescentic collection along the left convexity "
     "crossing the sutures, with mild midline shift to the ri", HEMATOMA_EN, None),
])
def test_revisions_conflicts_and_cuts(text, options, expected):
    assert _parse(text, options) == expected


# ---------------------------------------------------------------- after blind set 24
HSV = ["Intravenous ceftriaxone and vancomycin", "Intravenous acyclovir", "Oral valacyclovir", "Intravenous ganciclovir",
       "High-dose intravenous methylprednisolone"]
PAP = ["Repeat Pap smear in 1 year", "Colposcopy with directed biopsy", "Loop electrosurgical excision procedure (LEEP)",
       "Reflex HPV testing only", "Total hysterectomy"]
SHOULDER = ["Midshaft clavicle fracture", "Acromioclavicular joint separation", "Anterior glenohumeral dislocation",
            "Proximal humerus fracture"]
DISC = ["Idiopathic intracranial hypertension", "Optic neuritis", "Central retinal vein occlusion", "Optic disc drusen"]
FLUTTER = ["心房颤动", "心房扑动", "阵发性室上性心动过速", "窦性心动过速"]
BONE_TUMOURS = ["Ewing sarcoma", "Osteosarcoma", "Chondroblastoma", "Giant cell tumor of bone"]


@pytest.mark.parametrize("text, options, expected", [
    ("* A. Intravenous ceftriaxone and vancomycin: does not treat HSV.\n* B. Intravenous acyclovir: first-line.\n"
     "* C. Oral valacyclovir: inadequate.\n* D. Intravenous ganciclovir: for CMV.\n* E. Methylprednisolone: no.\n\n"
     "The most appropriate treatment is intravenous acyclovir.", HSV, "B"),
    ("Guidelines allow either excision or colposcopy with biopsy.\n\nThe most appropriate next step is colposcopy.", PAP, "B"),
    ("Guidelines allow either a LEEP or colposcopy with biopsy.", PAP, None),
    ("The image shows a fracture of the clavicle.", SHOULDER, "A"),
    ("It could be either A) Idiopathic intracranial hypertension or B) Optic neuritis. Both change the appearance of "
     "the optic disc.", DISC, None),  # "the optic disc" says where: no part-name of "Optic disc drusen"
    ("心电图可见规律的锯齿状扑动波，频率约300次/分。", FLUTTER, "B"),
    ("答案：2", ["肠套叠", "先天性肥厚性幽门狭窄", "先天性巨结肠", "先天性肠旋转不良"], "B"),
    ("This is Boerhaave syndrome after forceful vomiting.", ["Mallory-Weiss tear", "Spontaneous esophageal rupture",
                                                              "Esophageal candidiasis", "Achalasia"], "B"),
    ("These findings are consistent with inflammation of the pericardium.",
     ["Acute anterior STEMI", "Acute pericarditis", "Benign early repolarization", "Left ventricular aneurysm"], "B"),
    ("This is most consistent with perforation of an ulcer.",
     ["Perforated peptic ulcer", "Small bowel obstruction", "Sigmoid volvulus", "Acute pancreatitis"], "A"),
    # a misspelled option alone: one edit, no other option near
    ("Osteosarcome", BONE_TUMOURS, "B"), ("Hyperkalemai", ["Hypokalemia", "Hyperkalemia", "Hyponatremia", "Normal"], None),
    ("Pneumothroax", ["Pneumothorax", "Pneumonia"], None), ("Osteosarcome of the distal femur in a teenager",
                                                          BONE_TUMOURS, None),
])
def test_set_24_classes(text, options, expected):
    assert _parse(text, options) == expected


# ---------------------------------------------------------------- after blind set 23
LOBES = ["Right upper lobe consolidation with air bronchograms", "Right middle lobe consolidation with air bronchograms",
         "Right lower lobe consolidation with air bronchograms", "Left lower lobe consolidation with air bronchograms",
         "Lingular consolidation with air bronchograms"]
PICC = ["Right PICC with tip at the cavoatrial junction", "Right PICC with tip in the right internal jugular vein",
        "Left PICC with tip at the cavoatrial junction", "Left PICC with tip in the left brachiocephalic vein"]
NODULE = ["Solid nodule in the right upper lobe measuring 8 mm", "Ground-glass nodule in the right upper lobe measuring 8 mm",
          "Part-solid nodule in the right upper lobe measuring 8 mm", "Calcified granuloma in the right upper lobe measuring 8 mm"]
CAVITY = ["Thick-walled cavitating lesion in the right upper lobe with an air-fluid level",
          "Thin-walled cavitating lesion in the right upper lobe without an air-fluid level",
          "Thick-walled cavitating lesion in the left upper lobe with an air-fluid level",
          "Mycetoma within a thin-walled cavity in the right upper lobe with an air-crescent sign"]
DEVICES = ["Dual-chamber pacemaker with leads in the right atrium and right ventricle",
           "Single-chamber pacemaker with a lead in the right ventricle",
           "Implantable cardioverter-defibrillator with a lead in the right ventricle",
           "Biventricular pacemaker with leads in the right atrium, right ventricle and coronary sinus"]
FINDINGS = ["Centrilobular emphysema predominantly in the upper lobes", "Cylindrical bronchiectasis predominantly in the lower lobes",
            "Mediastinal lymphadenopathy in the subcarinal station", "Hilar lymphadenopathy in the right hilar station"]
INSPIRATION = ["Adequate inspiration, no rotation", "Adequate inspiration, rotated to the right", "Poor inspiration, no rotation",
               "Poor inspiration, rotated to the left"]


@pytest.mark.parametrize("text, options, expected", [
    # the words that tell one long option from its siblings
    ("Left PICC, tip at the CAJ.", PICC, "C"), ("The nodule is a ground-glass nodule.", NODULE, "B"),
    ("Aspergilloma in a right upper lobe cavity.", CAVITY, "D"), ("The device is an AICD with a single RV lead.", DEVICES, "C"),
    ("右肺中叶实变伴支气管充气征", LOBES, "B"), ("病变位于右肺下叶，可见实变及支气管充气征。", LOBES, "C"),
    ("吸气不足，向左旋转", INSPIRATION, "D"), ("Poor inspiration, no rotation.", INSPIRATION, "C"),
    # near misses: a hedge, a question, a denial, a sibling's words too, nothing telling, short options
    ("Left PICC, tip at the CAJ or higher.", PICC, None),
    ("Left PICC, tip at the CAJ?", PICC, None),
    ("No ground-glass nodule.", NODULE, None),
    ("Right PICC, tip at the CAJ, and a left PICC.", PICC, None),
    ("Consolidation with air bronchograms.", LOBES, None),
    ("There is an intramural component.", ["Stanford type A dissection", "Stanford type B dissection", "Intramural hematoma",
                                           "Penetrating aortic ulcer"], None),
    # a long analysis cut off mid-sentence concludes nothing
    ("我们来逐步分析这张胸部CT：\n1. 病灶位置：右肺上叶可见一空洞性病变。\n2. 洞壁厚度：洞壁较厚且不规则，最厚处约", CAVITY, None),
])
def test_telling_words_of_long_options(text, options, expected):
    assert _parse(text, options) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("Evaluate each finding:\nA. Centrilobular emphysema — present.\nB. Cylindrical bronchiectasis — present.\n"
     "C. Mediastinal lymphadenopathy — I do not see it.\nD. Hilar lymphadenopathy — present.\n\n"
     "So the finding that is NOT present is C.", FINDINGS, "C"),
    ("The device not seen is E.", ["Endotracheal tube", "Nasogastric tube", "Central venous catheter", "Chest drain",
                                   "Sternotomy wires"], "E"),
    ("I can't give a definitive diagnosis, but the thick irregular wall with an air-fluid level corresponds to option A.",
     CAVITY, "A"),
    ("心电图分析：\n1. PR 间期逐渐延长。\n2. 脱漏后 PR 最短。\n以上为典型的文氏现象。\n\n答案：文氏型房室传导阻滞",
     ["First-degree AV block", "Second-degree AV block, Mobitz I (Wenckebach)", "Second-degree AV block, Mobitz II",
      "Third-degree AV block"], "B"),
])
def test_set_23_statements(text, options, expected):
    assert _parse(text, options) == expected


# ---------------------------------------------------------------- after blind set 25
THYROID = ["甲状腺乳头状癌", "甲状腺滤泡状癌", "甲状腺髓样癌", "甲状腺未分化癌"]
DVT = ["急性下肢深静脉血栓", "慢性下肢深静脉血栓", "浅静脉血栓性静脉炎", "腘窝囊肿（Baker囊肿）"]
GLEASON = ["Gleason评分 3+3=6分", "Gleason评分 3+4=7分", "Gleason评分 4+3=7分", "Gleason评分 4+4=8分", "Gleason评分 4+5=9分"]
ARRHYTHMIA = ["心房颤动", "心房扑动", "阵发性室上性心动过速", "室性心动过速"]
CERVIX = ["宫颈低级别鳞状上皮内病变（LSIL）", "宫颈高级别鳞状上皮内病变（HSIL）", "宫颈鳞状细胞癌", "宫颈腺癌"]
LOBE_NAMES = ["Right upper lobe", "Right middle lobe", "Right lower lobe", "Left upper lobe", "Left lower lobe"]


@pytest.mark.parametrize("text, options, expected", [
    # a Chinese option named with characters left out
    ("乳头状癌", THYROID, "A"), ("血栓回声增强，管腔部分再通，考虑慢性血栓。", DVT, "B"), ("Gleason 4+3", GLEASON, "C"),
    ("甲状腺癌", THYROID, None), ("无血栓", DVT, None),
    # option numbers in Chinese words
    ("答案是选项二", ARRHYTHMIA, "B"), ("选项一", ARRHYTHMIA, "A"),
    # a lean in Chinese, a revised answer in Chinese
    ("锯齿状F波最明显。最可能是B（心房扑动），但心房颤动（A）不能完全排除。", ARRHYTHMIA, "B"),
    ("初步判断为A。但免疫组化CK7、CK19阳性，更符合胆管细胞癌。因此答案改为B。",
     ["肝细胞癌", "肝内胆管细胞癌", "转移性腺癌", "肝细胞腺瘤"], "B"),
    # brackets: the gloss and the name without it
    ("HSIL", CERVIX, "B"), ("预激综合征", ["完全性右束支传导阻滞", "完全性左束支传导阻滞", "左前分支阻滞", "预激综合征（WPW）"], "D"),
    # Chinese names
    ("右肺中叶", LOBE_NAMES, "B"), ("左肺下叶", LOBE_NAMES, "E"), ("宫外孕", ["宫内早孕", "输卵管妊娠", "黄体囊肿破裂", "卵巢畸胎瘤"], "B"),
    ("巧克力囊肿", ["卵巢成熟性畸胎瘤", "卵巢子宫内膜异位囊肿", "卵巢浆液性囊腺瘤", "多囊卵巢"], "B"),
    ("室缺", ["房间隔缺损", "室间隔缺损", "动脉导管未闭", "法洛四联症"], "B"),
    ("透明细胞性肾细胞癌", ["Clear cell renal cell carcinoma", "Papillary renal cell carcinoma",
                           "Chromophobe renal cell carcinoma", "Oncocytoma"], "A"),
    ("该病灶可能为透明细胞肾细胞癌，也可能为嗜酸细胞腺瘤，难以区分。", ["Clear cell renal cell carcinoma", "Angiomyolipoma",
                                                                "Oncocytoma", "Complex renal cyst"], None),
    # another name before a word that describes: still the name
    ("This is a Wenckebach pattern: the PR interval lengthens progressively.", ["First-degree AV block",
     "Second-degree AV block, Mobitz type I", "Second-degree AV block, Mobitz type II", "Third-degree AV block"], "B"),
    # an analysis cut off after "so", and a Chinese one cut after its last full stop
    ("The OCT shows a hyperreflective lesion above the RPE with subretinal fluid. Drusen would appear as discrete "
     "dome-shaped RPE elevations without fluid, so", ["Normal", "Choroidal neovascularization", "Diabetic macular edema",
                                                       "Drusen"], None),
    ("首先观察心电图：P波消失，代之以大小不等、形态各异的f波，RR间期绝对不齐，QRS波群形态正常。这些特征与心房扑动的锯齿状F波不同，"
     "也不符合室上性", ARRHYTHMIA, None),
])
def test_set_25_classes(text, options, expected):
    assert _parse(text, options) == expected


def test_more_letters_than_options_is_no_crash():
    # the fuzzer's find (bench/fuzz_letters.py now passes option sets): a closing "K. <text>" on letters A-Z with four
    # options looked up a fifth option's text that is not there
    chest = ["Pneumothorax", "Pleural effusion", "Pneumonia", "Pulmonary edema"]
    assert parse_letter("Reasoning first.\n\nK. Pneumonia", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", chest) is None
    assert parse_letter("Reasoning first.\n\nC. Pneumonia", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", chest) == "C"


# ---------------------------------------------------------------- after blind set 28
ELECTROLYTES = ["Hyperkalemia", "Hypokalemia", "Hypercalcemia", "Acute anterior myocardial infarction"]
EYE_FRONT = ["Hyphema", "Hypopyon", "Subconjunctival hemorrhage", "Chemosis"]


@pytest.mark.parametrize("text, options, expected", [
    ("I can't diagnose medical conditions from images, but I can describe what's visible. The ECG appears to show tall, "
     "peaked T waves. These findings can be associated with several conditions.", ELECTROLYTES, None),
    ("The ECG shows tall, peaked T waves.", ELECTROLYTES, "A"),  # the sign without the refusal
    ("I can't provide a definitive diagnosis. That said, the option that best matches is C, pyogenic granuloma.",
     ["Cherry angioma", "Amelanotic melanoma", "Pyogenic granuloma", "Kaposi sarcoma"], "C"),
    ("This looks like Osler-Weber-Rendu syndrome: telangiectasias on the lips and tongue.",
     ["Hereditary hemorrhagic telangiectasia", "CREST syndrome", "Spider angiomas", "Fabry disease"], "A"),
    ("There is a layer of blood settled in the inferior anterior chamber, so that's the finding shown.", EYE_FRONT, "A"),
    ("A layer of pus in the anterior chamber.", EYE_FRONT, "B"),
    ("No blood in the anterior chamber.", EYE_FRONT, None),
])
def test_set_28_classes(text, options, expected):
    assert _parse(text, options) == expected


# ---------------------------------------------------------------- after blind sets 29, 30, 31
ANKLE = ["Anterior talofibular ligament", "Calcaneofibular ligament", "Posterior talofibular ligament", "Deltoid ligament"]
JOINT = ["Rheumatoid arthritis", "Gout", "Pseudogout", "Hemarthrosis"]
TENDONS = ["Posterior tibial tendon", "Flexor hallucis longus tendon", "Flexor digitorum longus tendon",
           "Peroneus brevis tendon"]
GERM = ["Seminoma", "Embryonal carcinoma", "Yolk sac tumor", "Choriocarcinoma"]
SPUTUM = ["Charcot–Leyden crystals", "Curschmann spirals", "Ferruginous bodies", "Asteroid bodies"]
SMEAR = ["Chronic lymphocytic leukemia", "Acute lymphoblastic leukemia", "Mantle cell lymphoma, leukemic phase",
         "Hairy cell leukemia"]


@pytest.mark.parametrize("text, options, expected", [
    ("If there is trauma, the answer would be D (hemarthrosis); otherwise B (gout) fits the erosions with overhanging "
     "edges.", JOINT, None),
    ("If the lesion restricts diffusion, the answer is B; otherwise, C would be more likely.", JOINT, None),
    ("The torn structure is the ATFL. The calcaneofibular ligament appears intact.", ANKLE, "A"),
    ("The calcaneofibular ligament is torn.", ANKLE, "B"),
    ("So the answer should be A — no wait, A is cecal volvulus. The coffee bean from the pelvis is sigmoid volvulus, "
     "which is B.", ["Cecal volvulus", "Sigmoid volvulus", "Toxic megacolon", "Ogilvie syndrome"], "B"),
    ("D. Pilocytic astrocytoma — sorry, I mean B; pilocytic astrocytoma is option B. The mural nodule is classic.",
     ["Medulloblastoma", "Pilocytic astrocytoma", "Hemangioblastoma", "Ependymoma"], "B"),
    ("I'd lean towards A (Perthes) over C, although a slip should always be excluded.",
     ["Legg-Calvé-Perthes disease", "Transient synovitis", "Slipped capital femoral epiphysis", "DDH"], "A"),
    ("Most likely C, though B can't be fully excluded.", JOINT, "C"),
    ("The answer is C, the posterior tibial tendon.", TENDONS, None),
    ("The answer is A, the posterior tibial tendon.", TENDONS, "A"),
    ("CCCCCCCCCCCCCCCCCCCCCCCC", TENDONS, "C"), ("CA", TENDONS, None),
    ("This looks like a classic seminoma. Unlike embryonal carcinoma (option B), there is no marked pleomorphism.", GERM, "A"),
    ("Those are Curschmann spirals. Charcot–Leyden crystals would instead be slender bipyramidal crystals.", SPUTUM, "B"),
    ("Based on morphology alone, this could be either CLL (A) or the leukemic phase of mantle cell lymphoma (C), and I "
     "can't reliably favour one over the other; a few smudge cells are seen.", SMEAR, None),
    ("On balance, this tips toward **D**.", JOINT, "D"),
    ("There is air in the pleural space with a visible visceral pleural line and absent lung markings lateral to it.",
     ["Skin fold", "Bullous emphysema", "Pneumothorax", "Pneumomediastinum"], "C"),
    ("There is a crescent of free gas beneath the right hemidiaphragm.",
     ["Pneumoperitoneum", "Pneumatosis intestinalis", "Chilaiditi sign", "Small bowel obstruction"], "A"),
    ("ccRCC", ["Clear cell renal cell carcinoma", "Papillary renal cell carcinoma", "Clear cell papillary renal cell tumor",
               "Chromophobe renal cell carcinoma"], "A"),
])
def test_sets_29_to_31_classes(text, options, expected):
    assert _parse(text, options) == expected
