"""Option-text answers (rule letters-v4, step 4): which option a response names by its wording.

A response that states no letter ("The answer is pneumothorax.", "Glioblastoma.") takes the option whose
text it names, when it names exactly one. Texts are compared folded (NFKC, case-folded, apostrophes
dropped, every other run of non-alphanumerics one space), whole words only, a plural "s"/"es" allowed.
The longest match wins: an option's text found only inside another option's matched text ("lymphoma"
inside "Hodgkin lymphoma") does not count alone. A mention that is rejected ("not pneumothorax",
"rather than glioblastoma", "non-Hodgkin lymphoma", "meningioma is excluded") does not count. When
several options are named, the last clause naming any decides if it names exactly one and concludes
("... so this is most likely glioblastoma"); otherwise the response does not commit. Short or generic
option texts ("ct", "Yes", "Normal") count only when they are the whole response; a short option written in
capitals ("CT", "MRI") also where the response writes it in capitals ("an MRI of the brain").

letters-v4 adds: a rejection may stand up to three words after the mention in its clause ("T cell
lymphoblastic lymphoma is excluded"); Latin plurals ("metastases"); "indicates", "typical", "fits" conclude;
options whose letter the response rejects ("C is unlikely") count as rejected; and, only when no option's full
text is named and live, the options' aliases (option_aliases.py: abbreviations and part-names no other option
shares) are read the same way.

Everything here is a hand-written scan: no regular expression, linear in the response's length per option.
"""
from __future__ import annotations

import functools
from typing import NamedTuple, Sequence

from .cjk import is_cjk
from .headings import under_heading
from .option_aliases import SIDES, aliases, head_nouns, lead_words, shared_initialisms
from .option_conditions import POSSIBLE, consequent, counterfactual, possibilities_listed, words_before

_APOSTROPHES = "'’`´"
_CLAUSE_ENDS = ".,;:!?\n—→。；"  # letters-v7: a dash or an arrow ends a clause too ("CSC vs. DME — ... favors CSC")
_NEGATION_BEFORE = (("not",), ("no",), ("non",), ("unlike",), ("excluding",), ("exclude",), ("excludes",),
                    ("without",), ("against",), ("rather", "than"), ("other", "than"), ("instead", "of"),
                    ("rule", "out"), ("rules", "out"), ("ruled", "out"), ("ruling", "out"), ("more", "likely", "than"),
                    ("better", "than"), ("neither",), ("nor",),
                    ("over",), ("not", "a"), ("not", "an"), ("not", "the"), ("isnt",), ("isnt", "a"), ("no", "evidence", "of"),
                    ("over", "a"), ("over", "an"), ("over", "the"),  # letters-v13: "favour X over a simple lipoma"
                    ("no", "signs", "of"), ("no", "sign", "of"))
_NEGATION_AFTER = (("is", "excluded"), ("excluded",), ("is", "absent"), ("absent",), ("is", "ruled", "out"), ("ruled", "out"), ("is", "unlikely"),
                   ("unlikely",), ("is", "less", "likely"), ("less", "likely"), ("is", "not"), ("was", "excluded"),
                   ("was", "ruled", "out"), ("can", "be", "excluded"), ("can", "be", "ruled", "out"),
                   ("would", "not"), ("does", "not"), ("seems", "unlikely"), ("is", "incorrect"), ("is", "wrong"),
                   ("isnt",), ("arent",), ("doesnt",), ("wasnt",), ("wouldnt",),  # letters-v7: contractions
                   ("appears", "intact"), ("is", "intact"), ("intact",), ("are", "intact"),
                   ("are", "unlikely"), ("are", "less", "likely"), ("are", "excluded"))  # v12: "The CFL appears intact."
# letters-v8: "综上，最可能的诊断是X" (in sum, the most likely diagnosis is X)
_CJK_CONCLUDING = ("最可能", "最有可能", "诊断是", "诊断为", "診斷是", "診斷為", "综上", "答案", "因此", "故选", "符合",
                   "考虑为", "首先考虑", "倾向于")  # letters-v11: "综上，考虑为 DCIS。" (the cue opens the clause)
