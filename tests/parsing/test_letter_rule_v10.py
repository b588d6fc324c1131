"""letters-v10 (issue 27, after blind sets 13-14): a lean with a concession takes the lean (letter_leans.py); Chinese
names answer English options (option_chinese.py); an if-clause's consequent asserts nothing; a denial covers a
coordinated list; a response cut off after "would favor" answers nothing; Chinese corrections. Each rule with cases
that fire and near-misses that must not; docs/parsing.md step 9."""
import pytest

from leaderboard.scoring.letter_text import cut_off_mid_sentence
from leaderboard.scoring.letters import parse_letter
from leaderboard.scoring.option_chinese import CHINESE
from leaderboard.scoring.option_synonyms import fold_cjk, synonyms
from leaderboard.scoring.option_text import fold

CORD = ["Multiple sclerosis", "Neuromyelitis optica spectrum disorder", "Idiopathic transverse myelitis",
        "Spinal cord infarction"]
PLACENTA = ["Placenta previa", "Placental abruption", "Placenta accreta", "Vasa previa"]
PE = ["Acute pulmonary embolism", "Chronic thromboembolic pulmonary hypertension", "Pulmonary artery sarcoma",
      "Mucus plugging"]
STAGE = ["T1cN0M0, stage IA3", "T2bN1M0, stage IIB", "T3N2M0, stage IIIB", "T4N2M0, stage IIIC", "T2aN0M1b, stage IVA"]
OVARY = ["Granulosa cell tumor", "Sertoli-Leydig cell tumor", "Dysgerminoma", "Yolk sac tumor"]
POLYP = ["Tubular adenoma", "Hyperplastic polyp", "Sessile serrated lesion", "Invasive adenocarcinoma"]
HIP = ["Avascular necrosis of the femoral head", "Transient osteoporosis of the hip", "Femoral neck stress fracture",
       "Septic arthritis of the hip"]


def _parse(text, options):
    return parse_letter(text, "ABCDE"[:len(options)], options)


@pytest.mark.parametrize("text, expected", [
    # the lean, conceded the other
    ("This is most likely B, though idiopathic transverse myelitis (C) cannot be completely excluded.", "B"),
    ("It could be C, but D seems more likely given the pattern.", "D"),
    ("Likely C (PI-RADS 4), although it is borderline with D.", "C"),
    ("更倾向于D，但B也不能完全排除，需结合年龄判断。", "D"),
    ("Most likely A, while B remains possible.", "A"),
    # no lean, or an equal alternative: unparseable
    ("Most likely B, though C is also possible.", None),
    ("Either B or C; I cannot decide.", None),
    ("B or C, cannot be excluded either way.", None),
    ("更倾向于D，但B也有可能。", None),
    ("Most likely B or C, though A cannot be excluded.", None),  # three letters
    ("It could be C, and D is also possible.", None),
])
def test_a_lean_with_a_concession(text, expected):
    assert _parse(text, CORD) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("超声图像显示胎盘后方低回声区。结合孕晚期腹痛伴阴道出血，符合胎盘早剥。", PLACENTA, "B"),
    ("前置胎盘", PLACENTA, "A"),
    ("答案：C（急性肺栓塞）", PE, None),  # the letter and its gloss name different options
    ("答案：A（急性肺栓塞）", PE, "A"),
    ("该患者不考虑胎盘早剥。", PLACENTA, None),  # 不考虑: not considered
])
def test_chinese_names_answer_english_options(text, options, expected):
    assert _parse(text, options) == expected


def test_the_chinese_table_folds_as_responses_do():
    assert all(fold(name).text.strip() == name for name in CHINESE)  # keys meet folded option texts
    assert fold_cjk("弥漫大B细胞淋巴瘤") == fold("弥漫大B细胞淋巴瘤").text.strip() == "弥 漫 大 b 细 胞 淋 巴 瘤"
    assert "胎 盘 早 剥" in synonyms("placental abruption") and "急 性 肺 栓 塞" in synonyms("acute pulmonary embolism")
    assert "胎 盘 早 剥" not in synonyms("placenta previa")


@pytest.mark.parametrize("text, options, expected", [
    ("Given the mediastinal invasion, I would stage this as T4N2M0, stage IIIC. However, if the invasion is only "
     "apparent abutment, it would be T3N2M0, stage IIIB.", STAGE, "D"),
    ("If the invasion is real, it would be T4N2M0, stage IIIC.", STAGE, None),  # only a condition
    ("If I had to choose, it would be T4N2M0, stage IIIC.", STAGE, "D"),  # commits
    ("There is no tubular differentiation or Leydig cells, and no Schiller-Duval bodies (against yolk sac "
     "tumor).\n\nThis is an adult granulosa cell tumor.", OVARY, "A"),
    ("Leydig cells are present.\n\nThis is an adult granulosa cell tumor.", OVARY, "A"),  # the closing statement
    ("This is a granulosa cell tumor or a dysgerminoma.", OVARY, None),  # two options in the closing clause
    ("This is a granulosa cell tumor. Dysgerminoma remains in the differential, and yolk sac tumor too.", OVARY, None),
])
def test_conditions_denials_and_a_closing_statement(text, options, expected):
    assert _parse(text, options) == expected


def test_a_denial_covers_a_coordinated_list():
    from leaderboard.scoring.option_text import asserted_options
    assert asserted_options("There are no Call-Exner bodies or Leydig cells.", OVARY) == set()
    assert asserted_options("There are Call-Exner bodies or Leydig cells.", OVARY) == {1}
    assert asserted_options("Without necrosis, dysgerminoma or yolk sac tumor fit.", OVARY) == {2, 3}  # new clause


@pytest.mark.parametrize("text, expected", [
    ("答案是B。\n不对，重新看一下图片：肿瘤性腺体已浸润至黏膜下层。\n应为D。", "D"),
    ("答案是B。\n重新看一下图片：增生性改变为主。", "B"),  # a look again, no other letter: B stands
])
def test_chinese_corrections(text, expected):
    assert _parse(text, POLYP) == expected


def test_a_response_cut_off_before_its_object_answers_nothing():
    cut = ("The coronal T1 image shows a serpiginous low-signal line in the femoral head. A \"double-line sign\" on "
           "T2 would strongly suggest avascular necrosis, whereas a line perpendicular to the cortex would instead indicate")
    assert cut_off_mid_sentence(cut) and _parse(cut, HIP) is None
    assert _parse(cut.rsplit(",", 1)[0] + ". This is avascular necrosis of the femoral head.", HIP) == "A"
    assert not cut_off_mid_sentence("The findings favor avascular necrosis of the femoral head")  # ends on a noun
    assert parse_letter('A "double-line sign" on T2 suggests necrosis.', "ABCD") is None  # the article
    assert parse_letter('The answer is A "avascular necrosis".', "ABCD") == "A"


@pytest.mark.parametrize("text, expected", [
    ("Hmm, A or C. Going with C.", "C"),
    ("A or C. Let's go with C (central retinal vein occlusion).", "C"),
    ("A or C. Settling on C.", "C"),
    ("A or C. C it is.", "C"),
    ("A vs C — my pick: C", "C"),
    ("I'm not going with A.", None),  # rejected
    ("I wouldn't choose C; B fits.", "B"),
    ("A it is not.", None),
])
def test_informal_choices(text, expected):
    assert parse_letter(text, "ABCD") == expected
