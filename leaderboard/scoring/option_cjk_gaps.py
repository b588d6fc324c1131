"""A Chinese option named with words inserted (rule letters-v11): "双侧股骨头均可见坏死" names "双侧股骨头坏死" (bilateral
femoral head necrosis): Chinese writes "均可见" (both show) inside the term, where English would keep it whole.

Only for options written wholly in Chinese characters (three or more), when no letter is stated and no option's
text is written whole: the option's characters appear in order within one clause of the response, at most three other
characters between two of them and no negation among those or just before the first ("未见股骨头坏死" stays "no
necrosis"). Exactly one option must match. Linear: each option's first character is tried where it occurs, and each
try walks at most (3 + 1) characters per character of the option.
"""
from __future__ import annotations

from typing import Sequence

MAX_GAP = 3
_NEGATIONS = frozenset("未无没不非否")
_CLAUSE_ENDS = frozenset("，。；！？,.;!?\n：:")


def _cjk(ch: str) -> bool:
    return "\u4e00" <= ch <= "\u9fff"


def _found_gapped(text: str, chars: str) -> bool:
    at = text.find(chars[0])
    while at >= 0:
        if not _NEGATIONS.intersection(text[max(0, at - 2):at]):
            k, ok = at, True
            for ch in chars[1:]:
                window = text[k + 1:k + 2 + MAX_GAP]
                j = window.find(ch)
                if j < 0 or _NEGATIONS.intersection(window[:j]) or _CLAUSE_ENDS.intersection(window[:j]):
                    ok = False
                    break
                k += 1 + j
            if ok:
                return True
        at = text.find(chars[0], at + 1)
    return False


def gapped_option(source: str, options: Sequence[str]) -> int | None:
    """The index of the one all-Chinese option whose characters the response writes in order with short insertions,
    else None."""
    if not any(_cjk(ch) for ch in source[:200]):
        return None
    texts = ["".join((option or "").split()) for option in options]
    if any(text and text in source for text in texts):
        return None  # an option written whole: the option-text step has read it (and maybe found a hedge)
    matched = []
    for index, chars in enumerate(texts):
        if len(chars) >= 3 and all(_cjk(ch) for ch in chars) and _found_gapped(source, chars):
            matched.append(index)
    return matched[0] if len(matched) == 1 else None
