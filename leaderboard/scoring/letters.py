"""Multiple-choice letter parsing shared by the benchmarks whose items are options A-E.

`parse_letter(text, letters)` returns the option letter a careful reader takes as the response's answer,
or None (unparseable: scored wrong, counted). Rule letters-v12 (docs/parsing.md is the full text), in order of
precedence:

1. Explicit answer statements decide: "Answer: C", "The final/correct answer is (C)", "The correct option
   is C", "The most likely diagnosis is (C) ...", "C is the correct answer", "I choose C", "\\boxed{C}",
   "<answer>C</answer>", {"answer": "C"}, "答案：C", "选 C", "Respuesta: C", "Réponse : C", "Antwort: C".
   Mere mentions ("Answer: B. Option A is less likely ...") are not statements. If statements disagree,
   only the final ones (final answer, \\boxed, answer tag, JSON key) count when there are any; if those
   still disagree, the last one wins only after a self-correction ("wait", "actually", "on second
   thought") or when it picks one of a hedge ("A or C; I lean toward C"), else the response is unparseable.
2. Else a lone leading letter decides: the response opens with it ("B", "B.", "(B) Vein occlusion",
   "**B**", "Option B:", "B\\n\\nReasoning ... unlike A ..."). Later lines may name other options, but
   an echoed option list ("A. ...\\nB. ...") is not an answer.
3. Else a single standalone capital letter anywhere ("... most likely has choice C."), not counting the
   article "A", the pronoun "I", or letters in terms ("vitamin A", "X-linked", "E. coli", "C/D ratio",
   "H&E", "B cell", a letter inside a mention of an option's text). A letter the response rejects anywhere
   ("not A", "rule out B", "rather than C", "C is unlikely", "A and C are excluded", "C (unlikely)",
   "除外C", "C不正确", "A. Pneumothorax – No") is never its answer, and its option's text is rejected in
   step 4 too. A letter only asked or conditional ("Maybe A?", "If it's B, ...") never decides. Several
   letters: the last sentence naming any decides if it names one, concludes and does not hedge
   (letter_conclusion.py); if they all label option texts ("Fibroadenoma (A)"), step 4 decides.
4. Else (no letter stated) the one option named by its text, when the caller passes the option texts
   (leaderboard/scoring/option_text.py: folded whole words, longest match, rejected mentions dropped); when no full
   text is named, the one option named by an alias no other option shares (letters-v4,
   leaderboard/scoring/option_aliases.py: "ARDS", "E. coli", "T2", "type A", "Grade C", "CNS lymphoma").
Option numbers are letters in every step ("Option 3", "the first option", "选项3": option_numbers.py).
letters-v7 adds: a letter paired with another option's text ("The answer is B: <A's text>") commits to neither
(letter_pairs.py); a later committed letter after a correction replaces the first, a final bare retraction
withdraws it (letter_corrections.py); a checklist marking one option yes; hedges ("A? Or B?"); option numbers
that need the option count ("Answer: 1", "the last option"); reasoning cut off inside <think> or mid-analysis
answers nothing. letters-v8: a ranked differential answers with its first item (letter_ranked.py); a response cut
off mid-sentence ("Between AML (A) and") answers only by a statement (letter_text.cut_off_mid_sentence).
letters-v9: with no letter stated and no option named, a normal study answers the normal option (letter_normal.py) and
a classic sign the option of its condition (letter_signs.py); lay names are other names (option_synonyms.py).
letters-v10: a lean with a concession ("most likely B, though C cannot be excluded", "could be C, but D seems more
likely", "更倾向于D，但B也不能完全排除") takes the lean (letter_leans.py); Chinese names answer English options
(option_chinese.py); "不对 ... 应为D" corrects; 'A "quoted term"' is the article. letters-v11: other writings of an
option's text ("category 4", "T3 N2 M0", "non-contrast head CT": option_variants.py); a Chinese yes/no or "Present."
answers a yes/no item (option_yes_no.py). letters-v12: an option-by-option walk only labels the options; a count, a
side, a grade by its value, a shortened Chinese name, a typo, a long option's telling words name it (option_answer.py).

At each step one letter is the answer if it is among `letters`, and unparseable if it is not (E for a
4-option item); several different letters ("A or C") or none at all steps are unparseable. Before
matching, <think>...</think> blocks are dropped (a response that is only thinking is read inside it),
markdown/LaTeX markup is removed, and only the first 4,000 and last 2,000 characters are read: answers
sit at the start or, after the reasoning, at the end. Lower-case letters count only where no word is
meant ("c", "answer: d"; never "a 45-year-old", "e.g."). Every pattern is bounded: linear time.
"""
from __future__ import annotations

