"""letters-v7 (issue 27, the classes of letters-v6's misses on the seen blind sets): each rule with cases that fire
and near-misses that must not. docs/parsing.md states the rule; leaderboard/scoring/letter_pairs.py,
letter_corrections.py, option_numbers.counted_numbers, letter_rejections.checklist_letter and
letter_conclusion.ends_in_analysis hold the new parts."""
import numpy as np
import pyarrow as pa
import pytest

from benchmarks.medcmr.scorer import choose_letters
from benchmarks.xpcr.response_letters import _parse_responses
from leaderboard.scoring.letter_pairs import contradicting_pair
from leaderboard.scoring.letters import needs_options, parse_letter
from leaderboard.scoring.option_numbers import counted_numbers

CXR = ["Pneumothorax", "Pleural effusion", "Lobar pneumonia", "Pulmonary edema"]
BIRADS = ["BI-RADS 2", "BI-RADS 3", "BI-RADS 4", "BI-RADS 5"]
BLOCKS = ["Mobitz I second-degree AV block", "First-degree AV block", "Mobitz II second-degree AV block",
          "Third-degree AV block"]
SKIN = ["Seborrheic keratosis", "Actinic keratosis", "Squamous cell carcinoma", "Basal cell carcinoma", "Melanoma"]
IBD = ["Ulcerative colitis", "Crohn's disease", "Ischemic colitis", "Infectious colitis"]
CHEST_PAIN = ["Pulmonary embolism", "Aortic dissection", "Pericardial effusion", "Tension pneumothorax"]
SVT = ["Atrial flutter", "AV nodal reentrant tachycardia", "Atrioventricular reentrant tachycardia",
       "Ventricular tachycardia"]
MACULA = ["Central serous chorioretinopathy", "Diabetic macular edema", "Age-related macular degeneration", "Macular hole"]
ACS = ["Stable angina", "NSTEMI", "STEMI", "Acute pericarditis"]
RING = ["Glioblastoma", "Metastasis", "Cerebral abscess", "Tumefactive demyelination"]
BLEED = ["Subdural hematoma", "Epidural hematoma", "Subarachnoid hemorrhage", "Intraparenchymal hemorrhage"]


def _parse(text, options):
    return parse_letter(text, "ABCDE"[:len(options)], options)


# 1. a letter and another option's text: neither (unless the rest of the response names one of the two)
@pytest.mark.parametrize("text, options, expected", [
    ("The answer is B: Pneumothorax", CXR, None),
    ("Answer: A (Mobitz II)", BLOCKS, None),
    ("**C** – Basal cell carcinoma", SKIN, None),
    ("Answer: B) Lobar pneumonia", CXR, None),
    ("Option 4: BI-RADS 3", BIRADS, None),
    # the reasoning names the text's option (or the letter's): it breaks the tie
    ("Skip lesions and cobblestoning point to Crohn's disease.\n\nAnswer: C. Crohn's disease", IBD, "B"),
    ("Continuous inflammation from the rectum points to ulcerative colitis.\n\nAnswer: C. Crohn's disease", IBD, None),
    # near-misses: the letter's own text, text naming no option, a mention that does not stand alone
    ("The answer is B: Pleural effusion", CXR, "B"),
    ("Answer: C (Mobitz II)", BLOCKS, "C"),
    ("**D** – Basal cell carcinoma", SKIN, "D"),
    ("Option 2: BI-RADS 3", BIRADS, "B"),
    ("The answer is B: see the fluid level", CXR, "B"),
    ("The answer is B, pneumothorax.", CXR, None),
    ("b: pneumothorax", CXR, None),  # a lower-case letter before a colon is a letter
    ("b: pleural effusion", CXR, "B"),
    ("Answer: B\n\nB. Pneumothorax", CXR, None),
    ("Pneumothorax (B).", CXR, "B"),  # the other order: a stated letter wins over the text before it (letters-v3)
    ("The answer is B. Pneumothorax, pulmonary edema and pneumonia are less likely.", CXR, "B"),  # a list goes on
    ("Answer: B. Pneumothorax is less likely given the lung markings.", CXR, "B"),
])
def test_a_letter_paired_with_another_options_text(text, options, expected):
    assert _parse(text, options) == expected


def test_the_pair_is_found_only_beside_a_different_option():
    assert contradicting_pair("The answer is B: Pneumothorax", "B", "ABCD", CXR) == (14, 29, "A")
    assert contradicting_pair("The answer is B: Pleural effusion", "B", "ABCD", CXR) is None
    # the letter's own text elsewhere beside it: the writer labels consistently, no contradiction
    assert contradicting_pair("B: Pleural effusion. Answer B: Pneumothorax", "B", "ABCD", CXR) is None


