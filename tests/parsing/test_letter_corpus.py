"""The letter rule (leaderboard/scoring/letters.py, letters-v2) against a corpus of realistic model outputs labelled
by hand with the letter a careful reader would extract (null: the response does not commit to one
option), plus its precedence and its running time on hostile input."""
import json
from collections import Counter
from pathlib import Path

import pytest

from leaderboard.scoring import letters as letters_module
from leaderboard.scoring.letters import LETTERS, RULE_SUMMARY, RULE_VERSION, parse_letter
from timing import assert_linear

CORPUS_PATH = Path(__file__).with_name("letter_corpus.jsonl")
CORPUS = [(n, json.loads(line)) for n, line in enumerate(CORPUS_PATH.read_text(encoding="utf-8").splitlines(), 1)
          if line.strip()]


@pytest.mark.parametrize("case", [c for _, c in CORPUS], ids=[f"L{n}-{c['style']}" for n, c in CORPUS])
def test_corpus_case(case):
    assert parse_letter(case["text"], case["letters"]) == case["expected"], case.get("note", "")


def test_corpus_is_large_varied_and_well_formed():
    assert len(CORPUS) >= 150
    styles = Counter(c["style"] for _, c in CORPUS)
    assert len(styles) >= 12, styles
    for n, c in CORPUS:
        assert set(c) <= {"text", "letters", "expected", "style", "note"}, n
        assert isinstance(c["text"], str) and c["letters"] and set(c["letters"]) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), n
        assert c["expected"] is None or c["expected"] in c["letters"], n
    assert sum(c["expected"] is None for _, c in CORPUS) >= 20  # unparseable responses are covered too
    assert sum(c["letters"] != LETTERS for _, c in CORPUS) >= 10  # and X-PCR items with other option counts


# ------------------------------------------------------------------ precedence
@pytest.mark.parametrize("text, expected", [
    # explicit beats leading beats standalone
    ("B\n\nThe answer is C.", "C"),
    ("B. Retinal detachment\n\nFinal answer: D", "D"),
    ("C\nThe fundus shows a hole, unlike A or B.", "C"),
    ("B\n\nA is also discussed; D too.", "B"),
    ("The image suggests C.", "C"),
    # mentions are not statements
    ("Answer: B. Option A is less likely because the disc is normal.", "B"),
    ("Answer: B. A is incorrect because there is no cherry-red spot.", "B"),
    ("Not A, not C: the answer is D.", "D"),
    # disagreeing statements
    ("The answer is A. The answer is C.", None),
    ("Answer: A\n\nFinal answer: C", "C"),
    ("Final answer: A\nFinal answer: C", None),
    ("Final answer: A\n\\boxed{A}", "A"),
    ("The answer is A. Wait - the margins are blurred, so the answer is C.", "C"),
    ("The answer is A or C.", None),
    ("<think>maybe the answer is A ... or B</think> Answer: C", "C"),
    ("<think>the answer is A</think>", "A"),
    ("<think>the answer is A</think>\nI cannot tell.", None),
    # several letters or none at the deciding step
    ("A or B", None),
    ("B or C\nThe answer is D.", "D"),
    ("A. Drusen\nB. Exudates\nC. Hemorrhage", None),
    ("It could be A or C.", None),
    ("No option letter here.", None),
])
def test_precedence(text, expected):
    assert parse_letter(text) == expected


@pytest.mark.parametrize("text, letters, expected", [
    ("E", "ABCD", None),  # a letter beyond the item's options is unparseable...
    ("Answer: E. Option D is wrong.", "ABCD", None),  # ...and is not replaced by a lower-ranked letter
    ("Answer: D", "ABCD", "D"),
    ("Z", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "Z"),
    ("Z", "ABCDE", None),
    (" b ", "ABCD", "B"),
    ("I", "ABCDE", None),
])
def test_letters_restrict_the_answer(text, letters, expected):
    assert parse_letter(text, letters) == expected