import functools
from typing import NamedTuple, Sequence

import re2

from leaderboard.scoring.letter_conclusion import (alternative_after, concluding_letter, declines_to_choose, trailing_letter,
                                                   ends_in_analysis, enumerated, in_question, labels_only, listed_together,
                                                   narrowed_to_pair, stops_in_option_analysis, undecided_after,
                                                   walk_cut_off, cut_off_in_steps, named_in_echo)
from leaderboard.scoring.letter_rejections import REJECTED_AFTER as _REJECTED_AFTER
from leaderboard.scoring.letter_rejections import checklist_letter, line_verdict_rejects
from leaderboard.scoring.letter_rejections import negated_before as _negated_before
from leaderboard.scoring.letter_rejections import rejected as _rejected
from leaderboard.scoring.letter_text import (HEAD, TAIL, SHORT, answer_part, bounded, cut_off_mid_sentence,  # noqa: F401
                                             cjk_conditional, cut_off_thinking, genus_abbreviation, normalised, read)  # (HEAD, TAIL: callers)
from leaderboard.scoring.option_numbers import DIGITS, counted_numbers  # noqa: F401 (DIGITS: batch callers zero digits with it)
from .letter_corrections import corrected, may_correct, retracted_at_end, unresolved
from .letter_batch import needs_options, needs_options_batch  # noqa: F401 (batch callers import them from here)
from .letter_pairs import concluded_elsewhere, settle_pair
from .letter_windows import matches
from .letter_leans import leaned_letter
from .letter_ranked import ranked_first
from .option_answer import unnamed_option
from .letter_statements import LINE_START, NOT_BU, NOT_NEGATED, PY_WORD_BEFORE, STATEMENTS, WORD_BEFORE, py_word
from .letter_rule import RULE_SUMMARY, RULE_VERSION, rule_of  # noqa: F401 (callers import them from here)
from .option_text import folded_option, named_option

LETTERS = "ABCDE"


# Digits decide only as option numbers ("Option 3" is C: option_numbers.py), and only where no letter, digit or
# "_" touches them; every other digit is one class (a word character, as in "A 45-year-old") whose value no rule
# reads. Batch callers may therefore parse once per text with every match of DIGITS replaced by "0" ("Finding 17
# ... (B)" and "Finding 18 ... (B)" are one parse). tests/test_letters_batch.py pins this on the corpus.
_CONFLICT = "?"  # a step found several different letters: the response does not commit


# ------------------------------------------------------------------ matching (reading the text: letter_text.py)
# Every pattern runs on RE2 (linear time, no backtracking). RE2 has no lookarounds: where the rule needs one
# (a letter not inside a word, a statement not followed by "is incorrect") it is checked in Python on the
# match's neighbours, and a match that fails the check is retried one character later, as a backtracking
# engine would (`letter_windows.matches`).
def _word(ch: str) -> bool:
    """A character of `_WORD`: ASCII letters and digits, Latin-1/Latin Extended letters."""
    return "a" <= ch <= "z" or "A" <= ch <= "Z" or "0" <= ch <= "9" or "\u00c0" <= ch <= "\u024f"


def _ascii_letter(ch: str) -> bool:
    return "a" <= ch <= "z" or "A" <= ch <= "Z"


# ------------------------------------------------------------------ is this letter an option letter?
_WORD = "A-Za-z0-9\u00c0-\u024f"  # letters and digits of Latin scripts (CJK characters are not word chars)
# each is matched on a short slice before or after the letter (a whole-text call costs RE2 the whole text)
_TERM_WORDS = (r"(?:vitamin|hepatitis|type|group|zone|class|grade|stage|phase|factor|protein|complex|cluster|level|"
               r"panel|figure|fig\.|image|part|step|lead|schedule|plan|region|area|hemoglobin|haemoglobin|"
               # letters-v7: classifications named after a person or written "subtype C" (Antoni A, Kerley B, Weber C)
               r"subtype|serotype|genotype|category|strain|segment|antoni|kerley|weber|pugh|forrest)")
_NOT_OPTION_BEFORE = re2.compile(r"(?i)" + _TERM_WORDS + " $")
# letters-v5: the next letter of a term list, "hepatitis B or C", "vitamin C and D", "type A/B"
_TERM_LIST_BEFORE = re2.compile(r"(?i)" + _TERM_WORDS + r" [A-Z][0-9]{0,2}(?:(?:, | ?/ ?)[A-Z][0-9]{0,2})*"
                                r"(?:,? (?:or|and|&|nor) | ?/ ?|, )$")
