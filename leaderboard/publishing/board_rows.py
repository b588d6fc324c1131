"""The stored results of a benchmark as the Space holds them: the board's columns of the result shards (an Arrow
table, `read_rows`; board_columns.py turns it into a board's arrays) and an Entry per row that builds its Result
only when a view asks for it (`ShardEntry`): no Result object per row.
"""
from __future__ import annotations

import threading
from pathlib import Path
from collections import OrderedDict

import numpy as np

from ..fast_json import loads as _loads
from ..scoring.result import ModelInfo
from .entry import Entry
from .row_facts import FACTS, MODEL_KEYS, facts

KEPT_RESULTS = 2048  # Results built for views (breakdowns, profiles), kept per benchmark: the recent ones


BOARD_COLUMNS = ("submission_id", "stored_at", "source", "model", "metrics", "n_items", "n_answered", "created_at",
                 "cell_flags", "protocol")  # plus the primary metric's CI, as `ci_primary`


def read_rows(paths: list, bench):
    """What the board needs of these shards (not strata, pending, metric_n, notes, the other CIs), every per-row
    value derived once (board_columns.derive): the latest row per submission, in submission-id order."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .board_columns import derived_columns
    from .result_shards import latest

    primary = bench.primary_metric
    tables = []
    for path in paths:
        table = pq.read_table(path, columns=list(BOARD_COLUMNS))
        try:
            ci = pq.read_table(path, columns=[f"ci.{primary}"]).column(0)
        except (KeyError, ValueError, pa.ArrowInvalid):
            ci = pa.nulls(table.num_rows, pa.list_(pa.float64()))
        tables.append(table.append_column("ci_primary", ci))
    if not tables:
        return None
    table = latest(pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0])
    table = _protocol_facts(_flags_as_text(table), primary)
    low, high = _bounds(table.column("ci_primary"))
    table = table.append_column("coverage", pa.array(_coverage(table), pa.float64()))
    table = table.append_column("ci_low", pa.array(low, pa.float64())).append_column("ci_high", pa.array(high, pa.float64()))
    for name, column in derived_columns(table, bench).items():
        table = table.append_column(name, column)
    # what the board reads again is kept: the derived columns, not what they were derived from
    spent = ["flags", "n_answered", "ci_primary", *("p_" + name for name, _ in FACTS if name != "n_primary")]
    return table.drop_columns(spent).combine_chunks()  # exact-size buffers


def _protocol_facts(table, primary: str):
    """The `protocol` JSON column replaced by the facts the board reads (parsed once, when the shard is read)."""
    import pyarrow as pa

    parsed = [facts(_loads(p) if p else {}, primary) for p in table.column("protocol").to_pylist()]
    kinds = {"int64": pa.int64(), "bool": pa.bool_(), "list": pa.list_(pa.string()), "string": pa.string()}
    table = table.drop_columns(["protocol"])
    for name, kind in FACTS:
        table = table.append_column("p_" + name, pa.array([f[name] for f in parsed], kinds[kind]))
    return table


def _flags_as_text(table):
    """`cell_flags` (a struct with one field per metric, nearly always empty) as one string column: the metric ids
    flagged, sorted and joined, what the board shows."""
    import pyarrow as pa

    flags = table.column("cell_flags").combine_chunks()
    flagged = {f.name: flags.field(f.name).is_valid().to_numpy(zero_copy_only=False) for f in flags.type}
    flagged = {k: v for k, v in flagged.items() if v.any()}
    text = [", ".join(sorted(k for k, valid in flagged.items() if valid[i])) for i in range(table.num_rows)] \
        if flagged else [""] * table.num_rows
    index = table.column_names.index("cell_flags")
    return table.set_column(index, "flags", pa.array(text, pa.string()))


class ShardRows:
    """The board's columns of one benchmark's latest rows (an Arrow table, `read_rows`), and the whole records
    behind them, read from the shard folder only when a view asks for a Result (breakdowns, profiles, compare)."""

    def __init__(self, table, folder, resamples=None):
        """`resamples(submission id)`: its bootstrap means for paired rank tests (None: no paired tests)."""
        self.table, self.folder, self.resamples = table, folder, resamples
        self._full = None  # (submission id -> row, the full table), read on first use
        self._models = None
        self.benchmark = Path(folder).parent.name  # results/<benchmark>/data
        self.sources = _shared_strings(table.column("source"))  # three values: not a string object per row
        self._results: OrderedDict = OrderedDict()
        self._lock = threading.Lock()

    def _record(self, index: int) -> dict:
        from .result_shards import read_folder, record

        sub_id = self.table.column("submission_id")[index].as_py()
        for _ in range(2):  # a compaction between the listing and this read: read the folder again
            if self._full is None or sub_id not in self._full[0]:
                full = read_folder(self.folder)
                ids = [] if full is None else full.column("submission_id").to_pylist()
                self._full = ({k: i for i, k in enumerate(ids)}, full)
            if sub_id in self._full[0]:
                return record(self._full[1], self._full[0][sub_id])
        raise KeyError(f"result {sub_id} is no longer stored")

    @property
    def models(self) -> list:
        """Each row's ModelInfo as submitted (built once, on first use: the overview and its review list ask on
        every page load)."""
        with self._lock:
            if self._models is None:
                model = self.table.column("model").combine_chunks()
                self._models = [ModelInfo(*values) for values in zip(*(model.field(k).to_pylist() for k in MODEL_KEYS))]
            return self._models

    def result(self, index: int):
        from .result_shards import to_result

        with self._lock:
            found = self._results.get(index)
            if found is not None:
                self._results.move_to_end(index)
                return found
            found = to_result(self._record(index))
            self._results[index] = found
            while len(self._results) > KEPT_RESULTS:
                self._results.popitem(last=False)
        return found


class RowResult:
    """A stored result as views see it (`entry.result`): source, benchmark and model from the columns held; any
    other attribute (strata, metrics, protocol...) from the whole record, read when first asked for."""

    __slots__ = ("_rows", "_index")

    def __init__(self, rows: ShardRows, index: int):
        self._rows, self._index = rows, index

    @property
    def source(self) -> str:
        return self._rows.sources[self._index]

    @property
    def benchmark(self) -> str:
        return self._rows.benchmark

    @property
    def model(self) -> ModelInfo:
        return self._rows.models[self._index]

    @property
    def full(self):
        """The Result itself (for code that copies or compares it)."""
        return self._rows.result(self._index)

    def __getattr__(self, name):
        return getattr(self._rows.result(self._index), name)

    def __eq__(self, other):
        return self.full == (other.full if isinstance(other, RowResult) else other)

    __hash__ = None


class ShardEntry(Entry):
    """An Entry whose Result is read from the shard table when first asked for (see ShardRows). Slots: 100,000 of
    them are held (~90 bytes each instead of ~400 with a dict and a bound loader each)."""

    __slots__ = ("rows", "index", "entry_id", "_resamples")

    def __init__(self, rows: ShardRows, index: int, entry_id: str):
        self.rows, self.index, self.entry_id, self._resamples = rows, index, entry_id, None

    @property
    def result(self):  # the dataclass field of Entry, computed
        return RowResult(self.rows, self.index)

    @property
    def paired_resamples(self):
        """The loaded resamples, or a loader (rank tests call it only for the pairs they test)."""
        if self._resamples is not None:
            return self._resamples
        return lambda: self._load()

    @paired_resamples.setter
    def paired_resamples(self, value):
        self._resamples = value

    def _load(self):
        self._resamples = self.rows.resamples(self.entry_id) if self.rows.resamples else None
        return self._resamples

    def __eq__(self, other):
        return isinstance(other, Entry) and (self.entry_id, self.result) == (other.entry_id, other.result)

    __hash__ = None


class BoardEntries(list):
    """The entries of one benchmark (paper rows first, then the stored results in submission-id order) with the
    stored results' columns: `rows` (ShardRows or None) backs entries[`first`:]."""

    def __init__(self, entries, rows: ShardRows | None = None, first: int = 0):
        super().__init__(entries)
        self.rows, self.first = rows, first


