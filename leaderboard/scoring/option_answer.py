"""Step 4's other readers (rules letters-v9 to v12): with no letter stated and no option named by its text, the ways a
careful reader still finds the one option a response answers, tried in order; the first that names one decides.

- a normal study answers the normal option ("The chest X-ray appears to be normal.": letter_normal.py, v9);
- a classic sign answers its condition's option ("a meniscus sign at the right base": letter_signs.py, v9);
- a Chinese yes/no or "Present." answers a yes/no item ("是的，...", "否。": option_yes_no.py, v11);
- a Chinese option written with words inserted ("双侧股骨头均可见坏死": option_cjk_gaps.gapped_option, v11) or with
  characters left out ("乳头状癌" for "甲状腺乳头状癌": option_cjk_gaps.shortened_option, v12);
- a stated count answers a counting item ("There are 3 lesions.": option_counts.py, v12);
- a whole response one letter off an option's text ("Osteosarcome": option_typos.py, v12);
- the telling words of one long report-style option ("Left PICC, tip at the CAJ.": option_overlap.py, v12).
"""
from __future__ import annotations

from typing import Sequence

from .letter_normal import normal_option
from .letter_signs import sign_option
from .option_cjk_gaps import gapped_option, shortened_option
from .option_counts import count_option
from .option_overlap import overlapping_option
from .option_typos import misspelled_option
from .option_yes_no import yes_no_option

_READERS = (normal_option, sign_option, yes_no_option, gapped_option, shortened_option, count_option, misspelled_option,
            overlapping_option)


def unnamed_option(s: str, options: Sequence[str]) -> int | None:
    """The index of the option the first reader that finds one names, else None (`s`: the text as parse_letter reads
    it)."""
    for read in _READERS:
        found = read(s, options)
        if found is not None:
            return found
    return None
