"""A concluding sentence settles a discussion of several letters (rule letters-v5, step 3).

Chain-of-thought answers often name several option letters as labels or while weighing them ("Fibroadenoma
(A) and phyllodes tumor (C) are biphasic ...; intraductal papilloma (D) has ... This is consistent with
invasive ductal carcinoma, option B."). When step 3 finds several letters, the last sentence holding any of
them decides if it holds exactly one, concludes ("consistent with", "therefore", "most likely", "the diagnosis
is") and does not hedge ("or", "may", "possible", "differential", "cannot exclude"). Otherwise the response
stays unparseable: a careful reader does not pick among letters the writer left open.

Patterns are RE2, each on one sentence (bounded by MAX_SENTENCE characters).
"""
from __future__ import annotations

import re2

MAX_SENTENCE = 400
_ENDS = ".!?;\n"
_CONCLUDES = re2.compile(
    r"(?i)(?:^|[^a-z])(?:consistent with|compatible with|in keeping with|most likely|most consistent|most probable|"
    r"therefore|thus|hence|accordingly|the diagnosis is|diagnosis:|the answer|best (?:answer|fits?|explains|choice|option)|"
    r"favou?r|favou?rs|points? to|(?:i|we) (?:choose|select|pick|go with)|so (?:this|it) is|this is)(?:[^a-z]|$)")
_HEDGES = re2.compile(
    r"(?i)(?:^|[^a-z])(?:or|either|possible|possibly|may|might|could|cannot|can ?not|can't|differential|versus|vs|"
    r"uncertain|unclear|not sure|unsure|unless|if|whether|also|less likely|unlikely|not|excluded?|rather than)"
    r"(?:[^a-z]|$)")


def _sentence(s: str, i: int) -> tuple[int, int]:
    """Bounds of the sentence holding s[i]: after the previous sentence end, up to and including the next."""
    lo = max(0, i - MAX_SENTENCE)
    start = max(s.rfind(ch, lo, i) for ch in _ENDS) + 1
    hi = min(len(s), i + MAX_SENTENCE)
    ends = [k for k in (s.find(ch, i + 1, hi) for ch in _ENDS) if k >= 0]
    return max(start, lo), (min(ends) if ends else hi)


_ALTERNATIVE = re2.compile(r"(?i)(?:could|may|might|can) (?:also |equally |just as well )?be (?:option |choice )?[(\[]?"
                          r"([A-E])(?:[^A-Za-z0-9]|$)"
                          r"|[(\[]([A-E])[)\]] (?:is|are|remains?) (?:also |equally |still )?(?:possible|plausible|likely|"
                          r"a possibility|in the differential)|(?:^|[^A-Za-z])([A-E]) (?:is|remains?) (?:also |equally |still )"
                          r"(?:possible|plausible|likely|a possibility)")


def alternative_after(s: str, end: int, letter: str) -> bool:
    """Does the sentence that a statement of `letter` ends in go on to offer another letter ("The answer is D,
    but it could also be C", "... E, atelectasis, but pleural effusion (B) is also possible")? Then the
    statement does not commit."""
    stop = _sentence(s, end - 1)[1] if end else 0
    m = _ALTERNATIVE.search(s[end:min(stop, end + MAX_SENTENCE)])
    return m is not None and (m.group(1) or m.group(2) or m.group(3)) != letter


def in_question(s: str, i: int) -> bool:
    """Does the sentence holding s[i] end with "?" ("Maybe A?", "Could this be C?"): asked, not answered."""
    end = _sentence(s, i)[1]
    return s[end:end + 1] == "?"


def concluding_letter(s: str, positions: list[tuple[int, str]]) -> str | None:
    """The letter of the last sentence naming any of `positions` ((index, letter), in text order), when that
    sentence names only it, concludes and does not hedge; else None."""
    if not positions:
        return None
    last, letter = positions[-1]
    start, end = _sentence(s, last)
    if {x for i, x in positions if start <= i < end} != {letter}:
        return None
    sentence = s[start:end]
    # the letter itself may be "A" or "I" (never a word here: step 3 kept it as a letter); blank it for the word checks
    blanked = sentence[:last - start] + "_" + sentence[last - start + 1:]
    if _CONCLUDES.search(blanked) is None or _HEDGES.search(blanked) is not None:
        return None
    return letter


# between an option's text and the letter labelling it: "Fibroadenoma (A)", "carcinoma, option B", "(A) Fibroadenoma"
_AFTER_TEXT = (" (", " [", " (option ", " (choice ", ", option ", " - option ", " — option ", " option ")
_BEFORE_TEXT = (") ", "] ", ". ", ": ", " - ", " – ", " — ", " (")


def labels_only(s: str, positions: list[tuple[int, str]], spans, letters: str) -> bool:
    """Does every letter found label a mention of its own option's text ("Fibroadenoma (A)", "(C) Phyllodes
    tumor")? Then the letters only point at the options the text names, and the option texts decide (step 4).
    `spans` are (start, end, option index) of the mentions in `s`."""
    if not positions:
        return False
    ends: dict[int, set[str]] = {}
    starts: dict[int, set[str]] = {}
    for start, end, index in spans:
        if index < len(letters):
            ends.setdefault(end, set()).add(letters[index])
            starts.setdefault(start, set()).add(letters[index])
    for i, letter in positions:  # a constant number of look-ups per letter: linear in the text
        if not (any(letter in ends.get(i - len(gap), ()) and s[i - len(gap):i] == gap for gap in _AFTER_TEXT)
                or any(letter in starts.get(i + 1 + len(gap), ()) and s[i + 1:i + 1 + len(gap)] == gap
                       for gap in _BEFORE_TEXT)):
            return False
    return True
