"""A Chinese option named with words inserted (rule letters-v11): "双侧股骨头均可见坏死" names "双侧股骨头坏死" (bilateral
femoral head necrosis): Chinese writes "均可见" (both show) inside the term, where English would keep it whole. And
(letters-v12) one named with characters left out: "乳头状癌" answers "甲状腺乳头状癌", "考虑慢性血栓" answers "慢性下肢深静
脉血栓", "Gleason 4+3" answers "Gleason评分 4+3=7分" (`shortened_option`).

Only for options written wholly in Chinese characters (three or more), when no letter is stated and no option's
text is written whole: the option's characters appear in order within one clause of the response, at most three other
characters between two of them and no negation among those or just before the first ("未见股骨头坏死" stays "no
necrosis"). Exactly one option must match. Linear: each option's first character is tried where it occurs, and each
try walks at most (3 + 1) characters per character of the option.
"""
from __future__ import annotations

from typing import Sequence

from .cjk import in_order, is_cjk

MAX_GAP = 3
_NEGATIONS = frozenset("未无没不非否")
_CLAUSE_ENDS = frozenset("，。；！？,.;!?\n：:")


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
    if not any(is_cjk(ch) for ch in source[:200]):
        return None
    texts = ["".join((option or "").split()) for option in options]
    if any(text and text in source for text in texts):
        return None  # an option written whole: the option-text step has read it (and maybe found a hedge)
    matched = []
    for index, chars in enumerate(texts):
        if len(chars) >= 3 and all(is_cjk(ch) for ch in chars) and _found_gapped(source, chars):
            matched.append(index)
    return matched[0] if len(matched) == 1 else None


_CONCLUDING_CUES = ("考虑为", "诊断为", "更符合", "符合", "答案为", "答案是", "答案:", "答案：", "考虑", "诊断:", "诊断：")
_SHORT_ANSWER = 16
_MIN_SHARE = 0.4


def _answer_phrase(source: str) -> str | None:
    """What a short or concluding Chinese response names: the whole response when it is short, else what follows
    the last concluding cue of its last sentence, to the clause's end."""
    text = source.strip().rstrip("。.!！")
    if len(text) <= _SHORT_ANSWER:
        return text
    last = text[max(text.rfind(ch) for ch in "。\n") + 1:]
    for cue in _CONCLUDING_CUES:
        at = last.rfind(cue)
        if at >= 0:
            phrase = last[at + len(cue):]
            ends = [k for k in (phrase.find(ch) for ch in _CLAUSE_ENDS) if k >= 0]
            return phrase[:min(ends)] if ends else phrase
    return None


def shortened_option(source: str, options: Sequence[str]) -> int | None:
    """The index of the one option holding, in order, the characters of the response's short answer phrase (two or
    more, at least 40 % of the option's, one of them Chinese, no negation), else None."""
    if not any(is_cjk(ch) for ch in source[:400]) and not any(is_cjk(ch) for o in options for ch in (o or "")):
        return None
    phrase = _answer_phrase(source)
    if phrase is None:
        return None
    phrase = "".join(phrase.split()).lower()
    if len(phrase) < 2 or _NEGATIONS.intersection(phrase) or not any(is_cjk(ch) for ch in phrase + "".join(options)):
        return None
    matched = []
    for index, option in enumerate(options):
        text = "".join((option or "").split()).lower()
        if text and len(phrase) >= _MIN_SHARE * len(text) and in_order(phrase, text):
            matched.append(index)
    return matched[0] if len(matched) == 1 else None