_LIST_CUES = frozenset(("differential", "differentials", "includes", "include", "including", "possibilities"))
_CONCLUDING = ("answer", "diagnosis", "likely", "consistent", "therefore", "thus", "hence", "so", "final",
               # letters-v11: "the correct choice is Grade III", "puts this hip in the Crowe II category", "I'd lean toward"
               "choice", "correct", "puts", "places", "classify", "classified", "classifies", "lean", "leaning",
               "favor", "favour", "favors", "favours", "favoring", "favouring", "best", "makes", "conclude",
               "conclusion", "choose", "select", "go", "indicates", "indicating", "indicate", "typical",
               "characteristic", "classic", "diagnostic", "confirms", "confirming", "pathognomonic", "compatible", "fits",
               "points", "represents", "point", "pointing", "hallmark",  # v13: "... U waves point to hypokalemia"
               "appropriate", "step")  # letters-v12: "The most appropriate treatment is X", "the next step is X"
_MODAL_CUES = frozenset(("point", "pointing", "points"))  # letters-v13: "... could point to a carcinoid (B)" concludes nothing
_MODALS = frozenset(("could", "might", "may", "would", "can"))
# letters-v5: a mention after one of these in its clause is not asserted ("I cannot determine whether this is a
# pneumothorax", "It is not possible to diagnose pleural effusion", "If pleural effusion is present, ...")
_UNASSERTING = {"whether", "if", "unless", "cannot", "cant", "unable", "impossible", "unsure", "uncertain",
                "insufficient", "couldnt", "wont", "otherwise"}  # v12: "...; otherwise B (gout) fits"
_UNASSERTING_PAIRS = {("not", "possible"), ("not", "able"), ("dont", "know"), ("not", "sure"), ("difficult", "to"),
                      ("hard", "to"), ("can", "not"), ("do", "not"), ("not", "determine"), ("not", "certain"),
                      # letters-v8: a purpose clause restating the question ("To determine the type of heart block, ...")
                      ("to", "determine"), ("to", "identify"), ("to", "distinguish"), ("to", "differentiate"),
                      ("to", "classify")}
_CJK_UNASSERTING = ("不能排除", "不除外", "排除", "除外", "待排", "鉴别", "鑑別", "是否", "不考虑", "不支持",
                    "未见", "未发现", "没有", "无明显", "并非", "不是")  # letters-v11: denied ("未见明显异常")
# letters-v8: after a one-word alias these make it an adjective describing a finding ("follicular architecture")
_DESCRIBED = frozenset(("architecture", "pattern", "patterns", "feature", "features", "appearance", "morphology",
                        "growth", "configuration", "component", "components", "cell", "cells", "change", "changes",
                        "differentiation", "variant", "structure", "structures", "arrangement", "areas", "foci",
                        "formation", "proliferation", "hyperplasia", "spaces", "nuclei", "epithelium"))
# words a rejection may reach across ("T cell lymphoblastic lymphoma is excluded"): at most _GAP, none of these
_GAP = 3
_GAP_STOPS = {"because", "since", "as", "given", "which", "that", "and", "but", "while", "whereas", "so", "the",
              "a", "an", "although", "though", "if", "when", "where", "or", "is", "are", "was", "were"}
_GENERIC = {"yes", "no", "none", "normal", "abnormal", "other", "unknown", "present", "absent", "both",
            "neither", "left", "right", "true", "false", "all", "mild", "moderate", "severe"}


class Folded(NamedTuple):
    text: str  # " word word ... " (a space at both ends, single spaces between words)
    origin: list[int]  # origin[k] = index in the source text of text[k]
    clause: list[int]  # clause[k] = how many clause ends (. , ; : ! ? newline) precede text[k]
    source: str  # the text folded


def _abbreviation_before(source: str, i: int) -> bool:
    """Is the "." at source[i] the end of "vs." or "cf." (no clause ends there)?"""
    return source[max(0, i - 2):i].lower() in ("vs", "cf") and not source[i - 3:i - 2].isalpha()


def fold(source: str) -> Folded:
    """Case-folded words of `source` separated by single spaces, with each character's source index."""
    chars, origin, clause = [" "], [-1], [0]
    n_clause = 0
    for i, ch in enumerate(source):
        if ch in _APOSTROPHES:
            continue  # "Crohn's" = "Crohns"
        if ch.isalnum() and is_cjk(ch):  # a CJK character is a word of its own (no spaces)
            if chars[-1] != " ":
                chars.append(" ")
                origin.append(i)
                clause.append(n_clause)
            chars.extend((ch, " "))
            origin.extend((i, i))
            clause.extend((n_clause, n_clause))
            continue
        if ch.isalnum():
            for c in ch.casefold():
                chars.append(c)
                origin.append(i)
                clause.append(n_clause)
            continue
        if ch in _CLAUSE_ENDS and not (ch == "." and (source[i + 1:i + 2].isalnum() or _abbreviation_before(source, i))):
            n_clause += 1  # "2.5 cm", "e.g." and (letters-v7) "CSC vs. DME" keep their clause
        if chars[-1] != " ":
            chars.append(" ")
            origin.append(i)
            clause.append(n_clause)
    if chars[-1] != " ":
        chars.append(" ")
        origin.append(len(source))
        clause.append(n_clause)
    return Folded(*_american(chars, origin, clause), source=source)