# 2. option numbers that need the option count
@pytest.mark.parametrize("text, options, expected", [
    ("Answer: 1", CXR, "A"),
    ("3", CXR, "C"),
    ("The last option is correct.", CXR, "D"),
    ("The last option is correct.", SKIN, "E"),
    ("Answer: ii", CXR, "B"),
    ("Answer: iv", CXR, "D"),
    ("我选第4个。", CXR, "D"),
    ("我选第2个", CXR, "B"),
    # never beyond the count, never a number that is a word of an option, never a measurement or another ordinal
    ("Answer: 5", CXR, None),
    ("Answer: v", CXR, None),
    ("3", BIRADS, None),
    ("Answer: 3", BIRADS, None),
    ("Answer: 3 days", CXR, None),
    ("Answer: 2.5 cm", CXR, None),
    ("Stage 2 disease. Grade 1.", CXR, None),
    ("第2个病灶较大", CXR, None),
    ("The final option is C.", CXR, "C"),  # "the final option" naming its letter is not "option D"
])
def test_option_numbers_that_need_the_count(text, options, expected):
    assert _parse(text, options) == expected


def test_counted_numbers_rewrites_only_what_it_reads():
    assert counted_numbers("Answer: 2. The rest at 2 cm.", "ABCD") == "Answer: B. The rest at 2 cm."
    assert counted_numbers("Answer: I", "ABCDEFGHIJ") == "Answer: I"  # the letter I itself on a long item
    assert counted_numbers("the last one", "ABC") == "option C"


# 3. self-correction and retraction
@pytest.mark.parametrize("text, expected", [
    ("The answer is D) Pulmonary edema — no, scratch that, I mean B.", "B"),
    ("The answer is B. Actually, on reflection, the meniscus is absent, so this is lobar pneumonia: C.", "C"),
    ("The answer is B. Wait, no: C.", "C"),
    ("I think the answer is pneumothorax. Wait, no.", None),
    ("I think the answer is B. Wait, no.", None),
    # a marker followed by no new letter, or by a letter only discussed, changes nothing
    ("The answer is B. Actually, the meniscus confirms it.", "B"),
    ("The answer is B. Actually, A is a common mimic, but the meniscus confirms it.", "B"),
    ("No pneumothorax. The answer is B.", "B"),
    # a correction may restate an option's text
    ("The answer is A. Actually, it's pleural effusion.", "B"),
    ("The answer is A. Wait, I mean pleural effusion.", "B"),
    ("The answer is A. Actually, it's not pleural effusion.", "A"),
    ("The answer is A. Actually, it is hard to tell pleural effusion from pneumonia here.", "A"),
])
def test_corrections(text, expected):
    assert _parse(text, CXR) == expected


# 4. negation reaching a bracketed letter or written as a contraction
@pytest.mark.parametrize("text, expected", [
    ("This is not pneumothorax (A); there are lung markings.", None),
    ("This is not pneumothorax (A); the fluid level makes it B.", "B"),
    ("The answer isn't C.", None),
    ("The answer isn't C; it is D.", "D"),
    ("B is unlikely because there is no meniscus, and C does not fit either.", None),
    ("The absence of a meniscus rules out B. Between C and D, D fits better given the bat-wing pattern.", "D"),
    ("Pulmonary edema isn't likely; lobar pneumonia is.", "C"),
    # the negation ends at a clause word: the bracketed letter is the answer
    ("Not raised, so this is lobar pneumonia (C).", "C"),
])
def test_negation_reaches_the_letter(text, expected):
    assert _parse(text, CXR) == expected


# 5. hedges between letters
@pytest.mark.parametrize("text, expected", [
    ("The answer is A? Or B? The film is hard to read.", None),
    ("I'm leaning towards A but honestly B is about as likely.", None),
    ("The differential includes A (pneumothorax) and B (pleural effusion).", None),
    ("I'm leaning towards A; B is less likely.", "A"),
    ("While pulmonary edema (D) can cause effusions, this points to pleural effusion (B).", "B"),
    ("Both A and C are reasonable, but the most likely is C given the age.", "C"),
    ("If I must pick one option, it would be B.", "B"),
    ("B or C, most likely B.", "B"),
    ("Most likely B. Differential: C, D.", "B"),
    ("I first considered A, but the meniscus makes it B.", "B"),
    ("Probably not B.", None),
    ("Most likely B, but C cannot be excluded.", "B"),  # letters-v10: a lean with a concession takes the lean
])
def test_hedges_between_letters(text, expected):
    assert _parse(text, CXR) == expected


