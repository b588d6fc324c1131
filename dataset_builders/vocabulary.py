"""A field's known values and the spellings that mean them: case, spaces, hyphens, underscores and a
trailing 'System(s)' do not matter, and an adapter may list synonyms. Benchmark-blind."""
from __future__ import annotations

from typing import Iterable

_DROP = str.maketrans("", "", " \t_-")
_SUFFIXES = ("systems", "system")


def spelling_key(text: str) -> str:
    """Lookup form: lower case, without spaces, hyphens, underscores or a trailing 'system(s)'."""
    key = text.strip().casefold().translate(_DROP)
    for suffix in _SUFFIXES:
        if key.endswith(suffix) and len(key) > len(suffix):
            return key[: -len(suffix)]
    return key


class Vocabulary:
    """`canonical` values plus `synonyms` (spelling -> canonical value); `lookup` maps a raw spelling.
    `names` (spelling -> canonical value) are documented exact alternatives, such as a task's full name
    for its abbreviation: matched like synonyms, but `documented` says they are no surprise (nor is a
    listed spelling in other letter case)."""

    def __init__(self, canonical: Iterable[str], synonyms: dict[str, str] | None = None,
                 names: dict[str, str] | None = None):
        self.canonical = tuple(canonical)
        self.documented = {k.casefold(): v for k, v in {**{v: v for v in self.canonical}, **(names or {})}.items()}
        synonyms = {**(names or {}), **(synonyms or {})}
        self._table: dict[str, str] = {}
        for value in self.canonical:
            self._table[spelling_key(value)] = value
        for spelling, value in synonyms.items():
            if value not in self.canonical:
                raise ValueError(f"synonym {spelling!r} maps to {value!r}, which is not a known value")
            self._table.setdefault(spelling_key(spelling), value)

    def lookup(self, raw: str) -> str | None:
        return self._table.get(spelling_key(raw))

    def __iter__(self):
        return iter(self.canonical)
