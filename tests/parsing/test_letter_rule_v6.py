"""letters-v6: another name of the option's condition (leaderboard/scoring/option_synonyms.py) answers when no
option's own text is named: eponyms and descriptive names, lay terms, older names, karyotypes. Each alias still
names one option only, is dropped when rejected, and an initialism among them counts only in capitals."""
import pytest

from leaderboard.scoring.letters import parse_letter
from leaderboard.scoring.option_synonyms import BROADER, GROUPS, INITIALISMS, synonyms
from leaderboard.scoring.option_text import folded_option

ZOSTER = ["Herpes zoster", "Herpes simplex", "Impetigo", "Varicella"]
VASCULITIS = ["Granulomatosis with polyangiitis", "Eosinophilic granulomatosis with polyangiitis",
              "Microscopic polyangiitis", "Polyarteritis nodosa"]
ECG = ["Hypokalemia", "Hyperkalemia", "Hypocalcemia", "Hypercalcemia"]
BLOCKS = ["First-degree AV block", "Second-degree AV block, Mobitz type I", "Second-degree AV block, Mobitz type II",
          "Third-degree AV block"]


def test_every_listed_name_is_written_as_the_rule_folds_it():
    names = [n for g in GROUPS for n in g] + [n for k, v in BROADER.items() for n in (k, *v)]
    assert [n for n in names if folded_option(n).strip() != n] == []
    assert INITIALISMS <= set(names)


def test_a_name_is_found_through_the_folding_of_the_option():
    assert parse_letter("Acid reflux.", "ABC", ["Gastroesophageal reflux disease", "Achalasia", "Peptic ulcer"]) == "A"
    assert parse_letter("Acid reflux.", "ABC", ["Gastro-oesophageal reflux disease", "Achalasia", "Peptic ulcer"]) == "A"


@pytest.mark.parametrize("text, options, expected", [
    ("Shingles (dermatomal vesicles on an erythematous base).", ZOSTER, "A"),
    ("Chickenpox.", ZOSTER, "D"),
    ("Prominent U waves and flattened T waves suggest low potassium.", ECG, "A"),
    ("Shortened QT interval -> high calcium.", ECG, "D"),
    ("Wegener granulomatosis.", VASCULITIS, "A"),  # not EGPA, whose text only contains the name
    ("Churg-Strauss syndrome with asthma and eosinophilia.", VASCULITIS, "B"),
    ("Necrotizing granulomatous vasculitis with c-ANCA: GPA (formerly Wegener's).", VASCULITIS, "A"),
    ("The PR interval lengthens until a P wave drops: Wenckebach.", BLOCKS, "B"),
    ("Constant PR with intermittently dropped QRS complexes: Mobitz II.", BLOCKS, "C"),
    ("Complete heart block.", BLOCKS, "D"),
    ("Scurvy.", ["Vitamin A deficiency", "Vitamin B12 deficiency", "Vitamin C deficiency"], "C"),
])
def test_another_name_of_one_option_answers(text, options, expected):
    assert parse_letter(text, "ABCDE"[:len(options)], options) == expected


@pytest.mark.parametrize("text, options", [
    ("Not shingles: the vesicles are grouped on the lip.", ZOSTER),  # rejected
    ("Shingles or chickenpox; a Tzanck smear cannot tell them apart.", ZOSTER),  # two options named
    ("gpa titres were sent.", VASCULITIS),  # an initialism not written in capitals
    ("Shingles.", ["Herpes zoster", "Herpes zoster ophthalmicus", "Impetigo"]),  # a name of two options
    ("Low potassium is unlikely with these T waves.", ECG),
])
def test_another_name_does_not_guess(text, options):
    assert parse_letter(text, "ABCDE"[:len(options)], options) is None


def test_a_name_is_given_only_to_options_that_open_with_it():
    assert "wegener granulomatosis" in synonyms("granulomatosis with polyangiitis")
    assert "wegener granulomatosis" not in synonyms("eosinophilic granulomatosis with polyangiitis")
    assert synonyms("herpes zoster ophthalmicus") >= {"shingles", "zoster"}
    assert "eczema" in synonyms("atopic dermatitis") and "atopic dermatitis" not in synonyms("eczema")
    assert synonyms("shingles") == {"herpes zoster", "zoster"} and synonyms("lobar pneumonia") == {"大 叶 性 肺 炎"}
