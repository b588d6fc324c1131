"""Batch callers parse one text per (text with its digits zeroed, option letters): letters.DIGITS zeroes every
digit a letter, digit or "_" touches and keeps lone digits (the option numbers of "Option 3"). These pin the
invariance that makes it exact, on the hand-labelled corpus and on digit-heavy texts, and check that X-PCR's
batched parse gives what one parse_letter call per row gives. Zeroing runs on RE2, as Arrow's does (Python's
`re` takes CJK characters for word characters: "选项3" would lose its number)."""
import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa
import re2

from leaderboard.scoring.letters import DIGITS, parse_letter

PARSING = Path(__file__).parent / "parsing"
CORPUS = [json.loads(line) for name in ("letter_corpus.jsonl", "letter_v4_corpus.jsonl", "letter_v5_corpus.jsonl",
                                        "heldout/blind_letters.jsonl")
          for line in (PARSING / name).read_text(encoding="utf-8").splitlines() if line.strip()]
DIGIT_TEXTS = [
    "A 45-year-old with these findings most likely has choice C.",
    "Answer: A 45-year-old",
    "I 2 think the answer is B",
    "Option 3 is wrong; the answer is (D) at 20/40 vision.",
    "B12 deficiency fits, so D.",
    "C3 glomerulopathy is unlikely. Answer: E",
    "IgG4 disease: A or C",
    "Stage 2 (B) versus stage 3 (C): the answer is C.",
    "grade 1 A, grade 2 B",
    "The C/D ratio is 0.7, answer D (9 mm).",
    "Option 3 is unlikely at 45 years; option 2 fits T2 best. The answer is option 2.",
    "选项3不正确，答案是第2个选项 (12 mm)",
    "I'd choose option _3_ given the 17 mm lesion",
    "Option 4: CRAO, seen in 65-year-olds",
]


def _zeroed(text: str, rng: random.Random) -> list[str]:
    """The text with its digits zeroed, and with each digit DIGITS matches replaced by a random digit."""
    return [re2.sub(DIGITS, "0", text), re2.sub(DIGITS, lambda m: str(rng.randrange(10)), text)]


def test_digit_values_never_change_the_parse():
    rng = random.Random(0)
    texts = [(c["text"], c["letters"]) for c in CORPUS] + [(t, "ABCDE") for t in DIGIT_TEXTS]
    with_digits = [(t, letters) for t, letters in texts if re2.search(DIGITS, t)]
    assert len(with_digits) >= 30  # the invariance is exercised, not vacuous
    for text, letters in with_digits:
        expected = parse_letter(text, letters)
        for variant in _zeroed(text, rng):
            assert parse_letter(variant, letters) == expected, (text, variant)


def test_xpcr_batched_parse_equals_one_call_per_row():
    from benchmarks.xpcr.scorer import LETTERS, _parse_responses

    rng = random.Random(1)
    texts = [c["text"] for c in CORPUS] + DIGIT_TEXTS
    rows = [rng.choice(texts).replace("0", str(rng.randrange(10))) for _ in range(600)]
    rows += [f"Option {k % 7} is the answer; lesion {k} mm." for k in range(40)]
    rows += [f"Finding {k} on this image points to option ({'ABCDE'[k % 5]}), given the pattern." for k in range(200)]
    n_options = np.array([rng.choice((2, 4, 5)) for _ in rows], dtype=np.int64)
    need = np.array([k % 7 != 3 for k in range(len(rows))])  # some rows are not parsed at all
    got = _parse_responses(pa.array(rows, pa.string()), n_options, need)
    for k, text in enumerate(rows):
        letter = parse_letter(text, LETTERS[:n_options[k]]) if need[k] else None
        assert got[k] == (-1 if letter is None else LETTERS.index(letter)), (k, text)


def test_xpcr_batch_keeps_option_numbers():
    """"Option 3" survives X-PCR's digit zeroing (DIGITS keeps lone digits); "Finding 17"/"Finding 18" still
    share one parse, and a digit inside a word ("T2", "option3") or a longer number never becomes a letter."""
    from benchmarks.xpcr.scorer import _parse_responses

    rows = ["Option 3", "The correct answer is option 2.", "Finding 17 points to (B).", "Finding 18 points to (B).",
            "Option3", "Option 12", "option 5", "T2 bright lesion, option #4."]
    got = _parse_responses(pa.array(rows, pa.string()), np.array([4] * len(rows), dtype=np.int64),
                           np.ones(len(rows), dtype=bool))
    assert got.tolist() == [2, 1, 1, 1, -1, -1, -1, 3]
    assert re2.sub(DIGITS, "0", "Finding 17, option 3, T2, a_3_, 选项3") == "Finding 00, option 3, T0, a_0_, 选项3"


def test_zero_digits_on_bytes_is_the_regex_replacement():
    """digit_zeroing.zero_digits (numpy on the UTF-8 bytes) gives what Arrow's RE2 replacement of DIGITS gives."""
    import pyarrow.compute as pc

    from leaderboard.scoring.digit_zeroing import zero_digits

    rng = random.Random(2)
    noise = ["".join(rng.choice("ab9_1 2x3\u00e9\u4e2d5-7\n0Z.") for _ in range(rng.randrange(12))) for _ in range(3000)]
    texts = pa.array([c["text"] for c in CORPUS] + DIGIT_TEXTS + noise + ["1", "a1", "1a", "_1", "\u00e91", "", None])
    for column in (texts, texts.slice(7, 500), pa.chunked_array([texts.slice(0, 9), texts.slice(9)])):
        assert zero_digits(column).to_pylist() == pc.replace_substring_regex(column, DIGITS, "0").to_pylist()
    assert zero_digits(pa.array(["Finding 17 (B)", "T2", "a_3_", "x 3 y"])).to_pylist() == \
        ["Finding 00 (B)", "T0", "a_0_", "x 3 y"]
