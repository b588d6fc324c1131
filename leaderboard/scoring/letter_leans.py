"""A lean settles two letters (rule letters-v10, step 3).

"This is most likely B, though idiopathic transverse myelitis (C) cannot be completely excluded", "It could be C,
but D seems more likely", "Likely C (PI-RADS 4), although it is borderline with D", "更倾向于D，但B也不能完全排除":
the writer names two options and leans to one; a careful reader records the lean (the brief a reader labels by
says so). A balanced hedge ("B or C", "either B or C", "most likely B, though C is also possible") stays unparseable.

Read only on the last sentence naming any letter, when it names exactly two: one letter carries a lean ("most
likely X", "X seems more likely", "倾向于X") and the other stands in a concession ("though/although/but ... Y
cannot be excluded / is possible / borderline", "could be Y, but ...", "但Y也不能排除"). Plain string scans on
one sentence (bounded by letter_conclusion.MAX_SENTENCE): linear time.
"""
from __future__ import annotations

from .letter_conclusion import _sentence
from .cjk import is_cjk

_LEAN_BEFORE = ("most likely", "more likely", "likely", "probably", "most probably", "favor", "favour",
                "favoring", "favouring", "lean towards", "lean toward", "leaning towards", "leaning toward",
                "leans towards", "leans toward", "lean to", "倾向于", "倾向", "更倾向于", "更倾向", "考虑为", "首先考虑",
                "最可能是", "最可能为", "最有可能是", "可能性最大的是")  # letters-v12
_LEAN_AFTER = ("seems more likely", "is more likely", "is most likely", "looks more likely", "more likely",
               "seems likelier", "is likelier", "is favored", "is favoured", "fits better", "fits best",
               "可能性更大", "可能性较大", "可能性大", "更符合", "更可能", "更为可能")
_CONCESSIVE = (" though", " although", " but ", " while ", " however", "但", "不过", "虽然")
_OPEN = ("cannot be excluded", "cannot be completely excluded", "cannot be entirely excluded", "cannot be fully excluded",
         "cannot be ruled out", "cannot be completely ruled out", "cannot be entirely ruled out",
         "can't be excluded", "can't be ruled out", "not excluded", "not be excluded", "not be ruled out",
         "can't be fully excluded", "can't be completely excluded", "can't be entirely excluded",  # letters-v12
         "can't be completely ruled out", "can't be fully ruled out",
         "remains possible", "remain possible", "is possible", "still possible", "remains a possibility",
         "remains in the differential", "borderline", "cannot exclude", "can't exclude", "not exclude",
         "不能排除", "不能完全排除", "不除外", "不能完全除外", "不能除外",  # v13
         "is a consideration", "is also a consideration", "should be considered", "remains a consideration",
         "鉴别", "鑑別")  # not "is also possible": an equal alternative (letters-v8); v12: "需与D鉴别" (to tell from D)
_OFFERED = ("could be", "might be", "may be", "possibly", "可能是", "也可能是")


def _cjk_name(text: str) -> bool:
    return 0 < len(text) <= 15 and all(is_cjk(ch) for ch in text)


def _near(sentence: str, i: int, cues, before: bool, reach: int = 25) -> bool:
    """Does one of `cues` end just before position i (before=True) or start just after it, within `reach`
    characters of text holding no other letter-like token?"""
    if before:
        window = sentence[max(0, i - reach):i].rstrip(" ([（")
        # letters-v13: or the cue, then the option's Chinese name, then its letter ("最可能为扁平苔藓（B）")
        return any(window.endswith(cue) or (cue in window and _cjk_name(window[window.rfind(cue) + len(cue):]))
                   for cue in cues)
    window = sentence[i + 1:i + 1 + reach].lstrip(" )]")
    if window.startswith("("):  # "Likely C (PI-RADS 4), ..." — skip a gloss after the letter
        close = window.find(")")
        window = window[close + 1:].lstrip(" ,") if 0 <= close < reach else window
    return any(window.startswith(cue) for cue in cues)


def leaned_letter(s: str, positions: list[tuple[int, str]]) -> str | None:
    """The letter the last sentence naming letters leans to, when it names exactly two and concedes the other;
    else None. `positions` are (index, letter) of the letters found, in text order."""
    if not positions:
        return None
    start, end = _sentence(s, positions[-1][0])
    inside = [(i - start, x) for i, x in positions if start <= i < end]
    if len({x for _, x in inside}) != 2:
        return None
    sentence = s[start:end].lower()
    if len(sentence) != end - start:
        return None  # a character whose lower case is longer ("İ") would shift the letters' positions
    leaned = {x for i, x in inside if _near(sentence, i, _LEAN_BEFORE, True) or _near(sentence, i, _LEAN_AFTER, False)}
    if len(leaned) != 1:
        return None
    lean = leaned.pop()
    lean_at = [i for i, x in inside if x == lean]
    other_at = [i for i, x in inside if x != lean]
    first_other, last_other = other_at[0], other_at[-1]
    if first_other > lean_at[-1]:  # "most likely B, though ... C cannot be excluded"
        between = sentence[lean_at[-1]:first_other]
        after = sentence[last_other:last_other + 60]
        conceded = any(c in between for c in _CONCESSIVE) and (
            any(c in after for c in _OPEN) or any(c in sentence[lean_at[-1]:last_other + 40] for c in ("borderline",)))
        return lean if conceded else None
    if last_other < lean_at[0]:  # "It could be C, but D seems more likely"
        offered = _near(sentence, first_other, _OFFERED, True) or any(c in sentence[last_other:last_other + 40] for c in _OPEN)
        between = sentence[last_other:lean_at[0]]
        return lean if offered and any(c in between for c in _CONCESSIVE) else None
    return None
