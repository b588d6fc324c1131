"""Self-corrections after a committed letter (rule letters-v7; letters-v8 adds "no, sorry" and Chinese markers).

"The answer is D) Melanoma — no, scratch that, I mean E." and "The answer is B. Actually, on reflection, ... so this
is complete heart block: D." commit to the later letter: after the letter a correction marker ("actually", "no,
scratch that", "I mean", "on reflection", "wait", "correction:") is followed by one other letter that is itself
committed (its sentence concludes, or the marker restates: "I mean E"). A marker followed by no letter changes
nothing ("Answer: B. Actually, the notch confirms it."), and one followed by a letter only discussed ("Actually, A
is a common mimic") neither. A response that ends by retracting, with nothing after ("I think the answer is a
phlebolith. Wait, no."), has withdrawn its answer: unparseable.

Patterns are RE2 on bounded slices; the letters after the marker are found by the caller's step-3 scan.
"""
from __future__ import annotations

import re2

from .letter_conclusion import commits

_MARKER = re2.compile(r"(?i)(?:^|[^a-z])(?:actually|no,? scratch that|scratch that|i mean|i meant|on second thought|"
                      r"on reflection|wait|correction|let me correct(?: that)?|make that|change (?:that|my answer) to|"
                      # letters-v8: "B... no, sorry, A", "答案A。更正：应为C"; v13: "C. <text> — sorry, that is option D."
                      r"no,? sorry|sorry,? (?:i mean|i meant|no|that(?:['’]s| is| was| should be))|(?:\.\.\.|…) ?no|更正|纠正|改为|改选|应为|应该为|"
                      # letters-v10: "答案是B。\n不对，重新看一下图片：... 应为D。" (no, look at the image again)
                      r"不对|错了|重新(?:看|考虑|分析|审视))"
                      r"(?:[^a-z]|$)")
_RESTATES = re2.compile(r"(?i)(?:i mean|i meant|make that|change (?:that|my answer) to|correction|"
                        r"(?:更正|纠正)?:? ?(?:应为|应该为|应该是|应是|改为|改选|选))"
                        r" ?:? ?(?:option |choice |选项)?\(?$")
# "Wait, no: C.", "Actually, it's C." -- the new letter ending its sentence right after the marker
_RESTATES_ALONE = re2.compile(r"(?i)(?:^|[^a-z])(?:no|actually|rather|sorry) ?[:,]? ?(?:it['’]?s |it is )?(?:option |choice )?\(?$")
# letters-v12: "... sigmoid volvulus, which is B.", "... so it's B, medial subperiosteal abscess."
_IS_LETTER = re2.compile(r"(?i)(?:which|that|so it|it|this)(?:['’]s| is) (?:option |choice )?\(?$")
_SENTENCE_END = re2.compile(r"^[)\]]?(?:[.!]|$|\n)")
# the response's last words take back what it said, offering nothing instead
_RETRACTION_AT_END = re2.compile(r"(?i)(?:^|[.!?;\n] ?)(?:wait|actually|hmm|hold on|oh)?[,.!]? ?"
                                 r"(?:no|nope|scratch that|never mind|nevermind|that'?s wrong|that is wrong)[.!]*$")


def may_correct(s: str) -> bool:
    """Does `s` hold a correction marker (a correction to an option's text then needs the option texts)?"""
    return _MARKER.search(s) is not None


def retracted_at_end(s: str) -> bool:
    """Does the response end with a retraction and nothing else ("... Wait, no.", "... No, scratch that.")?"""
    return _RETRACTION_AT_END.search(s[-40:]) is not None and len(s.rstrip()) > 20


# a restated option text: "..., I mean pleural effusion.", "Actually, it's pleural effusion." (to the sentence's end)
_RESTATED_TEXT = re2.compile(r"(?i)(?:i mean|i meant|make that|correction:|it['’]s|it is|the answer is) ([^.!?;\n]{3,80})(?:[.!]|$|\n)")


def corrected(s: str, end: int, letter: str, letters_after, text_letter=None) -> str | None:
    """The letter a correction after s[:end] (where `letter` was committed) moves to, or None when there is none.
    `letters_after(start)` gives the (position, letter) of the standalone letters in s[start:], rejected ones out;
    `text_letter(phrase)` the letter of the one option a short phrase names by text (None: not given)."""
    marker = _MARKER.search(s[end:end + 2000])
    if marker is None:
        return None
    start = end + marker.start()
    if text_letter is not None:
        restated = _RESTATED_TEXT.search(s[start:start + 200])
        other = text_letter(restated.group(1)) if restated and restated.start() < 40 else None
        if other is not None and other != letter:
            return other  # "The answer is A. Actually, it's pleural effusion."
    later = [(i, x) for i, x in letters_after(start) if x != letter]
    if len({x for _, x in later}) != 1:
        return None
    i, other = later[-1]
    if _RESTATES.search(s[max(start, i - 40):i]) or commits(s, i) or _IS_LETTER.search(s[max(start, i - 20):i]) \
            or (_RESTATES_ALONE.search(s[max(start, i - 40):i]) and _SENTENCE_END.match(s[i + 1:i + 3])) \
            or ((s[i - 2:i] in (", ", ": ", ". ") or s[max(start, i - 4):i].rstrip("([* ")[-1:] == "\n")
                and not s[i + 1:].strip(" .!)]*\n")):
        # v12: "... callosum. C."; v13: "**B** — actually, no. ... it is a paraovarian cyst.\n\n**D**" (its own last line)
        return other  # letters-v11: "Actually no, looking again at the Kerley lines, D." (the response's last word)
    return None


# letters-v12: the last sentence owns to not knowing ("I'm not sure which one is right.")
_UNSURE_AT_END = re2.compile(r"(?i)(?:not sure|unsure|uncertain|can(?:no|['’])t (?:decide|tell|be sure)|hard to (?:say|tell)|"
                             r"不确定|拿不准)[^.!?\n]{0,60}[.!?。]*$")


# letters-v13: "Answer: B\n\nActually, I'm not sure. ... It could be B or C." (unsure right after the marker)
_UNSURE_AFTER_MARKER = re2.compile(r"(?i)[ ,.!]{0,3}(?:i['’]?m |i am )?(?:not (?:so |entirely |completely )?sure|unsure|"
                                   r"not certain|uncertain)")


def unresolved(s: str, end: int, letter: str, letters_after) -> bool:
    """Does a correction marker after the committed `letter` (ending at `end`) raise another letter and the response
    end unsure, with no new commitment ("Answer: A. Hmm, actually ..., it might be C. I'm not sure which one is
    right.")? A careful reader records no answer: the first one is withdrawn and the second never given."""
    marker = _MARKER.search(s[end:end + 2000])
    if marker is None or (_UNSURE_AT_END.search(s[-120:].rstrip()) is None
                          and _UNSURE_AFTER_MARKER.match(s[end + marker.end():end + marker.end() + 40]) is None):
        return False
    return any(x != letter for _, x in letters_after(end + marker.start()))
