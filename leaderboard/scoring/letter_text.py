"""Reading a response before the letter rule looks at it (rule letters-v5): the answer part of a reasoning trace,
the first HEAD and last TAIL characters, and markup-free text whose whitespace runs are single " " or "\\n"
(with option numbers written as letters, option_numbers.py). Every pattern is RE2: linear time."""
from __future__ import annotations

import functools
import unicodedata

import re2

from leaderboard.scoring.cjk import is_cjk
from leaderboard.scoring.option_numbers import numbers_as_letters, zero_beside_underscores

HEAD, TAIL = 4000, 2000  # characters read from the start and from the end of a long response
_THINK_TAG = re2.compile(r"(?i)<(/?)think(?:ing)?>")
_STRIKE = re2.compile(r"~~[^~\n]{0,200}~~")  # struck-out text is withdrawn ("~~A~~ C")
_BOLD_LETTERS = [re2.compile(rf"{d}[(\[]?([A-Za-z])[)\]]?([.:)]?){d}") for d in (r"\*\*", "__")]
_MARKUP = re2.compile(r"[*_`#$]+|(?m:^[ \t]*>[> \t]*)")  # bold/italics/code/headings/LaTeX math/quotes
# Python's `\s` minus the newline (RE2's `\s` is ASCII only)
_SPACES = re2.compile(r"[\t\x0b\x0c\r\x1c-\x1f \x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+")
_NEWLINES = re2.compile(r" ?\n[ \n]*")  # after _SPACES every whitespace run is one " " or one "\n"


def answer_part(text: str) -> str:
    """The text after the last </think> (R1-style outputs may lack the opening tag); the thinking itself
    only when nothing follows it, or when an opened block was never closed and nothing precedes it."""
    first_open = last_close = None
    for tag in _THINK_TAG.finditer(text):  # one scan: linear even on "<think>" * 100000
        if tag.group(1):
            last_close = tag
        elif first_open is None:
            first_open = tag
    if last_close is not None:
        after = text[last_close.end():]
        if _THINK_TAG.sub("", after).strip():
            return after
        opens = [t for t in _THINK_TAG.finditer(text[:last_close.start()]) if not t.group(1)]
        return text[opens[-1].end() if opens else 0:last_close.start()]
    if first_open is not None:
        before = text[:first_open.start()]
        return before if before.strip() else text[first_open.end():]
    return text


def cut_off_thinking(text: str) -> bool:
    """Is the response a think block that was opened and never closed, with nothing before it (the output was cut
    off while reasoning)? Then only an answer statement inside it counts (letters-v7)."""
    opening = _THINK_TAG.search(text)
    return opening is not None and not opening.group(1) and not text[:opening.start()].strip() \
        and "</think" not in text.lower()


# words a finished sentence never ends with: a response ending with one was cut off (a token limit)
_DANGLING = frozenset(("and", "or", "but", "with", "of", "the", "a", "an", "between", "whether", "to", "in", "on",
                       "for", "by", "from", "than", "which", "that", "is", "are", "be", "could", "would", "should",
                       "whereas", "while", "because", "versus", "vs",
                       # letters-v10: verbs and words that still need their object ("which would favor", "lean towards")
                       "favor", "favour", "favors", "favours", "favoring", "favouring", "suggest", "suggesting",
                       "indicate", "indicating", "toward", "towards", "including", "such", "as", "into", "at",
                       "representing", "considering", "supporting", "most", "more", "either", "neither", "its",
                       "their", "therefore", "thus", "hence", "so", "although", "though", "since", "if", "when",
                       "where", "was", "were", "has", "have", "not"))  # letters-v12: "... without fluid, so"
_CUT_PUNCTUATION = frozenset("，、,；;")  # a sentence never ends on these (a colon may: "Answer:" is read elsewhere)
_CJK_DANGLING = frozenset("是为的和与或及在")


