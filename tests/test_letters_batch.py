"""Batch callers parse one text per (text with its digits zeroed, option letters): letters.DIGITS. These
pin the invariance that makes it exact, on the hand-labelled corpus and on digit-heavy texts, and check
that X-PCR's batched parse gives what one parse_letter call per row gives."""
import json
import random
import re
from pathlib import Path

import numpy as np
import pyarrow as pa

from leaderboard.scoring.letters import DIGITS, parse_letter

CORPUS = [json.loads(line) for line in
          (Path(__file__).parent / "parsing" / "letter_corpus.jsonl").read_text(encoding="utf-8").splitlines()
          if line.strip()]
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
]


def _zeroed(text: str, rng: random.Random) -> list[str]:
    """The text with its digits zeroed, and with each digit replaced by a random other digit."""
    return [re.sub(DIGITS, "0", text), re.sub("[0-9]", lambda m: str(rng.randrange(10)), text)]


def test_digit_values_never_change_the_parse():
    rng = random.Random(0)
    texts = [(c["text"], c["letters"]) for c in CORPUS] + [(t, "ABCDE") for t in DIGIT_TEXTS]
    with_digits = [(t, letters) for t, letters in texts if re.search("[0-9]", t)]
    assert len(with_digits) >= 20  # the invariance is exercised, not vacuous
    for text, letters in with_digits:
        expected = parse_letter(text, letters)
        for variant in _zeroed(text, rng):
            assert parse_letter(variant, letters) == expected, (text, variant)


def test_xpcr_batched_parse_equals_one_call_per_row():
    from benchmarks.xpcr.scorer import LETTERS, _parse_responses

    rng = random.Random(1)
    texts = [c["text"] for c in CORPUS] + DIGIT_TEXTS
    rows = [rng.choice(texts).replace("0", str(rng.randrange(10))) for _ in range(600)]
    rows += [f"Finding {k} on this image points to option ({'ABCDE'[k % 5]}), given the pattern." for k in range(200)]
    n_options = np.array([rng.choice((2, 4, 5)) for _ in rows], dtype=np.int64)
    need = np.array([k % 7 != 3 for k in range(len(rows))])  # some rows are not parsed at all
    got = _parse_responses(pa.array(rows, pa.string()), n_options, need)
    for k, text in enumerate(rows):
        letter = parse_letter(text, LETTERS[:n_options[k]]) if need[k] else None
        assert got[k] == (-1 if letter is None else LETTERS.index(letter)), (k, text)
