"""Public results as Parquet shards: one row per stored result, disclosure already applied (the row holds
exactly the public record `Result.to_public_dict` makes, nothing more). docs/results.md documents every column.

Layout (the same locally under the store folder and in the public Hub dataset repo):
    README.md                                   dataset card: one config per benchmark, every column
    results/<benchmark>/data/<stamp>-<id>.parquet   a small shard: one new result
    results/<benchmark>/data/c-<stamp>-<hash>.parquet  a compacted shard: many results
A result stored again (a rescore) is a new row with a later `stored_at`; readers keep the latest row of
each `submission_id`, and compaction drops the older ones. Private per-item scores never come here.
"""
from __future__ import annotations

import hashlib
import io
import json
import os
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

SHARD_DIR = "data"
COMPACT_AT = 16  # small shards in a folder before they are merged into one
SMALL_ROWS = 5000  # a shard with fewer rows than this is merged by compaction
MODEL_FIELDS = (("name", pa.string()), ("link", pa.string()), ("organisation", pa.string()),
                ("access", pa.string()), ("domain", pa.string()), ("reasoning", pa.bool_()),
                ("input_modality", pa.string()), ("params_b", pa.float64()))
CELL = pa.struct([("stratum", pa.string()), ("value", pa.string()), ("n", pa.int64()),
                  ("metrics", pa.list_(pa.struct([("name", pa.string()), ("value", pa.float64())]))),
                  ("ci", pa.list_(pa.struct([("name", pa.string()), ("low", pa.float64()), ("high", pa.float64())]))),
                  ("suppressed", pa.bool_()), ("withheld", pa.bool_()), ("reason", pa.string())])
CELL_KEYS = {"n", "metrics", "ci", "suppressed", "withheld", "reason"}
PER_METRIC = ("metrics", "ci", "metric_n", "pending", "cell_flags")  # struct columns with one field per metric
RECORD_KEYS = {"benchmark", "model", "metrics", "source", "ci", "n_items", "n_answered", "parse_failures", "pending",
               "strata", "protocol", "notes", "cell_flags", "created_at", "metric_n", "schema_version", "coverage",
               "submission_id", "stored_at"}


class ShardError(ValueError):
    """A record the shard layout cannot hold exactly (so a migration stops instead of losing data)."""


def shard_folder(root: Path, benchmark: str) -> Path:
    return Path(root) / "results" / benchmark / SHARD_DIR


def now_stamp() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def metric_names(benchmark: str, records: list[dict]) -> list[str]:
    """The benchmark's metric ids (registry order), then any other name a record uses."""
    from ..scoring import registry

    names: dict[str, None] = {}
    try:
        names.update(dict.fromkeys(m.name for m in registry.scorer(benchmark).metrics))
    except Exception:  # a benchmark this install does not know: its records' own names
        pass
    for record in records:
        for column in PER_METRIC:
            names.update(dict.fromkeys(record.get(column) or {}))
    return list(names)


def schema(metrics: list[str]) -> pa.Schema:
    fields = list(metrics) or ["_"]  # Parquet has no empty struct
    return pa.schema([
        ("submission_id", pa.string()), ("benchmark", pa.string()), ("source", pa.string()),
        ("model", pa.struct(list(MODEL_FIELDS))),
        ("metrics", pa.struct([(m, pa.float64()) for m in fields])),
        ("ci", pa.struct([(m, pa.list_(pa.float64())) for m in fields])),
        ("metric_n", pa.struct([(m, pa.int64()) for m in fields])),
        ("pending", pa.struct([(m, pa.string()) for m in fields])),
        ("cell_flags", pa.struct([(m, pa.string()) for m in fields])),
        ("n_items", pa.int64()), ("n_answered", pa.int64()), ("parse_failures", pa.int64()),
        ("coverage", pa.float64()), ("strata", pa.list_(CELL)), ("protocol", pa.string()),
        ("notes", pa.list_(pa.string())), ("created_at", pa.string()), ("schema_version", pa.int64()),
        ("stored_at", pa.string()),
    ])