# 6. analysis that stops before concluding; reasoning cut off inside a think block
@pytest.mark.parametrize("text, expected", [
    ("Let's analyze each option:\n\nA. Pneumothorax – the lung edge is visible; the image does show", None),
    ("<think>\nLet me consider each option. The meniscus suggests pleural effusion. Let me also consider", None),
    ("Let's analyze each option:\n\nA. Pneumothorax – no lung edge.\nB. Pleural effusion – meniscus present.\n\n"
     "So the answer is B.", "B"),
    ("Findings:\n\nA. Pneumothorax – a visible pleural line", "A"),  # no analysis announced: a labelled answer
    ("<think>\nThe meniscus is clear. The answer is B.", "B"),  # cut off after a statement
    ("<think>\nThe meniscus is clear.</think>\nPleural effusion.", "B"),
])
def test_unfinished_reasoning(text, expected):
    assert _parse(text, CXR) == expected


# 7. letters inside terms
@pytest.mark.parametrize("text, options, expected", [
    ("Antoni A and Antoni B areas with Verocay bodies: schwannoma.",
     ["Neurofibroma", "Meningioma", "Schwannoma", "Leiomyoma"], "C"),
    ("Kerley B lines and bat-wing opacities: pulmonary edema.", CXR, "D"),
    ("Kerley B lines.", ["Pneumothorax", "Pleural effusion", "Lobar pneumonia", "Sarcoidosis"], None),
    ("Kerley B lines.", CXR, "D"),  # letters-v9: the sign answers its condition (letter_signs.py), never the "B"
    ("Subtype C pattern; the answer is B.", CXR, "B"),
    ("Weber C fracture of the fibula.", ["Weber A", "Weber B", "Weber C", "Maisonneuve"], "C"),  # the option's text
])
def test_letters_inside_terms(text, options, expected):
    assert _parse(text, options) == expected


# 8. Cyrillic answer letters; a checklist marking one option
@pytest.mark.parametrize("text, expected", [
    ("Ответ: Б. Жидкость.", "B"),
    ("Правильный ответ — Г", "D"),
    ("Ответ в том, что это В.", None),  # the preposition "в", not an answer letter
    ("Απάντηση: Β", "B"),
    ("Відповідь: Г", "D"),
    ("| Option | Verdict |\n|---|---|\n| A | ✗ |\n| B | ✓ |\n| C | ✗ |", "B"),
    ("- Option A: no\n- Option B: yes ✔\n- Option C: no", "B"),
    ("A. Pneumothorax ✗\nB. Pleural effusion ✓\nC. Lobar pneumonia ✗", "B"),
    ("- Option A: yes\n- Option B: yes ✔\n- Option C: no", None),  # two marked yes
    ("Pneumothorax ❌\nPleural effusion ✅\nLobar pneumonia ❌", "B"),  # the options' texts label the lines
    ("- Pneumothorax: no\n- Pleural effusion: yes", "B"),
    ("Pneumothorax ❌\nPleural effusion ❌", None),  # nothing marked yes
    ("Let's analyze each option:\nA. Pneumothorax – no.\nB. Pleural effusion – yes.\nC. Lobar pneumonia – no.", "B"),
])
def test_cyrillic_and_checklists(text, expected):
    assert _parse(text, CXR) == expected


def test_a_bare_verdict_checklist_needs_the_option_texts():
    text = "A) no\nB) yes\nC) no\nD) no"
    assert _parse(text, CXR) == "B"  # the options are no yes/no texts: verdicts
    assert parse_letter(text, "ABCD") is None  # without them it may echo a yes/no item's options


def test_an_echoed_yes_no_option_list_is_no_checklist():
    assert _parse("A. Yes\nB. No", ["Yes", "No"]) is None
    assert _parse("- Option A: yes\n- Option B: no", ["Yes", "No"]) is None  # the options' own texts
    assert _parse("- Option A: yes\n- Option B: no", ["Fracture", "No fracture"]) == "A"  # verdicts
    assert _parse("- Option A: yes\n- Option B: no", ["Yes", "No"]) != parse_letter("- Option A: yes\n- Option B: no", "AB")
    assert needs_options("A", ["Yes", "No"], "- Option A: yes\n- Option B: no")  # so batch paths re-parse it


