"""A stated count answers a counting item (rule letters-v12, step 4).

"There are 3 hypodense lesions in the liver." among "1 / 2 / 3 / 4 or more", "There are two stones in the left
kidney." among "One / Two / Three / Four", "共可见3个结节" among Chinese counts: a careful reader records the option
holding the count, though the response names no option's text as a whole answer.

Only when every option is a count ("3", "three", "4 or more", "more than 3", "≥4", "4+"; one option may be none:
"0", "None", "No fracture") and the response states one count, in a counting phrase ("there are N ...", "N ... are
seen", "I count N", "a total of N", "共N个"); a number elsewhere (a size, an age, a level) says nothing here. Plain
string scans (RE2), linear in the text.
"""
from __future__ import annotations

from typing import Sequence

import re2

from .cjk import has_cjk
_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5,
          "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10, "零": 0, "一": 1, "两": 2, "二": 2, "三": 3,
          "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_NUMBER = r"(\d{1,2}|zero|one|two|three|four|five|six|seven|eight|nine|ten)"
_OPTION_EXACT = re2.compile(r"(?i)^\s*" + _NUMBER + r"\s*[.)]?\s*$")
_OPTION_OR_MORE = re2.compile(r"(?i)^\s*(?:" + _NUMBER + r"\s*(?:or more|and above|or greater|\+)|(?:≥|>=)\s*" + _NUMBER
                              + r"|more than\s*" + _NUMBER + r"|greater than\s*" + _NUMBER + r")\s*$")
_OPTION_NONE = re2.compile(r"(?i)^\s*(?:none|no [a-z ]{2,40}|0|zero)\s*$")
_STATED = re2.compile(
    r"(?i)(?:^|[^a-z])(?:there (?:is|are|was|were) (?:a total of |exactly |only )?" + _NUMBER + r" [a-z]"
    r"|(?:i|we) (?:count|see|can see|identify|observe) (?:a total of |exactly )?" + _NUMBER + r"(?:[^a-z0-9]|$)"
    r"|a total of " + _NUMBER + r"(?:[^a-z0-9]|$)"
    r"|count(?:ed)?(?: is)? ?[:=] ?" + _NUMBER + r"(?:[^a-z0-9]|$))")
_STATED_AFTER = re2.compile(r"(?i)(?:^|[.!?\n] ?)" + _NUMBER + r" [a-z]+(?: [a-z]+)? (?:are|is) (?:seen|visible|present|"
                            r"identified|noted|shown)")
_RANGE = re2.compile(r"(?i)(?:^|[^a-z0-9])" + _NUMBER + r" ?(?:or|to|and|-|–) ?" + _NUMBER + r"(?:[^a-z0-9]|$)")  # "2 or 3"
_CJK_STATED = re2.compile(r"(?:共|可见|共有|有)([0-9]{1,2}|[一二两三四五六七八九十])(?:个|处|枚|颗|条|块)")


def _value(token: str) -> int:
    return int(token) if token.isdigit() else _WORDS[token.lower()]


def _option_range(option: str) -> tuple[int, float] | None:
    m = _OPTION_EXACT.match(option)
    if m:
        return _value(m.group(1)), _value(m.group(1))
    m = _OPTION_OR_MORE.match(option)
    if m:
        k = next(i for i in range(1, 5) if m.group(i))
        low = _value(m.group(k)) + (1 if k >= 3 else 0)  # "more than 3" starts at 4
        return low, float("inf")
    if _OPTION_NONE.match(option):
        return 0, 0
    return None


def count_option(source: str, options: Sequence[str]) -> int | None:
    """The index of the one option holding the one count the response states, when every option is a count."""
    ranges = [_option_range(o or "") for o in options]
    if not options or any(r is None for r in ranges) or sum(r == (0, 0) for r in ranges) > 1:
        return None
    stated = {_value(g) for m in _STATED.finditer(source[:4000]) for g in m.groups() if g}
    stated |= {_value(m.group(1)) for m in _STATED_AFTER.finditer(source[:4000])}
    if has_cjk(source[:200]):
        stated |= {_value(m.group(1)) for m in _CJK_STATED.finditer(source[:4000])}
    if len(stated) != 1 or _RANGE.search(source[:4000]):
        return None  # no count, several, or a hedge between two ("2 or 3 lesions")
    count = stated.pop()
    held = [k for k, (low, high) in enumerate(ranges) if low <= count <= high]
    return held[0] if len(held) == 1 else None