def _american(chars: list[str], origin: list[int], clause: list[int]) -> tuple[str, list[int], list[int]]:
    """British spellings folded as American ones in words of six or more characters (letters-v5): "ae"/"oe"
    -> "e" before the word's end ("haemorrhage", "oedema", "oesophagus"), a final "our" -> "or" ("tumour"). Both the response and
    the options are folded alike, so only the pairs matter."""
    keep = [True] * len(chars)
    k, n = 0, len(chars)
    while k < n:
        if chars[k] == " ":
            k += 1
            continue
        end = k
        while end < n and chars[end] != " ":
            end += 1
        if end - k >= 6 and chars[k:k + 4] != ["d", "o", "e", "s"]:  # letters-v11: "doesnt" stays itself
            for j in range(k, end - 2):  # not a final "ae": Latin plurals and genitives ("bullae", "pneumoniae")
                if chars[j] in "ao" and chars[j + 1] == "e":
                    keep[j] = False
            if chars[end - 3:end] == ["o", "u", "r"]:
                keep[end - 2] = False
        k = end
    if all(keep):
        return "".join(chars), origin, clause
    kept = [j for j in range(n) if keep[j]]
    return "".join(chars[j] for j in kept), [origin[j] for j in kept], [clause[j] for j in kept]


@functools.lru_cache(maxsize=8192)
def folded_option(option: str | None) -> str:
    """An option's folded text (options repeat across a benchmark's items: folded once each)."""
    return fold(option or "").text


class Mention(NamedTuple):
    start: int  # in the folded text
    end: int
    index: int  # which option
    tier: int = 0  # 0: the option's text; 1: an alias (option_aliases.py); 2: a head noun (competes only)


_VERDICT_MARKS = ("?", "-", "–", "—", ":")
_LATIN_PLURALS = (("is", "es"), ("us", "i"), ("um", "a"), ("a", "ae"))


def _negated(folded: Folded, start: int, end: int, next_start: int) -> bool:
    """Is the mention text[start:end] rejected ("not X", "rather than X", "X is excluded", and, in the same
    clause before the next mention, "X with surrounding edema is unlikely": up to _GAP words between, none
    of them a conjunction, article or verb)?"""
    text = folded.text
    lo = start
    while lo > 0 and start - lo < 60 and folded.clause[lo - 1] == folded.clause[start]:
        lo -= 1  # letters-v5: within the mention's clause ("Pneumothorax? No. Pleural effusion? Yes.")
    before = text[lo:start]
    if any(words_before(before, len(before), len(p)) == p for p in _NEGATION_BEFORE):
        return True
    near = words_before(before, len(before), 6)
    if near[-1:] in (("or",), ("nor",)) and {"no", "without", "neither"} & set(near[:-1]):
        return True  # letters-v10: "no tubular differentiation or Leydig cells": the denial covers the list
    pairs = set(zip(near, near[1:]))
    if {("dont", "think"), ("not", "think"), ("dont", "believe"), ("not", "believe"), ("doubt", "this"),
            ("doubt", "it")} & pairs:
        return True  # letters-v11: "so I don't think this is an incomplete (Garden I) fracture"
    limit = min(next_start, end + 120, len(text))
    clause = folded.clause[start]
    cut = end
    while cut < limit and folded.clause[cut] == clause:
        cut += 1
    after = text[end:cut].split() + text[cut:cut + 60].split()[:4]  # the phrase itself may end the clause
    in_clause = len(text[end:cut].split())
    if after[:1] == ["no"] and folded.source[folded.origin[end - 1] + 1:folded.origin[end - 1] + 3].strip() in _VERDICT_MARKS:
        return True  # "Pneumothorax? No.", "RA - no" (a verdict list; letters-v5)
    joined = after[:1] in (["and"], ["or"])  # letters-v13: "makes scurvy and inflicted injury less likely": the pair
    for skip in range(_GAP + 1 + joined):
        if skip and (skip > in_clause - 1 or (after[skip - 1] in _GAP_STOPS and not (joined and skip == 1))
                     or len(after[skip - 1]) == 1):
            return False
        rest = tuple(after[skip:skip + 4])
        if any(rest[:len(p)] == p for p in _NEGATION_AFTER):
            return True
    return False


