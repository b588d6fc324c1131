"""Load: N concurrent submissions through gradio_client against the real Space (default 50).

Builds the MedReaMM sample into a temporary hub, starts `python -m space` (internal worker, offline
ICD coder, the default 5,000 resamples), creates one gradio_client per submission, then fires all N uploads at once
(a barrier), each file distinct (tests/reliability_helpers.variant_files). Clients wait up to 120 s
(gradio_client's default 20 s is exceeded with 100 uploads at once). With `--duplicates` every
file is also uploaded a second time at the same moment: exactly one of the two may be queued.
A poller calls /table_medreamm every `--poll` s and notes when each model's row first appears ranked.

Prints p50/p95/max time from upload to ranked row (and to the submit answer), then asserts:
every submission recorded exactly once (queue records, uploads, results, per-item, bootstrap files),
every status `finished`, the table sorted with consistent tie-group ranks and no row twice, and every
JSON in the store parses with no temporary file left over.

    .venv/bin/python bench/space_load.py [--n 50] [--duplicates] [--poll 0.25]
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from reliability_helpers import (Space, check_ranks, check_store, percentile, status_rows, submit_form,  # noqa: E402
                                 table_rows, variant_files)

PRIMARY = "top5_primary_icd"


def run_load(work: Path, n: int, duplicates: bool = False, poll: float = 0.25, timeout: float = 300,
             log=print) -> dict:
    """The whole scenario; returns the figures (also used by tests/test_reliability_load.py)."""
    from gradio_client import Client

    from conftest import SAMPLE_MEDREAMM
    from leaderboard.scoring import registry
    from dataset_builders.stage import build

    build(registry.adapter("medreamm"), SAMPLE_MEDREAMM, work / "hub", sample=True, progress=False)
    files = variant_files(work / "files", n)
    names = [f"Load-{k:03d}" for k in range(n)]
    jobs = [(names[k], files[k]) for k in range(n)] + ([(names[k], files[k]) for k in range(n)] if duplicates else [])
    started = time.perf_counter()
    space = Space(work / "hub", work / "store", work / "space.log", env={"LEADERBOARD_QUOTA": str(2 * n + 10)})
    log(f"Space up in {time.perf_counter() - started:.1f} s")
    try:
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=min(16, len(jobs))) as pool:
            clients = list(pool.map(lambda _: Client(space.url, verbose=False, httpx_kwargs={"timeout": 120}), jobs))
        watcher = Client(space.url, verbose=False, httpx_kwargs={"timeout": 120})
        log(f"{len(clients)} clients connected in {time.perf_counter() - started:.1f} s")
        first_seen: dict[str, float] = {}
        upload_at: dict[str, float] = {}
        answers: list[tuple[str, float, str]] = []
        done = threading.Event()

        def poller():
            while not done.is_set():
                try:
                    rows = table_rows(watcher, "medreamm", [PRIMARY], search="Load-", sample=True)  # sample hub
                except Exception as exc:  # a slow answer under load: note it and poll again
                    log(f"poll failed: {type(exc).__name__}")
                    continue
                stamp = time.perf_counter()
                for row in rows:
                    first_seen.setdefault(row["model"], stamp)
                if len(first_seen) >= n:
                    return
                time.sleep(poll)

        barrier = threading.Barrier(len(jobs))

        def submit(index: int):
            name, path = jobs[index]
            barrier.wait()
            t0 = time.perf_counter()
            upload_at.setdefault(name, t0)
            message, _, _, _ = clients[index].predict(*submit_form("medreamm", name, path), api_name="/submit")
            answers.append((name, time.perf_counter() - t0, message))

        watch = threading.Thread(target=poller, daemon=True)
        watch.start()
        fired = time.perf_counter()
        with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            list(pool.map(submit, range(len(jobs))))
        submitted = time.perf_counter() - fired
        watch.join(timeout)
        done.set()
        drained = time.perf_counter() - fired
        accepted = [a for a in answers if a[2].startswith("**Accepted.**")]
        refused = [a for a in answers if not a[2].startswith("**Accepted.**")]
        assert len(accepted) == n, f"{len(accepted)} accepted of {n}: {[a[2] for a in refused][:5]}"
        assert all("You already submitted these predictions" in a[2] for a in refused), refused[:3]
        missing = sorted(set(names) - set(first_seen))
        assert not missing, f"never ranked within {timeout} s: {missing[:10]}"
        to_row = [first_seen[name] - upload_at[name] for name in names]
        to_answer = [a[1] for a in accepted]

        statuses = [r for r in status_rows(watcher) if str(r["model"]).startswith("Load-")]
        assert sorted(r["model"] for r in statuses) == names, "a submission is missing or recorded twice"
        assert {r["state"] for r in statuses} == {"finished"}, {r["state"] for r in statuses}
        rows = table_rows(watcher, "medreamm", [PRIMARY], sample=True)
        check_ranks(rows, PRIMARY)
        ours = [r for r in rows if str(r["model"]).startswith("Load-")]
        assert sorted(r["model"] for r in ours) == names
    finally:
        space.stop()
    counts = check_store(work / "store")
    assert counts == {"queue": n, "results": n, "uploads": n, "per_item": n, "bootstrap": n}, counts
    figures = {"n": n, "requests": len(jobs), "refused_duplicates": len(refused), "submit_wall_s": submitted,
               "drain_wall_s": drained, "answer_p50": percentile(to_answer, 50), "answer_p95": percentile(to_answer, 95),
               "row_p50": percentile(to_row, 50), "row_p95": percentile(to_row, 95), "row_max": max(to_row),
               "rows": len(rows), "store": counts}
    return figures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--duplicates", action="store_true", help="also upload every file a second time at once")
    parser.add_argument("--poll", type=float, default=0.25)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="space-load-"))
    try:
        f = run_load(work, args.n, args.duplicates, args.poll)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{f['requests']} concurrent uploads ({f['n']} distinct files, {f['refused_duplicates']} duplicate uploads "
          f"refused); all answered in {f['submit_wall_s']:.1f} s; all ranked after {f['drain_wall_s']:.1f} s")
    print(f"upload -> submit answer:  p50 {f['answer_p50']:.2f} s  p95 {f['answer_p95']:.2f} s")
    print(f"upload -> ranked row:     p50 {f['row_p50']:.2f} s  p95 {f['row_p95']:.2f} s  max {f['row_max']:.2f} s "
          f"(poll every {args.poll} s)")
    print(f"checks passed: each recorded exactly once {f['store']}, all finished, {f['rows']} table rows sorted with "
          "consistent ranks and no duplicates, every store JSON parses, no temporary files")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
