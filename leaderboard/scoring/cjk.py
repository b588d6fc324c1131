"""Chinese (and Japanese) characters: the one test every letter and option-text rule uses to treat them apart."""
from __future__ import annotations

from typing import Iterable


def is_cjk(ch: str) -> bool:
    """Is `ch` (one character, or "") of the CJK blocks, radicals to unified ideographs (U+2E80-U+9FFF)? In that writing
    each character is a word of its own: no spaces, no word boundary around it."""
    return "\u2e80" <= ch <= "\u9fff"


def has_cjk(text: Iterable[str]) -> bool:
    return any(is_cjk(ch) for ch in text)


def in_order(part: Iterable, whole: Iterable) -> bool:
    """Are `part`'s items all in `whole`, in the same order (a subsequence: characters of a string, words of a list)?"""
    rest = iter(whole)
    return all(item in rest for item in part)