def _occurrences(text: str, needle: str):
    """(start, end) of each whole-word occurrence of `needle` (" word ... ") in `text`, plural s/es allowed."""
    core = needle[:-1]  # " word ... word" without the closing space
    at = text.find(core)
    while at >= 0:
        end = at + len(core)
        for suffix in ("", "s", "es"):
            if text.startswith(suffix + " ", end):
                yield at + 1, end + len(suffix)
                break
        at = text.find(core, at + 1)
    for single, plural in _LATIN_PLURALS:  # of the last word: metastasis -> metastases, thrombus -> thrombi
        if len(core) > len(single) + 3 and core.endswith(single):
            stem = core[:-len(single)] + plural + " "
            at = text.find(stem)
            while at >= 0:
                yield at + 1, at + len(stem) - 1
                at = text.find(stem, at + 1)


def mentions(folded: Folded, options: Sequence[str]) -> list[Mention]:
    """Every whole-word mention of an option's text not inside a longer option's mention (longest wins)."""
    found: list[Mention] = []
    whole = folded.text.strip()
    for index, option in enumerate(options):
        needle = folded_option(option)
        words = needle.split()
        if not words:
            continue
        if (len(words) == 1 and len(words[0]) <= 3) or " ".join(words) in _GENERIC:
            if whole == needle.strip():  # "ct", "Yes": only as the whole response
                found.append(Mention(1, len(folded.text) - 1, index))
            elif " ".join(words) in _GENERIC:  # letters-v5: "Yes, there is ...", "The answer is no."
                found.extend(Mention(s, e, index) for s, e in _occurrences(folded.text, needle)
                             if _answers_alone(folded, s, e) or _named_label(folded, s, e, options))
            elif _acronym(option):  # "CT", "MRI": also written in capitals inside a sentence ("an MRI of ...")
                found.extend(Mention(s, e, index) for s, e in _occurrences(folded.text, needle)
                             if _capitals(folded, s, s + len(words[0])))
            continue
        for variant in _eponym_variants(option or "", words):
            found.extend(Mention(s, e, index) for s, e in _occurrences(folded.text, variant)
                         if not (len(words) == 1 and folded.text.startswith(" enough ", e)))
            # (letters-v12: "good enough to grade" grades the image; it does not name the label "Good")
    for index, per_option in enumerate(aliases([folded_option(o) for o in options], options)):
        for alias in per_option:
            words = alias.needle.split()
            for s, e in _occurrences(folded.text, alias.needle):
                if alias.capitals and not ((_capitals(folded, s, e) or _capped(folded, s, e)) and e - s == len(words[0])):
                    continue  # "ARDS" (or "PsA": capital first and last), not the word "ards"
                if alias.genus and not _genus_initial(folded, s):
                    continue  # "E. coli": the capital and its full stop
                following = (folded.text[e:e + 40].split(maxsplit=1) or [""])[0]
                if len(words) == 1 and following in _DESCRIBED and following not in folded_option(options[index]).split() \
                        and not alias.listed:  # (letters-v12: another name is still the name: "a Wenckebach pattern")
                    continue  # letters-v8: "follicular architecture" describes a finding; it names no option
                found.append(Mention(s, e, index, 1))
    found.extend(_context_initialisms(folded, options))
    found.extend(_term_list_mentions(folded, options, found))
    for index, head in enumerate(head_nouns(tuple(folded_option(o) for o in options))):
        if head is not None:
            found.extend(Mention(s, e, index, 2) for s, e in _occurrences(folded.text, head))
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[Mention] = []
    reach = -1  # the furthest end of a kept mention: one starting before it and ending within it is inside
    for m in found:
        if m.end <= reach:
            continue
        kept.append(m)
        reach = max(reach, m.end)
    return kept


_LAST_READ: tuple = (None, None)  # ((text, options), (folded text, mentions)) of the last text read