def _row(record: dict, stored_at: str) -> dict:
    unknown = set(record) - RECORD_KEYS
    if unknown:
        raise ShardError(f"result {record.get('submission_id')}: field(s) {', '.join(sorted(unknown))} have no column")
    model = dict(record["model"])
    if set(model) - {name for name, _ in MODEL_FIELDS}:
        raise ShardError(f"result {record.get('submission_id')}: unknown model field(s) "
                         f"{', '.join(sorted(set(model) - {name for name, _ in MODEL_FIELDS}))}")
    strata = []
    for stratum, values in (record.get("strata") or {}).items():
        for value, cell in values.items():
            if set(cell) - CELL_KEYS:
                raise ShardError(f"result {record.get('submission_id')}: stratum {stratum}={value} has unknown "
                                 f"field(s) {', '.join(sorted(set(cell) - CELL_KEYS))}")
            strata.append({"stratum": stratum, "value": value, "n": cell.get("n"),
                           "metrics": [{"name": k, "value": v} for k, v in (cell.get("metrics") or {}).items()],
                           "ci": None if "ci" not in cell else [{"name": k, "low": b[0], "high": b[1]}
                                                                for k, b in cell["ci"].items()],
                           "suppressed": cell.get("suppressed"), "withheld": cell.get("withheld"),
                           "reason": cell.get("reason")})
    return {**{k: record.get(k) for k in ("submission_id", "benchmark", "source", "n_items", "n_answered",
                                           "parse_failures", "coverage", "created_at", "schema_version")},
            "model": model, **{column: record.get(column) or {} for column in PER_METRIC},
            "strata": strata, "protocol": json.dumps(record.get("protocol") or {}, ensure_ascii=False, sort_keys=False),
            "notes": list(record.get("notes") or []), "stored_at": stored_at}


def records_table(records: list[dict], benchmark: str, stored_at: str | None = None,
                  metrics: list[str] | None = None) -> pa.Table:
    """Public records (each with its `submission_id`) as one table in the benchmark's shard schema."""
    stored_at = stored_at or now_stamp()
    rows = [_row(r, r.get("stored_at") or stored_at) for r in records]
    return pa.Table.from_pylist(rows, schema=schema(metrics or metric_names(benchmark, records)))


def to_bytes(table: pa.Table) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue()


def shard_name(sub_id: str, stored_at: str) -> str:
    stamp = stored_at.replace("-", "").replace(":", "").replace("+0000", "").replace("+00:00", "Z")
    return f"{stamp}-{sub_id}.parquet"


def compacted_name(table: pa.Table) -> str:
    """`c-<latest stored_at>-<hash of the ids>-<rows>r.parquet`: the row count in the name lets a compactor on
    the Hub (which lists names, not sizes) tell small shards from big ones."""
    last = max(table.column("stored_at").to_pylist() or [""])
    digest = hashlib.sha256(b"\0".join(s.encode() for s in table.column("submission_id").to_pylist())).hexdigest()[:12]
    return "c-" + shard_name(f"{digest}-{table.num_rows}r", last)


def rows_in_name(name: str) -> int:
    """Rows of a shard from its name: 1 for a one-result shard, the `-<n>r` suffix of a compacted one."""
    base = name.rsplit("/", 1)[-1]
    if not base.startswith("c-"):
        return 1
    tail = base[:-len(".parquet")].rsplit("-", 1)[-1]
    return int(tail[:-1]) if tail.endswith("r") and tail[:-1].isdigit() else SMALL_ROWS


# ------------------------------------------------------------------------------------------ reading
def read_shards(paths: list, columns: list[str] | None = None) -> pa.Table | None:
    """The rows of these shard files (schemas unified: a metric one shard lacks is null there), latest row of
    each submission kept, ordered by submission id (the order the JSON store listed its files in). `columns`:
    only these (nested fields as `ci.<metric>`, read as a column named `<metric>`)."""
    tables = [pq.read_table(p, columns=columns) for p in paths]
    if not tables:
        return None
    return latest(pa.concat_tables(tables, promote_options="permissive") if len(tables) > 1 else tables[0])


def latest(table: pa.Table) -> pa.Table:
    """One row per submission (the latest `stored_at`), ordered by submission id; no copy when the table is so."""
    import pyarrow.compute as pc

    if not table.num_rows:
        return table
    ids = pc.binary_join_element_wise(table.column("submission_id"), pa.scalar(".json"), "")
    order = pc.sort_indices(pa.table({"k": ids, "s": table.column("stored_at")}),
                            sort_keys=[("k", "ascending"), ("s", "ascending")])
    keys = ids.take(order)
    if len(keys) > 1:
        last = pc.not_equal(keys.slice(0, len(keys) - 1), keys.slice(1)).to_numpy(zero_copy_only=False)
        keep = np.flatnonzero(np.append(last, True))
    else:
        keep = np.arange(1)
    order = order.to_numpy()[keep]
    if len(order) == table.num_rows and (order == np.arange(len(order))).all():
        return table  # already one row each, in order
    return table.take(pa.array(order, pa.int64()))


