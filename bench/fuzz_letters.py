"""Fuzzes the option-letter parser (leaderboard/scoring/letters.py) with arbitrary text; see bench/fuzz_harness.py."""
from __future__ import annotations

import sys

from fuzz_harness import fuzz_main, instrumented

with instrumented():
    from leaderboard.scoring.letters import LETTERS, parse_letter

LETTER_SETS = (LETTERS, "ABCD", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")
# option sets that reach every option-text path (letters-v12: counts, sides, glosses, long report options, Chinese)
OPTION_SETS = (
    None,
    ["Pneumothorax", "Pleural effusion", "Pneumonia", "Pulmonary edema"],
    ["1", "2", "3", "4 or more"],
    ["Left breast", "Right breast", "Both breasts", "Neither breast"],
    ["Grade 1 (doubtful)", "Grade 2 (minimal)", "Grade 3 (moderate)", "Grade 4 (severe)"],
    ["Right PICC with tip at the cavoatrial junction", "Right PICC with tip in the right internal jugular vein",
     "Left PICC with tip at the cavoatrial junction", "Left PICC with tip in the left brachiocephalic vein"],
    ["甲状腺乳头状癌", "甲状腺滤泡状癌", "甲状腺髓样癌", "甲状腺未分化癌"],
    ["BI-RADS 2", "BI-RADS 3", "BI-RADS 4", "BI-RADS 5"],
    # letters-v13: walks cut off, narrowed pairs, echoed lists, parts and places, Chinese terms
    ["Ulcerative colitis", "Crohn disease", "Ischemic colitis", "Pseudomembranous colitis", "Leydig cell tumor"],
    ["发育性髋关节发育不良", "股骨头骨骺滑脱", "股骨头骨骺骨软骨病（Perthes病）", "化脓性髋关节炎"],
)


def one_input(data: bytes) -> None:
    letters = LETTER_SETS[data[0] % len(LETTER_SETS)] if data else LETTERS
    options = OPTION_SETS[data[1] % len(OPTION_SETS)] if len(data) > 1 else None
    text = data[2:].decode("utf-8", "replace")
    found = parse_letter(text, letters, options)
    if found is not None and (len(found) != 1 or found not in letters):
        raise AssertionError(f"parse_letter returned {found!r}, not one of {letters}")


if __name__ == "__main__":
    sys.exit(fuzz_main("letters", one_input))
