"""Times the leaderboard's views with N stored results per benchmark (default 1,000).

In process: loading the store (cold and cached), the ranked table (default and filtered), the
stratified table and the radar data, each against the baseline of building a plain DataFrame from
the same records. Then the real Space: start-up, first page load and a filter change through
gradio_client (goal: under 300 ms per view after start-up).

    .venv/bin/python bench/space_views.py [--results 1000]
"""
from __future__ import annotations

import argparse
import io
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from leaderboard import registry  # noqa: E402
BENCHMARKS = registry.scorers()
from leaderboard.result import ModelInfo, Result  # noqa: E402
from leaderboard.service import Service  # noqa: E402
from leaderboard.store import LocalStore  # noqa: E402
from leaderboard.tables import Filters, radar_series, ranked_table, strata_table  # noqa: E402
from leaderboard.breakdowns import breakdown  # noqa: E402
from leaderboard.items import ItemSource  # noqa: E402
from space import breakdown_view  # noqa: E402


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


def populate(store: LocalStore, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for bench in BENCHMARKS.values():
        for i in range(n):
            metrics = {m.name: float(rng.uniform(0, 100)) for m in bench.metrics}
            strata = {"stratum": {f"v{k}": {"n": 20, "metrics": {bench.primary_metric: float(rng.uniform(0, 100))}}
                                  for k in range(8)}}
            result = Result(benchmark=bench.name, metrics=metrics, n_items=1000, n_answered=1000, strata=strata,
                            model=ModelInfo(name=f"model-{i:04d}", access=("open", "proprietary")[i % 2],
                                            domain=("general", "medical")[i % 3 == 0], params_b=float(i % 80 + 1)),
                            ci={bench.primary_metric: [metrics[bench.primary_metric] - 2, metrics[bench.primary_metric] + 2]})
            sub_id = f"{bench.name}-{i:05d}"
            store.save_result(sub_id, result)
            buffer = io.BytesIO()
            np.save(buffer, metrics[bench.primary_metric] + rng.normal(0, 2, 1000))
            store.write_bytes(store.private("bootstrap", f"{sub_id}.npy"), buffer.getvalue())


def timed(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", type=int, default=1000)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="space-bench-"))
    store = LocalStore(work / "store")
    start = time.perf_counter()
    populate(store, args.results)
    print(f"stored {args.results} results x {len(BENCHMARKS)} benchmarks in {time.perf_counter() - start:.1f} s")
    items_bench(work)
    print(f"{'benchmark':<10} {'view':<22} {'ms':>8} {'x baseline':>11}")
    for bench in BENCHMARKS.values():
        service = Service(store=store, data_dirs={})
        cold = timed(lambda: Service(store=store, data_dirs={}).entries(bench.name), repeat=1)
        entries = service.entries(bench.name)
        baseline = timed(lambda: pd.DataFrame([{**e.result.metrics, "model": e.result.model.name} for e in entries]))
        rows = {
            "load store (cold)": cold,
            "load store (cached)": timed(lambda: service.entries(bench.name)),
            "ranked table": timed(lambda: ranked_table(bench, service.entries(bench.name))),
            "filter change": timed(lambda: ranked_table(bench, service.entries(bench.name),
                                                        Filters(access="open", search="model-0"))),
            "stratified table": timed(lambda: strata_table(bench, service.entries(bench.name), "stratum")),
            "radar data": timed(lambda: radar_series(bench, service.entries(bench.name), "stratum")),
            "breakdown matrix": timed(lambda: breakdown(bench, service.entries(bench.name), "stratum",
                                                        bench.primary_metric)),
            "breakdown tab (figs)": timed(lambda: breakdown_view._view(bench, service.entries(bench.name), None, None,
                                                                       None)),
        }
        print(f"{bench.name:<10} {'baseline DataFrame':<22} {1000 * baseline:>8.1f} {1.0:>11.1f}")
        for name, seconds in rows.items():
            print(f"{bench.name:<10} {name:<22} {1000 * seconds:>8.1f} {seconds / baseline:>11.1f}")
    from gradio_client import Client
    from space_server import SpaceServer

    start = time.perf_counter()
    server = SpaceServer(ROOT / "hub", work / "store", work / "space.log")
    startup = time.perf_counter() - start
    try:
        import urllib.request

        page = timed(lambda: urllib.request.urlopen(server.url, timeout=30).read(), repeat=5)
        client = Client(server.url, verbose=False)
        first = next(iter(BENCHMARKS))
        metric_names = [BENCHMARKS[first].primary_metric]
        change = timed(lambda: client.predict("open", "any", "any", "any", "any", ["paper", "submission", "human"],
                                              False, "model-0", metric_names, api_name=f"/table_{first}"), repeat=10)
    finally:
        server.stop()
    print(f"Space start-up (all tabs, {args.results} results each): {startup:.1f} s")
    print(f"first page load (GET /): {1000 * page:.0f} ms; filter change through gradio_client ({first}): {1000 * change:.0f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
