"""Fuzzes the option-letter parser (leaderboard/scoring/letters.py) with arbitrary text; see bench/fuzz_harness.py."""
from __future__ import annotations

import sys

from fuzz_harness import fuzz_main, instrumented

with instrumented():
    from leaderboard.scoring.letters import LETTERS, parse_letter

LETTER_SETS = (LETTERS, "ABCD", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def one_input(data: bytes) -> None:
    letters = LETTER_SETS[data[0] % len(LETTER_SETS)] if data else LETTERS
    text = data[1:].decode("utf-8", "replace")
    found = parse_letter(text, letters)
    if found is not None and (len(found) != 1 or found not in letters):
        raise AssertionError(f"parse_letter returned {found!r}, not one of {letters}")


if __name__ == "__main__":
    sys.exit(fuzz_main("letters", one_input))