def read_mentions(source: str, options: Sequence[str]) -> tuple[Folded, list[Mention]]:
    """`fold(source)` and its `mentions` of `options` (neither is to be modified). The last text read is kept:
    parse_letter reads one text with one set of options for several rules (named_option, letter_pairs)."""
    global _LAST_READ
    key, value = _LAST_READ
    if key is not None and key[0] == source and key[1] == tuple(options):
        return value
    folded = fold(source)
    value = (folded, mentions(folded, options))
    _LAST_READ = ((source, tuple(options)), value)
    return value


_ANSWER_LABEL = (("answer", "is"), ("answer",), ("answer", "would", "be"), ("diagnosis", "is"))


def _answers_alone(folded: Folded, start: int, end: int) -> bool:
    """Does a generic option's mention ("yes", "no") open the response as its own clause ("Yes, there is a
    fracture") or close an answer statement ("The answer is no.")?"""
    clause = folded.clause[start]
    before = folded.text[:start].strip()  # letters-v11: or after a letter label alone ("A. Yes")
    opens = (before == "" or (len(before) == 1 and before.isalpha())) and (end + 1 >= len(folded.text) or folded.clause[end + 1] != clause
                                                    or folded.text[end:].strip() == "")
    label = words_before(folded.text, start, 1)  # letters-v11: "The answer is C) Right." (after a letter label)
    at = start - 2 if len(label) == 1 and len(label[0]) == 1 and label[0].isalpha() else start
    closes = (end + 1 >= len(folded.text) or folded.clause[end + 1] != clause) \
        and any(words_before(folded.text, at, len(p)) == p for p in _ANSWER_LABEL)
    return opens or closes


_GRADES = {"mild", "moderate", "severe", "left", "right", "normal", "abnormal"}
_LABEL_JOINS = {"to", "or", "and", "vs", "versus", "not", "no", "nor", "than", "plus"}


def _named_label(folded: Folded, start: int, end: int, options: Sequence[str]) -> bool:
    """letters-v12: does a generic option open a response of at most three words whose other words name what it
    grades ("Severe NPDR" for "severe", "Left kidney" for "left"): no other option's word, no joining word ("Mild to
    moderate")?"""
    if folded.text[start:end].strip() not in _GRADES or folded.text[:start].strip() or len(folded.text.split()) > 3:
        return False  # (not "No idea", "Yes please": a yes/no is read by option_yes_no)
    rest = set(folded.text[end:].split())
    others = {w for option in options for w in folded_option(option).split()}
    return not (rest & (others | _LABEL_JOINS))


def _eponym_variants(option: str, words: list[str]) -> list[str]:
    """The option's folded text, and (letters-v5) its first word with and without a possessive "s" when it is a
    name of two or more words: "Ewing's sarcoma" = "Ewing sarcoma", "Cushing syndrome" = "Cushing's syndrome"."""
    variants = [" " + " ".join(words) + " "]
    first = option.strip().split(" ", 1)[0]
    if len(words) >= 2 and first[:1].isupper() and len(words[0]) >= 4 and words[0].isalpha():
        if words[0].endswith("s") and first[-2:-1] in _APOSTROPHES or first[-1:] in _APOSTROPHES:
            variants.append(" " + " ".join([words[0][:-1] if words[0].endswith("s") else words[0]] + words[1:]) + " ")
        if not words[0].endswith("s"):
            variants.append(" " + " ".join([words[0] + "s"] + words[1:]) + " ")
    variants.extend(" " + form + " " for form in _VERB_FORMS.get(" ".join(words), ()))
    return variants


# letters-v12: a one-word label that is a verb, in the form a sentence gives it ("this image should be rejected" for the
# image-quality label "Reject"): the option's own text, read like it (not an alias only used when no text is named)
_VERB_FORMS = {"reject": ("rejected",), "accept": ("accepted",), "repeat": ("repeated",)}


def _context_initialisms(folded: Folded, options: Sequence[str]) -> list[Mention]:
    """letters-v7: an initialism two options share, written in capitals, names the one whose telling words the
    response also uses (option_aliases.shared_initialisms)."""
    shared = shared_initialisms(tuple(folded_option(o) for o in options), tuple(o or "" for o in options))
    if not shared:
        return []
    used = set(folded.text.split())
    extra = []
    for needle, holders in shared.items():
        spots = [(s, e) for s, e in _occurrences(folded.text, needle) if _capitals(folded, s, e) and not _asked(folded, e)]
        named = [k for k, telling in holders if telling & used]
        if spots and len(named) == 1:
            extra.extend(Mention(s, e, named[0], 1) for s, e in spots)
    return extra


