"""Ranked differentials (rule letters-v8): a numbered list of diagnoses whose order is its ranking.

"Differential diagnosis (most to least likely):\\n1. Subarachnoid hemorrhage\\n2. ..." and "1. Mature cystic teratoma
— most likely (...)\\n2. Endometrioma" answer with the first item: a careful reader takes a model's top-ranked
diagnosis as its answer when the list says it is ranked (a heading "most to least likely", "in order of likelihood",
"ranked", or the first item marked "most likely"). Only when no letter is stated; the first item must name one
option's text and no other (else unparseable: the model's top pick is not one option). An unranked list ("The
differential includes: 1. ... 2. ...") answers nothing.

Patterns are RE2 on the first lines of the list; linear time.
"""
from __future__ import annotations

import re2

_ITEM = re2.compile(r"(?m)^[ \t]*(?:#|\(|\[)?1[.):\]][ \t]+([^\n]{1,200})\n[ \t]*(?:#|\(|\[)?2[.):\]][ \t]")
_RANKED_HEADING = re2.compile(r"(?i)(?:most (?:to|→|->) least (?:likely|probable)|in (?:decreasing |descending )?order of "
                              r"(?:likelihood|probability)|ranked|ranking|by likelihood|most likely first|"
                              r"(?:decreasing|descending) (?:likelihood|probability))")
_MARKED_FIRST = re2.compile(r"(?i)(?:^|[^a-z])(?:most likely|most probable|leading|top|favou?red|primary)(?:[^a-z]|$)")


def ranked_first(s: str, options, named_option) -> tuple[bool, int | None]:
    """(whether `s` holds a ranked numbered list, the index of the one option its first item names, or None).
    `named_option(phrase, options)` is option_text.named_option."""
    m = _ITEM.search(s[:4000])
    if m is None:
        return False, None
    item = m.group(1)
    heading = s[max(0, m.start() - 200):m.start()]
    if _RANKED_HEADING.search(heading) is None and _MARKED_FIRST.search(item) is None:
        return False, None
    return True, named_option(item, options)[0]
