"""Options named by their number (rule letters-v5): "Option 3" is option C, "the correct answer is option 2" is
B, "I'd choose the first option" / "option one" / "the first one" is A, "选项3" / "第3个选项" / "第三个选项" is C.

The number is rewritten as its letter before the letter steps read the text ("Option 3 is unlikely" then is
"Option C is unlikely" and every statement, rejection and hedge rule applies to it unchanged). Only the numbers
1-5 (A-E) after "option", "choice" or "alternative" (with "#", "no.", "number" or ":" between), the words
"one" ... "five" after "option"/"choice", and the ordinals "first" ... "fifth" before "option" count: "answer 3", "(3)", "step 3", "3 cm" and "the first choice of
treatment" stay numbers.

Batching: DIGITS zeroes every digit touching a letter, a digit or "_" (RE2's `\\b`: "17", "T2", "a_3") and
keeps lone digits, the only ones read here. A digit is read only when no letter, digit or "_" touches it in the
raw text (an underscore is markup, removed before reading, so a digit beside one is zeroed here first), so
parse_letter(text) == parse_letter(re2.sub(DIGITS, "0", text)) holds exactly; tests/test_letters_batch.py pins
it. Patterns are RE2.
"""
from __future__ import annotations

import re2

# Batch callers parse once per distinct text with every match of DIGITS replaced by "0"
DIGITS = r"\B[1-9]|[1-9]\B"

# the digit, then no word character and no decimal part ("Option 3.5 mm" is no option)
_NUMBER = re2.compile(r"(?i)\b(?:option|choice|alternative)(?: ?#| (?:no\.?|number|#) ?| ?: | \(?)([1-5])"  # v11: "option (4)"
                      r"(?:[^0-9A-Za-z_.,]|[.,](?:[^0-9]|$)|$)")
_ORDINAL = re2.compile(r"(?i)\b(?:the )?(first|second|third|fourth|fifth) option\b|\bthe (first|second|third|fourth|fifth) one\b"
                      r"|\b(?:option|choice) (one|two|three|four|five)\b")
_CJK = re2.compile(r"(?:选项|選項) ?([1-5])\b|第 ?([1-5]) ?(?:个|個)?(?:选项|選項|项|項)")
_CJK_ORDINAL = re2.compile(r"第([一二三四五])(?:个|個)?(?:选项|選項|项|項)")
_CJK_OPTION_WORD = re2.compile(r"(?:选项|選項)([一二三四五])([^一二三四五六七八九十]|$)")  # letters-v12: "答案是选项二"
_BESIDE_UNDERSCORE = re2.compile(r"_[0-9]+|[0-9]+_")
_ORDINALS = {"first": "A", "second": "B", "third": "C", "fourth": "D", "fifth": "E",
             "one": "A", "two": "B", "three": "C", "four": "D", "five": "E",
             "一": "A", "二": "B", "三": "C", "四": "D", "五": "E"}
_ZERO = str.maketrans("123456789", "000000000")


def zero_beside_underscores(text: str) -> str:
    """Digits touching "_" zeroed, as DIGITS zeroes them (the "_" itself is markup that reading removes)."""
    if "_" not in text:
        return text
    return _BESIDE_UNDERSCORE.sub(lambda m: m.group(0).translate(_ZERO), text)


def _replace_group(m, group: int, by: str) -> str:
    """The match's text with `group` replaced by `by`."""
    start = m.start(group) - m.start()
    return m.group(0)[:start] + by + m.group(0)[start + len(m.group(group)):]


def _letter_for(m, group: int) -> str:
    return "ABCDE"[int(m.group(group)) - 1]


def numbers_as_letters(text: str) -> str:
    """`text` with each option number written as its letter ("Option 3" -> "Option C")."""
    if any(ch in text for ch in "12345"):
        text = _NUMBER.sub(lambda m: _replace_group(m, 1, _letter_for(m, 1)), text)
        if "选" in text or "選" in text or "第" in text:
            text = _CJK.sub(lambda m: _replace_group(m, 1 if m.group(1) else 2, _letter_for(m, 1 if m.group(1) else 2)),
                            text)
    if "第" in text:
        text = _CJK_ORDINAL.sub(lambda m: "选项" + _ORDINALS[m.group(1)], text)
    if "选项" in text or "選項" in text:
        text = _CJK_OPTION_WORD.sub(lambda m: "选项" + _ORDINALS[m.group(1)] + m.group(2), text)
    lowered = text.lower()
    if "option" in lowered or "choice" in lowered or " one" in lowered:
        text = _ORDINAL.sub(_ordinal_letter, text)
    return text


