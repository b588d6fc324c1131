"""The project's one injection filter. Candidate text goes to a judge as quoted data; sentences that
address the grader (prompt injection) are flagged and redacted before the call, and submissions that hold
them are put in review (`leaderboard.review`).

Detection is a measured layer, not a guarantee: it reads the text after `normalize` has taken off the
common disguises (invisible characters, look-alike letters, fullwidth forms, spelled-out letters, base64,
rot13) and matches the intent patterns of `injection_patterns`. bench/injection_detection.py reports its
recall and false-positive rate on the tuning corpus and on a held-out one; what it misses is left to the
prompt's data boundary and the judge's grounding checks.

Every pattern runs on RE2 (linear time in the text; bench/injection_linear.py times the worst shapes).
"""
from __future__ import annotations

import bisect
from functools import lru_cache

import re2

from .injection_patterns import PATTERNS
from .normalize import extra_views, plain

OPEN, CLOSE = "<candidate_response>", "</candidate_response>"
REDACTED = "[removed by the leaderboard's filter]"  # must not itself match a pattern (a test checks)
_BOUNDARY = "\uE000"  # private-use character between sentences: survives NFKC, never typed
_FLAGS = "(?im)"

_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20  # the combined pattern's DFA needs more than RE2's default 8 MB to stay a DFA
_INJECTION = re2.compile(_FLAGS + "|".join(f"(?:{pattern})" for _, pattern in PATTERNS), _OPTIONS)
_KINDS = [(name, re2.compile(_FLAGS + pattern)) for name, pattern in PATTERNS]
_SENTENCE = re2.compile(r"[^.!?。！？\n]*(?:[.!?。！？]+|\n|$)")


def find_injection(text: str) -> list[str]:
    """The matched phrases (as read after normalisation), in order; [] for text that addresses no grader."""
    text = text or ""
    return [m.group(0) for view in _views(plain(text)) for m in _INJECTION.finditer(view)]


def injection_kinds(text: str) -> list[str]:
    """Names of the pattern entries that match (for a maintainer's review; never shown to users)."""
    views = _views(plain(text or ""))
    if not any(_INJECTION.search(view) for view in views):  # the common case: one combined scan per view
        return []
    return [name for name, pattern in _KINDS if any(pattern.search(view) for view in views)]


def redact(text: str) -> tuple[str, bool]:
    """(text with every sentence that addresses the grader replaced, whether anything was flagged)."""
    text = text or ""
    if not find_injection(text):  # the common case, checked once
        return text, False
    sentences = [s for s in _SENTENCE.findall(text) if s]
    hit = _flagged_sentences(sentences)
    if not hit:  # only the whole text reads as an instruction (a match across sentences): withhold all of it
        hit = set(range(len(sentences)))
    parts = [REDACTED + (" " if sentence.endswith("\n") else "") if k in hit else sentence
             for k, sentence in enumerate(sentences)]
    return "".join(parts), True


@lru_cache(maxsize=1024)  # one response is quoted once per rubric criterion: scan it once
def quote_candidate(text: str) -> tuple[str, bool]:
    """The candidate wrapped as data, after redaction; the tags cannot be closed from inside."""
    clean, flagged = redact(text or "")
    clean = clean.replace(CLOSE, "").replace(OPEN, "")
    return f"{OPEN}\n{clean}\n{CLOSE}", flagged


def _views(text: str) -> list[str]:
    return [text, *extra_views(text)]


def _flagged_sentences(sentences: list[str]) -> set[int]:
    """Indices of the sentences a pattern matches in, with the whole text scanned once per view: the
    sentences are joined by a boundary character that every view keeps in place."""
    joined = plain(_BOUNDARY.join(sentences))
    pieces = joined.split(_BOUNDARY)
    starts, at = [], 0
    for piece in pieces:
        starts.append(at)
        at += len(piece) + 1
    hit: set[int] = set()
    per_sentence = False
    for view in _views(joined):
        if view.count(_BOUNDARY) != len(pieces) - 1:  # a decoded span (base64) has no boundaries: its sentence
            per_sentence = True
            continue
        starts_view, at = [], 0
        for piece in view.split(_BOUNDARY):
            starts_view.append(at)
            at += len(piece) + 1
        for match in _INJECTION.finditer(view):
            first = bisect.bisect_right(starts_view, match.start()) - 1
            last = bisect.bisect_right(starts_view, max(match.start(), match.end() - 1)) - 1
            hit.update(range(first, last + 1))
    if per_sentence:
        hit.update(k for k, piece in enumerate(pieces) if piece.strip() and k not in hit
                   and any(_INJECTION.search(view) for view in _views(piece)))
    return hit
