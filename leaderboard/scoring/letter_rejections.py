"""Rejected option letters (rule letters-v4, steps 2-3): a letter the response rejects is never its answer.

Before the letter: "not A", "rule out B", "rather than C", "ruling out C and D", "A is unlikely and so is C",
"除外C", "排除D". After it: "C is unlikely", "A and C are unlikely", "E can also be excluded", "C (unlikely)",
"C - wrong", "C不正确". Letter lists take commas first, then one "and"/"or" ("After ruling out C and D, A
remains" -> A). Every pattern is RE2 on a slice of at most 60 characters around the letter: constant per letter.
"""
from __future__ import annotations

import re2


def _ascii_letter(ch: str) -> bool:
    return "a" <= ch <= "z" or "A" <= ch <= "Z"


# a rejected option letter: "not A", "rule out B", "rather than C", "ruling out C and D", "除外C", "排除D"
# commas first, then at most one "and"/"or": in "ruling out C and D, A remains" the list ends at D
_LETTER_LIST = (r"(?:\(?[A-E][)\]]?(?:, |/))*(?:\(?[A-E][)\]]?(?: and | or |, and |, or | & )(?i:options? |choices? )?)?")
_NEGATED_BEFORE = re2.compile(
    r"(?i:not|neither|nor|unlike|excluding|exclude|excludes|excluded|rule out|rules out|ruled out|ruling out|eliminate|"
    r"eliminates|eliminated|eliminating|against|rather than|instead of|other than|more likely than|better than|over) "
    r"(?i:options? |choices? )?" + _LETTER_LIST + r"[(\[]?$")
_SO_IS = re2.compile(r"(?i:unlikely|excluded|wrong|incorrect|ruled out|less likely),? (?:and )?(?:so|nor|neither) (?:is|are|does) "
                    r"(?i:option |choice )?[(\[]?$")  # "A is unlikely and so is C"
_NEGATED_BEFORE_CJK = re2.compile(r"(?:排除|除外|不是|不选|不選|非)了?(?:选项|選項)? ?(?:[A-E] ?(?:、|和|与|與|或) ?)*[(\[]?$")
# ... and after it: "C is unlikely", "A and C are unlikely", "E can also be excluded", "C (unlikely)", "C不正确"
_REJECTION = r"(?i:unlikely|less likely|incorrect|wrong|excluded|ruled out|not|false|implausible|improbable)"
REJECTED_AFTER = re2.compile(
    r"(?:[)\]]?(?:, |/)\(?[A-E])*(?:[)\]]?(?: and | or |, and |, or | & )\(?(?:option |choice )?[A-E])?[)\]]?"
    r"(?:(?i: (?:is|are|was|were|seems?|appears?|looks?|would be|can be|could be|may be|should be|must be)"
    r"(?: also| thus| therefore| clearly| very| much| far| even)?|"
    r" (?:can|could|may|might|should|must) (?:also |safely |therefore )?be) " + _REJECTION +
    r"| \(" + _REJECTION + r"\)| ?[-–—:|] " + _REJECTION + r"| (?i:unlikely|less likely|excluded|ruled out)"
    r"| ?(?:不正确|不正確|错误|錯誤|不对|不對|可以排除|可排除|被排除|除外|不太可能|可能性小|可能性不大|不符合|不考虑|不考慮))")


def negated_before(s: str, i: int) -> bool:
    """`(?<![A-Za-z])(?:not|unlike|...) (?:option |choice )?(letter list)?[(\\[]?$` ending right before s[i]."""
    lo = max(0, i - 60)
    m = _NEGATED_BEFORE.search(s[lo:i])
    if m is not None and not _ascii_letter(s[lo + m.start() - 1:lo + m.start()]):
        return True
    return _NEGATED_BEFORE_CJK.search(s[max(0, i - 24):i]) is not None or _SO_IS.search(s[max(0, i - 40):i]) is not None


# letters-v5: a verdict list, one option per line, rejects by the line's last word or mark
# ("A. Pneumothorax – No", "- C. Lobar pneumonia: ❌", "A. 气胸 不正确")
_LINE_VERDICT = re2.compile(
    r"(?:(?:❌|✗|✘|✖|×|🚫|不正确|不正確|错误|錯誤|不符合|不对|不對|排除|除外)"
    r"|[-–—:|,(] ?(?i:no|incorrect|wrong|unlikely|less likely|excluded|ruled out|false|not (?:likely|correct|consistent)))"
    r"[.!)\]]?$")
_LIST_ITEM = re2.compile(r" \(?[A-E][.):] ")  # another option on the same line: "A) Yes B) No" is an echo
_LINE_OPENING = re2.compile(r"^(?:[-*•+] |\d{1,2}[.)] )?(?:(?i:option|choice) )?[(\[]?$")


def line_verdict_rejects(s: str, i: int) -> bool:
    """Does the letter s[i] open a line (maybe after a bullet) that ends in a rejection ("– No", "❌", "不正确")?"""
    newline = s.rfind("\n", max(0, i - 24), i)
    start = newline + 1 if newline >= 0 else (0 if i <= 24 else -1)
    if start < 0 or not _LINE_OPENING.search(s[start:i]):
        return False
    end = s.find("\n", i, i + 200)
    line = s[i + 1:end if end >= 0 else min(len(s), i + 200)]
    if end < 0 and i + 200 < len(s):
        return False  # a line longer than 200 characters: not a verdict list
    line = line.rstrip()
    m = _LINE_VERDICT.search(line[-24:])
    if m is None or len(line) > 120 or _LIST_ITEM.search(line):
        return False
    text = line[:len(line) - 24 + m.start()] if len(line) > 24 else line[:m.start()]
    # the option's text stands between ("B: No" answers "No"); a CJK character weighs two letters
    return sum(2 if ch >= "\u2e80" else 1 for ch in text if ch.isalpha()) >= 3


def rejected(s: str, i: int) -> bool:
    """Is the option letter s[i] rejected, before ("not C", "rule out B") or after it ("C is unlikely"), or by
    the verdict ending its line ("A. Pneumothorax – No")?"""
    if negated_before(s, i):
        return True
    m = REJECTED_AFTER.match(s[i + 1:i + 60])
    if m is not None and not _ascii_letter(s[i + 1 + m.end():i + 2 + m.end()]):
        return True
    return line_verdict_rejects(s, i)

