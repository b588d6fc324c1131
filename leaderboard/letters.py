"""Multiple-choice letter parsing shared by the benchmarks whose items are options A-E.

`parse_letter(text, letters)` returns the option letter a careful reader takes as the response's answer,
or None (unparseable: scored wrong, counted). Rule letters-v3, in order of precedence:

1. Explicit answer statements decide: "Answer: C", "The final/correct answer is (C)", "The correct option
   is C", "The most likely diagnosis is (C) ...", "C is the correct answer", "I choose C", "\\boxed{C}",
   "<answer>C</answer>", {"answer": "C"}, "答案：C", "选 C", "Respuesta: C", "Réponse : C", "Antwort: C".
   Mere mentions ("Answer: B. Option A is less likely ...") are not statements. If statements disagree,
   only the final ones (final answer, \\boxed, answer tag, JSON key) count when there are any; if those
   still disagree, the last one wins only after a self-correction ("wait", "actually", "on second
   thought"), else the response is unparseable.
2. Else a lone leading letter decides: the response opens with it ("B", "B.", "(B) Vein occlusion",
   "**B**", "Option B:", "B\\n\\nReasoning ... unlike A ..."). Later lines may name other options, but
   an echoed option list ("A. ...\\nB. ...") is not an answer.
3. Else a single standalone capital letter anywhere ("... most likely has choice C."), not counting the
   article "A", the pronoun "I", rejected options ("not A"), or letters in terms ("vitamin A",
   "X-linked", "E. coli", "C/D ratio", "H&E", "B cell", a letter inside a mention of an option's text).
4. Else (no letter stated) the one option named by its text, when the caller passes the option texts
   (leaderboard/option_text.py: folded whole words, longest match, rejected mentions dropped).

At each step one letter is the answer if it is among `letters`, and unparseable if it is not (E for a
4-option item); several different letters ("A or C") or none at all steps are unparseable. Before
matching, <think>...</think> blocks are dropped (a response that is only thinking is read inside it),
markdown/LaTeX markup is removed, and only the first 4,000 and last 2,000 characters are read: answers
sit at the start or, after the reasoning, at the end. Lower-case letters count only where no word is
meant ("c", "answer: d"; never "a 45-year-old", "e.g."). Every pattern is bounded: linear time.
"""
from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple, Sequence

from .option_text import named_option

LETTERS = "ABCDE"
RULE_VERSION = "letters-v3"
RULE_SUMMARY = ("letters-v3: explicit answer statement (final ones decide) > lone leading letter > single "
                "standalone capital letter > the one option named by its text (no letter stated; longest match, "
                "rejected mentions dropped); letters inside terms (H&E, B cell, type A) never count; think "
                "blocks dropped; first 4,000 + last 2,000 chars read; several letters or option texts, a letter "
                "beyond the options, or none = unparseable")

# Digits never decide: every rule treats 0-9 as one class (a word character, as in "A 45-year-old") and
# none reads a digit's value, so two texts that differ only in which ASCII digits they hold parse alike.
# Batch callers may therefore parse once per text with every match of DIGITS replaced by "0" ("Finding 17
# ... (B)" and "Finding 18 ... (B)" are one parse). tests/test_letters_batch.py pins this on the corpus.
DIGITS = "[1-9]"

HEAD, TAIL = 4000, 2000  # characters read from the start and from the end of a long response
_CONFLICT = "?"  # a step found several different letters: the response does not commit


# ------------------------------------------------------------------ reading the text
_THINK_TAG = re.compile(r"<(/?)think(?:ing)?>", re.I)
_STRIKE = re.compile(r"~~[^~\n]{0,200}~~")  # struck-out text is withdrawn ("~~A~~ C")
_BOLD_LETTER = re.compile(r"(\*\*|__)[(\[]?([A-Za-z])[)\]]?([.:)]?)\1")
_MARKUP = re.compile(r"[*_`#$]+|(?m:^[ \t]*>[> \t]*)")  # bold/italics/code/headings/LaTeX math/quotes
_SPACES = re.compile(r"[^\S\n]+")
_NEWLINES = re.compile(r" ?\n[ \n]*")  # after _SPACES every whitespace run is one " " or one "\n"


