"""MedReaMM's response parser against the authors' regular expressions it replaced (issue 13 made the scans
linear; these pin that they still return exactly what the patterns return). Hand-picked strings name each
edge (a heading at offset 0 or 1, whitespace runs around "Output", hashes after the word, "output" inside a
heading's tail, brackets at the first position or reversed) and 4,000 seeded random strings over an
alphabet that reaches every branch compare the two outright. Runs in the mutation selection (the timing
tests in tests/parsing/test_linear_time.py are deselected there by `-k "not linear"`)."""
from __future__ import annotations

import random
import re

import pytest

from benchmarks.medreamm.parsing import _list_literal, after_last_heading, parse_response, ranked_lists

HEADING = re.compile(r"#+\s*Output\s*#*", re.I)
LITERAL = re.compile(r"\[.*\]", re.S)


def reference_tail(text: str) -> str:
    return HEADING.split(text)[-1]


def reference_literal(text: str) -> str | None:
    found = LITERAL.search(text)
    return found.group(0) if found else None


HEADINGS = [
    ("#Output", ""),
    ("x#Output rest", "rest"),  # the heading one character in; the spaces after the word belong to it
    ("#  \n Output  ## tail", " tail"),  # whitespace and a newline around the word, then hashes
    ("### Output ###\nA\n## output\nB", "B"),  # the last heading wins
    ("Output without hashes", "Output without hashes"),
    ("a # b Output", "a # b Output"),  # a hash, but a word between it and "Output"
    ("##OUTPUT##   ###x", "   ###x"),  # whitespace, then hashes: not hashes, then whitespace again
    ("# Output #\t#y", "\t#y"),  # hashes end the heading; a tab then a hash is the tail
    ("#Output#Output z", "Output z"),  # the first heading took the "#": the second word has none left
    ("#Outputoutput", "output"),  # "output" right after a heading has no hash of its own before it
    ("# output", ""),
    ("text ending in #", "text ending in #"),
    ("## Output", ""),  # the heading runs to the end of the text
]


@pytest.mark.parametrize("text, tail", HEADINGS)
def test_after_last_heading_by_hand(text, tail):
    assert reference_tail(text) == tail  # the expected tails are the authors' split's
    assert after_last_heading(text) == tail


LITERALS = [
    ("[a]", "[a]"),  # the first character is the bracket
    ("x[a]", "[a]"),
    ("x [a] and [b] y", "[a] and [b]"),  # first "[" to last "]"
    ("] then [", None),  # reversed: no literal
    ("only [ open", None),
    ("only ] close", None),
    ("[]", "[]"),
    ("", None),
    ("no brackets", None),
    ("[[x]", "[[x]"),
    ("a[\nb]\nc", "[\nb]"),  # across lines
]


@pytest.mark.parametrize("text, literal", LITERALS)
def test_list_literal_by_hand(text, literal):
    assert reference_literal(text) == literal
    assert _list_literal(text) == literal


ALPHABET = ["#", "##", " ", "\n", "\t", "Output", "output", "OUT", "out", "put", "x", "[", "]", "a", "\"b\""]


def random_texts(count=4000, seed=20261201):
    rng = random.Random(seed)
    return ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 14))) for _ in range(count)]


def test_the_scans_equal_the_authors_patterns_on_random_text():
    texts = random_texts()
    assert sum(HEADING.search(t) is not None for t in texts) > 300  # the alphabet makes headings common
    assert sum(reference_literal(t) is not None for t in texts) > 300
    for text in texts:
        assert after_last_heading(text) == reference_tail(text), repr(text)
        assert _list_literal(text) == reference_literal(text), repr(text)


@pytest.mark.parametrize("text, expected", [
    ("### Output ###\n1. ```Gout```\n2. ```Asthma```", ["Gout", "Asthma"]),  # fences go before the list is read
    ("### Output ###\n1. ```json Gout```\n- ```python Asthma```", ["Gout", "Asthma"]),
    ("### Output ###\n1. ```JSON Gout```", ["JSON Gout"]),  # the fence's language is matched in lower case, as the authors'
    ("### Output ###\n```python\n['Gout', ```'Asthma']", ["Gout", "Asthma"]),
])
def test_code_fences_are_removed_anywhere_in_the_tail(text, expected):
    assert parse_response(text) == expected


def test_ranked_lists_of_no_cases_and_of_empty_cases():
    # typed as list<string> up front: an empty batch (or one of empty lists) is not an untyped Arrow array
    assert ranked_lists([]) == []
    assert ranked_lists([[], []]) == [[], []]
    assert ranked_lists([[" Gout", "gout.", "Asthma"], []]) == [["Gout", "Asthma"], []]
