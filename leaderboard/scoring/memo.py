"""A memo of pure functions in the scoring cache folder, so a rescore reads back what it would only compute
again: percentile-bootstrap CIs (5,000 x items resamples), what a benchmark's judge keys hash from its
dataset, such as the digests of rendered dialogues, and the judge cache keys of a batch of calls
(`Judge.items_keys`: 50,586 SHA-256s for one 5,620-case submission) (issue 31: a rescore from cached verdicts at
the speed of reading them).

Every entry is keyed by a SHA-256 of the function's name and version and of ALL its input bytes (the values
as float64 bytes, a Parquet column as its stored bytes): a changed input, even in its last bit, is another key,
so a memo only ever returns what the function gives. No entry holds a per-item score (cache keys are
hashes of the judge's inputs, as the verdict cache already stores them). Active only inside
`active()` (score_file, when the context has a cache folder); elsewhere every caller computes as before.
"""
from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator

FILE_NAME = "memo.sqlite"
_current: contextvars.ContextVar["Memo | None"] = contextvars.ContextVar("scoring_memo", default=None)


class Memo:
    def __init__(self, path: Path):
        self.path = Path(path)

    @staticmethod
    def key(function: str, *inputs: bytes | str) -> str:
        """`function` names the function and its version; each input is length-prefixed (unambiguous)."""
        h = hashlib.sha256(function.encode())
        for part in inputs:
            data = part.encode() if isinstance(part, str) else bytes(part)
            h.update(b"\n%d:" % len(data))
            h.update(data)
        return h.hexdigest()

    def get(self, key: str) -> Any | None:
        if not self.path.is_file():
            return None
        try:
            with contextlib.closing(sqlite3.connect(self.path, timeout=5)) as db:
                row = db.execute("SELECT value FROM memo WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:  # an unreadable memo (or none yet) is a miss: the caller computes
            return None
        return json.loads(row[0]) if row is not None else None

    def put(self, key: str, value: Any) -> None:
        """`value` as JSON (floats as their shortest exact repr: read back as the same float64)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with contextlib.closing(sqlite3.connect(self.path, timeout=5)) as db, db:
                db.execute("CREATE TABLE IF NOT EXISTS memo (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
                db.execute("INSERT OR IGNORE INTO memo VALUES (?, ?)", (key, json.dumps(value)))
        except sqlite3.Error:  # a memo that cannot be written costs the next rescore the computation, nothing else
            pass


def current() -> Memo | None:
    return _current.get()


@contextlib.contextmanager
def active(folder: Path | None) -> Iterator[None]:
    """Within the block, memoised functions read and write the memo in `folder` (None: no memo)."""
    token = _current.set(Memo(Path(folder) / FILE_NAME) if folder is not None else None)
    try:
        yield
    finally:
        _current.reset(token)
