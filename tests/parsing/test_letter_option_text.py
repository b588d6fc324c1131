"""letters-v3's (and v4's) option-text step and term rules (leaderboard/scoring/letters.py, leaderboard/scoring/option_text.py), on a
hand-labelled corpus of responses that restate an option's wording, plus one case per rule that a one-line
change to the rule would fail."""
import json
from pathlib import Path

import pytest

from leaderboard.scoring.letters import parse_letter
from leaderboard.scoring.option_text import fold, mentions, named_option

CORPUS_PATH = Path(__file__).with_name("letter_options_corpus.jsonl")
CORPUS = [json.loads(line) for line in CORPUS_PATH.read_text(encoding="utf-8").splitlines() if line.strip()]

TUMOURS = ["Glioma", "Meningioma", "Brain abscess", "Metastasis", "Primary CNS lymphoma"]
LYMPH = ["Hodgkin lymphoma", "Non-Hodgkin lymphoma", "Lymphoma", "Castleman disease"]


@pytest.mark.parametrize("case", CORPUS, ids=[f"O{n}-{c['style']}" for n, c in enumerate(CORPUS, 1)])
def test_option_corpus_case(case):
    assert parse_letter(case["text"], case["letters"], case["options"]) == case["expected"], case.get("note", "")


def test_option_corpus_is_varied():
    assert len(CORPUS) >= 60
    assert sum(c["expected"] is None for c in CORPUS) >= 10
    assert len({c["style"] for c in CORPUS}) >= 15


@pytest.mark.parametrize("text, expected", [
    ("Meningioma.", "B"),
    ("meningiomas", "B"),                       # plural "s"
    ("Metastases", "D"),                        # letters-v4: Latin plural (-is -> -es)
    ("Metastatic.", None),                      # no other inflection
    ("Metastasisx", None),
    ("Brain abscesses.", "C"),                  # plural "es"
    ("The answer is meningioma.", "B"),
    ("Meningioma or glioma.", None),            # two options named, no conclusion
    ("Not a glioma: meningioma.", "B"),         # "not a X" rejects X
    ("Glioma is excluded. Meningioma.", "B"),   # "X is excluded" rejects X
    ("Glioma is less likely, and metastasis is most likely.", "D"),
    ("Glioma, meningioma.", None),              # the last clause does not conclude
    ("Glioma vs meningioma: the dural tail makes this meningioma.", "B"),  # concludes ("makes")
    ("Gliomatosis.", None),                     # whole words only
    ("Primary CNS lymphoma", "E"),
    ("CNS lymphoma", "E"),                      # letters-v4: a part no other option shares names it
    ("Lymphoma", None),                         # ... not its head noun alone (a category)
    ("Primary.", None),                         # ... nor another single word
])
def test_option_text_rules(text, expected):
    assert parse_letter(text, "ABCDE", TUMOURS) == expected


@pytest.mark.parametrize("text, expected", [
    ("Lymphoma.", "C"),                         # the short text alone
    ("Hodgkin lymphoma.", "A"),                 # longest match: "lymphoma" inside it does not count alone
    ("Non-Hodgkin lymphoma.", "B"),             # longest match beats both shorter texts inside it
    ("This is a lymphoma, a Hodgkin lymphoma.", None),  # two distinct mentions (C, then A)
])
def test_longest_match_wins(text, expected):
    assert parse_letter(text, "ABCD", LYMPH) == expected


def test_letters_beat_option_texts_and_options_are_optional():
    assert parse_letter("The answer is D. Meningioma is less likely.", "ABCDE", TUMOURS) == "D"
    assert parse_letter("Meningioma (B).", "ABCDE", TUMOURS) == "B"
    assert parse_letter("Meningioma (C).", "ABCDE", TUMOURS) == "C"  # a stated letter wins over the text
    assert parse_letter("Meningioma.") is None  # no options passed: letters-v2 behaviour
    assert parse_letter("Meningioma.", "ABCDE", None) is None
    assert parse_letter("Metastasis", "ABC", TUMOURS) is None  # only the first len(letters) options exist


@pytest.mark.parametrize("text", [
    "Stained with H&E, the section shows granulomas.",
    "The tumour is a diffuse large B cell lymphoma.",
    "The infiltrate is composed of T cells.",
    "Hemoglobin A&E panel normal; no answer given.",
])
def test_letters_inside_terms_are_not_answers(text):
    assert parse_letter(text) is None


def test_term_rules_do_not_hide_real_letters():
    assert parse_letter("H&E stain. Answer: E") == "E"
    assert parse_letter("B") == "B"
    assert parse_letter("B cell markers are positive, so the answer is C.") == "C"
    assert parse_letter("(B) cell") == "B"  # an enclosed letter is a letter
    assert parse_letter("The likely answer is B, as the cells are small.") == "B"


def test_letters_inside_an_option_text_are_that_option():
    hep = ["Hepatitis A", "Hepatitis B", "Autoimmune hepatitis", "Wilson disease"]
    cells = ["T cell", "B cell", "NK cell", "Plasma cell"]
    assert parse_letter("Hepatitis B", "ABCD", hep) == "B"
    assert parse_letter("B cell", "ABCD", cells) == "B"
    assert parse_letter("It's a B cell.", "ABCD", cells) == "B"
    assert parse_letter("B cell.", "ABCD", ["B cell", "T cell", "NK cell", "Plasma cell"]) == "A"


