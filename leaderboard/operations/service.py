"""Submissions: validate now, score later, never lose one. `Service` holds the state (queue records, the
per-user index, answer keys, caches) and combines three jobs, each in its own module: the submission desk
(submissions.py), the scoring loop (scoring_loop.py) and the rows the views read (entries.py).
"""
from __future__ import annotations

import hashlib
import queue
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..scoring import registry
from ..scoring.benchmark import ScoringContext
from ..intake.prediction_files import MAX_FILE_BYTES
from ..settings import Settings
from ..scoring.isolation import ScoringProcess
from ..scoring.score_file import load_key
from .upload_check import Checker
from .store import LocalStore
from .entries import EntriesCache
from .scoring_loop import ScoringLoop
from .submissions import (ALLOWED_SUFFIXES, MAX_TEXT, Outcome, SubmissionDesk, SubmissionForm, clean_link, clean_text, now)  # the desk's names, imported from here by the Space and tests


STATES = ("queued", "needs review", "scoring", "waiting for judge", "finished", "failed")


@dataclass
class Service(SubmissionDesk, ScoringLoop, EntriesCache):
    store: LocalStore
    data_dirs: dict[str, Path]  # benchmark -> built dataset folder (answers beside it or in it)
    context_factory: Callable[[str], ScoringContext] = lambda benchmark: ScoringContext()  # name -> context
    quota_per_day: int = 5
    max_bytes: int = MAX_FILE_BYTES
    # while idle, the worker re-tries `waiting for judge` submissions this often when a judge is configured
    judge_retry_seconds: float = Settings.judge_retry_seconds  # front doors pass LEADERBOARD_JUDGE_RETRY
    judge_max_attempts: int = Settings.judge_max_attempts  # LEADERBOARD_JUDGE_ATTEMPTS: then `failed`, not re-asked
    score_seconds: float = Settings.score_seconds  # LEADERBOARD_SCORE_SECONDS: wall-time limit of one scoring
    score_memory_mb: int = Settings.score_memory_mb  # LEADERBOARD_SCORE_MEMORY_MB: memory limit of one scoring
    check_seconds: float = Settings.check_seconds  # LEADERBOARD_CHECK_SECONDS: wall-time limit of one upload check
    check_memory_mb: int = Settings.check_memory_mb  # LEADERBOARD_CHECK_MEMORY_MB: memory limit of one upload check
    _queue: "queue.Queue[str]" = field(default_factory=queue.Queue)
    _worker: threading.Thread | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _keys: dict = field(default_factory=dict)
    _resample_cache: dict = field(default_factory=dict)
    _entries_cache: dict = field(default_factory=dict)
    _loading: dict = field(default_factory=dict)  # benchmark -> lock: one load at a time (the others wait for it)
    _public_ids: dict = field(default_factory=dict)  # benchmark -> its public ids (wrong-benchmark hints)
    _scorer: ScoringProcess = field(default_factory=ScoringProcess)  # the child process that scores
    _user_index_ready: bool = False
    _unrecorded: dict = field(default_factory=dict)  # sub id -> failure the store could not take yet (disk full)
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _submit_lock: threading.Lock = field(default_factory=threading.Lock)
    _checker: Checker = field(default_factory=Checker)  # the children that read uploads (upload_check.py)

    # ---------------------------------------------------------------- submit
    def available(self) -> list[str]:
        return [name for name in registry.names() if name in self.data_dirs and Path(self.data_dirs[name]).is_dir()]

    def key(self, benchmark: str):
        with self._lock:
            if benchmark not in self._keys:
                self._keys[benchmark] = load_key(registry.scorer(benchmark), self.data_dirs[benchmark])
            return self._keys[benchmark]

    def forget_keys(self) -> None:
        """The datasets moved to a new revision (a Space refreshing from the Hub): reload keys on next use."""
        with self._lock:
            self._keys.clear()


    # ---------------------------------------------------------------- queue
    def queue_path(self, sub_id: str) -> Path:
        return self.store.private("queue", f"{sub_id}.json")

    def queue_records(self) -> list[dict]:
        folder = self.store.private("queue")
        records = [self.store.read_json(p) for p in sorted(folder.glob("*.json"))] if folder.is_dir() else []
        return [self._with_unrecorded(r) for r in records if r]

    def _with_unrecorded(self, record: dict) -> dict:
        """A failure the full disk would not take yet still shows (and refunds the quota) at once."""
        failure = self._unrecorded.get(record.get("id"))
        return {**record, **failure} if failure else record

    def status_for(self, user: str) -> list[dict]:
        """The user's own records, through their index file: a status poll every 2 s from every open tab
        reads a handful of small files, not the whole queue (~1 s per tick at 10,000 records)."""
        records = (self.store.read_json(self.queue_path(sub_id)) for sub_id in self._user_ids(user))
        return [self._with_unrecorded(r) for r in records if r and r.get("user") == user]

    # ---------------------------------------------------------------- per-user index
    def _user_index_path(self, user: str) -> Path:  # a hash: account names never become file names
        return self.store.private("users", hashlib.sha256(user.encode("utf-8")).hexdigest()[:32] + ".json")

    def _user_ids(self, user: str) -> list[str]:
        if not user:
            return []
        self._ensure_user_index()
        return list((self.store.read_json(self._user_index_path(user)) or {}).get("ids") or [])

    def _ensure_user_index(self) -> None:
        """A store from before the index (or copied without it) gets one, from one scan of the queue."""
        if self._user_index_ready or self.store.private("users").is_dir():
            self._user_index_ready = True
            return
        with self._lock:
            if self._user_index_ready:
                return
            by_user: dict[str, list[str]] = {}
            for record in self.queue_records():
                by_user.setdefault(record.get("user") or "", []).append(record["id"])
            self.store.private("users").mkdir(parents=True, exist_ok=True)
            for user, ids in by_user.items():
                if user:
                    self.store.write_json(self._user_index_path(user), {"ids": ids})
            self._user_index_ready = True

    def _index_submission(self, user: str, sub_id: str) -> None:
        """Called under the submit lock, before the queue record is written (an id without a record is skipped)."""
        ids = self._user_ids(user)
        self.store.write_json(self._user_index_path(user), {"ids": [*ids, sub_id]})

    def used_today(self, user: str) -> int:
        today = now()[:10]
        return sum(1 for r in self.status_for(user)
                   if r["created_at"][:10] == today and (r["state"] != "failed" or r.get("ranked")))

    def _update(self, sub_id: str, **changes) -> dict:
        record = self.store.read_json(self.queue_path(sub_id)) or {}
        record.update(changes, updated_at=now())
        self.store.write_json(self.queue_path(sub_id), record)
        return record


    # ---------------------------------------------------------------- views