_TERM_AFTER = re2.compile(r"(?i: (?:cells?|lymphocytes?|lymphoma|symptoms?|wave|waves|point|antigen|blood|strain|"
                          r"lines|bands?|fib(?:er|re)s?|toxins?|virus|viruses|receptors?|chains?|subunits?|"
                          r"signs?))"  # letters-v13: 'the "C sign"' 
                          r"(?:[^A-Za-z]|$)")
_GLOSSED_ARTICLE = re2.compile(r"\([^()\n]{1,40}\) [a-z]")
_A_VERBS = re2.compile(r" (?:or|and|nor|vs|versus|through|to|is|was|seems|appears|would|could|might|may|can|fits|matches|over|"
                       r"because|since|as|has|remains|looks)(?:[^a-z]|$)")


def _slashed_pair(s: str, i: int) -> bool:
    """A capital pair "X/Y" standing alone ("C/D", "A/V") that holds s[i] (within s[i-2:i+4])."""
    for k in (i - 2, i - 1, i):
        if k < 0 or k + 3 > min(len(s), i + 4):
            continue
        if ("A" <= s[k] <= "Z" and s[k + 1] == "/" and "A" <= s[k + 2] <= "Z"
                and not (k and _word(s[k - 1])) and not (k + 3 < i + 4 and _word(s[k + 3:k + 4]))):
            return True
    return False


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() and ord(ch) < 0x2E80


def _is_option_letter(s: str, i: int, context: str, bare: bool = False, negation: bool = True) -> bool:
    """Is the single letter s[i] an option letter rather than part of a word, an abbreviation, the article
    "A" or the pronoun "I"? `context` is "explicit", "leading" or "standalone"; `bare` means the explicit
    statement had no verb or colon before the letter ("### Answer\\nA fundus photo ...")."""
    ch, prev, nxt = s[i], s[i - 1:i], s[i + 1:i + 2]
    after2 = s[i + 2:i + 3]
    if _NOT_OPTION_BEFORE.search(s[max(0, i - 14):i]) or _TERM_LIST_BEFORE.search(s[max(0, i - 40):i]):
        return False  # "vitamin A", "hepatitis B", "type C", "zone I", "hepatitis B or C"
    if context == "standalone" and negation and _negated_before(s, i):
        return False  # "It's not A, it's C": a rejected option is no answer
    if prev in "([" and nxt in ")]" and prev and nxt:
        return True  # "(c)", "[B]": nothing but a letter
    if "&" in (prev, nxt):
        return False  # "H&E", "A&E", "B&W": a term
    if nxt in ("型", "类", "類", "线", "線", "超"):
        return False  # letters-v13: "A型" (type A), "B类" (class B), "克氏B线" (Kerley B lines), "B超": Chinese terms
    if prev in ("°", "º") or (prev == " " and s[i - 2:i - 1] in ("°", "º")):
        return False  # letters-v9: a temperature's unit, "29 °C", "98.6°F"
    if _TERM_AFTER.match(s[i + 1:i + 16]):
        return False  # "B cell", "T cells", "NK cell" (the letter names a cell or lymphocyte type)
    if nxt in "'’" and after2.isalpha():
        return False  # "A's", "I'd", "I'm"
    if (nxt == "-" and _is_word_char(after2)) or (prev == "-" and _is_word_char(s[i - 2:i - 1])):
        return False  # "X-linked", "B-scan", "anti-A"
    if (nxt == "." and after2.isalpha()) or (prev == "." and s[i - 2:i - 1].isalpha()):
        return False  # "e.g.", "i.e.", "U.S."
    if ch.isupper() and nxt == "." and genus_abbreviation(s, i):
        return False  # genus abbreviations: "E. coli", "C. albicans" (letters-v11: not "B. yes", "A. nasal side")
    if ch.islower():
        return context != "standalone" and _lower_case_letter_ok(s, i, context)
    if context == "standalone" and "/" in (nxt, prev) and _slashed_pair(s, i):
        return False  # "C/D ratio", "A/V nicking"
    gloss = _GLOSSED_ARTICLE.match(s[i + 2:i + 50]) if ch == "A" and after2 == "(" and nxt == " " else None
    if gloss and not _A_VERBS.match(s[i + 2 + gloss.end() - 2:i + 2 + gloss.end() + 10]):
        return False  # "A (45-year-old) man": the article before a parenthesis (not "A (...) is most likely")
    if ch == "A" and nxt == " " and after2 in "\"“‘'" and s[i + 3:i + 4].islower() and context != "explicit":
        return False  # letters-v10: 'A "double-line sign" on T2 ...': the article before a quoted term
    if ch in "AI" and nxt == " " and (after2.islower() or after2.isdigit() or
                                      (after2.isupper() and _is_word_char(s[i + 3:i + 4]))):
        if ch == "I":
            return False  # "I think", "I 2"
        if context == "explicit" and not bare:
            return not after2.isdigit()  # "the answer is A because" (but "Answer: A 45-year-old")
        return _A_VERBS.match(s[i + 1:i + 12]) is not None  # "A or B", "A is" vs "A fundus", "A 45-year-old", "A CRVO"
    return True