def _answer_part(text: str) -> str:
    """The text after the last </think> (R1-style outputs may lack the opening tag); the thinking itself
    only when nothing follows it, or when an opened block was never closed and nothing precedes it."""
    first_open = last_close = None
    for tag in _THINK_TAG.finditer(text):  # one plain scan: linear even on "<think>" * 100000
        if tag.group(1):
            last_close = tag
        elif first_open is None:
            first_open = tag
    if last_close is not None:
        after = text[last_close.end():]
        if _THINK_TAG.sub("", after).strip():
            return after
        opens = [t for t in _THINK_TAG.finditer(text, 0, last_close.start()) if not t.group(1)]
        return text[opens[-1].end() if opens else 0:last_close.start()]
    if first_open is not None:
        before = text[:first_open.start()]
        return before if before.strip() else text[first_open.end():]
    return text


def _bounded(text: str) -> str:
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


def _normalised(text: str) -> str:
    """Markup-free text whose whitespace runs are single " " or "\\n", so patterns need no `\\s*`."""
    text = unicodedata.normalize("NFKC", _THINK_TAG.sub(" ", text))  # full-width "Ｃ", "：" -> "C", ":"
    text = _bounded(text)  # again: NFKC can lengthen a text up to 18-fold
    text = _BOLD_LETTER.sub(r"(\2)\3", _STRIKE.sub(" ", text))  # "**A** Retinal ..." is a letter, not "A Retinal"
    text = _MARKUP.sub(" ", text)
    text = text.replace("\\(", "(").replace("\\)", ")")
    return _NEWLINES.sub("\n", _SPACES.sub(" ", text)).strip()


# ------------------------------------------------------------------ is this letter an option letter?
_WORD = "A-Za-z0-9\u00c0-\u024f"  # letters and digits of Latin scripts (CJK characters are not word chars)
_NOT_OPTION_BEFORE = re.compile(
    r"(?:vitamin|hepatitis|type|group|zone|class|grade|stage|phase|factor|protein|complex|cluster|level|"
    r"panel|figure|fig\.|image|part|step|lead|schedule|plan|region|area|hemoglobin|haemoglobin) $", re.I)
_NEGATED_BEFORE = re.compile(r"(?<![A-Za-z])(?:not|unlike|excluding|rule out|rules out|ruling out) "
                             r"(?:option |choice )?[(\[]?$", re.I)
_TERM_AFTER = re.compile(r" (?:cells?|lymphocytes?|lymphoma|symptoms?|wave|waves|point|antigen|blood|strain)(?![a-z])",
                         re.I)
_SLASHED_PAIR = re.compile(rf"(?<![{_WORD}])[A-Z]/[A-Z](?![{_WORD}])")
_A_VERBS = re.compile(r" (?:or|and|nor|vs|versus|is|was|seems|appears|would|could|might|may|can|fits|matches|"
                      r"because|since|as|has|remains|looks)(?![a-z])")


def _is_word_char(ch: str) -> bool:
    return ch.isalnum() and ord(ch) < 0x2E80


