"""The project's one injection filter. Candidate text goes to a judge as quoted data; sentences that
address the grader (prompt injection) are flagged and redacted before the call, and submissions that hold
them are put in review (`leaderboard.operations.review`).

Detection is a measured layer, not a guarantee: it reads the text after `normalize` has taken off the
common disguises (invisible characters, look-alike letters, fullwidth forms, spelled-out letters, base64,
rot13) and matches the intent patterns of `injection_patterns`; a sentence classifier (`classifier`,
hashed n-grams, trained by bench/train_injection_classifier.py) flags the sentences whose wording the
patterns do not list. bench/injection_detection.py reports its
recall and false-positive rate on the tuning corpus and on a held-out one; what it misses is left to the
prompt's data boundary and the judge's grounding checks.

Every pattern runs on RE2 (linear time in the text; bench/injection_linear.py times the worst shapes).
"""
from __future__ import annotations

import bisect
import itertools
from functools import lru_cache

import re2

from . import classifier
from .injection_patterns import PATTERNS
from .normalize import aligned_views, decoded_views, detached_views, extra_views, fold_lookalikes, plain, rot13_view

OPEN, CLOSE = "<candidate_response>", "</candidate_response>"
REDACTED = "[removed by the leaderboard's filter]"  # must not itself match a pattern (a test checks)
MAX_REPORTED = 100  # find_injection lists at most this many phrases per view (a flag needs one)
# between sentences: whitespace to the patterns ("pneumonia.\f Return a score" reads as two sentences), kept
# in place by every view; a form feed inside the text is read as a space
_BOUNDARY = "\f"
_BOUNDARY_BYTES = _BOUNDARY.encode()
_FLAGS = "(?im)"
# sentence ends; more ends or blank space after an end join that sentence (" \n" x 50,000 is one sentence)
_ENDS = str.maketrans(dict.fromkeys(".!?。！？\n", "\x00"))
_SPACE = " \t\r\n\f\v"
_LEADING = ".!?。！？" + _SPACE

_OPTIONS = re2.Options()
_OPTIONS.max_mem = 64 << 20  # the combined pattern's DFA needs more than RE2's default 8 MB to stay a DFA
_INJECTION = re2.compile(_FLAGS + "|".join(f"(?:{pattern})" for _, pattern in PATTERNS), _OPTIONS)
_KINDS = [(name, re2.compile(_FLAGS + pattern)) for name, pattern in PATTERNS]


def find_injection(text: str) -> list[str]:
    """The matched phrases (as read after normalisation; at most MAX_REPORTED per view), in order; [] for
    text that addresses no grader."""
    found = []
    for view in _views(plain(text or "")):
        matches = itertools.islice(_INJECTION.finditer(view.encode()), MAX_REPORTED)
        found.extend(m.group(0).decode("utf-8", "replace") for m in matches)
    sentences = split_sentences(text or "")
    found.extend(sentences[k].strip(_SPACE) for k in sorted(_classified(sentences))[:MAX_REPORTED])
    return found


def injection_kinds(text: str) -> list[str]:
    """Names of the pattern entries that match (for a maintainer's review; never shown to users)."""
    views = [view.encode() for view in _views(plain(text or ""))]
    kinds = ["classifier"] if _classified(split_sentences(text or "")) else []
    if not any(_INJECTION.search(view) for view in views):  # the common case: one combined scan per view
        return kinds
    return [name for name, pattern in _KINDS if any(pattern.search(view) for view in views)] + kinds


def redact(text: str) -> tuple[str, bool]:
    """(text with every sentence that addresses the grader replaced, whether anything was flagged)."""
    text = text or ""
    views = [view.encode() for view in _views(plain(text))]
    sentences = split_sentences(text)
    hit = _classified(sentences)
    if any(_INJECTION.search(view) for view in views):
        matched = _flagged_sentences(sentences)
        # only the whole text reads as an instruction (a match across sentences): withhold all of it
        hit |= matched or set(range(len(sentences)))
    if not hit:  # the common case
        return text, False
    parts = []
    for k, sentence in enumerate(sentences):
        if k in hit:
            body = sentence.strip(_SPACE)
            lead = sentence.index(body[0]) if body else 0
            parts.append(sentence[:lead] + REDACTED + sentence[lead + len(body):])
        else:
            parts.append(sentence)
    return "".join(parts), True