def _lower_case_letter_ok(s: str, i: int, context: str) -> bool:
    """A lower-case letter is an option only where no word is meant: alone, before punctuation
    ("c.", "d)", '"c"'), or after an explicit statement when it cannot be a word ("answer is c because")."""
    nxt, after2 = s[i + 1:i + 2], s[i + 2:i + 3]
    if nxt in ("", "\n"):
        return True
    if nxt in ".,;:!?)]}\"'’" and not _is_word_char(after2):
        return True
    return context == "explicit" and s[i] not in "ai" and nxt == " "


_HEDGE = re2.compile(r"(?i)[)\]]?\??(?: ?/ ?| or | and | & | vs\.? | versus |, (?:or |and )?| ?[、和或及] ?)\(?(?:option |choice )?"
                     r"([A-Za-z])")
_VERB_AFTER = re2.compile(r"(?i) (?:is|are|was|were|seems?|has|have|would|could|might|may|can|does|did)(?:[^a-z]|$)")


def _hedged(s: str, end: int, context: str) -> str | None:
    """The second letter of "A or C", "A/C", "A, C" right after a letter ending at `end`."""
    m = _HEDGE.match(s[end:end + 40])
    if m is None:
        return None
    i = end + m.start(1)  # the letter: alone ("A/C", not "A/Cx") and not the subject of a verb ("or C is")
    if _word(s[i + 1:i + 2]) or _VERB_AFTER.match(s[i + 1:i + 12]):
        return None
    return s[i].upper() if _is_option_letter(s, i, context) else None


# ------------------------------------------------------------------ step 1: explicit answer statements


def _explicitmatches(s: str):
    """Every statement match of every pattern, with the lookarounds RE2 lacks checked on its neighbours."""
    for pattern, before, after in STATEMENTS:
        letter = pattern.groupindex["l"]

        def ok(m, before=before, after=after, letter=letter):
            start, i = m.start(), m.start(letter)
            prev = s[start - 1:start]
            if (before == WORD_BEFORE and _word(prev)) or (before == LINE_START and prev not in ("", "\n")) \
                    or (before == PY_WORD_BEFORE and py_word(prev)) or (before == NOT_BU and prev == "不") \
                    or (before == NOT_NEGATED and (_word(prev) or s[max(0, start - 7):start].lower().endswith(
                        ("not ", "n't ", "n’t ", "never ")))):
                return False
            if _word(s[i - 1:i] if i else "") or _word(s[i + 1:i + 2]):
                return False  # the letter alone, not part of a word
            return after is None or after(s[m.end():])

        for m in matches(pattern, s, ok):
            yield pattern, m, letter
_REVISION = re2.compile(r"(?i)(?:wait|actually|on second thought|on reflection|correction|reconsider(?:ing)?|"
                        r"i was wrong|let me re-?(?:check|evaluate|consider)|"
                        # letters-v9: "However, upon re-examining the image ..., the correct answer is D."
                        r"(?:up)?on re-?examin(?:ing|ation)|re-?evaluating|on closer (?:inspection|look)|looking again|"
                        # letters-v12: "Sorry, correcting myself: ...", "my mistake"; Chinese "不对，再仔细看一下" (no, look again)
                        r"correcting (?:myself|that)|let me correct|my mistake|i misspoke|however|looking (?:more )?closely|"
                        r"looking more carefully|on (?:further|more careful) (?:inspection|review|look)|"
                        r"不对|更正|纠正|再仔细看|重新考虑|仔细看|等一下|等等)")


