"""Times the leaderboard's ranked tables with N stored results per benchmark (default 1,000), each beside its
floor in the same run (bench/space_compare.py): in process, a view of the precomputed board against sorting a
plain DataFrame of the same records; then the real Space against a minimal gr.Dataframe app on the same JSONs
(bench/minimal_parquet_space.py): start-up, memory, and a table refresh through gradio_client. Goal: views < 300 ms,
start-up <= 1.1x the floor.

    .venv/bin/python bench/space_views.py [--results 1000] [--store DIR] [--runs 3] [--skip-space | --apps-only]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from leaderboard.scoring import registry  # noqa: E402
BENCHMARKS = registry.scorers()
from leaderboard.scoring.result import ModelInfo, Result  # noqa: E402
from leaderboard.operations.service import Service  # noqa: E402
from leaderboard.operations.store import LocalStore  # noqa: E402
from space_compare import timed  # noqa: E402  (one timing rule for every Space bench)
from leaderboard.publishing.breakdowns import breakdown  # noqa: E402
from leaderboard.publishing.items import ItemSource  # noqa: E402
from space import breakdown_view  # noqa: E402


def populate(store: LocalStore, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for bench in BENCHMARKS.values():
        records = []
        for i in range(n):
            metrics = {m.name: float(rng.uniform(0, 100)) for m in bench.metrics}
            strata = {"stratum": {f"v{k}": {"n": 20, "metrics": {bench.primary_metric: float(rng.uniform(0, 100))}}
                                  for k in range(8)}}
            items = bench.release_items or 1000  # scored on the full release: they rank on the main board
            result = Result(benchmark=bench.name, metrics=metrics, n_items=items, n_answered=items, strata=strata,
                            protocol={"items": items, "dataset_fingerprint": "bench"},
                            model=ModelInfo(name=f"model-{i:04d}", access=("open", "proprietary")[i % 2],
                                            domain=("general", "medical")[i % 3 == 0], params_b=float(i % 80 + 1)),
                            ci={bench.primary_metric: _ci(metrics[bench.primary_metric])})
            sub_id = f"{bench.name}-{i:05d}"
            record = result.to_public_dict()
            record["submission_id"] = sub_id
            records.append(record)
            npy = store.private("bootstrap", f"{sub_id}.npy")
            npy.parent.mkdir(parents=True, exist_ok=True)
            np.save(npy, np.clip(metrics[bench.primary_metric] + rng.normal(0, 2, 1000), 0, 100))
        store.write_records(bench.name, records)  # one shard per benchmark, as a compacted store holds them


def _ci(score: float) -> list[float]:
    """A +-2 interval kept within 0-100, as a real bootstrap of a percentage is."""
    return [max(score - 2, 0.0), min(score + 2, 100.0)]


def items_bench(work: Path, rows: int = 10_000, group: int = 1_000) -> None:
    """Item browser pages on a synthetic dataset of `rows` items, each with its own ~6 KB image (row groups of
    `group` rows), against the baseline of reading the whole file. Memory: Arrow bytes held right after the
    Also counts the row groups each page decodes (out of rows / group)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(1)
    folder = work / "items" / "data"
    folder.mkdir(parents=True)
    path = folder / "test-00000-of-00001.parquet"
    table = pa.table({"id": [f"i{k:06d}" for k in range(rows)],
                      "organ": [("lung", "skin", "heart", "bone")[k % 4] for k in range(rows)],
                      "question": [f"question {k}: " + "a question of moderate length " * 4 for k in range(rows)],
                      "images": [[{"bytes": rng.bytes(6_000), "path": f"{k}.png"}] for k in range(rows)],
                      "answer": ["A"] * rows})
    pq.write_table(table, path, row_group_size=group)
    del table
    source = ItemSource(work / "items", hidden={"answer"}, filters=("organ",))
    whole = timed(lambda: pq.read_table(path), repeat=3)
    print(f"items: {rows:,} rows in {rows // group} row groups, {path.stat().st_size / 1e6:.0f} MB parquet; "
          f"whole-file read {1000 * whole:.0f} ms")
    cases = {"first page": lambda: source.page("default", 0, 10),
             "middle page": lambda: source.page("default", rows // 20, 10),
             "filtered page (cold)": lambda: ItemSource(work / "items", {"answer"}, ("organ",)).page(
                 "default", 100, 10, "organ", "skin"),
             "filtered page (cached)": lambda: source.page("default", 100, 10, "organ", "skin")}
    decoded = []
    original = pq.ParquetFile.read_row_group
    pq.ParquetFile.read_row_group = lambda self, i, **kw: (decoded.append(i), original(self, i, **kw))[1]
    try:
        for name, fn in cases.items():
            seconds = timed(fn, repeat=3)
            decoded.clear()
            page = fn()
            print(f"items {name:<24} {1000 * seconds:>7.1f} ms ({seconds / whole:.3f} x whole read), "
                  f"{len(page.rows)} rows from {len(decoded)} row group(s)")
    finally:
        pq.ParquetFile.read_row_group = original


def breakdown_bench(store: LocalStore) -> None:
    """The Breakdown sub-tab: the matrix alone and with both figures, per benchmark (goal < 300 ms)."""
    print(f"\n{'benchmark':<10} {'breakdown view':<22} {'ms':>8}")
    for bench in BENCHMARKS.values():
        service = Service(store=store, data_dirs={})
        entries = service.entries(bench.name)
        rows = {"breakdown matrix": timed(lambda: breakdown(bench, entries, "stratum", bench.primary_metric)),
                "breakdown tab (figs)": timed(lambda: breakdown_view._view(bench, entries, None, None, None))}
        for name, seconds in rows.items():
            print(f"{bench.name:<10} {name:<22} {1000 * seconds:>8.1f}")


def main(default_results: int = 1000) -> int:
    from space_compare import apps, in_process

    parser = argparse.ArgumentParser()
    parser.add_argument("--results", type=int, default=default_results)
    parser.add_argument("--store", type=Path, help="reuse a store populated by an earlier run")
    parser.add_argument("--data", type=Path, default=ROOT / "hub", help="built datasets (default hub/; may be absent)")
    parser.add_argument("--runs", type=int, default=3, help="interleaved start-ups of each app")
    parser.add_argument("--skip-space", action="store_true")
    parser.add_argument("--apps-only", action="store_true", help="only the two apps side by side (start-up, memory, refresh)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="space-bench-"))
    store = LocalStore(args.store or work / "store")
    if args.store is None:
        start = time.perf_counter()
        populate(store, args.results)
        print(f"stored {args.results:,} results x {len(BENCHMARKS)} benchmarks in {time.perf_counter() - start:.0f} s "
              f"({store.root})")
    if not args.apps_only:
        in_process(store, args.results)
        breakdown_bench(store)
        items_bench(work)
    if not args.skip_space:
        data = args.data if args.data.is_dir() else work / "no-data"
        data.mkdir(exist_ok=True)
        apps(store.root, data, work, args.runs, next(iter(BENCHMARKS)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