def _is_option_letter(s: str, i: int, context: str, bare: bool = False) -> bool:
    """Is the single letter s[i] an option letter rather than part of a word, an abbreviation, the article
    "A" or the pronoun "I"? `context` is "explicit", "leading" or "standalone"; `bare` means the explicit
    statement had no verb or colon before the letter ("### Answer\\nA fundus photo ...")."""
    ch, prev, nxt = s[i], s[i - 1:i], s[i + 1:i + 2]
    after2 = s[i + 2:i + 3]
    if _NOT_OPTION_BEFORE.search(s, max(0, i - 14), i):
        return False  # "vitamin A", "hepatitis B", "type C", "zone I"
    if context == "standalone" and _NEGATED_BEFORE.search(s, max(0, i - 22), i):
        return False  # "It's not A, it's C": a rejected option is no answer
    if prev in "([" and nxt in ")]" and prev and nxt:
        return True  # "(c)", "[B]": nothing but a letter
    if "&" in (prev, nxt):
        return False  # "H&E", "A&E", "B&W": a term
    if _TERM_AFTER.match(s, i + 1):
        return False  # "B cell", "T cells", "NK cell" (the letter names a cell or lymphocyte type)
    if nxt in "'’" and after2.isalpha():
        return False  # "A's", "I'd", "I'm"
    if (nxt == "-" and _is_word_char(after2)) or (prev == "-" and _is_word_char(s[i - 2:i - 1])):
        return False  # "X-linked", "B-scan", "anti-A"
    if (nxt == "." and after2.isalpha()) or (prev == "." and s[i - 2:i - 1].isalpha()):
        return False  # "e.g.", "i.e.", "U.S."
    if ch.isupper() and nxt == "." and after2 == " " and s[i + 3:i + 4].islower():
        return False  # genus abbreviations: "E. coli", "C. albicans"
    if ch.islower():
        return context != "standalone" and _lower_case_letter_ok(s, i, context)
    if context == "standalone" and _SLASHED_PAIR.search(s, max(0, i - 2), i + 4) and "/" in (nxt, prev):
        return False  # "C/D ratio", "A/V nicking"
    if ch in "AI" and nxt == " " and (after2.islower() or after2.isdigit() or
                                      (after2.isupper() and _is_word_char(s[i + 3:i + 4]))):
        if ch == "I":
            return False  # "I think", "I 2"
        if context == "explicit" and not bare:
            return not after2.isdigit()  # "the answer is A because" (but "Answer: A 45-year-old")
        return _A_VERBS.match(s, i + 1) is not None  # "A or B", "A is" vs "A fundus", "A 45-year-old", "A CRVO"
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


_HEDGE = re.compile(r"[)\]]?(?: ?/ ?| or | and | & | vs\.? | versus |, (?:or |and )?)\(?(?:option |choice )?"
                    rf"([A-Za-z])(?![{_WORD}])(?! (?:is|are|was|were|seems?|has|have|would|could|might|may|can|"
                    r"does|did)(?![a-z]))", re.I)


def _hedged(s: str, end: int, context: str) -> str | None:
    """The second letter of "A or C", "A/C", "A, C" right after a letter ending at `end`."""
    m = _HEDGE.match(s, end)
    return m.group(1).upper() if m and _is_option_letter(s, m.start(1), context) else None


# ------------------------------------------------------------------ step 1: explicit answer statements
_L = rf"\(?\[?(?<![{_WORD}])(?P<l>[A-Za-z])(?![{_WORD}])"  # the letter, maybe in brackets
_ADVERB = r"(?:(?:therefore|thus|hence|then|likely|probably|most likely|clearly|definitely|indeed|actually) )?"
_OPTION = r"(?:(?:option|choice|letter|answer|alternative) )?"
_VERB = (r"(?: ?[:=][ \n]?| [-–—] | (?:is|would be|should be|must be|will be|has to be|seems to be|appears to be)"
         r"(?: ?:)? )")
_VERDICT = r"(?:correct|right|best|most (?:likely|appropriate|accurate|consistent))"
_MODIFIER = r"(?:(?P<final>final)(?: correct)? |(?:correct|right|best|most likely|most appropriate|my|our) )"