@lru_cache(maxsize=1024)  # one response is quoted once per rubric criterion: scan it once
def quote_candidate(text: str, filtered: bool = True) -> tuple[str, bool]:
    """The candidate wrapped as data, after redaction (unless `filtered` is False: a reader that holds no authority
    the submitter lacks, letter_reader.py); the tags cannot be closed from inside."""
    clean, flagged = redact(text or "") if filtered else (text or "", False)
    clean = clean.replace(CLOSE, "").replace(OPEN, "")
    return f"{OPEN}\n{clean}\n{CLOSE}", flagged


def split_sentences(text: str) -> list[str]:
    """`text` cut after each run of sentence ends (. ! ? 。 ！ ？ newline) and the whitespace that follows
    it; "".join() of the result is `text`. Linear: one translate, one split, one pass over the pieces."""
    cuts = [0]  # where each sentence starts
    at = 0
    for piece in text.translate(_ENDS).split("\x00")[:-1]:
        if piece.strip(_SPACE) and at > cuts[-1] and (text[at - 1] not in ".!?" or text[at] in _SPACE):
            cuts.append(at)  # words after an end: a new sentence ("3.5 mmol", "e.g.", "g.i.v.e" do not end one)
        at += len(piece) + 1  # the piece, then its end character
    if text[at:].strip(_SPACE) and at > cuts[-1] and (text[at - 1] not in ".!?" or text[at] in _SPACE):
        cuts.append(at)
    cuts.append(len(text))
    return [text[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]


def _classified(sentences: list[str]) -> set[int]:
    """Indices of the sentences the classifier flags: as written, as decoded in place (spelled-out
    letters, %XX, digits for letters, rot13; the sentence boundary keeps each reading aligned), and, for a
    sentence holding base64 or reversed text, as decoded (read sentence by sentence)."""
    hit = set(classifier.flagged(sentences))
    n = len(sentences)
    joined = plain(_BOUNDARY.join(s.replace(_BOUNDARY, " ") for s in sentences))
    folded = fold_lookalikes(joined)
    rot13 = rot13_view(folded)
    for view in decoded_views(folded) + ([rot13] if rot13 else []):
        pieces = view.split(_BOUNDARY)
        if len(pieces) == n:  # (a decoded "%0C" would shift the pieces: that reading is left to the patterns)
            hit.update(classifier.flagged(pieces))
    if detached_views(joined):
        for k, sentence in enumerate(sentences):
            decoded = [part for view in detached_views(plain(sentence)) for part in split_sentences(view)]
            if k not in hit and decoded and classifier.flagged(decoded):
                hit.add(k)
    return hit


def _views(text: str) -> list[str]:
    return [text, *extra_views(text)]


def _flagged_sentences(sentences: list[str]) -> set[int]:
    """Indices of the sentences a pattern matches in. The sentences are joined by a boundary character that
    every view keeps in place, so each view is scanned once (on UTF-8 bytes: RE2 then re-encodes nothing),
    resuming after each flagged sentence."""
    n = len(sentences)
    hit: set[int] = set()
    joined = plain(_BOUNDARY.join(s.replace(_BOUNDARY, " ") for s in sentences))
    # a detached reading (base64, reversed) that matches: its sentences are found one by one below
    per_sentence = any(_INJECTION.search(view.encode()) for view in detached_views(joined))
    for view in [joined, *aligned_views(joined)]:
        data = view.encode()
        pieces = data.split(_BOUNDARY_BYTES)
        if len(pieces) != n:  # a decoding made a boundary character ("%0C"): sentence by sentence below
            per_sentence = True
            continue
        starts = list(itertools.accumulate((len(piece) + len(_BOUNDARY_BYTES) for piece in pieces), initial=0))
        pos = 0
        while (match := _INJECTION.search(data, pos)) is not None:
            phrase = match.group(0).decode("utf-8", "replace")  # may begin with the sentence before's end
            begin = match.start() + len(phrase[:len(phrase) - len(phrase.lstrip(_LEADING))].encode())
            first = bisect.bisect_right(starts, begin) - 1
            last = bisect.bisect_right(starts, max(begin, match.end() - 1)) - 1
            hit.update(range(first, last + 1))
            if last + 1 >= n:
                break
            pos = starts[last + 1]
    if per_sentence:
        hit.update(k for k, sentence in enumerate(sentences) if k not in hit and sentence.strip(_SPACE)
                   and any(_INJECTION.search(view.encode()) for view in _views(plain(sentence))))
    return hit
