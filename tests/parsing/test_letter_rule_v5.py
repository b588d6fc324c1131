"""letters-v5 (leaderboard/scoring/option_numbers.py, letter_conclusion.py, letter_rejections.py verdict lines, and the
head-noun and "would" rules of option_text.py) on a hand-labelled corpus of real-model styles: option numbers,
discussions of several letters that end in a conclusion, letters asked or conditional, verdict lists, and the
cases where none of these may guess."""
import json
from pathlib import Path

import pytest

from leaderboard.scoring.letters import parse_letter
from leaderboard.scoring.option_numbers import numbers_as_letters

CORPUS_PATH = Path(__file__).with_name("letter_v5_corpus.jsonl")
CORPUS = [json.loads(line) for line in CORPUS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("case", CORPUS, ids=[f"W{n}-{c['style']}" for n, c in enumerate(CORPUS, 1)])
def test_v5_corpus_case(case):
    assert parse_letter(case["text"], case["letters"], case["options"]) == case["expected"]


def test_v5_corpus_is_varied():
    assert len(CORPUS) >= 200
    assert sum(c["expected"] is None for c in CORPUS) >= 50  # a quarter must stay unparseable
    styles = {c["style"] for c in CORPUS}
    assert {"option-number", "option-number-cjk", "cot-conclusion", "hedge", "refusal", "head-noun-hedge",
            "checkmarks", "conditional", "question"} <= styles


CXR = ["Pneumothorax", "Pleural effusion", "Lobar pneumonia", "Pulmonary edema"]


@pytest.mark.parametrize("text, expected", [
    ("Option 3", "C"),
    ("option 1", "A"),
    ("Option #4 is correct.", "D"),
    ("Option no. 2", "B"),
    ("choice 2", "B"),
    ("The answer is option two.", "B"),
    ("I'd choose the second option.", "B"),
    ("Option 1 is unlikely, option 3 is correct.", "C"),   # the rejection rules apply to the letter it becomes
    ("Option 2 or option 3.", None),                        # a hedge between two numbers
    ("Option 5", None),                                     # beyond a 4-option item, as "E" is
    ("Option 6", None),                                     # no letter at all
    ("Option3", None),                                      # glued to the word: DIGITS zeroes it, so never read
    ("Option 12", None),                                    # a longer number is no option number
    ("Option 3.5 mm", None),                                # nor a decimal ("3.5": the 3 touches a digit? no, a ".")
    ("Answer: 3", "C"),                                     # letters-v7 reads it (a number in v5)
    ("(3)", "C"),                                           # letters-v7: the whole response (a number in v5)
    ("Step 3 shows a meniscus.", None),
    ("The first choice of imaging is CT.", None),           # "first choice" is not "first option"
    ("the option one might choose", None),                  # "one" as a pronoun
    ("选项3", "C"),
    ("第2个选项", "B"),
    ("第四个选项", "D"),
])
def test_option_numbers(text, expected):
    assert parse_letter(text, "ABCD") == expected


def test_option_number_rewriting_keeps_everything_else():
    assert numbers_as_letters("Option 3 at 3 cm; option 12; step 2; the third option") == \
        "Option C at 3 cm; option 12; step 2; option C"
    assert numbers_as_letters("no numbers here") == "no numbers here"


@pytest.mark.parametrize("text, expected", [
    ("i think it's e.", "E"),
    ("It is most likely C.", "C"),
    ("it's probably b", "B"),
    ("it's a pleural effusion.", None),                     # the article, no letter (no options passed)
    ("It's unclear whether it's B.", None),                 # conditional
    ("If it's B, we would expect a meniscus.", None),
    ("Maybe A?", None),                                      # asked, never stated
    ("B? Or maybe D. Hard to say.", None),
    ("Is it B? Yes, the meniscus sign confirms B.", "B"),
])
def test_statements_questions_and_conditions(text, expected):
    assert parse_letter(text, "ABCDE") == expected


@pytest.mark.parametrize("text, expected", [
    # a concluding last sentence settles several letters
    ("A and C are biphasic. This is consistent with invasive ductal carcinoma, option B.", "B"),
    ("Options A and C are malignant; the stuck-on appearance is most consistent with B.", "B"),
    ("Between A and C, the pearly border makes C the most likely.", "C"),
    ("The 2 main differentials are B and D; D is favored.", "D"),
    ("The answer is A or C; I lean toward C.", "C"),
    # ... but not when it hedges, names two, or does not conclude
    ("A and C are possible. The border suggests C, but A cannot be excluded.", None),
    ("It could be A. Thus B is also possible.", None),
    ("The findings are consistent with A, B, or C.", None),
    ("A: no. B: yes, consistent. C: no. D: typical of older women. E: no.", None),
    ("The answer is A or C.", None),
    ("The options A through D are all possible.", None),
])
def test_several_letters(text, expected):
    assert parse_letter(text, "ABCDE") == expected


@pytest.mark.parametrize("text, expected", [
    ("A. Pneumothorax – No\nB. Pleural effusion – Yes\nC. Lobar pneumonia – No\nD. Pulmonary edema – No", "B"),
    ("- A. Pneumothorax: ❌\n- B. Pleural effusion: ✅\n- C. Lobar pneumonia: ❌\n- D. Pulmonary edema: ❌", "B"),
    ("A. 气胸 不正确\nB. 胸腔积液 正确\nC. 大叶性肺炎 不正确", "B"),
    ("| Option | Verdict |\n|---|---|\n| A | Unlikely |\n| B | Most likely |\n| C | Unlikely |", "B"),
    ("A. Pneumothorax – No\nB. Pleural effusion – No\nC. Lobar pneumonia – Yes\nD. Pulmonary edema – Yes", None),
    ("A) Yes B) No", None),                                   # an echoed Yes/No option list
    ("B: No", "B"),                                           # the option "No" answered, not a verdict
    ("A and C are malignant. The border suggests C, but A cannot be excluded.", None),  # no verdict line
])
def test_verdict_lists(text, expected):
    assert parse_letter(text, "ABCD") == expected


@pytest.mark.parametrize("text, expected", [
    ("Pleural effusion (B) and lobar pneumonia (C) were considered; this is most consistent with pulmonary edema.",
     "D"),                                                  # labels only: the texts decide
    ("Pleural effusion (B) and lobar pneumonia (C) are both possible.", None),
    ("Pleural effusion (B) is likely, but C is also possible.", None),  # C is no label: a real second letter
    ("The findings are nonspecific; pleural effusion and pneumonia both remain possible.", None),  # head noun
    ("Pleural effusion, probably secondary to pneumonia.", "B"),  # a head noun not listed beside it
    ("Pneumonia.", None),                                   # a head noun alone names no option
    ("Pulmonary edema is most likely, although a small pleural effusion is also present.", "D"),
    ("Pleural effusion. Pneumothorax would show a visceral pleural line.", "B"),  # "would show": a contrast
    ("A pneumothorax would show a visceral pleural line, which is present here.", "A"),  # nothing else named
    ("Pleural effusion would be my answer; lobar pneumonia is less likely.", "B"),
    ("Pleural effusion or pulmonary edema; a lateral view would be needed.", None),
    ("C (lobar pneumonia), though pleural effusion (B) remains in the differential.", "C"),  # a glossed lead
    ("A (45-year-old) man with dyspnoea.", None),           # the article, glossed: no leading letter
])
def test_option_texts_and_labels(text, expected):
    assert parse_letter(text, "ABCD", CXR) == expected


@pytest.mark.parametrize("text, options, expected", [
    ("AF", ["Atrial fibrillation", "Atrial flutter", "Ventricular tachycardia"], "A"),  # listed beats initials
    ("AFL", ["Atrial fibrillation", "Atrial flutter", "Ventricular tachycardia"], "B"),
    ("PCNSL", ["Glioblastoma", "Meningioma", "Primary CNS lymphoma"], "C"),
    ("GBM vs mets", ["Glioblastoma", "Meningioma", "Metastasis"], None),
    ("mets", ["Glioblastoma", "Meningioma", "Metastasis"], "C"),
])
def test_abbreviations(text, options, expected):
    assert parse_letter(text, "ABCDE"[:len(options)], options) == expected


@pytest.mark.parametrize("text, expected", [
    ("I cannot determine whether this is a pneumothorax without a lateral view.", None),
    ("It is not possible to diagnose pleural effusion from this image alone.", None),
    ("I'm unable to confirm lobar pneumonia; please correlate clinically.", None),
    ("If pulmonary edema were present, Kerley lines would be seen.", None),
    ("I can't be certain, but this is most likely a pleural effusion.", "B"),  # the refusal's clause ends first
    ("Pleural effusion; cannot exclude pneumonia.", "B"),
    ("This could be a pleural effusion.", "B"),              # a weak commitment is still the one option named
])
def test_refused_or_conditional_option_texts(text, expected):
    assert parse_letter(text, "ABCD", CXR) == expected


@pytest.mark.parametrize("text, options, expected", [
    # British spellings fold as American ones (words of six letters or more, both sides)
    ("Vitreous haemorrhage", ["Retinal detachment", "Vitreous hemorrhage", "Macular hole"], "B"),
    ("Pulmonary oedema.", CXR, "D"),
    ("Oesophageal tumour", ["Esophageal tumor", "Gastric ulcer", "Hiatal hernia"], "A"),
    # an initialism of three or more of the option's words
    ("ACL tear", ["Anterior cruciate ligament tear", "Medial meniscus tear", "Patellar dislocation"], "A"),
    ("the acl", ["Anterior cruciate ligament tear", "Medial meniscus tear", "Patellar dislocation"], None),
    # an option's first word as the response's closing label, never inside a sentence
    ("Tinea.", ["Psoriasis", "Atopic dermatitis", "Tinea corporis", "Lichen planus"], "C"),
    ("Boot-shaped heart: tetralogy.", ["Atrial septal defect", "Tetralogy of Fallot", "Coarctation of the aorta"], "B"),
    ("Rib notching = coarctation.", ["Atrial septal defect", "Tetralogy of Fallot", "Coarctation of the aorta"], "C"),
    ("There is a ring-enhancing lesion in the brain.", ["Glioblastoma", "Meningioma", "Brain abscess"], None),
    ("Brain", ["Glioblastoma", "Meningioma", "Brain abscess", "Brain metastasis"], None),  # shared first word
    ("Acute.", ["Acute appendicitis", "Acute cholecystitis", "Acute pancreatitis"], None),  # generic
])
def test_spellings_initialisms_and_closing_labels(text, options, expected):
    assert parse_letter(text, "ABCDE"[:len(options)], options) == expected


@pytest.mark.parametrize("text, expected", [
    ("I believe the answer is D, but it could also be C.", None),
    ("The answer is D, which can be confirmed on a lateral view.", "D"),
    ("The answer is D. It could also be C in a child.", "D"),      # the next sentence: the statement stands
    ("Answer: B, though it may be B-lines.", "B"),
])
def test_an_alternative_in_the_statements_sentence(text, expected):
    assert parse_letter(text, "ABCDE") == expected


ENDO = ["Addison's disease", "Cushing's syndrome", "Conn's syndrome", "Pheochromocytoma"]


@pytest.mark.parametrize("text, options, expected", [
    ("Cushing syndrome.", ENDO, "B"),                      # an eponym without its possessive
    ("Addisons disease", ENDO, "A"),
    ("Ewing's sarcoma", ["Osteosarcoma", "Ewing sarcoma", "Chondrosarcoma"], "B"),  # ... and with one
    ("Cushing syndrome or Conn syndrome.", ENDO, None),
    ("Yes, there is a fracture.", ["Yes", "No"], "A"),     # a generic option as the opening clause
    ("No, there is no pneumothorax.", ["Yes", "No"], "B"),
    ("The answer is yes.", ["Yes", "No"], "A"),            # ... or closing an answer statement
    ("There is no evidence of a fracture.", ["Yes", "No"], None),
    ("Yes or no depends on the context.", ["Yes", "No"], None),
    ("I see no fracture; yes.", ["Yes", "No"], None),
    ("Macroscopic fat: AML.", ["Renal cell carcinoma", "Angiomyolipoma", "Oncocytoma"], "B"),
])
def test_eponyms_and_generic_options(text, options, expected):
    assert parse_letter(text, "ABCDE"[:len(options)], options) == expected


@pytest.mark.parametrize("text, expected", [
    ("- A: no\n- B: yes\n- C: no\nFinal: B", "B"),          # "Final: B" labels the answer
    ("Final answer: B. The disc is normal, so actually A.", "A"),  # corrected after the final answer
    ("Final answer: B. Answer options A and C are wrong.", "B"),   # no correction
    ("The answer is A. The answer is actually C.", "C"),
    ("The most likely answer is E, but (B) is also possible.", None),
    ("The most likely answer is E, and B is still possible.", None),
    ("The answer is E. B is also possible in older patients.", "E"),  # another sentence: the statement stands
])
def test_final_labels_and_corrections(text, expected):
    assert parse_letter(text, "ABCDE") == expected


@pytest.mark.parametrize("text, expected", [
    ("Air trapping fits hypersensitivity pneumonitis better than sarcoidosis.", "B"),
    ("C fits better than A.", "C"),
])
def test_better_than_rejects_what_follows(text, expected):
    assert parse_letter(text, "ABC", ["Sarcoidosis", "Hypersensitivity pneumonitis", "Silicosis"]) == expected


@pytest.mark.parametrize("text, expected", [
    ("Pneumothorax? No. Pleural effusion? Yes.", "B"),     # a question answered "No" rejects its option
    ("No. Pleural effusion.", "B"),                       # "no" in another clause negates nothing
    ("Pleural effusion, no pneumothorax.", "B"),
    ("Pleural effusion? Pneumothorax? Hard to say.", None),
])
def test_questions_answered_and_clause_bounded_negation(text, expected):
    assert parse_letter(text, "ABCD", CXR) == expected


HEP = ["Hepatitis A", "Hepatitis B", "Hepatitis C", "Autoimmune hepatitis"]
VIT = ["Vitamin A deficiency", "Vitamin B12 deficiency", "Vitamin C deficiency", "Vitamin D deficiency"]


@pytest.mark.parametrize("text, options, expected", [
    ("Hepatitis B or C.", HEP, None),                     # the list names two options
    ("Hepatitis B, not C.", HEP, "B"),
    ("Vitamin C and D levels should be measured.", VIT, None),
    ("Vitamin D", VIT, "D"),
    ("The answer is Hepatitis B.", HEP, "B"),
])
def test_term_lists(text, options, expected):
    assert parse_letter(text, "ABCD", options) == expected


def test_term_lists_without_options():
    assert parse_letter("Hepatitis B or C.") is None       # C continues the term, it is no answer letter
    assert parse_letter("Type A/B dissection") is None
    assert parse_letter("Grade 2 or C") == "C"             # no letter term before it


ARTH = ["Rheumatoid arthritis", "Osteoarthritis", "Gout", "Psoriatic arthritis", "Septic arthritis"]


@pytest.mark.parametrize("text, expected", [
    ("OA", "B"),
    ("PsA", "D"),                                          # mixed case, capital first and last
    ("psa", None),                                         # the word, not the abbreviation
    ("1) RA - no\n2) OA - yes\n3) Gout - no", "B"),        # a verdict list of option texts
    ("The best option is the second one.", "B"),
    ("The first one might be considered too.", None),     # "the first one" + a modal: no option named
])
def test_arthritis_abbreviations_and_ordinals(text, expected):
    assert parse_letter(text, "ABCDE", ARTH) == expected


@pytest.mark.parametrize("text, expected", [
    ("Neither medullary nor anaplastic; papillary.", "A"),
    ("Neither A nor B is correct, so C.", "C"),           # a verdict after "neither/nor" is no statement
    ("Neither A nor B.", None),
])
def test_neither_nor(text, expected):
    assert parse_letter(text, "ABCD", ["Papillary thyroid carcinoma", "Follicular adenoma",
                                      "Medullary thyroid carcinoma", "Anaplastic thyroid carcinoma"]) == expected
