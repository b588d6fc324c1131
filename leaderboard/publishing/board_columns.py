"""The board's per-row values as columns: everything Board.build reads of a result, derived ONCE per row (when
its shard is read, or from a paper row's Result) and kept as Arrow columns. A board build after a new result then
only decodes, sorts and ranks arrays: no per-row Python work for the 20,000 rows it already knew.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..scoring.result import ModelInfo

CHUNK = 4096  # rows derived at a time
TEXT = ("source", "name", "organisation", "access", "domain", "reasoning", "input_modality", "size", "search", "date",
        "gap", "badge", "badge_reason", "run_settings", "flags", "fingerprint")


def derive(bench, source: str, model: ModelInfo, facts: dict, n_items: int, created_at: str, flags: str) -> dict:
    """One row's board values (text columns of TEXT, plus params_b) from its record's parts."""
    from .row_facts import badge as _badge, gap as _gap, size_bucket
    from .models import canonical_info

    m = canonical_info(model, source)  # one name per model on every board
    gap = _gap(bench, source, facts, n_items)
    badge, reason = _badge(facts, gap)
    return {"source": source, "name": m.name, "organisation": m.organisation or "", "access": m.access or "",
            "domain": m.domain or "", "reasoning": {True: "yes", False: "no"}.get(m.reasoning, ""),
            "input_modality": m.input_modality or "", "size": size_bucket(m.params_b),
            "search": (m.name + " " + (m.organisation or "")).casefold(), "date": created_at[:10], "gap": gap,
            "badge": badge, "badge_reason": reason, "run_settings": facts["run_settings_text"], "flags": flags,
            "fingerprint": facts.get("dataset_fingerprint"), "params_b": m.params_b}


class Metrics(Mapping):
    """metric -> float array (NaN: no value), read when asked for: a board keeps each stored metric once (in the
    result shards' Arrow buffers) and the row order of each part, not a sorted copy of every metric column per part
    (~16 MB at 100,000 results). `fetch(name)` gives a whole column in the source's order; `index` picks rows."""

    def __init__(self, names: list, fetch, index: np.ndarray | None = None):
        self._names, self._fetch, self._index = list(names), fetch, index

    def __getitem__(self, name: str) -> np.ndarray:
        if name not in self._names:
            raise KeyError(name)
        values = self._fetch(name)
        return values if self._index is None else values[self._index]

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def take(self, index: np.ndarray) -> "Metrics":
        return Metrics(self._names, self._fetch, index if self._index is None else self._index[index])

    @classmethod
    def concat(cls, parts: list) -> "Metrics":
        return cls(list(parts[0]), lambda name: np.concatenate([p[name] for p in parts]))


def _arrays(values: dict) -> Metrics:
    """Metrics over arrays already held (paper rows: a few dozen values each)."""
    return Metrics(list(values), values.__getitem__)


@dataclass
class Columns:
    """Per row, arrays of equal length."""

    text: dict  # TEXT name -> object array (equal strings are one object)
    params_b: np.ndarray
    created_at: np.ndarray  # str
    n_items: np.ndarray
    n_primary: np.ndarray  # the primary metric's published n (paper rows; NaN: none)
    coverage: np.ndarray  # NaN: not reported
    metrics: Metrics  # metric -> float array (NaN: no value), gathered when read
    ci_low: np.ndarray  # the primary metric's CI (NaN: none)
    ci_high: np.ndarray

    def __len__(self) -> int:
        return len(self.created_at)

    def take(self, index) -> "Columns":
        index = np.asarray(index, dtype=np.int64)
        return Columns({k: v[index] for k, v in self.text.items()}, self.params_b[index], self.created_at[index],
                       self.n_items[index], self.n_primary[index], self.coverage[index],
                       self.metrics.take(index), self.ci_low[index], self.ci_high[index])

    @classmethod
    def concat(cls, parts: list) -> "Columns":
        return cls({k: np.concatenate([p.text[k] for p in parts]) for k in TEXT},
                   *(np.concatenate([getattr(p, f) for p in parts])
                     for f in ("params_b", "created_at", "n_items", "n_primary", "coverage")),
                   Metrics.concat([p.metrics for p in parts]),
                   np.concatenate([p.ci_low for p in parts]), np.concatenate([p.ci_high for p in parts]))


def _objects(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


def _floats(values) -> np.ndarray:
    return np.array([np.nan if v is None else v for v in values], dtype=float)


def from_results(results: list, bench) -> Columns:
    """Columns of Result objects (paper rows, or entries built by hand)."""
    from .row_facts import facts

    primary = bench.primary_metric
    rows = []
    for r in results:
        f = facts(r.protocol, primary)
        rows.append((f, derive(bench, r.source, r.model, f, r.n_items, r.created_at, ", ".join(sorted(r.cell_flags)))))

    def ci(r, side):
        bounds = r.ci.get(primary)
        return None if not bounds or bounds[0] is None or bounds[1] is None else bounds[side]

    return Columns({k: _objects([d[k] for _, d in rows]) for k in TEXT}, _floats([d["params_b"] for _, d in rows]),
                   _objects([r.created_at for r in results]), np.array([r.n_items or 0 for r in results], dtype=np.int64),
                   _floats([f["n_primary"] for f, _ in rows]), _floats([r.coverage for r in results]),
                   _arrays({m.name: _floats([r.metrics.get(m.name) for r in results]) for m in bench.metrics}),
                   _floats([ci(r, 0) for r in results]), _floats([ci(r, 1) for r in results]))


def derived_columns(table, bench) -> dict:
    """Arrow columns `d_<TEXT>` and `d_params_b` of a board table holding `model`, `p_*` facts, `flags`."""
    import pyarrow as pa

    from .row_facts import FACTS, MODEL_KEYS

    chunks: dict[str, list] = {f"d_{k}": [] for k in (*TEXT, "params_b")}
    for start in range(0, table.num_rows, CHUNK):  # in slices: the per-row Python objects of one slice at a time
        part = table.slice(start, CHUNK)
        model = part.column("model").combine_chunks()
        models = [ModelInfo(*values) for values in zip(*(model.field(k).to_pylist() for k in MODEL_KEYS))]
        facts = [dict(zip((n for n, _ in FACTS), row))
                 for row in zip(*(part.column("p_" + n).to_pylist() for n, _ in FACTS))]
        rows = [derive(bench, *args) for args in zip(part.column("source").to_pylist(), models, facts,
                                                       (n or 0 for n in part.column("n_items").to_pylist()),
                                                       part.column("created_at").to_pylist(),
                                                       part.column("flags").to_pylist())]
        for k in TEXT:
            chunks[f"d_{k}"].append(pa.array([d[k] for d in rows], pa.string()))
        chunks["d_params_b"].append(pa.array([d["params_b"] for d in rows], pa.float64()))
    out = {name: pa.chunked_array(parts, pa.string()).combine_chunks().dictionary_encode()  # a few distinct values
           for name, parts in chunks.items() if name != "d_params_b"}
    out["d_params_b"] = pa.chunked_array(chunks["d_params_b"], pa.float64()).combine_chunks()
    return out


def _decoded(column) -> np.ndarray:
    """Arrow strings -> object array in which equal strings are one Python object (null -> None)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    encoded = column.combine_chunks()
    encoded = encoded if pa.types.is_dictionary(encoded.type) else encoded.dictionary_encode()
    values = _objects(encoded.dictionary.to_pylist() + [None])
    return values[pc.fill_null(encoded.indices, len(values) - 1).to_numpy()]


def _numbers(column) -> np.ndarray:
    return column.to_numpy(zero_copy_only=False).astype(float)  # null -> NaN


def from_table(table, bench) -> Columns:
    """Columns of a board table (board_rows.read_rows): decoding only, no per-row Python."""
    column = table.column("metrics")  # read_rows leaves one chunk; combining one chunk would copy it
    metrics = column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()
    fields = {f.name for f in metrics.type}
    n = table.num_rows

    def fetch(name: str) -> np.ndarray:
        return _numbers(metrics.field(name)) if name in fields else np.full(n, np.nan)

    return Columns({k: _decoded(table.column(f"d_{k}")) for k in TEXT}, _numbers(table.column("d_params_b")),
                   _decoded(table.column("created_at")),
                   np.nan_to_num(_numbers(table.column("n_items"))).astype(np.int64),
                   _numbers(table.column("p_n_primary")), _numbers(table.column("coverage")),
                   Metrics([m.name for m in bench.metrics], fetch),
                   _numbers(table.column("ci_low")), _numbers(table.column("ci_high")))


def columns_of(entries: list, bench) -> Columns:
    """The columns of a benchmark's entries (BoardEntries: the stored part from its table)."""
    rows = getattr(entries, "rows", None)
    first = getattr(entries, "first", len(entries)) if rows is not None else len(entries)
    head = from_results([e.result for e in entries[:first]], bench)
    return head if rows is None else Columns.concat([head, from_table(rows.table, bench)])