_IF_CLAUSE = re2.compile(r"(?i)(?:if|unless|assuming|suppose|whether|otherwise)")  # v12: "...; otherwise B (gout)"
_COMMITS_ANYWAY = re2.compile(r"(?i) (?:i|we) (?:had|have|must|need) to| (?:i|we) must | forced")  # "If I had to choose, ..."


def _word_in(pattern, s: str, lo: int, hi: int, commits=None) -> bool:
    """Does `pattern` match a whole word (no ASCII letter either side) within s[lo:hi], as a regex with
    `(?<![a-z])...(?![a-z])` (re.I) searched with pos=lo, endpos=hi would? `commits` = a lookahead that
    must not follow it."""
    window = s[lo:hi]

    def ok(m):
        after = window[m.end():]
        return (not _ascii_letter(s[lo + m.start() - 1:lo + m.start()] if lo + m.start() else "")
                and not _ascii_letter(after[:1]) and not (commits and commits.match(after[:24])))

    return next(matches(pattern, window, ok), None) is not None


def _hypothetical(s: str, start: int, end: int) -> bool:
    """Is the statement s[start:end] inside a condition ("If ..., the answer would be D", "the answer would
    be A if ...")? Not "If I had to choose, the answer would be C", which commits."""
    lo, hi = max(0, start - 150), min(len(s), end + 150)
    clause_start = max(s.rfind(ch, lo, start) for ch in ".!?;\n") + 1 or lo
    ends = [i for i in (s.find(ch, end, hi) for ch in ".!?;\n") if i >= 0]
    clause_end = min(ends) if ends else hi
    return _word_in(_IF_CLAUSE, s, max(clause_start, lo), clause_end, _COMMITS_ANYWAY)


class _Statement(NamedTuple):
    start: int
    end: int
    letter: str
    final: bool
    pair: str = ""  # the two letters of "the answer is A or C" this statement is part of


def _explicit_read(s: str) -> tuple[str | None, int]:
    """Letter named by the response's answer statements (_CONFLICT when they disagree beyond repair) and the end of
    the last statement of it."""
    found: dict[int, _Statement] = {}
    for pattern, m, letter in _explicitmatches(s):
        i = m.start(letter)
        groups = pattern.groupindex
        if not _is_option_letter(s, i, "explicit", bare="bare" in groups and m.group("bare") is not None) \
                or (i - m.start() < 3 and _negated_before(s, i)):
            continue  # not a letter; or "neither A nor B is correct" (letters-v5)
        if (" would be " in m.group(0).lower() or m.group(0)[:2].lower() == "it" or _otherwise_after(s, m.end())) \
                and _hypothetical(s, m.start(), m.end()):  # v12: "If ..., the answer is B; otherwise, C ..." too
            continue  # "If the OCT showed fluid, the answer would be D" describes another case
        if cjk_conditional(s, m.start()):
            continue  # letters-v12: "如果患者有明确外伤史，则选 A" (if there is a history of trauma, choose A)
        final = any(m.group(g) for g in ("final", "final2") if g in groups)
        old = found.get(i)
        found[i] = _Statement(m.start(), i + 1, s[i].upper(), final or (old is not None and old.final))
        other = _hedged(s, i + 1, "explicit")
        if other and other != s[i].upper():  # "The answer is A or C": both, so no commitment
            found[i] = found[i]._replace(pair=s[i].upper() + other)
            found[i + 1] = _Statement(i + 1, i + 2, other, found[i].final, found[i].pair)
    if not found:
        return None, 0
    statements = sorted(found.values())
    pool = [st for st in statements if st.final] or statements  # "final" statements outrank the others
    if pool[-1] is not statements[-1] and statements[-1].letter != pool[-1].letter \
            and _word_in(_REVISION, s, pool[-1].end, statements[-1].end):
        pool = pool + [statements[-1]]  # "Final answer: B. ... so actually A": corrected after the final one
    if alternative_after(s, pool[-1].end, pool[-1].letter):
        return _CONFLICT, 0  # letters-v5: "The answer is D, but it could also be C"
    if len({st.letter for st in pool}) == 1:
        return pool[0].letter, pool[-1].end
    last = pool[-1]
    overruled = [st for st in pool if st.letter != last.letter]
    if _word_in(_REVISION, s, overruled[-1].end, last.end):  # "... the answer is A. Wait, ... the answer is C"
        return last.letter, last.end
    if not last.pair and all(last.letter in st.pair for st in overruled):
        return last.letter, last.end  # letters-v5: "The answer is A or C; I lean toward C" settles the hedge
    return _CONFLICT, 0


