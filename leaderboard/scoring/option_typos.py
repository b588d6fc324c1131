"""A misspelled option alone answers it (rule letters-v12, step 4).

"Osteosarcome" for "Osteosarcoma", "Osteosarcma" too; "Pneumothroax" is not (two edits), nor "Metastasisx" (a letter
run on past the word): a response that is only an option's text with one letter wrong, added or missing inside it is
read as that option by a careful reader, when no other option's text comes near it. Only whole responses of at most four words and eight characters or more (a short word is too easily another
word); one edit at most, and every other option three edits or more away. Bounded work: two short strings per option.
"""
from __future__ import annotations

from typing import Sequence

from .option_text import fold, folded_option

_MAX_WORDS = 4
_MAX_CHARS = 60


def _distance(a: str, b: str, cap: int) -> int:
    """Levenshtein distance of a and b, or `cap` + 1 once it is sure to exceed `cap`."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
        if min(current) > cap:
            return cap + 1
        previous = current
    return previous[-1]


def misspelled_option(source: str, options: Sequence[str]) -> int | None:
    """The index of the one option the whole response spells with one edit, others three or more edits away."""
    text = fold(source[:_MAX_CHARS * 2]).text.strip()
    if len(text) < 8 or len(text) > _MAX_CHARS or len(text.split()) > _MAX_WORDS:
        return None
    distances = [_distance(text, name, 3) if len(name) == len(text) or name[-1:] == text[-1:] else 4
                 for name in (folded_option(o).strip() for o in options)]  # a letter added at the end is no typo
    near = [k for k, d in enumerate(distances) if d <= 1]
    if len(near) != 1 or any(d < 3 for k, d in enumerate(distances) if k != near[0]):
        return None
    return near[0]