@pytest.mark.parametrize("letter", list("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
@pytest.mark.parametrize("n", [2, 4, 5, 26])
def test_bare_letters_agree_with_the_xpcr_fast_path(letter, n):
    """xpcr._parse_responses answers a bare capital letter (whitespace-trimmed) itself: the letter when it is
    among the item's options, else unparseable. parse_letter must say the same."""
    options = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:n]
    expected = letter if letter in options else None
    assert parse_letter(letter, options) == expected
    assert parse_letter(f"\n {letter}\t", options) == expected


def test_lower_case_letters_and_prose():
    assert parse_letter("c") == "C"
    assert parse_letter("answer: d") == "D"
    assert parse_letter("e.g. the lesion is a naevus") is None
    assert parse_letter("a 45-year-old man with floaters") is None
    assert parse_letter("A 45-year-old with these findings most likely has choice C.") == "C"


def test_rule_is_versioned_and_described():
    assert RULE_VERSION == "letters-v13"
    assert RULE_SUMMARY.startswith(RULE_VERSION) and "\n" not in RULE_SUMMARY
    doc = letters_module.__doc__
    assert all(f"\n{k}. " in doc for k in (1, 2, 3))  # the numbered precedence list copied into the README
    assert parse_letter(None) is None and parse_letter(123) is None and parse_letter("") is None


def test_only_a_bounded_head_and_tail_are_read():
    filler = "The image shows diffuse intraretinal hemorrhages in all quadrants. " * 300  # ~20,000 chars
    assert parse_letter("B\n" + filler) == "B"  # head
    assert parse_letter(filler + "\nFinal answer: C") == "C"  # tail
    assert parse_letter(filler[:9000] + " The answer is D. " + filler[:9000]) is None  # middle: not read
    # the cuts fall at whitespace: no fragment of a word ("ADC" -> "A", "ABC" -> "C") becomes a letter
    head_cut = "x" * (letters_module.HEAD - 2) + " ADC " + "y" * 8000  # the head would end in " A"
    assert head_cut[letters_module.HEAD - 2:letters_module.HEAD] == " A" and parse_letter(head_cut) is None
    tail_cut = "y" * 8000 + " ABC" + " z" * 999 + " "  # the tail would start with "C "
    assert tail_cut[-letters_module.TAIL:][:2] == "C " and parse_letter(tail_cut) is None


# ------------------------------------------------------------------ linear time on hostile input
M = 125_000  # timed at M and at 8M = 10^6 characters
HOSTILE = {  # each a function of a length m
    "answer+spaces+digit": lambda m: "answer" + " " * m + "1",
    "answer+tabs": lambda m: "answer" + "\t" * m + "1",
    "open parens": lambda m: "(" * m,
    "A space": lambda m: "A " * (m // 2),
    "answer colon": lambda m: "answer: " * (m // 8),
    "think open": lambda m: "<think>" * (m // 7),
    "think close": lambda m: "</think>" * (m // 8),
    "think pairs": lambda m: "<think>a</think>" * (m // 16),
    "final answer is": lambda m: "the final answer is " * (m // 20),
    "boxed": lambda m: "\\boxed{" * (m // 7),
    "json key": lambda m: '"answer": "' * (m // 11),
    "newlines": lambda m: " \n" * (m // 2),
    "strike": lambda m: "~~" * (m // 2),
    "bold": lambda m: "**A**" * (m // 5),
    "letters glued": lambda m: "ABCDE" * (m // 5),
    "zh answer": lambda m: "答案" * (m // 2),
    "zh choose": lambda m: "选" * m,
    "A or": lambda m: "A or " * (m // 5),
    "so option": lambda m: "so, option " * (m // 11),
    "fits the": lambda m: "A fits the " * (m // 11),
    "if would be": lambda m: "if the answer would be " * (m // 23),
    "NFKC expansion": lambda m: "\ufdfa" * m,  # one character, 18 after NFKC
}


@pytest.mark.parametrize("make", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_text_parses_in_linear_time(make):
    """10^6 characters take at most ~8 times what 125,000 take (a ratio: a quadratic pattern would take 64 times,
    and minutes), so a loaded machine cannot fail it."""
    assert_linear(parse_letter, make, M)


@pytest.mark.parametrize("unit", ["A ", "(", "answer: ", "A or ", "A - ", "vitamin A ", "答案", "answer" + " " * 999])
def test_patterns_are_linear_without_the_length_bound(unit, monkeypatch):
    """The head/tail bound must not be what keeps parsing fast: with it lifted, 50,000 characters take about 8
    times what 6,250 take (a quadratic pattern: 64 times)."""
    monkeypatch.setattr(letters_module, "HEAD", 10 ** 9)
    assert_linear(parse_letter, lambda m: unit * max(1, m // len(unit)), 50_000 // 8, label=unit)
