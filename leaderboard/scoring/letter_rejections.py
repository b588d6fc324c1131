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
    r"(?i:not|isn['’]t|aren['’]t|wasn['’]t|neither|nor|unlike|excluding|exclude|excludes|excluded|rule out|rules out|ruled out|ruling out|eliminate|"
    r"eliminates|eliminated|eliminating|against|rather than|instead of|other than|more likely than|better than|over|"
    r"less likely|less probably|"  # letters-v11: "Most likely D; less likely B."
    # letters-v10: "I'm not going with A", "I wouldn't choose C"
    r"(?:not|n['’]t|never) (?:going with|go with|choosing|choose|picking|pick|selecting|select)) "
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
    r"| (?i:does not|doesn['’]t|do not|don['’]t|did not|didn['’]t) (?i:fit|match|explain|apply|account for)"  # letters-v7
    r"| (?i:isn['’]t|aren['’]t|wasn['’]t) (?i:correct|right|likely|it|the answer)"
    # letters-v11: "Going with A would ignore the dural tail", "B would fail to explain the rim"
    r"| (?i:would|will) (?i:also )?(?i:ignore|miss|overlook|neglect|contradict|fail to|not (?:explain|fit|match|account for))"
    r"| ?(?:不正确|不正確|错误|錯誤|不对|不對|可以排除|可排除|被排除|除外|不太可能|可能性小|可能性不大|不符合|不考虑|不考慮))")


# letters-v7: a negation reaching a letter in brackets across the option's words ("This is not erysipelas (B)")
_NEGATED_LABEL = re2.compile(r"(?i:not|isn['’]t|aren['’]t|never|rather than|instead of|rules? out|ruled out|ruling out|"
                             r"excludes?|excluding|against) ((?:[a-z][a-z-]* ){1,4})\($")
_CLAUSE_WORDS = {"and", "but", "so", "which", "while", "whereas", "this", "it", "is", "that", "only", "just", "because",
                 "since", "as", "though", "although", "be", "are", "was", "the", "answer", "diagnosis"}


def negated_before(s: str, i: int) -> bool:
    """`(?<![A-Za-z])(?:not|unlike|...) (?:option |choice )?(letter list)?[(\\[]?$` ending right before s[i]."""
    lo = max(0, i - 60)
    m = _NEGATED_BEFORE.search(s[lo:i])
    if m is not None and not _ascii_letter(s[lo + m.start() - 1:lo + m.start()]):
        return True
    m = _NEGATED_LABEL.search(s[lo:i]) if s[i - 1:i] == "(" else None
    if m is not None and not _ascii_letter(s[lo + m.start() - 1:lo + m.start()]) \
            and not _CLAUSE_WORDS & set(m.group(1).lower().split()):
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


# letters-v12: the label of an option named in a rejection, "Unlike embryonal carcinoma (option B), ..."
_REJECTED_LABEL = re2.compile(r"(?i)(?:^|[^a-z])(?:unlike|rather than|instead of|other than)(?: [a-z'’-]+){1,4} \((?:option |choice )?$")


def rejected(s: str, i: int) -> bool:
    """Is the option letter s[i] rejected, before ("not C", "rule out B") or after it ("C is unlikely"), or by
    the verdict ending its line ("A. Pneumothorax – No")?"""
    if negated_before(s, i) or _REJECTED_LABEL.search(s[max(0, i - 60):i]):
        return True
    m = REJECTED_AFTER.match(s[i + 1:i + 60])
    if m is not None and not _ascii_letter(s[i + 1 + m.end():i + 2 + m.end()]):
        return True
    return line_verdict_rejects(s, i)



# letters-v7: a checklist, one option per line, that marks exactly one option yes ("- Option B: yes ✔", "C. ... ✓")
_CHECK_LINE = re2.compile(r"^(?:[-*•+] |\| ?|\d{1,2}[.)] )?(?:(?i:option|choice) )?[(\[]?([A-E])[)\]]?[.:)]? ?(?:[-–—:|] ?)?")
_YES = re2.compile(r"^(?i:yes|correct|true)(?:[^A-Za-z]|$)|^[✔✓✅☑]|[✔✓✅☑]\)?[.!]?$"
                   r"|[-–—:|,(] ?(?i:yes|correct)[.!)\]]?$")
_NO = re2.compile(r"^(?i:no|incorrect|wrong|false|unlikely)(?:[^A-Za-z]|$)|^[❌✗✘✖×]")
MAX_CHECKLIST_LINE = 200
_BARE_VERDICTS = {"yes", "no", "true", "false", "correct", "incorrect"}
_NAMES_OPTION = re2.compile(r"^(?:[-*•+] )?(?i:option|choice) ")


_BULLET = re2.compile(r"^(?:[-*•+] |\| ?|\d{1,2}[.)] )?")


def _text_label(line: str, own: dict) -> tuple[str, str] | None:
    """(letter, rest of the line) when the line opens with an option's whole text (the longest), then a mark or a
    separator: "Pleural effusion ✅", "- Pneumothorax: no"."""
    body = line[_BULLET.match(line).end():]
    lowered = body.lower()
    best = None
    for letter, text in own.items():
        if len(text) >= 3 and lowered.startswith(text) and not body[len(text):len(text) + 1].isalnum() \
                and (best is None or len(text) > len(own[best])):
            best = letter
    if best is None:
        return None
    rest = body[len(own[best]):].strip(" |")
    return (best, rest) if rest else None


def checklist_letter(s: str, options=(), letters: str = "ABCDE") -> str | None:
    """The one option a checklist marks yes when it marks at least one other no, else None. A line whose verdict
    word is its own option's text ("Option A: Yes" on a yes/no item) echoes the option: no verdict; without the
    option texts a bare "A. Yes" line might be such an echo and counts only after "Option"."""
    own = {letters[k]: (o or "").strip().lower() for k, o in enumerate(options) if k < len(letters)}
    yes, no, lines = set(), set(), 0
    for line in s.split("\n"):
        m = _CHECK_LINE.match(line[:40]) if len(line) <= MAX_CHECKLIST_LINE else None
        if m is None:
            labelled = _text_label(line, own) if own and len(line) <= MAX_CHECKLIST_LINE else None
            if labelled is not None:  # "Pleural effusion ✅": the option's own text opens the line
                letter, rest = labelled
                if _YES.search(rest):
                    yes.add(letter)
                    lines += 1
                elif _NO.search(rest) or _LINE_VERDICT.search(rest[-24:]):
                    no.add(letter)
                    lines += 1
            continue
        rest = line[m.end():].strip(" |")  # a table row: "| B | ✓ |"
        word = rest.lower().rstrip(".!")
        if word in _BARE_VERDICTS and (own.get(m.group(1)) == word or (not own and not _NAMES_OPTION.match(line))):
            continue  # "A. Yes\nB. No": the options of a yes/no item, echoed
        if _YES.search(rest):
            yes.add(m.group(1))
        elif _NO.search(rest) or line_verdict_rejects(line, m.start(1)):
            no.add(m.group(1))
        else:
            continue
        lines += 1
    return yes.pop() if len(yes) == 1 and no and not (yes & no) and lines >= 2 else None