def _asked(folded: Folded, end: int) -> bool:
    """Does the sentence holding the mention ending at `end` end with "?" ("PE with tamponade physiology?")?"""
    source = folded.source
    i = folded.origin[end - 1] + 1
    stops = [k for k in (source.find(ch, i, i + 400) for ch in ".!?\n") if k >= 0]
    return bool(stops) and source[min(stops)] == "?"


_LIST_JOINERS = ("or", "and", "nor")


def _term_list_mentions(folded: Folded, options: Sequence[str], found: list[Mention]) -> list[Mention]:
    """letters-v5: "hepatitis B or C" also names "Hepatitis C", "vitamin C and D" "Vitamin D deficiency": a
    one-letter word after a mention ending in a one-letter word, joined by "or"/"and"/a comma, completes the
    same term, which names the one option holding it."""
    texts = [folded_option(o) for o in options]
    extra = []
    for m in found:
        words = folded.text[m.start:m.end].split()
        if len(words) < 2 or len(words[-1]) != 1:
            continue
        after = folded.text[m.end:m.end + 12].split()[:2]
        if after and after[0] in _LIST_JOINERS:
            after = after[1:]
        if after and len(after[0]) == 1 and after[0].isalpha():
            term = " " + " ".join(words[:-1] + after[:1]) + " "
            holders = [k for k, text in enumerate(texts) if term in text]
            other = holders[0] if len(holders) == 1 else None
            if other is not None and other != m.index:
                at = folded.text.index(" " + after[0] + " ", m.end) + 1
                extra.append(Mention(at, at + 1, other))
    return extra


def _acronym(option: str) -> bool:
    """A short option written in capitals ("CT", "MRI", "AMD"): two or more characters, at least one a letter."""
    text = option.strip()
    return len(text) >= 2 and text.isalnum() and text.upper() == text and any(c.isalpha() for c in text)


def _genus_initial(folded: Folded, start: int) -> bool:
    """Is the folded one-letter word at `start` a capital followed by "." in the source ("E. coli")?"""
    i = folded.origin[start]
    return folded.source[i].isupper() and folded.source[i + 1:i + 2] == "."


def _capped(folded: Folded, start: int, end: int) -> bool:
    """A mixed-case abbreviation of three letters or more, capital first and last ("PsA", "IgG" is not)."""
    return end - start >= 3 and folded.source[folded.origin[start]].isupper() and folded.source[folded.origin[end - 1]].isupper()


def _capitals(folded: Folded, start: int, end: int) -> bool:
    """Is the folded span [start, end) written in capitals in the source (the acronym, not the word "ct")?"""
    return all(not c.isalpha() or c.isupper() for c in (folded.source[folded.origin[k]] for k in range(start, end)))


def named_option(source: str, options: Sequence[str], rejected=frozenset()) -> tuple[int | None, list[tuple[int, int, int]]]:
    """The index of the one option the response names by text (None if none or several), and the source
    spans (start, end, option index) of every mention (letters inside them are part of a term, never an answer letter). Options whose
    letter the response rejected (`rejected` indices, "C is unlikely") count as rejected mentions. Aliases
    (abbreviations, part-names) are read only when no option's full text is named and not rejected."""
    folded, found = read_mentions(source, options)
    spans = [(folded.origin[m.start], folded.origin[m.end - 1] + 1, m.index) for m in found]
    if not found:
        return _closing_label(source, options), spans
    live = _live(folded, found, rejected)
    chosen = _decide(folded, live)  # an alias of another option competes ("pleural effusion and pneumonia")
    if chosen is None and live:  # letters-v12: "... either excision or colposcopy with biopsy ... The most
        chosen = _closing_label(source, options, stated=True)  # appropriate next step is colposcopy.": the close
    if chosen is not None and all(m.tier == 2 for m in live if m.index == chosen):
        chosen = None  # a head noun never names an option ("pneumonia" may be any pneumonia)
    return chosen, spans


def asserted_options(source: str, options: Sequence[str]) -> set[int]:
    """The options the response names and does not reject, refuse or condition (named_option's live mentions)."""
    folded, found = read_mentions(source, options)
    return {m.index for m in _live(folded, found, frozenset())}


