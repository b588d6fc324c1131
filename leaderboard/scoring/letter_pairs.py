"""A letter and an option text that contradict each other (rule letters-v7).

"The answer is B: Pneumothorax" where B is "Pneumonia", "Answer: A (Mobitz II)" where Mobitz II is option C,
"**C** – Basal cell carcinoma" where that is option D, "Option 4: BI-RADS 3" on a BI-RADS 2-5 item: the letter
names one option and the text right after it names another. The other order, a text and then a bracketed letter
("Meningioma (C)."), stays the letter's: a stated letter wins over a text that precedes it (letters-v3's decision,
pinned in test_letter_option_text.py). A careful reader cannot tell which one the writer
meant, so such a statement commits to neither. The rest of the response may still decide, as a reader would
use it: when the response outside the pair names (by text) one of the two options and no other ("... all point
to Crohn's disease.\n\nAnswer: C. Crohn's disease", C being ischemic colitis), that option is the answer;
otherwise the response is unparseable. A letter followed by its own option's text, or by text naming no
option ("B: see the gas under the diaphragm"), is not affected.

The scan is hand-written: one pass over the mentions (option_text.mentions), a constant amount of work each.
"""
from __future__ import annotations

from typing import Sequence

import re2

from .cjk import is_cjk
from .option_text import named_option, read_mentions

_GAP_CHARS = frozenset(" )]:.,-–—(=")  # between the letter and the text: "B: ", "B) ", "(C) – ", "A (", "C. ", "B, "
_MAX_GAP = 5
_ENDS_PAIR = frozenset(".;!)]\n")  # the text stands alone: the line, sentence or parenthesis ends after it


def _letter_before(s: str, start: int, letters: str) -> int | None:
    """The index of the option letter that a mention starting at `start` directly follows ("B: |Pneumothorax"),
    a capital standing alone after at most _MAX_GAP gap characters, else None."""
    for article in ("the ", "The ", "a ", "an "):  # letters-v12: "The answer is C, the posterior tibial tendon."
        if s.endswith(article, 0, start) and s[start - len(article) - 1:start - len(article)] in _GAP_CHARS:
            start -= len(article)
            break
    k = start - 1
    while k >= 0 and start - k <= _MAX_GAP and s[k] in _GAP_CHARS:
        k -= 1
    if k < 0 or k == start - 1 or start - k > _MAX_GAP + 1 or s[k].upper() not in letters or not s[k].isalpha():
        return None
    if s[k].islower() and s[k + 1] not in ":).":
        return None  # "a pneumothorax", "e pleural ...": words; "b: pneumothorax" is a letter
    before = s[k - 1:k] if k else ""
    if (before.isalnum() and not is_cjk(before)) or (k + 1 < len(s) and s[k + 1].isalnum()):
        # (letters-v11: a Chinese character may stand right before the letter: "答案是C(胸腔积液)")
        return None
    if s[k] == "A" and s[k + 1:start] == " ":
        return None  # "A pneumothorax": the article
    return k


def _stands_alone(s: str, end: int) -> bool:
    """Does the mention ending at `end` end its line, sentence or parenthesis ("B: Pneumothorax", "A (Mobitz II)")?"""
    rest = s[end:end + 3].lstrip(" ")
    return rest == "" or rest[0] in _ENDS_PAIR or rest.startswith(("- ", "– ", "— "))


def contradicting_pair(s: str, letter: str, letters: str, options: Sequence[str]) -> tuple[int, int, str] | None:
    """The span (start, end) and the text's letter of a pair "`letter` + another option's text" in `s`, when no
    pair of `letter` with its own option's text stands in `s` too; else None."""
    folded, read = read_mentions(s, options)
    found = None
    for m in read:
        if m.tier == 2 or m.index >= len(letters):
            continue  # a head noun ("effusion") names no one option
        start, end = folded.origin[m.start], folded.origin[m.end - 1] + 1
        k = _letter_before(s, start, letters)
        if k is None or s[k].upper() != letter:
            continue
        if letters[m.index] == letter:
            return None  # "B: Pneumonia" somewhere: the letter's own text is written beside it
        if found is None and _stands_alone(s, end):
            found = (k - 1 if k and s[k - 1] in "([" else k, end, letters[m.index])
    return found


# letters-v8: a JSON answer whose letter and text fields disagree ({"answer": "C", "diagnosis": "<B's text>"})
# (read text: "_" is markup and reads as " ", so "answer_text" arrives as "answer text"; letters-v11)
_TEXT_FIELD = re2.compile(r'(?i)"(?:diagnosis|answer[_ ]text|option[_ ]text|option[_ ]name|label)" ?: ?"([^"\n]{1,200})"')


