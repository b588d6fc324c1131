"""The results store and tables at 10,000 results per benchmark (bench/space_views.py's data and views).

In process, per benchmark: store load cold, cached, and after one new result arrives (what the first
view after each submission pays), the ranked table, a filter change, the stratified table and the radar
data; each view is flagged when over 300 ms. Then the real Space is started on the same store and the
first page load (GET /) is timed with its size; a start-up failure is reported, not hidden.

    .venv/bin/python bench/space_views_scale.py [--results 10000] [--skip-space]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from space_views import populate, timed  # noqa: E402

from leaderboard import registry  # noqa: E402
BENCHMARKS = registry.scorers()
from leaderboard.result import ModelInfo, Result  # noqa: E402
from leaderboard.service import Service  # noqa: E402
from leaderboard.store import LocalStore  # noqa: E402
from leaderboard.tables import Filters, radar_series, ranked_table, strata_table  # noqa: E402

GOAL_MS = 300


def one_more(store: LocalStore, bench, k: int) -> None:
    metrics = {m.name: 50.0 for m in bench.metrics}
    store.save_result(f"{bench.name}-new-{k}", Result(benchmark=bench.name, metrics=metrics, n_items=1000,
                                                      model=ModelInfo(name=f"new-{k}")))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", type=int, default=10000)
    parser.add_argument("--store", type=Path, help="reuse a store populated by an earlier run")
    parser.add_argument("--skip-space", action="store_true")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="space-scale-"))
    store = LocalStore(args.store or work / "store")
    if args.store is None:
        start = time.perf_counter()
        populate(store, args.results)
        print(f"stored {args.results:,} results x {len(BENCHMARKS)} benchmarks in {time.perf_counter() - start:.0f} s "
              f"({store.root})")
    print(f"{'benchmark':<10} {'view':<30} {'ms':>8}")
    slow = []
    for k, bench in enumerate(BENCHMARKS.values()):
        service = Service(store=store, data_dirs={})
        rows = {"load store (cold)": timed(lambda: Service(store=store, data_dirs={}).entries(bench.name), repeat=1)}
        service.entries(bench.name)
        rows["load store (cached)"] = timed(lambda: service.entries(bench.name))
        one_more(store, bench, k)
        rows["reload after 1 new result"] = timed(lambda: service.entries(bench.name), repeat=1)
        entries = service.entries(bench.name)
        rows["ranked table"] = timed(lambda: ranked_table(bench, entries), repeat=3)
        rows["filter change"] = timed(lambda: ranked_table(bench, entries, Filters(access="open", search="model-0")), 3)
        rows["stratified table"] = timed(lambda: strata_table(bench, entries, "stratum"), repeat=3)
        rows["radar data"] = timed(lambda: radar_series(bench, entries, "stratum"), repeat=3)
        for name, seconds in rows.items():
            flag = "  > 300 ms" if 1000 * seconds > GOAL_MS and "cold" not in name else ""
            print(f"{bench.name:<10} {name:<30} {1000 * seconds:>8.1f}{flag}")
            if flag:
                slow.append(f"{bench.name}/{name}")
    print("over 300 ms:", ", ".join(slow) or "none")
    if args.skip_space:
        return 0
    from reliability_helpers import Space

    start = time.perf_counter()
    try:
        space = Space(ROOT / "hub", store.root, work / "space.log", wait=600)
    except RuntimeError as exc:
        tail = (work / "space.log").read_text()[-400:]
        print(f"Space start-up FAILED after {time.perf_counter() - start:.0f} s: {exc}\n{tail}")
        return 1
    try:
        print(f"Space start-up: {time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        page = urllib.request.urlopen(space.url, timeout=600).read()
        print(f"first page load (GET /): {time.perf_counter() - start:.2f} s, {len(page) / 1e6:.1f} MB")
    finally:
        space.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