_EXPLICIT = [re.compile(p, re.I) for p in (
    # "Answer: C", "The final answer is (C)", "The correct answer, therefore, is option C"
    rf"(?<![{_WORD}]){_MODIFIER}?answer(?: choice| option)?(?: to (?:this|the) question| here)?"
    rf"(?:, (?:therefore|then|thus|hence),)?{_VERB}{_ADVERB}{_OPTION}{_L}",
    # label at the start of a line: "Answer C", "### Final Answer\nC", "Choice: C"
    rf"(?<![^\n])(?P<bare>){_MODIFIER}?(?:answer(?: choice| option)?(?: |\n)|(?:option|choice|selection) ?: ?){_L}",
    # "The correct option is B", "The most likely diagnosis is (E) Retinoblastoma", "My choice: D"
    rf"(?<![{_WORD}]){_MODIFIER}(?:option|choice|selection|diagnosis|response|one){_VERB}{_ADVERB}{_OPTION}{_L}",
    # "C is the correct answer", "Option D is most likely", "B is correct", "D - most likely" (a verdict table)
    rf"(?<![{_WORD}])(?:(?:option|choice|answer|letter) )?{_L}[)\]]?"
    rf"(?: (?:is|would be|seems to be|appears to be|must be)(?: the)? (?:(?P<final>final answer)|answer|{_VERDICT})"
    rf"| ?[-–—:] {_VERDICT})(?![\w-])(?! (?:incorrect|wrong|not|false|unlikely|excluded|ruled))",
    # "most consistent with D", "D fits the picture", "fits D best", "Hence, C."
    rf"most consistent with (?:(?:option|choice|answer) )?{_L}",
    rf"(?<![{_WORD}])(?:(?:option|choice) )?{_L}[)\]]? (?:fits|matches)"
    r"(?: (?:the|this) [a-z]{1,20}(?: [a-z]{1,20})?)?(?: best| better| well)?(?=[.,;!\n]|$)",
    rf"(?:fits|matches)(?: (?:option|choice))? {_L}[)\]]? (?:best|better)",
    rf"(?<![{_WORD}])(?:hence|therefore|thus|so|accordingly),? (?:it(?:'s| is) )?(?:(?:option|choice) )?{_L}[)\]]?"
    r"(?=\.?$|\.?\n|\. )",
    # "I choose C", "I'd go with option B", "We select (D)", "I lean towards D"
    rf"(?<![{_WORD}])(?:I|we)(?: would| will| am| are|['’]d|['’]ll|['’]m)?"
    r" (?:choose|chose|select|pick|go with|opt for|say|lean(?:ing)? towards?)"
    rf"(?: (?:option|choice|answer|letter))?:? {_L}",
    # structured output: \boxed{C}, <answer>C</answer>, {"answer": "C"}
    rf"(?P<final>\\boxed\{{) ?(?:\\text(?:bf)?\{{|\\mathrm\{{)? ?{_L}",
    rf"(?P<final><answer>) ?{_L}",
    rf"(?P<final>[\"'](?:final ?answer|answer|choice|option|selected ?option|prediction|letter)[\"']) ?: ?[\"']? ?{_L}",
    # Spanish, Portuguese, French, Italian, German
    r"(?<![\w])(?:(?:richtige|korrekte|bonne|(?P<final>endgültige)) )?"
    r"(?:respuesta|resposta|réponse|reponse|risposta|antwort|lösung)"
    r"(?: (?:correcta|correta|correcte|corretta|juste|richtige|(?P<final2>final|finale)))?"
    r"(?: ?: ?| (?:es|é|est|è|ist|lautet|sería|seria|serait|sarebbe)(?: ?:)? )"
    rf"(?:(?:la |a |l')?(?:opción|opcion|opção|opcao|option|opzione|alternativa) |(?:la|el|a|le|die) )?{_L}",
    # Chinese, Japanese, Korean: "答案：C", "正确答案是 B", "最终答案为D", "正确选项是C", "故选D", "C正确"
    rf"(?P<final>最终|最終|最后|最後)?的?(?:正确|正確)?(?:答案|答え|正解|정답)(?:应该|應該|应|應)?"
    rf"(?:是|为|為|は|选|選)?:? ?(?:选项|選項)? ?{_L}",
    rf"(?:正确|正確|最佳|最合适的|最合适|最终|最終)的?(?:选项|選項|选择|選択)(?:应该|应)?(?:是|为|為|は)?:? ?{_L}",
    rf"(?<!不)(?:选择|選擇|选|選)(?![项項择擇])(?:择)?:? ?{_L}",
    rf"(?:选项|選項)? ?{_L}[)\]]? ?(?:选项|選項)?(?:是)?(?:正确|正確)",
)]
_REVISION = re.compile(r"(?<![a-z])(?:wait|actually|on second thought|on reflection|correction|reconsider(?:ing)?|"
                       r"i was wrong|let me re-?(?:check|evaluate|consider))(?![a-z])", re.I)