def test_short_and_generic_options_count_only_as_the_whole_response():
    modalities = ["CT", "MRI", "Ultrasound", "PET"]
    assert parse_letter("MRI", "ABCD", modalities) == "B"
    assert parse_letter("mri.", "ABCD", modalities) == "B"
    assert parse_letter("An MRI was obtained; the answer is ultrasound.", "ABCD", modalities) == "C"
    assert parse_letter("The MRI is normal.", "ABCD", modalities) == "B"  # an acronym in capitals, inside a sentence
    assert parse_letter("the mri is normal.", "ABCD", modalities) is None  # in lower case: only as the whole response
    assert parse_letter("The Mri is normal.", "ABCD", modalities) is None  # not written as the acronym
    assert parse_letter("An MRI and a CT were done.", "ABCD", modalities) is None  # two named, no conclusion
    assert parse_letter("the cat sat", "AB", ["cat", "dog"]) is None  # three letters, not capitals: whole response only
    assert parse_letter("cat", "AB", ["cat", "dog"]) == "A"
    assert parse_letter("Blood group A.", "ABCD", ["A", "B", "AB", "O"]) is None  # one letter is never an acronym
    assert parse_letter("The PETS scan.", "ABCD", ["CT", "MRI", "Ultrasound", "PETS"]) == "D"
    assert parse_letter("Normal", "AB", ["Normal", "Abnormal"]) == "A"
    assert parse_letter("Normal optic disc but abnormal macula", "AB", ["Normal", "Abnormal"]) is None


def test_fold_and_mentions():
    folded = fold("Crohn’s  disease, about 2.5 cm! Yes")
    assert folded.text == " crohns disease about 2 5 cm yes "
    assert folded.clause[folded.text.index("crohns")] == 0 and folded.clause[folded.text.index("about")] == 1
    assert folded.clause[folded.text.index("cm")] == 1  # "2.5" does not end a clause
    assert folded.clause[folded.text.index("yes")] == 2
    assert [m.index for m in mentions(fold("Hodgkin lymphoma and lymphoma"), LYMPH)] == [0, 2]
    index, spans = named_option("It is a Hodgkin lymphoma.", LYMPH)
    assert index == 0 and spans == [(8, 24, 0)]  # (start, end, option index)


def test_results_keep_the_rule_they_were_scored_under():
    from leaderboard.scoring.letters import RULE_SUMMARY, RULE_VERSION, rule_of

    old_summary = ("letters-v2: explicit answer statement (final ones decide) > lone leading letter > single "
                   "standalone capital letter; ...")
    assert rule_of({"letter_rule": old_summary}) == "letters-v2"
    assert rule_of({"letter_rule": RULE_SUMMARY, "letter_rule_version": RULE_VERSION}) == "letters-v13"
    assert rule_of({"letter_rule_version": "letters-v3", "letter_rule": old_summary}) == "letters-v3"
    assert rule_of({}) is None and rule_of({"letter_rule": "something else"}) is None


@pytest.mark.parametrize("text, options", [
    ("Answer: B", ["Hepatitis A", "Hepatitis B", "Hepatitis C"]),
    ("It's a B cell.", ["T cell", "B cell", "NK cell"]),
    ("B", ["Melanoma", "Naevus"]),
    ("Naevus.", ["Melanoma", "Naevus"]),
    ("The answer is B. Melanoma is less likely.", ["Melanoma", "Naevus"]),
    ("Stanford type A. The answer is B", ["Stanford type A dissection", "Stanford type B dissection"]),
    ("The answer is B: Melanoma", ["Melanoma", "Naevus"]),
    ("Option 2 - melanoma.", ["Melanoma", "Naevus"]),
])
def test_needs_options_is_false_only_where_the_options_cannot_change_the_letter(text, options):
    from leaderboard.scoring.letters import needs_options

    without = parse_letter(text, "ABC"[:len(options)])
    if not needs_options(without, options, text):
        assert parse_letter(text, "ABC"[:len(options)], options) == without


def test_needs_options_cases():
    from leaderboard.scoring.letters import needs_options

    assert needs_options(None, ["Melanoma", "Naevus"])  # step 4 may name one
    assert not needs_options("B", ["Melanoma", "Naevus"], "Answer: B")  # a letter found, no one-letter word in the options
    assert not needs_options("B", ["Melanoma", "Naevus"], "The answer is B.\nMelanoma is less likely.")
    assert needs_options("B", ["Melanoma", "Naevus"], "The answer is B: Melanoma")  # letters-v7: maybe another's text
    assert needs_options("B", ["Melanoma", "Naevus"], "**B** – Melanoma")
    assert needs_options("B", ["Melanoma", "Naevus"])  # the text unknown: the options may pair with the letter
    assert needs_options("B", ["Hepatitis A", "Hepatitis B"])  # "Hepatitis B" holds a letter
    assert not needs_options(None, []) and not needs_options(None, None)
