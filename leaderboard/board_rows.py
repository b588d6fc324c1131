"""A board's rows as columns: what Board.build needs of every result, read straight from the result shards'
Arrow columns (no Result object per row), or from a few Result objects (paper rows). The Space keeps these
columns and an Entry per row that builds its Result only when a view asks for it (`ShardEntry`).
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from .fast_json import loads as _loads
from .result import ModelInfo
from .tables import Entry

MODEL_KEYS = ("name", "link", "organisation", "access", "domain", "reasoning", "input_modality", "params_b")
KEPT_RESULTS = 2048  # Results built for views (breakdowns, profiles), kept per benchmark: the recent ones


class ShardRows:
    """The latest public rows of one benchmark (an Arrow table) and the Results built from them on demand."""

    def __init__(self, table):
        self.table = table
        self._results: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def result(self, index: int):
        from .result_shards import record, to_result

        with self._lock:
            found = self._results.get(index)
            if found is not None:
                self._results.move_to_end(index)
                return found
        found = to_result(record(self.table, index))
        with self._lock:
            self._results[index] = found
            while len(self._results) > KEPT_RESULTS:
                self._results.popitem(last=False)
        return found


class ShardEntry(Entry):
    """An Entry whose Result is read from the shard table when first asked for (not kept: see ShardRows)."""

    def __init__(self, rows: ShardRows, index: int, entry_id: str, paired_resamples=None):
        self.rows, self.index, self.entry_id, self.paired_resamples = rows, index, entry_id, paired_resamples

    @property
    def result(self):  # noqa: D401 - the dataclass field of Entry, computed
        return self.rows.result(self.index)

    def __eq__(self, other):
        return isinstance(other, Entry) and (self.entry_id, self.result) == (other.entry_id, other.result)

    __hash__ = None


class BoardEntries(list):
    """The entries of one benchmark (paper rows first, then the stored results in submission-id order) with the
    stored results' columns: `rows` (ShardRows or None) backs entries[`first`:]."""

    def __init__(self, entries, rows: ShardRows | None = None, first: int = 0):
        super().__init__(entries)
        self.rows, self.first = rows, first


@dataclass
class Columns:
    """Per row: everything Board.build reads. Lists/arrays of equal length."""

    source: list
    created_at: list
    protocol: list  # dicts
    model: list  # ModelInfo
    n_items: np.ndarray
    coverage: np.ndarray  # NaN: not reported
    metrics: dict  # metric -> float array (NaN: no value)
    ci_low: dict  # metric -> float array
    ci_high: dict
    cell_flags: list  # sorted metric ids with a flag, joined

    def __len__(self) -> int:
        return len(self.source)

    def take(self, index) -> "Columns":
        index = np.asarray(index, dtype=np.int64)
        pick = lambda values: [values[i] for i in index]  # noqa: E731
        return Columns(pick(self.source), pick(self.created_at), pick(self.protocol), pick(self.model),
                       self.n_items[index], self.coverage[index], {k: v[index] for k, v in self.metrics.items()},
                       {k: v[index] for k, v in self.ci_low.items()}, {k: v[index] for k, v in self.ci_high.items()},
                       pick(self.cell_flags))


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def from_results(results: list, names: list[str]) -> Columns:
    """Columns of Result objects (paper rows, or entries built by hand)."""
    def ci(r, m, side):
        bounds = r.ci.get(m)
        return None if not bounds or bounds[0] is None or bounds[1] is None else bounds[side]

    return Columns([r.source for r in results], [r.created_at for r in results], [r.protocol for r in results],
                   [r.model for r in results], np.array([r.n_items or 0 for r in results], dtype=np.int64),
                   _floats([r.coverage for r in results]),
                   {m: _floats([r.metrics.get(m) for r in results]) for m in names},
                   {m: _floats([ci(r, m, 0) for r in results]) for m in names},
                   {m: _floats([ci(r, m, 1) for r in results]) for m in names},
                   [", ".join(sorted(r.cell_flags)) for r in results])


def from_table(table, names: list[str]) -> Columns:
    """Columns of the shard table: one Arrow-to-NumPy pass per column; only `protocol` is parsed per row."""
    import pyarrow.compute as pc

    metrics = table.column("metrics").combine_chunks()
    cis = table.column("ci").combine_chunks()
    fields = {f.name for f in metrics.type}
    ci_fields = {f.name for f in cis.type}
    n = table.num_rows
    none = np.full(n, np.nan)

    def floats(array) -> np.ndarray:
        return array.to_numpy(zero_copy_only=False).astype(float)

    def bound(m, side):
        if m not in ci_fields:
            return none.copy()
        lists = cis.field(m)
        both = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False) == 2
        out = none.copy()
        if both.any():
            values = floats(pc.list_element(lists.filter(both), side))
            out[np.flatnonzero(both)] = values
        return out

    lows = {m: bound(m, 0) for m in names}
    highs = {m: bound(m, 1) for m in names}
    for m in names:  # a CI with a missing end is no CI (as Board.build treats Result objects)
        broken = np.isnan(lows[m]) | np.isnan(highs[m])
        lows[m][broken], highs[m][broken] = np.nan, np.nan
    model = table.column("model").combine_chunks()
    model_columns = [model.field(k).to_pylist() for k in MODEL_KEYS]
    models = [ModelInfo(*values) for values in zip(*model_columns)]
    flags = table.column("cell_flags").combine_chunks()
    flag_columns = {f.name: flags.field(f.name).is_valid().to_numpy(zero_copy_only=False) for f in flags.type}
    cell_flags = [", ".join(sorted(k for k, valid in flag_columns.items() if valid[i])) for i in range(n)] \
        if any(v.any() for v in flag_columns.values()) else [""] * n
    return Columns(table.column("source").to_pylist(), table.column("created_at").to_pylist(),
                   [_loads(p) if p else {} for p in table.column("protocol").to_pylist()], models,
                   pc.fill_null(table.column("n_items"), 0).to_numpy().astype(np.int64),
                   _coverage(table),
                   {m: floats(metrics.field(m)) if m in fields else none.copy() for m in names}, lows, highs,
                   cell_flags)


def _coverage(table) -> np.ndarray:
    """n_answered / n_items as Result.coverage computes it (the stored column is rounded)."""
    import pyarrow.compute as pc

    answered = table.column("n_answered").to_numpy(zero_copy_only=False).astype(float)  # None -> NaN
    items = pc.fill_null(table.column("n_items"), 0).to_numpy().astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isnan(answered), np.nan, np.where(items > 0, answered / np.where(items > 0, items, 1), 0.0))


def columns_of(entries: list, names: list[str]) -> Columns:
    """The columns of a benchmark's entries (BoardEntries: the stored part from the table)."""
    rows = getattr(entries, "rows", None)
    first = getattr(entries, "first", len(entries)) if rows is not None else len(entries)
    head = from_results([e.result for e in entries[:first]], names)
    if rows is None:
        return head
    tail = from_table(rows.table, names)
    return Columns(head.source + tail.source, head.created_at + tail.created_at, head.protocol + tail.protocol,
                   head.model + tail.model, np.concatenate([head.n_items, tail.n_items]),
                   np.concatenate([head.coverage, tail.coverage]),
                   {m: np.concatenate([head.metrics[m], tail.metrics[m]]) for m in names},
                   {m: np.concatenate([head.ci_low[m], tail.ci_low[m]]) for m in names},
                   {m: np.concatenate([head.ci_high[m], tail.ci_high[m]]) for m in names},
                   head.cell_flags + tail.cell_flags)
