"""Disk cache of judge answers, keyed by the request (model, parameters, prompt version, its variables and
images; see Judge._key). Only answers that parsed are stored, so a rescore after a crash or a config change
of nothing costs no call, and a failure is always retried.

Writes are batched: a verdict is in memory at once and reaches the sqlite file (WAL) with up to
WRITE_BATCH - 1 others in one transaction, at the latest FLUSH_AFTER_S after it arrived, and at every
`flush` (the judge flushes at the end of each run and on close). A full batch is encoded and written by a
thread of its own, so the judge's event loop never waits on the disk. A crash loses at most the verdicts of
the last fraction of a second; they are simply asked again.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

WRITE_BATCH = 256
FLUSH_AFTER_S = 0.2  # a verdict waits at most this long for its batch: a SIGKILL later loses nothing
SCAN_SHARE = 4  # get_many reads the whole table once when asked, in all, for a quarter of its rows
SNAPSHOT_MAX_ROWS = 200_000  # above this (~60 MB held) the table is not snapshotted: index lookups instead
KEY_SCHEME = "k2"  # keep in step with leaderboard.judge.client.KEY_VERSION


def request_key(request: dict) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class JudgeCache:
    def __init__(self, path: Path | None):
        self.path = Path(path) if path else None
        self._lock = threading.Lock()  # the in-memory map and the pending batch (held for microseconds)
        self._db_lock = threading.Lock()  # the sqlite connection (a write holds it for one batch)
        self._flush_lock = threading.Lock()  # one flush at a time, so a flush returns after earlier batches
        self._memory: dict[str, tuple[str, dict]] = {}
        self._pending: list[tuple[str, str, dict]] = []
        self._timer: threading.Timer | None = None
        self._db = None
        self._legacy = False
        self._asked = 0  # keys looked up on disk so far
        self._snapshot: dict[str, tuple[str, str]] | None = None  # key -> (raw, parsed JSON), read once
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable across a process crash, cheap commits
            existed = self._db.execute("SELECT 1 FROM sqlite_master WHERE name = 'verdicts'").fetchone() is not None
            self._db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, raw TEXT, parsed TEXT)")
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT)")
            scheme = self._db.execute("SELECT value FROM meta WHERE name = 'key_scheme'").fetchone()
            # a file written before the current key scheme may hold verdicts under the old keys
            self._legacy = existed and scheme is None
            if scheme is None and not existed:
                self._db.execute("INSERT INTO meta VALUES ('key_scheme', ?)", (KEY_SCHEME,))
            self._db.commit()

    def has_legacy_rows(self) -> bool:
        """True when the file predates the current key scheme (misses are then also looked up the old way)."""
        return self._legacy

    def get(self, key: str, memory_only: bool = False) -> tuple[str, dict] | None:
        with self._lock:
            if key in self._memory:
                return self._memory[key]
        if self._db is None or memory_only:
            return None
        with self._db_lock:
            row = self._db.execute("SELECT raw, parsed FROM verdicts WHERE key = ?", (key,)).fetchone()
        return (row[0], json.loads(row[1])) if row else None

    def get_many(self, keys: list[str]) -> dict[str, tuple[str, dict]]:
        """Every cached key among `keys`: from memory, then in IN-queries of 900 keys, or, once the keys
        asked for add up to a quarter of the file, from a snapshot of the whole table read in one pass."""
        found: dict[str, tuple[str, dict]] = {}
        with self._lock:
            for key in keys:
                if key in self._memory:
                    found[key] = self._memory[key]
        if self._db is None:
            return found
        missing = [k for k in dict.fromkeys(keys) if k not in found]
        with self._db_lock:
            self._asked += len(missing)
            if self._snapshot is None:
                rows = self._db.execute("SELECT MAX(rowid) FROM verdicts").fetchone()[0] or 0
                # a rescore asks for most of the file, batch after batch: one sequential read of every row
                # (JSON left undecoded until asked for) beats tens of thousands of random index lookups
                if self._asked * SCAN_SHARE >= rows and rows <= SNAPSHOT_MAX_ROWS:
                    self._snapshot = {key: (raw, parsed) for key, raw, parsed in
                                      self._db.execute("SELECT key, raw, parsed FROM verdicts")}
            if self._snapshot is not None:
                snapshot, unseen = self._snapshot, []
                for key in missing:
                    row = snapshot.get(key)
                    if row is None:
                        unseen.append(key)  # maybe written since by another process: asked below
                    else:
                        found[key] = (row[0], json.loads(row[1]))
                missing = unseen
            for start in range(0, len(missing), 900):
                chunk = missing[start:start + 900]
                marks = ",".join("?" * len(chunk))
                for key, raw, parsed in self._db.execute(f"SELECT key, raw, parsed FROM verdicts WHERE key IN ({marks})",
                                                         chunk):
                    found[key] = (raw, json.loads(parsed))
        return found

    def put(self, key: str, raw: str, parsed: dict) -> None:
        with self._lock:
            self._memory[key] = (raw, parsed)
            if self._db is None:
                return
            # encoded when written (verdicts are never modified once made): not on the caller's thread
            self._pending.append((key, raw, parsed))
            full = len(self._pending) >= WRITE_BATCH
            if not full and self._timer is None:  # a partial batch is written within FLUSH_AFTER_S anyway
                self._timer = threading.Timer(FLUSH_AFTER_S, self.flush)
                self._timer.daemon = True
                self._timer.start()
        if full:  # written by a thread of its own: the judge's event loop does not wait on the disk
            threading.Thread(target=self.flush, name="judge-cache-write", daemon=True).start()

    def flush(self) -> None:
        """Write the pending verdicts in one transaction; on return, every verdict put before the call is
        in the file (a batch being written by another thread included: flushes run one at a time)."""
        with self._flush_lock:
            with self._lock:
                batch, self._pending = self._pending, []
                timer, self._timer = self._timer, None
            if timer is not None and timer is not threading.current_thread():
                timer.cancel()
            if not batch or self._db is None:
                return
            rows = [(key, raw, json.dumps(parsed)) for key, raw, parsed in batch]
            with self._db_lock:
                if self._db is not None:
                    with self._db:  # one transaction: commit on success, rollback on error
                        self._db.executemany("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?)", rows)

    def close(self) -> None:
        self.flush()
        with self._db_lock:
            if self._db is not None:
                self._db.close()
                self._db = None