def cut_off_mid_sentence(s: str) -> bool:
    """Does the response stop in the middle of a sentence, on a word no sentence ends with ("Between AML (A)
    and")? A passing mention before the cut is then no answer (letters-v8); a stated answer still is."""
    tail = s[-30:].rstrip()
    words = tail.split()
    if tail[-1:] in _CUT_PUNCTUATION and len(s) >= 40:
        return True  # letters-v9: "... 在这张图片中，" / "... the findings include X, Y," stop before the sentence does
    if tail[-1:] in _CJK_DANGLING and len(s) >= 40:
        return True  # "最可能的诊断是" (the most likely diagnosis is)
    last_line = s[max(s.rfind("\n"), s.rfind("。")) + 1:]  # the last line, from its last full stop
    if len(s) >= 60 and is_cjk(tail[-1:]) and "。" in s[:-1] and len(last_line) >= 8 \
            and not any(label in last_line for label in ("：", ":", "答案", "诊断")):
        return True  # letters-v12: a Chinese analysis that writes full stops and stops on a character ("…最厚处约"),
        # not a closing label line ("答案：文氏型房室传导阻滞")
    if words and len(words[-1]) <= 2 and words[-1].isalpha() and words[-1].islower() and words[-1] not in _ENDING_WORDS \
            and len(s.split()) >= 8:
        return True  # letters-v12: "... mild midline shift to the ri": cut inside a word
    return bool(words) and words[-1] in _DANGLING and len(s.split()) >= 8  # lower case: "Answer → A" ends well


_ENDING_WORDS = frozenset(("ok", "up", "in", "on", "so", "go", "me", "us", "it", "do", "no", "be", "is", "of"))  # "...is it"


def bounded(text: str) -> str:
    """First HEAD and last TAIL characters, each cut at whitespace so no word fragment ("ADC" -> "C")
    turns into a letter."""
    if len(text) <= HEAD + TAIL:
        return text
    head, tail = text[:HEAD], text[-TAIL:]
    cut = max(head.rfind(" "), head.rfind("\n"))
    head = head[:cut] if cut > 0 else head
    starts = [i for i in (tail.find(" "), tail.find("\n")) if i >= 0]
    tail = tail[min(starts):] if starts else tail
    return head + "\n...\n" + tail


SHORT = 2000  # texts up to this length are kept once read (a long one is read afresh: no cache distorts its time)


def read(text: str) -> str:
    """What the letter rule reads of a response: `normalised(bounded(own_turn(answer_part(text))))`; a short text read
    lately is not read again (batch callers parse a text again with its item's options)."""
    return _read_short(text) if len(text) <= SHORT else normalised(bounded(own_turn(answer_part(text))))


@functools.lru_cache(maxsize=1024)
def _read_short(text: str) -> str:
    return normalised(bounded(own_turn(answer_part(text))))


# letters-v11: a model that runs on into a next question it makes up ("Answer: A\n\nQuestion: ...\nAnswer: B")
_NEXT_TURN = re2.compile(r"\n[ \t]*(?:#+ ?)?(?:Question|QUESTION|Q|USER|User|Human|HUMAN|问题|<\|im_start\|>user)[ \t]*[:：\n]")


_ASSISTANT_TURN = re2.compile(r"(?:^|\n)[ \t]*(?:ASSISTANT|Assistant|<\|im_start\|>assistant)[ \t]*[:：\n]")


def own_turn(text: str) -> str:
    """The model's own turn: after the first "Assistant:" line when the response echoes the dialogue, and up to a
    line that opens another turn ("Question:", "USER:", "Human:") when something precedes that line."""
    head = text[:HEAD + TAIL]
    if "ssistant" in head or "SSISTANT" in head:
        m = _ASSISTANT_TURN.search(head)
        if m is not None and text[m.end():].strip():
            text = text[m.end():]
            head = text[:HEAD + TAIL]
    m = _NEXT_TURN.search(head)
    return text[:m.start()] if m is not None and text[:m.start()].strip() else text