def _field_disagrees(s: str, letter: str, letters: str, options: Sequence[str]) -> bool:
    """Does a JSON text field ("diagnosis": "...") name, by its whole value, one option other than `letter`'s?"""
    for m in _TEXT_FIELD.finditer(s[:4000]):
        named, _ = named_option(m.group(1), options)
        if named is not None and named < len(letters) and letters[named] != letter:
            return True
    return False


def settle_pair(s: str, letter: str, letters: str, options: Sequence[str]) -> str | None:
    """`letter` when it is not part of a contradicting pair; else the one of the pair's two options the rest of
    the response names by text, or None (unparseable). A JSON text field naming another option is such a pair
    with nothing to settle it (letters-v8)."""
    if '"' in s and _field_disagrees(s, letter, letters, options):
        return None
    pair = contradicting_pair(s, letter, letters, options)
    if pair is None:
        return letter
    start, end, other = pair
    rest = s[:start] + " " * (end - start) + s[end:]
    named, _ = named_option(rest, options)
    if named is not None and letters[named] in (letter, other):
        return letters[named]
    return None


def may_pair(s: str, letter: str) -> bool:
    """Could `letter` be part of a pair in the normalised text `s`, whatever the options: does it (or its lower
    case) stand alone followed by gap characters and a word ("B: P...", "(C) – B...", "b: p...")? A superset of
    contradicting_pair, without the options (batch callers decide with it whether to parse again with them)."""
    for at, ch in enumerate(s):
        if ch != letter and ch != letter.lower():
            continue
        k = at + 1
        while k < len(s) and k - at <= _MAX_GAP and s[k] in _GAP_CHARS:
            k += 1
        if k > at + 1 and k < len(s) and s[k].isalnum() and not (at and s[at - 1].isalnum()
                                                                  and not is_cjk(s[at - 1])):
            return True
    return False


# letters-v9: "Answer: C\n\n... is most consistent with deep vein thrombosis." (option A): a conclusion phrase right
# before another option's text, after the stated letter. The gate (letter_batch.PAIR) reads the same phrases.
CONCLUSION_WORDS = (r"consistent with|diagnostic of|characteristic of|typical of|indicative of|suggestive of|"
                    r"compatible with|in keeping with|pathognomonic (?:of|for)|diagnosis (?:is|of)|points? (?:to|toward)|"
                    r"represents?|shows|depicts|demonstrates")  # v11: "Answer: A\n\nThe image shows a sagittal view"
_CONCLUSION_BEFORE = re2.compile(r"(?i)(?:" + CONCLUSION_WORDS + r")(?: (?:a|an|the))?[ *_:]*$")
_UNSURE = re2.compile(r"(?i)(?:^|[^a-z])(?:not|no|if|would|could|might|may|unlikely|less|rather|than|but|although|"
                      r"though|however|unlike|versus|vs|or|differential)(?:[^a-z]|$)")


def concluded_elsewhere(s: str, letter: str, end: int, letters: str, options: Sequence[str]) -> bool:
    """Does the response, after its stated `letter` (which ends at `end`), conclude another option by its text
    ("... most consistent with <A's text>.") and never name the letter's own option? A careful reader cannot tell
    which was meant: the response commits to neither (the writers' convention for a letter/text conflict)."""
    folded, read = read_mentions(s, options)
    own = letters.index(letter) if letter in letters else -1
    other = None
    for m in read:
        if m.tier == 2 or m.index >= len(letters):
            continue
        if m.index == own:
            return False  # the letter's own option is named too: the text supports the letter somewhere
        start = folded.origin[m.start]
        head = s[max(0, start - 300):start]
        sentence = head[max(head.rfind(ch) for ch in ".!?\n;") + 1:]
        if start < end:
            # letters-v12: "The most likely diagnosis is Ewing's sarcoma, because ...\n\nAnswer: B" (B another option):
            # a diagnosis concluded before the letter, with no revision between them, contradicts it as one after does
            if _DIAGNOSIS_BEFORE.search(sentence) and not _UNSURE.search(sentence) \
                    and not _REVISED.search(s[start:end]) and end - start < 1500:
                other = m.index
            continue
        if _CONCLUSION_BEFORE.search(sentence) and not _UNSURE.search(sentence):
            other = m.index
    return other is not None


_DIAGNOSIS_BEFORE = re2.compile(r"(?i)(?:(?:most likely|final|probable|likely|the) diagnosis (?:is|would be)|"
                                r"most consistent with|diagnostic of|pathognomonic (?:of|for)|"
                                r"(?:a |the )?(?:typical|classic) (?:case|example|picture) of|"  # v13: "shows a typical case of"
                                r"(?:findings |features )?points? to)"  # v13: "These findings point to sarcoidosis.\n\nAnswer: C"
                                r"(?: (?:a|an|the))?[ *_:]*$")
_REVISED = re2.compile(r"(?i)(?:^|[^a-z])(?:wait|actually|however|but|reconsider|on second thought|looking again|"
                       r"re-?evaluat|instead|rather|correction|no,)")
