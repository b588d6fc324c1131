"""Option-text answers (rule letters-v3, step 4): which option a response names by its wording.

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

Everything here is a hand-written scan: no regular expression, linear in the response's length per option.
"""
from __future__ import annotations

from typing import NamedTuple, Sequence

_APOSTROPHES = "'’`´"
_CLAUSE_ENDS = ".,;:!?\n"
_NEGATION_BEFORE = (("not",), ("no",), ("non",), ("unlike",), ("excluding",), ("exclude",), ("excludes",),
                    ("without",), ("against",), ("rather", "than"), ("other", "than"), ("instead", "of"),
                    ("rule", "out"), ("rules", "out"), ("ruled", "out"), ("ruling", "out"), ("more", "likely", "than"),
                    ("not", "a"), ("not", "an"), ("not", "the"), ("isnt",), ("isnt", "a"), ("no", "evidence", "of"),
                    ("no", "signs", "of"), ("no", "sign", "of"))
_NEGATION_AFTER = (("is", "excluded"), ("excluded",), ("is", "ruled", "out"), ("ruled", "out"), ("is", "unlikely"),
                   ("unlikely",), ("is", "less", "likely"), ("less", "likely"), ("is", "not"), ("was", "excluded"),
                   ("was", "ruled", "out"), ("can", "be", "excluded"), ("can", "be", "ruled", "out"),
                   ("would", "not"), ("does", "not"), ("seems", "unlikely"), ("is", "incorrect"), ("is", "wrong"))
_CONCLUDING = ("answer", "diagnosis", "likely", "consistent", "therefore", "thus", "hence", "so", "final",
               "favor", "favour", "favors", "favours", "favoring", "favouring", "best", "makes", "conclude",
               "conclusion", "choose", "select", "go")
_GENERIC = {"yes", "no", "none", "normal", "abnormal", "other", "unknown", "present", "absent", "both",
            "neither", "left", "right", "true", "false", "all", "mild", "moderate", "severe"}


class Folded(NamedTuple):
    text: str  # " word word ... " (a space at both ends, single spaces between words)
    source: str  # the text folded
    origin: list[int]  # origin[k] = index in the source text of text[k]
    clause: list[int]  # clause[k] = how many clause ends (. , ; : ! ? newline) precede text[k]


def fold(source: str) -> Folded:
    """Case-folded words of `source` separated by single spaces, with each character's source index."""
    chars, origin, clause = [" "], [-1], [0]
    n_clause = 0
    for i, ch in enumerate(source):
        if ch in _APOSTROPHES:
            continue  # "Crohn's" = "Crohns"
        if ch.isalnum():
            for c in ch.casefold():
                chars.append(c)
                origin.append(i)
                clause.append(n_clause)
            continue
        if ch in _CLAUSE_ENDS and not (ch == "." and source[i + 1:i + 2].isalnum()):
            n_clause += 1  # "2.5 cm" and "e.g." keep their clause
        if chars[-1] != " ":
            chars.append(" ")
            origin.append(i)
            clause.append(n_clause)
    if chars[-1] != " ":
        chars.append(" ")
        origin.append(len(source))
        clause.append(n_clause)
    return Folded("".join(chars), source, origin, clause)


class Mention(NamedTuple):
    start: int  # in the folded text
    end: int
    index: int  # which option


def _words_before(text: str, start: int, count: int) -> tuple[str, ...]:
    return tuple(text[max(0, start - 60):start].split()[-count:])  # count >= 1


def _words_after(text: str, end: int, count: int) -> tuple[str, ...]:
    return tuple(text[end:end + 60].split()[:count])


def _negated(text: str, start: int, end: int) -> bool:
    """Is the mention text[start:end] rejected ("not X", "rather than X", "X is excluded")?"""
    if any(_words_before(text, start, len(p)) == p for p in _NEGATION_BEFORE):
        return True
    return any(_words_after(text, end, len(p)) == p for p in _NEGATION_AFTER)


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


def mentions(folded: Folded, options: Sequence[str]) -> list[Mention]:
    """Every whole-word mention of an option's text not inside a longer option's mention (longest wins)."""
    found: list[Mention] = []
    whole = folded.text.strip()
    for index, option in enumerate(options):
        needle = fold(option or "").text
        words = needle.split()
        if not words:
            continue
        if (len(words) == 1 and len(words[0]) <= 3) or " ".join(words) in _GENERIC:
            if whole == needle.strip():  # "ct", "Yes": only as the whole response
                found.append(Mention(1, len(folded.text) - 1, index))
            elif _acronym(option):  # "CT", "MRI": also written in capitals inside a sentence ("an MRI of ...")
                found.extend(Mention(s, e, index) for s, e in _occurrences(folded.text, needle)
                             if _capitals(folded, s, s + len(words[0])))
            continue
        found.extend(Mention(s, e, index) for s, e in _occurrences(folded.text, needle))
    found.sort(key=lambda m: (m.start, -(m.end - m.start)))
    kept: list[Mention] = []
    reach = -1  # the furthest end of a kept mention: one starting before it and ending within it is inside
    for m in found:
        if m.end <= reach:
            continue
        kept.append(m)
        reach = max(reach, m.end)
    return kept


def _acronym(option: str) -> bool:
    """A short option written in capitals ("CT", "MRI", "AMD"): two or more characters, at least one a letter."""
    text = option.strip()
    return len(text) >= 2 and text.isalnum() and text.upper() == text and any(c.isalpha() for c in text)


def _capitals(folded: Folded, start: int, end: int) -> bool:
    """Is the folded span [start, end) written in capitals in the source (the acronym, not the word "ct")?"""
    return all(not c.isalpha() or c.isupper() for c in (folded.source[folded.origin[k]] for k in range(start, end)))


def named_option(source: str, options: Sequence[str]) -> tuple[int | None, list[tuple[int, int]]]:
    """The index of the one option the response names by text (None if none or several), and the source
    spans of every mention (letters inside them are part of a term, never an answer letter)."""
    folded = fold(source)
    found = mentions(folded, options)
    spans = [(folded.origin[m.start], folded.origin[m.end - 1] + 1) for m in found]
    live = [m for m in found if not _negated(folded.text, m.start, m.end)]
    chosen = {m.index for m in live}
    if len(chosen) == 1:
        return chosen.pop(), spans
    if len(chosen) > 1:
        last_clause = folded.clause[live[-1].start]
        in_clause = [m for m in live if folded.clause[m.start] == last_clause]
        if len({m.index for m in in_clause}) == 1 and _concludes(folded, last_clause, in_clause[0].start):
            return in_clause[0].index, spans
    return None, spans


def _concludes(folded: Folded, clause: int, mention_start: int) -> bool:
    """Does the clause holding the last mention commit ("so the answer is X", "X is most likely")?"""
    lo = mention_start
    while lo > 0 and folded.clause[lo - 1] == clause:
        lo -= 1
    hi = mention_start
    while hi < len(folded.text) and folded.clause[hi] == clause:
        hi += 1
    return any(word in _CONCLUDING for word in folded.text[lo:hi].split())
