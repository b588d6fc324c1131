"""Disk cache of judge answers, keyed by the full request (model, messages, parameters, prompt version).
Only answers that parsed are stored, so a rescore after a crash or a config change of nothing costs
no call, and a failure is always retried."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path


def request_key(request: dict) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


class JudgeCache:
    def __init__(self, path: Path | None):
        self.path = Path(path) if path else None
        self._lock = threading.Lock()
        self._memory: dict[str, tuple[str, dict]] = {}
        self._db = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, raw TEXT, parsed TEXT)")
            self._db.commit()

    def get(self, key: str) -> tuple[str, dict] | None:
        with self._lock:
            if key in self._memory:
                return self._memory[key]
            if self._db is None:
                return None
            row = self._db.execute("SELECT raw, parsed FROM verdicts WHERE key = ?", (key,)).fetchone()
        return (row[0], json.loads(row[1])) if row else None

    def get_many(self, keys: list[str]) -> dict[str, tuple[str, dict]]:
        """Every cached key among `keys`, in a few IN-queries (a rescore looks up thousands at once)."""
        found: dict[str, tuple[str, dict]] = {}
        with self._lock:
            for key in keys:
                if key in self._memory:
                    found[key] = self._memory[key]
            if self._db is None:
                return found
            missing = [k for k in dict.fromkeys(keys) if k not in found]
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
            if self._db is not None:
                self._db.execute("INSERT OR REPLACE INTO verdicts VALUES (?, ?, ?)", (key, raw, json.dumps(parsed)))
                self._db.commit()

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