# 9. abbreviations, comparisons and contrasts through the option texts
@pytest.mark.parametrize("text, options, expected", [
    ("The ECG shows AVNRT.", SVT, "B"),
    ("CSC vs. DME — the serous detachment strongly favors CSC.", MACULA, "A"),
    ("PE. Filling defect in the pulmonary arteries.", CHEST_PAIN, "A"),
    ("PE. Sudden chest pain.", CHEST_PAIN, None),  # no telling word: both options are "PE"
    ("PE. Fluid around the heart.", CHEST_PAIN, "C"),  # letters-v9: the lay name of option C tells which "PE"
    ("PE? Filling defect in the pulmonary arteries.", CHEST_PAIN, None),  # asked
    ("PE.", CHEST_PAIN, None),
    ("The ST-elevation myocardial infarction.", ACS, "C"),
    ("Non-ST-elevation myocardial infarction.", ACS, "B"),
    ("This favors an abscess over a tumor.", RING, "C"),
    ("An abscess.", ["Glioblastoma", "Brain abscess", "Lung abscess", "Lymphoma"], None),  # two places
    ("Crescent-shaped → subdural hematoma. Biconvex would be epidural.", BLEED, "A"),
    ("The answer would be epidural hematoma.", BLEED, "B"),
    ("The lens-shaped collection, which would be epidural hematoma.", BLEED, "B"),
    ("Could be a pneumothorax or could be a bulla.", CXR, None),
    ("This could be a pneumothorax.", CXR, "A"),
    ("Acute cerebral infarction in the left MCA territory.", ["Hemorrhagic stroke", "Ischemic stroke", "Glioma"], "B"),
    ("Bulls-eye rash after a tick bite.", ["Erythema migrans", "Cellulitis", "Tinea corporis"], "A"),
    ("Free intraperitoneal air under the diaphragm.", ["Pneumoperitoneum", "Pneumothorax", "Bowel perforation"], "A"),
    ("No cerebral infarction; a hemorrhagic stroke.", ["Hemorrhagic stroke", "Ischemic stroke", "Glioma"], "A"),
    ("Start an ARNI.", ["Loop diuretic alone", "Sacubitril/valsartan", "Heart transplantation evaluation",
                        "Observation only"], "B"),
])
def test_option_text_additions(text, options, expected):
    assert _parse(text, options) == expected


TB = ["肺结核", "肺癌", "肺炎", "肺脓肿"]


@pytest.mark.parametrize("text, expected", [
    ("首先考虑肺结核。但也不能排除肺癌的可能。", "A"),  # as "... lung cancer cannot be excluded"
    ("考虑肺癌，排除肺结核。", "B"),  # rule out
    ("肺结核或者肺癌。", None),  # either: both named
    ("是否为肺癌？需要活检。", None),  # asked
    ("诊断为肺炎。", "C"),
])
def test_chinese_option_texts_are_rejected_and_hedged_as_english_ones(text, expected):
    assert _parse(text, TB) == expected



# batch scorers parse without options first: the new option-dependent rules must reach them
BATCH = [("The answer is B: Pneumothorax", CXR), ("Option 4: BI-RADS 3", BIRADS), ("3", BIRADS),
         ("Let's analyze each option:\n\nA. Pneumothorax – the lung edge is visible; the image does show", CXR),
         ("**C** – Basal cell carcinoma", SKIN), ("The answer is B, pneumothorax.", CXR),
         ("Answer: ii. Pneumothorax", CXR), ("Ответ: Б. Pneumothorax", CXR),
         ("The answer is A.\n\nActually, it's pleural effusion.", CXR),
         ("The last one, pleural effusion.", CXR),  # "the last option" is D only with the option count
         ("C\nPneumothorax ❌\nPleural effusion ✅", CXR),  # a text checklist outranks the leading C
         ("The answer is B: Pleural effusion", CXR), ("Answer: 1", CXR)]


def test_needs_options_covers_the_new_rules():
    for text, options in BATCH:
        without = parse_letter(text, "ABCDE"[:len(options)])
        if not needs_options(without, options, text):
            assert _parse(text, options) == without, text


def test_batch_scorers_equal_parse_letter_on_the_new_rules():
    expected = [_parse(t, o) for t, o in BATCH]
    assert expected == [None] * 8 + ["B", None, "B", "B", "A"]
    got = _parse_responses(pa.array([t for t, _ in BATCH]), np.array([len(o) for _, o in BATCH]),
                           np.ones(len(BATCH), dtype=bool), pa.chunked_array([[o for _, o in BATCH]]))
    assert got.tolist() == [-1 if x is None else "ABCDE".index(x) for x in expected]
    letters, failed = choose_letters(np.array([None] * len(BATCH), dtype=object),
                                     np.array([t for t, _ in BATCH], dtype=object), np.ones(len(BATCH), dtype=bool),
                                     [o for _, o in BATCH])
    assert list(letters) == expected and failed.tolist() == [x is None for x in expected]