def _live(folded: Folded, found: list[Mention], rejected) -> list[Mention]:
    """The mentions that stand: not rejected, refused, conditional or contrasted away."""
    starts = [m.start for m in found] + [len(folded.text)]
    negated = [_negated(folded, m.start, m.end, starts[k + 1]) for k, m in enumerate(found)]
    for k in range(1, len(found)):  # letters-v8: "exclude ALL (B) and CLL (D)": the rejection covers the list
        negated[k] = negated[k] or (negated[k - 1] and folded.clause[found[k - 1].start] == folded.clause[found[k].start]
                                    and _coordinated_next(folded.text[found[k - 1].end:found[k].start]))
    live = [m for k, m in enumerate(found) if m.index not in rejected and not negated[k]]
    live = [m for k, m in enumerate(live) if (m.tier < 2 or _coordinated(folded, live, k)) and not _unasserted(folded, m.start)]
    factual = [m for m in live if not counterfactual(folded.text, m.end, m.start)]
    if factual:  # letters-v5: "meningioma. Glioblastoma would be intra-axial": the other option as a contrast
        live = factual
    full = {m.index for m in live if m.tier == 0}
    if full and not {m.index for m in live if m.tier >= 1} - full:
        live = [m for m in live if m.tier == 0]  # the full texts decide; their aliases add nothing
    return live


def _coordinated_next(between: str) -> bool:
    """Is the folded text between two mentions only a conjunction, maybe after the first one's letter label
    (" b and ", ", ", " or ")? The second mention is then in the same list as the first."""
    words = between.split()
    if words and len(words[0]) == 1:
        words = words[1:]  # the label "(B)" of the first mention, folded to "b"
    return words in (["and"], ["or"], [], ["nor"])


def _unasserted(folded: Folded, start: int) -> bool:
    """Does the clause holding the mention at `start` refuse or condition it before it ("I cannot tell whether
    this is X", "not possible to diagnose X", "if X is present")? At most 20 words back."""
    lo = start
    clause = folded.clause[start]
    while lo > 0 and start - lo < 160 and folded.clause[lo - 1] == clause:
        lo -= 1
    words = folded.text[lo:start].split()[-20:]
    i = folded.origin[start]
    before = folded.source[max(0, i - 8):i]
    before = before[max(before.rfind(ch) for ch in "，,。;；") + 1:]  # letters-v11: within its own clause
    if any(phrase in before for phrase in _CJK_UNASSERTING):
        return True  # letters-v7: "不能排除肺癌" (lung cancer cannot be excluded), "排除X", "是否X"
    if any(w in _UNASSERTING for w in words) or any(pair in _UNASSERTING_PAIRS for pair in zip(words, words[1:])):
        return True
    if consequent(folded.source, i, words):
        return True
    # letters-v7: "could be X or could be Y": a possibility offered beside another, in one clause
    hi = start
    while hi < len(folded.text) and hi - start < 160 and folded.clause[hi] == clause:
        hi += 1
    if any(pair in POSSIBLE for pair in zip(words, words[1:])) and "or" in folded.text[lo:hi].split():
        return True
    return possibilities_listed(folded.source, i)


_ANSWER_NOUNS = frozenset(("answer", "step", "diagnosis", "treatment", "management", "choice", "option"))
_LABEL_SEPARATORS = (":", ";", ",", "=", "—", "–", " - ", "\n", "(", "→")


def _closing_label(source: str, options: Sequence[str], stated: bool = False) -> int | None:
    """The option whose first word alone closes the response ("Tinea.", "Rib notching = coarctation."), when
    nothing else names an option (option_aliases.lead_words); `stated`: only when an answer statement closes with it
    ("The most appropriate next step is colposcopy."), which decides even among other mentions."""
    text = source[-200:].rstrip(" .!)]*\n。")
    cut = max([text.rfind(sep) + len(sep) for sep in _LABEL_SEPARATORS if sep in text] + [0])
    words = fold(text[cut:]).text.split()
    if len(words) > 1 and words[-2:-1] == ["is"] and _ANSWER_NOUNS.intersection(words[-5:-1]):
        words = words[-1:]  # letters-v12: "The final answer is Bilateral.", "The most appropriate next step is colposcopy."
    elif stated:
        return None
    if words and all(is_cjk(w) for w in words):
        words = ["".join(words)]  # "右侧": the Chinese label as one word
    if len(words) != 1:
        return None
    leads = lead_words(tuple(folded_option(o) for o in options))
    named = [k for k, lead in enumerate(leads) if lead is not None and (
        words[0] in (lead, lead + "s") or words[0] in SIDES.get(lead, ()))]
    return named[0] if len(named) == 1 else None