_IF_CLAUSE = re.compile(r"(?<![a-z])(?:if|unless|assuming|suppose)(?![a-z])(?! (?:I|we) (?:had|have|must) to)"
                        r"(?! forced)", re.I)


def _hypothetical(s: str, start: int, end: int) -> bool:
    """Is the statement s[start:end] inside a condition ("If ..., the answer would be D", "the answer would
    be A if ...")? Not "If I had to choose, the answer would be C", which commits."""
    lo, hi = max(0, start - 150), min(len(s), end + 150)
    clause_start = max(s.rfind(ch, lo, start) for ch in ".!?;\n") + 1 or lo
    ends = [i for i in (s.find(ch, end, hi) for ch in ".!?;\n") if i >= 0]
    clause_end = min(ends) if ends else hi
    return _IF_CLAUSE.search(s, max(clause_start, lo), clause_end) is not None


class _Statement(NamedTuple):
    start: int
    end: int
    letter: str
    final: bool


def _explicit(s: str) -> str | None:
    """Letter named by the response's answer statements; _CONFLICT when they disagree beyond repair."""
    found: dict[int, _Statement] = {}
    for pattern in _EXPLICIT:
        for m in pattern.finditer(s):
            i = m.start("l")
            if not _is_option_letter(s, i, "explicit", bare="bare" in m.groupdict() and m.group("bare") is not None):
                continue
            if " would be " in m.group(0).lower() and _hypothetical(s, m.start(), m.end()):
                continue  # "If the OCT showed fluid, the answer would be D" describes another case
            final = any(m.group(g) for g in ("final", "final2") if g in m.groupdict())
            old = found.get(i)
            found[i] = _Statement(m.start(), i + 1, s[i].upper(), final or (old is not None and old.final))
            other = _hedged(s, i + 1, "explicit")
            if other and other != s[i].upper():  # "The answer is A or C": both, so no commitment
                found[i + 1] = _Statement(i + 1, i + 2, other, found[i].final)
    if not found:
        return None
    statements = sorted(found.values())
    pool = [st for st in statements if st.final] or statements  # "final" statements outrank the others
    if len({st.letter for st in pool}) == 1:
        return pool[0].letter
    last = pool[-1]
    overruled = [st for st in pool if st.letter != last.letter]
    if _REVISION.search(s, overruled[-1].end, last.start):  # "... the answer is A. Wait, ... the answer is C"
        return last.letter
    return _CONFLICT


# ------------------------------------------------------------------ step 2: a lone leading letter
_LEADING = re.compile(rf"(?P<prefix>(?:option|choice|answer|letter) ?:? )?\(?\[?(?P<l>[A-Za-z])(?![{_WORD}])", re.I)
_LIST_ITEM = {"()": re.compile(r" \((?P<l>[A-Z])\) (?=[A-Z0-9])"), ")": re.compile(r" (?P<l>[A-Z])\) (?=[A-Z0-9])"),
              ".": re.compile(r" (?P<l>[A-Z])\. (?=[A-Z0-9])"),
              ":": re.compile(r" (?:[Oo]ption |[Cc]hoice )?(?P<l>[A-Z]): (?=\S)")}