# a pure function of the text read: a short text read again (with the item's options) is not worked out again
_explicit_short = functools.lru_cache(maxsize=1024)(_explicit_read)
_explicit = lambda s: _explicit_short(s) if len(s) <= SHORT else _explicit_read(s)  # noqa: E731


# ------------------------------------------------------------------ step 2: a lone leading letter
_LEADING = re2.compile(r"(?i)((?:option|choice|answer|letter) ?:? )?\(?\[?([A-Za-z])")  # then no word character
# an echoed option of the same shape further on the line, followed by (a lookahead, checked) [A-Z0-9] or non-space
_LIST_ITEM = {"()": re2.compile(r" \(([A-Z])\) "), ")": re2.compile(r" ([A-Z])\) "), ".": re2.compile(r" ([A-Z])\. "),
              ":": re2.compile(r" (?:[Oo]ption |[Cc]hoice )?([A-Z]): ")}
_LEADING_GLOSS = re2.compile(r" \([^()\n]{1,60}\)(?:[.,;:!]|$| [-–—])")  # "C (brain abscess), though ..." (v5)
_LEADING_AFTER = re2.compile(r"[)\]]?(?:$|[.:,;!)] |[.:,;!)]$| [-–—] | [-–—]$|[。，；！、]"  # "B?" asks; v11: "C。" (Chinese)
                             r"| (?:because|since|as|given)(?:[^a-z]|$)"  # "C because ..."
                             r"|(?:\.\.\.|…),? ?(?:no|wait|actually|sorry)(?:[^a-z]|$))")  # "B... no, sorry, A" (v8)


def _text_letter(phrase: str, options, letters: str) -> str | None:
    named = named_option(phrase, options)[0]
    return letters[named] if named is not None and named < len(letters) else None


def _shifted(spans, start: int) -> list[tuple[int, int, int]]:
    return [(a - start, b - start, k) for a, b, k in spans if b > start]


def _inside(i: int, spans) -> bool:
    return any(start <= i < end for start, end, _ in spans)


def _leading(s: str, candidates: set[str], spans: list[tuple[int, int, int]] = ()) -> str | None:
    """The letter the response opens with, alone on the first line or followed by a delimiter
    ("B. Retinal detachment", "(B) ...", "Option B: ..."); not "A fundus ...", "I think ...", "e.g.".
    Only the first line counts (the reasoning below it may name other options), unless the second line
    opens with another letter too: then the response is an echoed option list ("A. ...\nB. ...")."""
    lines = s.split("\n", 2)
    letter = _line_letter(lines[0])
    if letter is not None and _inside(len(lines[0]) - len(lines[0].lstrip("([*")), spans):
        return None  # "B cell" answering an item whose option is "B cell": the option's text, step 4
    if letter is None or letter == _CONFLICT:
        return letter
    if letter not in candidates:
        return None  # "I. Findings" (a roman numeral heading): not an option letter at all
    if len(lines) > 1 and _line_letter(lines[1]) not in (None, letter) and not may_correct(lines[0]):
        return _CONFLICT  # (v13: not "**B** — actually, no. ... \n**D**", a correction)
    return letter


def _echoed_first_line(s: str, letters: str, spans) -> bool:
    """letters-v13: is the first line the item's option list, echoed ("A. Pneumothorax B. Pleural effusion C. ... D.
    ...")? It leads with no answer; what follows may give one."""
    first = s.split("\n", 1)[0]
    positions = _standalone(first, set(letters), spans)[2]
    return [x for _, x in positions] == list(letters) and labels_only(first, positions, spans, letters)


def _otherwise_after(s: str, end: int) -> bool:
    """Does an "otherwise" follow in the same sentence (the statement before it is one branch of a condition)?"""
    tail = s[end:end + 120]
    stop = min([k for k in (tail.find(ch) for ch in ".!?\n") if k >= 0] + [len(tail)])
    return "otherwise" in tail[:stop].lower()


_NAMED_BEFORE = re2.compile(r"(?i)(?:option|choice|answer|is|mean|meant)$")  # v13: "sorry, I meant C. <text>"