_COORDINATORS = {"and", "or", "vs", "versus", "nor"}
def _coordinated(folded: Folded, live: list[Mention], k: int) -> bool:
    """Is the head-noun mention live[k] listed beside a mention of another option ("pleural effusion and
    pneumonia", "pneumonia or pleural effusion", "effusion, pneumonia")? Only then does it compete."""
    head = live[k]
    for j in (k - 1, k + 1):
        if not 0 <= j < len(live) or live[j].tier == 2 or live[j].index == head.index:
            continue
        first, second = (live[j], head) if j < k else (head, live[j])
        gap = folded.text[first.end:second.start].split()
        between = folded.source[folded.origin[first.end - 1] + 1:folded.origin[second.start]]
        if len(gap) <= 1 and all(w in _COORDINATORS for w in gap) and all(c in " ,/" or c.isalpha() for c in between):
            return True
    return False


def _decide(folded: Folded, live: list[Mention]) -> int | None:
    chosen = {m.index for m in live}
    if len(chosen) == 1:
        return chosen.pop()
    if len(chosen) > 1:
        last_clause = folded.clause[live[-1].start]
        in_clause = [m for m in live if folded.clause[m.start] == last_clause]
        if len({m.index for m in in_clause}) == 1 and (_concludes(folded, last_clause, in_clause[0].start)
                                                       or _states(folded, last_clause, in_clause[0].start)):
            return in_clause[0].index
        # letters-v5: else the one option whose own clause concludes, when no other's does ("X is most likely,
        # although a small Y is also present")
        by_clause: dict[int, list[Mention]] = {}
        for m in live:
            by_clause.setdefault(folded.clause[m.start], []).append(m)
        concluded = {ms[0].index for c, ms in by_clause.items()
                     if len({m.index for m in ms}) == 1 and _concludes(folded, c, ms[0].start)}
        if len(concluded) == 1:
            return concluded.pop()
    return None


def _states(folded: Folded, clause: int, mention_start: int) -> bool:
    """letters-v10: does the last clause naming an option open "This is ..." and end the response ("... no
    Schiller-Duval bodies (against yolk sac tumor).\n\nThis is an adult granulosa cell tumor.")?"""
    lo = mention_start
    while lo > 0 and folded.clause[lo - 1] == clause:
        lo -= 1
    return folded.text[lo:mention_start].split()[:2] in (["this", "is"], ["this", "represents"]) \
        and folded.clause[-1] - clause <= 1


def _concludes(folded: Folded, clause: int, mention_start: int) -> bool:
    """Does the clause holding the last mention commit ("so the answer is X", "X is most likely")?"""
    lo = mention_start
    while lo > 0 and folded.clause[lo - 1] == clause:
        lo -= 1
    hi = mention_start
    while hi < len(folded.text) and folded.clause[hi] == clause:
        hi += 1
    words = folded.text[lo:hi].split()
    if any(word in _LIST_CUES for word in words):
        return False  # letters-v8: "the differential diagnosis ... includes X, Y and Z" lists; it concludes nothing
    if lo > 0 and ":" in folded.source[max(0, folded.origin[lo - 1]):folded.origin[lo] + 1]:
        label = lo - 1  # letters-v9: "Diagnosis: <X>": the label before the colon concludes its clause
        while label > 0 and folded.clause[label - 1] == folded.clause[lo - 1]:
            label -= 1
        label_words = folded.text[label:lo].split()[-3:]
        if {"diagnosis", "answer", "impression", "conclusion", "verdict", "summary"} & set(label_words) \
                or label_words[-2:] == ["bottom", "line"]:
            return True  # letters-v11: "Bottom line: this is a Stanford type A dissection"
    if lo > 0 and under_heading(folded.source[max(0, folded.origin[lo] - 120):folded.origin[lo]]):
        return True  # letters-v13: "## 诊断\nDDH（左侧）", "**Diagnosis**\nX": the line under a conclusion heading
    joined = "".join(words)  # folded CJK text is one character per word
    return any(word in _CONCLUDING and not (word in _MODAL_CUES and k and words[k - 1] in _MODALS)
               for k, word in enumerate(words)) or any(cue in joined for cue in _CJK_CONCLUDING)