_LEADING_AFTER = re.compile(r"[)\]]?(?:$|[.:,;!?)] |[.:,;!?)]$| [-–—] | [-–—]$"  # "B.", "B) ...", "B - ..."
                            r"| (?:because|since|as|given)(?![a-z]))")  # "C because ..."


def _inside(i: int, spans) -> bool:
    return any(start <= i < end for start, end in spans)


def _leading(s: str, candidates: set[str], spans: list[tuple[int, int]] = ()) -> str | None:
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
    if len(lines) > 1 and _line_letter(lines[1]) not in (None, letter):
        return _CONFLICT
    return letter


def _line_letter(line: str) -> str | None:
    """The letter a line opens with ("B.", "(B) ...", "Option B:"), _CONFLICT for "B or C", else None."""
    m = _LEADING.match(line)
    if not m or not _is_option_letter(line, m.start("l"), "leading"):
        return None
    i = m.start("l")
    if _hedged(line, i + 1, "leading"):
        return _CONFLICT  # "B or C ..."
    enclosed = i > 0 and line[i - 1] in "([" and line[i + 1:i + 2] in (")", "]")
    if not (_LEADING_AFTER.match(line, i + 1) or (enclosed and line[i + 2:i + 3] in ("", " "))):
        return None  # "B Retinal detachment" and other run-on text: left to step 3
    item = _LIST_ITEM.get("()" if enclosed else line[i + 1:i + 2])  # same shape as the opening "A)", "A.", "(A)"
    if item and any(m.group("l") != line[i].upper() and _is_option_letter(line, m.start("l"), "standalone")
                    for m in item.finditer(line, i + 2)):
        return _CONFLICT  # "A) Drusen B) Exudates": the options, echoed on one line
    return line[i].upper()


# ------------------------------------------------------------------ step 3: one standalone capital letter
_STANDALONE = re.compile(rf"(?<![{_WORD}])\(?\[?(?P<l>[A-Z])(?![{_WORD}])")


def _standalone(s: str, candidates: set[str], spans: list[tuple[int, int]] = ()) -> str | None:
    """The one capital letter standing alone anywhere, if only one (of A-E and the item's letters) does;
    letters inside a mention of an option's text ("Hepatitis B" as an option) are part of that text."""
    found = {m.group("l") for m in _STANDALONE.finditer(s)
             if m.group("l") in candidates and not _inside(m.start("l"), spans)
             and _is_option_letter(s, m.start("l"), "standalone")}
    if len(found) > 1:
        return _CONFLICT
    return found.pop() if found else None


# ------------------------------------------------------------------ the rule
def parse_letter(text: str | None, letters: str = LETTERS, options: Sequence[str] | None = None) -> str | None:
    """The chosen letter (upper case), or None when the response names no single option among `letters`.
    `options` are the item's option texts in letter order (step 4 and the letters-inside-an-option-text
    rule use them; without them the rule is letters-v2's plus the term rules). A pure function of
    (text, letters, options): callers cache it per distinct pair."""
    if not isinstance(text, str):
        return None
    s = _normalised(_bounded(_answer_part(text)))
    if not s:
        return None
    letters = letters.upper()
    candidates = set(LETTERS) | set(letters)  # "E" with letters "ABCD" is a (wrong) option, not noise
    named, spans = named_option(s, list(options)[:len(letters)]) if options else (None, [])
    found = _explicit(s)  # 1. explicit answer statements
    if found is None:
        found = _leading(s, candidates, spans)  # 2. a lone leading letter
    if found is None:
        found = _standalone(s, candidates, spans)  # 3. a single standalone capital letter
    if found is None and named is not None:
        found = letters[named]  # 4. no letter stated: the one option named by its text
    # the first step that found anything decides: one letter among the options, or unparseable
    return found if found is not None and found != _CONFLICT and found in letters else None
