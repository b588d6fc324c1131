"""The rows the views read: paper rows plus stored results, cached until a result lands, and each submission's
bootstrap resamples (for paired rank tests)."""
from __future__ import annotations

import os
import threading
from functools import partial
from pathlib import Path

import numpy as np

from ..fast_json import loads as _loads  # a stored record: orjson ~2x faster on 10,000 records; json for NaN
from ..publishing.tables import Entry


class EntriesCache:
    """Service's read half (mixed into service.Service, whose fields it uses)."""

    def entries(self, benchmark: str, paper_roots: list[Path] | None = None) -> list[Entry]:
        """Paper rows plus stored results; cached until the results folder changes (a new file bumps the
        folder's mtime, also when a worker in another process writes it)."""
        folder = self.store.root / "results" / benchmark
        try:
            stamp = folder.stat().st_mtime_ns
        except OSError:
            stamp = None
        cache_key = (benchmark, stamp, tuple(paper_roots or ()))
        with self._lock:
            cached = self._entries_cache.get(benchmark)
            if cached and cached[0] == cache_key:
                return cached[1]
            loading = self._loading.setdefault(benchmark, threading.Lock())
        with loading:  # the Space's start-up thread and a first page load must not both parse 10,000 files
            with self._lock:
                cached = self._entries_cache.get(benchmark)
                if cached and cached[0] == cache_key:
                    return cached[1]
            entries = self._load_entries(benchmark, paper_roots)
            with self._lock:
                self._entries_cache[benchmark] = (cache_key, entries)
        return entries

    def _load_entries(self, benchmark: str, paper_roots: list[Path] | None) -> list[Entry]:
        from .store import load_records

        entries = [Entry(r, f"paper:{i}") for i, r in enumerate(load_records(benchmark, paper_roots))]
        folder = self.store.root / "results" / benchmark
        # names sorted as strings, paths kept as strings: pathlib objects for 10,000 files cost ~0.5 s
        files = sorted((e.name, e.path) for e in os.scandir(folder) if e.name.endswith(".json")) if folder.is_dir() else []
        for _, path in files:
            parsed = self._parsed_record(path)
            if parsed is not None:
                entries.append(Entry(parsed[0], parsed[1], partial(self._resamples, parsed[1])))  # read when ranked
        return entries

    def _parsed_record(self, path: str):
        """(Result, submission id), parsed again only when the file changed: after a new submission the
        reload costs a stat per record instead of parsing 10,000 JSON files (~2 s -> ~0.1 s)."""
        from ..scoring.result import Result

        try:
            stat = os.stat(path)
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._record_cache.get(path)
        if cached and cached[0] == stamp:
            return cached[1]
        try:
            with open(path, "rb") as handle:
                data = _loads(handle.read())
        except (OSError, ValueError):
            return None
        if not data or not isinstance(data, dict):
            return None
        sub_id = data.pop("submission_id", os.path.basename(path)[:-len(".json")])
        parsed = (Result.from_dict(data), sub_id)
        with self._lock:
            self._record_cache[path] = (stamp, parsed)
            self._resample_cache.pop(sub_id, None)  # a rescored record may come with new resamples
        return parsed

    def _resamples(self, sub_id: str) -> np.ndarray | None:
        if sub_id not in self._resample_cache:
            path = self.store.private("bootstrap", f"{sub_id}.npy")
            self._resample_cache[sub_id] = np.load(path) if path.is_file() else None
        return self._resample_cache[sub_id]