def normalised(text: str) -> str:
    """Markup-free text whose whitespace runs are single " " or "\\n", so patterns need no `\\s*`."""
    text = unicodedata.normalize("NFKC", _THINK_TAG.sub(" ", text))  # full-width "Ｃ", "：" -> "C", ":"
    text = bounded(text)  # again: NFKC can lengthen a text up to 18-fold
    text = _STRIKE.sub(" ", text)
    for bold in _BOLD_LETTERS:  # "**A** Retinal ..." is a letter, not "A Retinal"
        text = bold.sub(r"(\1)\2", text)
    text = _MARKUP.sub(" ", zero_beside_underscores(text))
    text = text.replace("\\(", "(").replace("\\)", ")")
    return numbers_as_letters(cyrillic_answers(_NEWLINES.sub("\n", _SPACES.sub(" ", text)).strip()))


# letters-v7: a Cyrillic or Greek option letter after a Russian, Ukrainian or Greek answer cue ("Ответ: Б." is option
# B): А Б В Г Д and Α Β Γ Δ Ε = A-E (capitals only: "в" is a preposition)
_FOREIGN_ANSWER = re2.compile(r"(?:^|[^\p{L}])((?i:(?:правильный )?ответ|вариант|(?:правильна )?відповідь|απάντηση|απαντηση))"
                              r"(?: ?: ?| [-–—] | )\(?([АБВГДΑΒΓΔΕ])([^\p{L}\p{N}]|$)")
_FOREIGN_LETTERS = dict(zip("АБВГДΑΒΓΔΕ", "ABCDEABCDE"))


def cyrillic_answers(text: str) -> str:
    """`text` with each answer cue and Cyrillic or Greek letter written as "Answer: <Latin letter>"."""
    lowered = text.lower()
    if not any(cue in lowered for cue in ("тве", "ариант", "ідповід", "πάντηση", "παντηση")):
        return text
    return _FOREIGN_ANSWER.sub(lambda m: m.group(0)[:m.start(1) - m.start()] + "Answer: "
                               + _FOREIGN_LETTERS[m.group(2)] + m.group(3), text)


# letters-v11: lower-case option texts after "B. " that no species epithet spells ("B. yes", "A. nasal side")
_NOT_SPECIES = frozenset(("yes", "no", "normal", "abnormal", "present", "absent", "none", "good", "fair", "poor",
                          "excellent", "mild", "moderate", "severe", "nasal", "temporal", "superior", "inferior", "left",
                          "right", "true", "false", "increased", "decreased", "benign", "malignant", "the", "this", "a",
                          "an", "it", "both", "neither", "all", "other", "unclear", "not", "bilateral", "central"))


# letters-v12: how species epithets end (coli, aureus, pneumoniae, pallidum, trachomatis, albicans, perfringens, pyogenes,
# difficile, ovale, vivax, niger); "B. usable", "C. reject" end otherwise and are a letter and its option's text
_EPITHET_ENDINGS = ("i", "ae", "us", "um", "is", "a", "ans", "ens", "es", "ax", "ex", "ix", "ile", "ale", "er")


def genus_abbreviation(s: str, i: int) -> bool:
    """Is the capital s[i], followed by ". " and a lower-case word spelled like a species epithet, a genus
    abbreviation ("E. coli")?"""
    if s[i + 1:i + 3] != ". " or not s[i + 3:i + 4].islower():
        return False
    word = s[i + 3:i + 24]
    end = next((k for k, ch in enumerate(word) if not ch.isalpha()), len(word))
    return word[:end] not in _NOT_SPECIES and word[:end].endswith(_EPITHET_ENDINGS)


_CJK_IF = re2.compile(r"如果|假如|倘若|若是|要是|假设|若(?:有|为|患者|病人|存在)")
_CJK_MUST = re2.compile(r"(?:如果|假如|若是|要是)(?:必须|一定要|只能|非要|硬要)")  # "如果必须选择，答案是A" commits


def cjk_conditional(s: str, i: int) -> bool:
    """letters-v12: is s[i] inside a Chinese if-clause's sentence, before it ("如果患者有明确外伤史，则选 A")? Not "如果必须
    选择" (if I must choose), which commits."""
    head = s[max(0, i - 60):i]
    head = head[max(head.rfind(ch) for ch in "。；！？\n") + 1:]
    return _CJK_IF.search(head) is not None and _CJK_MUST.search(head) is None
