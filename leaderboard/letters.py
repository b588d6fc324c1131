"""Multiple-choice letter parsing shared by the MCQ benchmarks (this project's rule, see design):
an explicit `Answer: X` first, then a lone leading letter, then a single standalone letter anywhere.
Several different letters, or none, is a parse failure (scored wrong, counted)."""
from __future__ import annotations

import re

LETTERS = "ABCDE"

_MARKUP = re.compile(r"[*_`#>]+")
_EXPLICIT = re.compile(r"(?:final\s+answer|answer|option|choice)\s*(?:is|:|=|-)?\s*\(?\[?([A-Za-z])\]?\)?(?![A-Za-z])", re.I)
_LEADING = re.compile(r"^\s*\(?([A-Za-z])\)?\s*(?:[.):,]|$)")
_STANDALONE = re.compile(r"(?<![A-Za-z])\(?([A-Z])\)?(?![A-Za-z])")


def parse_letter(text: str | None, letters: str = LETTERS) -> str | None:
    """The chosen letter (upper case), or None when the response names no single option."""
    if not isinstance(text, str):
        return None
    clean = _MARKUP.sub(" ", text).strip()
    if not clean:
        return None
    explicit = {m.upper() for m in _EXPLICIT.findall(clean) if m.upper() in letters}
    if len(explicit) == 1:
        return explicit.pop()
    if len(explicit) > 1:
        return None
    leading = _LEADING.match(clean)
    if leading and leading.group(1).upper() in letters and (leading.group(1).isupper() or len(clean) <= 3):
        return leading.group(1).upper()
    standalone = {m for m in _STANDALONE.findall(clean) if m in letters and not _is_article(clean, m)}
    if len(standalone) == 1:
        return standalone.pop()
    return None


def _is_article(text: str, letter: str) -> bool:
    """'A' used as the English article ('A 45-year-old...') is not an option."""
    return letter == "A" and re.search(r"(?<![A-Za-z])A\s+(?!(?:or|and|nor|vs|is|was|seems)\b)[a-z0-9]", text) is not None and \
        re.search(r"(?<![A-Za-z])\(?A\)?(?![A-Za-z\s])|(?<![A-Za-z])A$", text) is None