def shard_files(folder: Path) -> list[str]:
    """The shard files of a folder (names sorted), one listing."""
    try:
        return sorted(e.path for e in os.scandir(folder) if e.name.endswith(".parquet") and not e.name.startswith("."))
    except OSError:
        return []


def read_folder(folder: Path) -> pa.Table | None:
    return read_shards(shard_files(folder))


def read_table(path) -> pa.Table:
    return pq.read_table(path)


def schema_metrics(path) -> list[str]:
    """The metric ids a shard's struct columns hold (from its footer)."""
    names = [f.name for f in pq.read_schema(path).field("metrics").type]
    return [] if names == ["_"] else names


def records(table: pa.Table):
    """Each row as its public record, one at a time (a batch of rows converted at once)."""
    for batch in table.to_batches(max_chunksize=1024):
        for row in batch.to_pylist():
            yield row_record(row)


def find_row(table: pa.Table, sub_id: str) -> pa.Table | None:
    import pyarrow.compute as pc

    found = table.filter(pc.equal(table.column("submission_id"), sub_id))
    return found if found.num_rows else None


def find(table: pa.Table, sub_id: str) -> dict | None:
    found = find_row(table, sub_id)
    return None if found is None else row_record(found.to_pylist()[0])


def record(table: pa.Table, index: int) -> dict:
    """Row `index` as the public record (the JSON the store wrote before shards), with its `submission_id`."""
    return row_record(table.slice(index, 1).to_pylist()[0])


def row_record(row: dict) -> dict:
    strata: dict = {}
    for cell in row.get("strata") or []:
        out = {"n": cell["n"], "metrics": {m["name"]: m["value"] for m in cell["metrics"] or []}}
        if cell.get("ci") is not None:
            out["ci"] = {c["name"]: [c["low"], c["high"]] for c in cell["ci"]}
        for key in ("suppressed", "withheld", "reason"):
            if cell.get(key) is not None:
                out[key] = cell[key]
        strata.setdefault(cell["stratum"], {})[cell["value"]] = out
    present = lambda column: {k: v for k, v in (row.get(column) or {}).items() if v is not None}  # noqa: E731
    return {"benchmark": row["benchmark"], "model": dict(row["model"]),
            "metrics": {k: v for k, v in (row.get("metrics") or {}).items() if k != "_"},
            "source": row["source"], "ci": present("ci"), "n_items": row["n_items"], "n_answered": row["n_answered"],
            "parse_failures": row["parse_failures"], "pending": present("pending"), "strata": strata,
            "protocol": json.loads(row["protocol"] or "{}"), "notes": list(row.get("notes") or []),
            "cell_flags": present("cell_flags"), "created_at": row["created_at"], "metric_n": present("metric_n"),
            "schema_version": row["schema_version"], "coverage": row["coverage"],
            "submission_id": row["submission_id"]}


def to_result(row_or_record: dict):
    from ..scoring.result import Result

    data = dict(row_or_record)
    data.pop("submission_id", None)
    data.pop("stored_at", None)
    return Result.from_dict(data)


# ------------------------------------------------------------------------------------------ compaction
def compaction_plan(names: list[str]) -> list[str]:
    """The shards to merge: those under SMALL_ROWS rows, once there are COMPACT_AT of them."""
    small = [n for n in names if rows_in_name(n) < SMALL_ROWS]
    return small if len(small) >= COMPACT_AT else []


def merge(tables: list[pa.Table]) -> pa.Table:
    """Shard tables as one, latest row of each submission kept, every metric of any shard a field."""
    return latest(pa.concat_tables(tables, promote_options="permissive"))


def repo_records(files: dict[str, bytes]) -> dict[str, dict]:
    """submission id -> public record, from a repo's files (path -> bytes): every result shard, latest rows."""
    paths = sorted(p for p in files if p.startswith("results/") and f"/{SHARD_DIR}/" in p and p.endswith(".parquet"))
    table = read_shards([pa.BufferReader(files[p]) for p in paths])
    return {} if table is None else {r["submission_id"]: r for r in records(table)}