def _shared_strings(column) -> list:
    """An Arrow string column as a list in which equal strings are one object."""
    from .board_columns import _decoded

    return _decoded(column).tolist()


def _coverage(table) -> np.ndarray:
    """n_answered / n_items as Result.coverage computes it (the stored column is rounded)."""
    import pyarrow.compute as pc

    answered = table.column("n_answered").to_numpy(zero_copy_only=False).astype(float)  # None -> NaN
    items = pc.fill_null(table.column("n_items"), 0).to_numpy().astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(np.isnan(answered), np.nan, np.where(items > 0, answered / np.where(items > 0, items, 1), 0.0))


def _bounds(lists) -> tuple[np.ndarray, np.ndarray]:
    """[low, high] lists -> two float arrays; a missing list or end is no CI (NaN, NaN)."""
    import pyarrow.compute as pc

    lists = lists.combine_chunks() if hasattr(lists, "combine_chunks") else lists
    n = len(lists)
    low, high = np.full(n, np.nan), np.full(n, np.nan)
    both = pc.fill_null(pc.list_value_length(lists), 0).to_numpy(zero_copy_only=False) == 2
    if both.any():
        kept = lists.filter(both)
        rows = np.flatnonzero(both)
        low[rows] = pc.list_element(kept, 0).to_numpy(zero_copy_only=False).astype(float)
        high[rows] = pc.list_element(kept, 1).to_numpy(zero_copy_only=False).astype(float)
    broken = np.isnan(low) | np.isnan(high)
    low[broken], high[broken] = np.nan, np.nan
    return low, high