_PRONOUN_ONE = re2.compile(r"(?i) (?:might|would|should|could|can|may|must|has|needs|of|or|and)\b")


def _ordinal_letter(m) -> str:
    """"the third option" -> "option C"; "option one" too, but not "the option one might choose" (a pronoun)."""
    if ((m.group(3) and m.group(3).lower() == "one") or m.group(2)) and _PRONOUN_ONE.match(m.string[m.end():m.end() + 8]):
        return m.group(0)  # "option one might ...", "the first one would ...": not an option named
    return "option " + _ORDINALS[(m.group(1) or m.group(2) or m.group(3)).lower()]


# letters-v7: numbers that need the item's option count, read after normalising (parse_letter): "Answer: 1", a bare
# "3", "Answer: ii", "我选第4个", "the last option". The number must be within the option count and be no word of an
# option's text ("3" on a BI-RADS 2-5 item names nothing), and it must end its statement: "Answer: 3 days",
# "Answer: 2.5 cm" are measurements. letters-v13: "The correct option is number 4." (a word before the number)
_ANSWER_NUMBER = re2.compile(r"(?i)(?:^|[^a-z])(?:(?:final |correct )?answer(?: is)?|my answer is|i choose|i pick|i select|"
                             r"(?:final |correct |right |best )(?:option|choice) (?:is|would be)|"  # letters-v11
                             r"(?:最终)?答案(?:是|为|為|应为)?)"  # letters-v12: "答案：2"
                             r" ?[:=]? ?(?:number |no\. ?|# ?)?\(?([1-9]|i{1,3}|iv|v)\)?(?:\.?$|\.?\n|[.,;!)] )")
_BARE_NUMBER = re2.compile(r"^\(?([1-9])[.)]?$")
_CJK_PICK = re2.compile(r"(?:选|選|答案是|答案为|答案為) ?第 ?([1-9]) ?(?:个|個)(?:选项|選項|项|項)?"
                        r"|第 ?([1-9]) ?(?:个|個)([。！.]|$)")
_LAST = re2.compile(r"(?i)\bthe (?:last|final) (?:option|one)\b")
_LAST_NAMED = re2.compile(r"(?i)(?: is| would be| ?[:=]) ?\(?[A-E](?:[^A-Za-z0-9]|$)")  # "the final option is C"
_ROMAN = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5}


def counted_numbers(s: str, letters: str, options=None) -> str:
    """`s` (normalised) with the option numbers that need the option count written as letters ("Answer: 1" ->
    "Answer: A", "the last option" -> "option E" on five options)."""
    per_option = [set("".join(c if c.isalnum() else " " for c in (o or "").lower()).split()) for o in (options or ())]
    words = set().union(*per_option) if per_option else set()

    def letter(token: str) -> str | None:
        if token.upper() in letters:
            return None  # "Answer: I" on an item whose options run past I: the letter itself
        n = int(token) if token.isdigit() else _ROMAN[token.lower()]
        if not 1 <= n <= len(letters):
            return None
        if str(n) not in words and token.lower() not in words:
            return letters[n - 1]
        # letters-v12: the number is also an option's value; both readings agree when only the n-th option holds it
        # ("2" on Grade 1-4, "Answer: 1" on 1/2/3/4); "4" on BI-RADS 2-5 names C by value and D by place: neither
        holders = [k for k, ws in enumerate(per_option) if str(n) in ws or token.lower() in ws]
        return letters[n - 1] if holders == [n - 1] else None

    def sub(m) -> str:
        found = letter(m.group(1))
        return _replace_group(m, 1, found) if found else m.group(0)

    m = _BARE_NUMBER.match(s)
    if m:
        return sub(m)
    s = _ANSWER_NUMBER.sub(sub, s)
    if "第" in s:
        s = _CJK_PICK.sub(lambda m: ("选" + letter(m.group(1) or m.group(2)) + (m.group(3) or ""))
                          if letter(m.group(1) or m.group(2)) else m.group(0), s)
    if letters and ("last" in s.lower() or "final" in s.lower()):
        s = _LAST.sub(lambda m: m.group(0) if _LAST_NAMED.match(m.string[m.end():m.end() + 16])
                      else "option " + letters[-1], s)
    return s


def names_last_option(s: str) -> bool:
    """Does `s` name "the last/final option" (a letter that depends on the option count)?"""
    return _LAST.search(s) is not None