def _line_letter(line: str) -> str | None:
    """The letter a line opens with ("B.", "(B) ...", "Option B:"), _CONFLICT for "B or C", else None."""
    m = _LEADING.match(line[:40])
    if not m or _word(line[m.start(2) + 1:m.start(2) + 2]) or not _is_option_letter(line, m.start(2), "leading"):
        return None
    i = m.start(2)
    if _REJECTED_AFTER.match(line[i + 1:i + 60]) or line_verdict_rejects(line, i):
        return None  # "C - unlikely; ...", "A. Pneumothorax – No": a rejected option, left to step 3
    if _hedged(line, i + 1, "leading"):
        return _CONFLICT  # "B or C ..."
    enclosed = i > 0 and line[i - 1] in "([" and line[i + 1:i + 2] in (")", "]")
    if not (_LEADING_AFTER.match(line[i + 1:i + 12]) or (enclosed and line[i + 2:i + 3] in ("", " "))
            or _LEADING_GLOSS.match(line[i + 1:i + 80])):
        return None  # "B Retinal detachment" and other run-on text: left to step 3
    item = None if line[i + 1:i + 3] == ".." or line[i + 1:i + 2] == "…" else _LIST_ITEM.get(  # "B... no": no echo
        "()" if enclosed else line[i + 1:i + 2])  # same shape as the opening "A)", "A.", "(A)"
    rest = line[i + 2:]
    follows = (lambda m: not rest[m.end():m.end() + 1].isspace() and m.end() < len(rest)) if item is _LIST_ITEM[":"] \
        else (lambda m: rest[m.end():m.end() + 1] in _UPPER_OR_DIGIT)
    if item and any(m.group(1) != line[i].upper() and _is_option_letter(line, i + 2 + m.start(1), "standalone")
                    and not _NAMED_BEFORE.search(rest[max(0, m.start() - 8):m.start()])  # v12: "... is option B. The"
                    for m in matches(item, rest, follows)):
        return _CONFLICT  # "A) Drusen B) Exudates": the options, echoed on one line
    return line[i].upper()


# ------------------------------------------------------------------ step 3: one standalone capital letter
_UPPER_OR_DIGIT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _standalone(s: str, candidates: set[str], spans: list[tuple[int, int, int]] = ()) \
        -> tuple[str | None, set[str], list[tuple[int, str]]]:
    """The one capital letter standing alone anywhere, if only one (of A-E and the item's letters) does, and
    the letters the response rejects ("not A", "C is unlikely": never its answer, nor their option's text);
    letters inside a mention of an option's text ("Hepatitis B" as an option) are part of that text. Also the
    (position, letter) of each letter found, rejected ones left out."""
    # `(?<![WORD])\(?\[?([A-Z])(?![WORD])` as a scan: a capital with no word character on either side
    found, rejected, positions, asked, stated = set(), set(), [], set(), set()
    for i, ch in enumerate(s):
        if ch in candidates and "A" <= ch <= "Z" and not _word(s[i - 1:i] if i else "") and not _word(s[i + 1:i + 2]) \
                and not _inside(i, spans) and _is_option_letter(s, i, "standalone", negation=False):
            if _rejected(s, i):
                rejected.add(ch)
            else:  # letters-v5: "Maybe A?", "If it's B, we would see ...": named, but not stated
                found.add(ch)
                positions.append((i, ch))
                (asked if in_question(s, i) or _hypothetical(s, i, i + 1) or cjk_conditional(s, i) else stated).add(ch)
    found -= rejected  # a letter the response rejects anywhere ("B or C ...; C is unlikely") is not its answer
    positions = [(i, ch) for i, ch in positions if ch not in rejected]
    if len(found) > 1:  # letters-v5: a concluding last sentence settles the discussion ("..., option B.")
        return concluding_letter(s, positions) or leaned_letter(s, positions) or _CONFLICT, rejected, positions
    if found and not found & stated:
        return _CONFLICT, rejected, positions  # "Maybe A?", "If it's B, ...": asked, never stated (letters-v5)
    return (found.pop() if found else None), rejected, positions


