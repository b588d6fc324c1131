"""The rows the views read: paper rows plus stored results, cached until a result lands, and each submission's
bootstrap resamples (for paired rank tests)."""
from __future__ import annotations

import logging
import threading
from pathlib import Path

import numpy as np

from ..publishing.tables import Entry

log = logging.getLogger("leaderboard.operations.service")


class EntriesCache:
    """Service's read half (mixed into service.Service, whose fields it uses)."""

    def entries(self, benchmark: str, paper_roots: list[Path] | None = None) -> list[Entry]:
        """Paper rows plus stored results (BoardEntries: the stored part keeps its shard columns); the same list
        object until the shard folder changes. One listing of the shard folder per call (a few dozen files
        however many results); a new shard is read alone and joined to the columns held, a compaction (files
        gone) reads the folder again."""
        from ..publishing.result_shards import shard_files, shard_folder

        files = tuple(shard_files(shard_folder(self.store.root, benchmark)))
        cache_key = (benchmark, files, tuple(paper_roots or ()))
        with self._lock:
            cached = self._entries_cache.get(benchmark)
            if cached and cached[0] == cache_key:
                return cached[1]
            loading = self._loading.setdefault(benchmark, threading.Lock())
        with loading:  # the Space's start-up thread and a first page load must not both read the shards
            with self._lock:
                cached = self._entries_cache.get(benchmark)
                if cached and cached[0] == cache_key:
                    return cached[1]
            entries = self._load_entries(benchmark, paper_roots, files, cached)
            with self._lock:
                self._entries_cache[benchmark] = (cache_key, entries)
        return entries

    def _load_entries(self, benchmark: str, paper_roots: list[Path] | None, files: tuple = (),
                      cached: tuple | None = None) -> list[Entry]:
        from ..scoring import registry
        from ..publishing.board_rows import BoardEntries, ShardEntry, ShardRows, read_rows
        from ..publishing.result_shards import latest, shard_folder
        from .store import load_records

        paper = [Entry(r, f"paper:{i}") for i, r in enumerate(load_records(benchmark, paper_roots))]
        bench = registry.scorer(benchmark)
        held = cached[1].rows if cached and cached[1].rows is not None else None
        known = set(cached[0][1]) if cached and cached[0][2] == tuple(paper_roots or ()) else set()
        if held is not None and known and known <= set(files):  # only new shards: read them alone
            import pyarrow as pa

            added = read_rows([f for f in files if f not in known], bench)
            table = latest(pa.concat_tables([held.table, added], promote_options="permissive")) \
                if added is not None else held.table
        else:
            table = read_rows(list(files), bench)
        if table is None:
            if self.store.unmigrated(benchmark):
                log.warning("%s: the store holds JSON results from before the shards; they are not shown until "
                            "`python -m leaderboard migrate-results --store %s` converts them", benchmark,
                            self.store.root)
            return BoardEntries(paper)
        import pyarrow as pa

        from ..publishing.heap import release_freed_memory

        pa.default_memory_pool().release_unused()  # the decode's scratch memory back to the system
        release_freed_memory()  # and the per-row objects the derivation made (board_columns)
        rows = ShardRows(table, shard_folder(self.store.root, benchmark), self._resamples)
        ids = table.column("submission_id").to_pylist()
        before = {} if held is None else dict(zip(held.table.column("submission_id").to_pylist(),
                                                  held.table.column("stored_at").to_pylist()))
        with self._lock:  # a rescored record (a newer row) may come with new resamples
            for sub_id, stored_at in zip(ids, table.column("stored_at").to_pylist()):
                if before.get(sub_id) != stored_at:
                    self._resample_cache.pop(sub_id, None)
        stored = [ShardEntry(rows, i, sub_id) for i, sub_id in enumerate(ids)]
        return BoardEntries(paper + stored, rows, len(paper))

    def _resamples(self, sub_id: str) -> np.ndarray | None:
        if sub_id not in self._resample_cache:
            path = self.store.private("bootstrap", f"{sub_id}.npy")
            self._resample_cache[sub_id] = np.load(path) if path.is_file() else None
        return self._resample_cache[sub_id]

