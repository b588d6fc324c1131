"""Searching RE2 patterns with the lookarounds RE2 lacks (the letter rule's matching engine, letters.py).

RE2 has no lookarounds: where the rule needs one (a letter not inside a word, a statement not followed by "is
incorrect") it is checked in Python on the match's neighbours, and a match that fails the check is retried one
character later, as a backtracking engine would (`matches`). Searches read bounded windows: linear time.
"""
from __future__ import annotations


MAX_MATCH = 200  # no pattern here matches more characters (the longest statement is about 100)
_WINDOW = 2 * MAX_MATCH


def matches(pattern, s: str, ok=None):
    """`pattern.finditer(s)` where `ok(match)` stands for the lookarounds RE2 lacks: a rejected match is
    retried from one character after its start. Each search reads a window of 2 * MAX_MATCH characters
    (the wrapper encodes what it is given, so searching the whole text from every position would be
    quadratic); a match starting in the first half of a window lies wholly inside it, so it is the match
    a search of the whole text would find."""
    pos = 0
    while pos < len(s) or (pos == 0 and not s):
        window = s[pos:pos + _WINDOW]
        m = pattern.search(window)
        last = len(window) if pos + _WINDOW >= len(s) else _WINDOW - MAX_MATCH  # starts trusted in this window
        if m is None or m.start() >= last:
            if pos + _WINDOW >= len(s):
                return
            pos += _WINDOW - MAX_MATCH
            continue
        found = _Shifted(m, pos, pattern.groupindex.get("guard"))
        if ok is None or ok(found):
            yield found
            pos = found.end() if found.end() > found.start() else found.end() + 1
        else:
            pos += m.start() + 1


class _Shifted:
    """A match in a window, with positions in the whole text."""

    def __init__(self, m, offset: int, guard: int | None = None):
        self.m, self.offset, self.guard = m, offset, guard

    def start(self, group=0):
        return self.m.start(group) + self.offset if self.m.start(group) >= 0 else -1

    def end(self, group=0):
        if group == 0 and self.guard is not None:  # the character checked after a final letter is not the match's
            return self.m.start(self.guard) + self.offset
        return self.m.end(group) + self.offset if self.m.end(group) >= 0 else -1

    def group(self, group=0):
        return self.m.group(group)