# ------------------------------------------------------------------ the rule
def parse_letter(text: str | None, letters: str = LETTERS, options: Sequence[str] | None = None) -> str | None:
    """The chosen letter (upper case), or None when the response names no single option among `letters`.
    `options` are the item's option texts in letter order (step 4 and the letters-inside-an-option-text
    rule use them; without them the rule is letters-v2's plus the term rules). A pure function of
    (text, letters, options): callers cache it per distinct pair."""
    if not isinstance(text, str):
        return None
    s = read(text)
    if not s:
        return None
    if len(run := "".join(s.split())) >= 3 and len(set(run)) == 1 and "A" <= run[0] <= "Z":
        s = run[0]  # letters-v12: "CCCCCCCC…" (one letter repeated until the token limit) states that letter
    letters = letters.upper()
    s = counted_numbers(s, letters, options)  # letters-v7: "Answer: 1", "3", "Answer: ii", "the last option"
    candidates = set(LETTERS) | set(letters)  # "E" with letters "ABCD" is a (wrong) option, not noise
    options = list(options)[:len(letters)] if options else []
    named, spans = named_option(s, options) if options else (None, [])
    rejected: set[str] = set()
    found, end = _explicit(s)  # 1. explicit answer statements
    step = 1 if found is not None else 2
    if found is None:  # letters-v7: a checklist ("A) no\nB) yes ✔") before its first line reads as a leading letter
        found = checklist_letter(s, options, letters)
        end = len(s)
    if found is None:
        found = _leading(s, candidates, spans)  # 2. a lone leading letter
        if found == _CONFLICT and options and (enumerated(s, [], letters) or _echoed_first_line(s, letters, spans)):
            found = None  # letters-v12: "A. <text>: ...\nB. <text>: ..." walks the options; it leads with no answer
        end = s.find(found) + 1 if found and found != _CONFLICT else 0
    if found is None and (found := trailing_letter(s, candidates, (lambda letter, text: letter in letters[:len(options)] and
            folded_option(text) == folded_option(options[letters.index(letter)])) if options else None)) is not None:
        end = len(s)  # letters-v9: reasoning, then the letter alone on the last line ("...\n\n**D**")
    if found is not None and found != _CONFLICT:  # letters-v7: "The answer is D ... no, scratch that, I mean E"
        letters_after = lambda start: [(i + start, x) for i, x in _standalone(  # noqa: E731
            s[start:], candidates, _shifted(spans, start))[2]]
        now = corrected(s, end, found, letters_after, (lambda phrase: _text_letter(phrase, options, letters)) if options else None)
        if now is None and unresolved(s, end, found, letters_after):
            now = _CONFLICT  # letters-v12: "Answer: A. Hmm, actually ... it might be C. I'm not sure which one is right."
        found = now or found
    if found is None:
        found, rejected, positions = _standalone(s, candidates, spans)  # 3. a single standalone capital letter
        step = 3
        if found == _CONFLICT and options and (labels_only(s, positions, spans, letters) or enumerated(s, positions, letters)
                                               or narrowed_to_pair(s, positions, spans, named, letters)):
            found = None  # letters-v5: "Fibroadenoma (A) and phyllodes tumor (C) ...": labels; the texts decide
            if named is not None and (listed_together(s, positions, spans, named)
                                      or named_in_echo(s, positions, spans, named, letters)):
                named = None  # letters-v7: "The differential includes A (meningioma) and B (...)": a list
    if found is None and options and (ranked := ranked_first(s, options, named_option))[0]:
        named = ranked[1]  # letters-v8: a ranked differential answers with its first item
    if found is None and options:
        if rejected:  # "C is unlikely": option C's text is rejected too
            named, _ = named_option(s, options, frozenset(letters.index(x) for x in rejected if x in letters))
        if named is not None:
            found = letters[named]  # 4. no letter stated: the one option named by its text
        elif (other := unnamed_option(s, options)) is not None:
            found = letters[other]  # v9-v12: a normal study, a sign, a Chinese yes/no, a count, ... (option_answer.py)
    if step > 1 and (cut_off_thinking(text) or (step > 2 and found is not None and (cut_off_mid_sentence(s) or (
            not rejected and (ends_in_analysis(s, spans, letters) or stops_in_option_analysis(s, spans)))
            or walk_cut_off(s, letters) or cut_off_in_steps(s)))):
        found = None  # letters-v7: reasoning cut off before an answer statement; an analysis that stops mid-option
    if found is not None and retracted_at_end(s):
        found = None  # letters-v7: "I think the answer is a phlebolith. Wait, no.": withdrawn
    if found is not None and ((step > 2 and declines_to_choose(s)) or (step <= 2 and undecided_after(s, end))):
        found = None  # letters-v9: "... I can't confidently select a single answer.": no choice was made (v13: after a
        # stated letter, "... favours B. ... I can't reliably distinguish between these two." too)
    if options and found is not None and found != _CONFLICT and found in letters:
        found = settle_pair(s, found, letters, options)  # letters-v7: "The answer is B: <option A's text>"
        if found is not None and step <= 2 and concluded_elsewhere(s, found, end, letters, options):
            found = None  # letters-v9: "Answer: C\n\n... most consistent with <A's text>.": neither
    # the first step that found anything decides: one letter among the options, or unparseable
    return found if found is not None and found != _CONFLICT and found in letters else None
