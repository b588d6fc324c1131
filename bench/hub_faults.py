"""Hub-mode throughput under faults: three scoring workers (the real loop and Service, in threads) drain a
queue of byte-different X-PCR sample submissions on the fake Hub, first straight (the fault-free baseline),
then through the fault proxy at 0 %, 5 % and 20 % faults on every Hub request (500s, lost acknowledgements,
delays, 404s on downloads; seeded). Prints submissions/s per run and its ratio to the baseline of the same
run, and checks each run scored every submission exactly once with one result write each.

    .venv/bin/python bench/hub_faults.py [--submissions 30] [--lease 30] [--delay 0.05] [--seed 32]
"""
from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from dataset_builders.stage import build  # noqa: E402
from fake_hub_server import FakeHub  # noqa: E402
from fault_proxy import FaultProxy  # noqa: E402
from hub_fault_run import TOKENS, run_workers, seeded_queue, writes  # noqa: E402
from leaderboard.scoring import registry  # noqa: E402
from leaderboard.publishing.result_shards import repo_records  # noqa: E402
from leaderboard.operations.result_shards_hub import shard_benchmark  # noqa: E402


def one_run(data: Path, scratch: Path, n: int, lease: float, rate: float | None, delay: float, seed: int) -> dict:
    """rate None: the workers talk to the fake Hub directly (no proxy)."""
    with FakeHub(tokens=TOKENS, orgs={"lab": set(TOKENS.values())}) as hub:
        hub.create("dataset", "lab/results")
        private = hub.create("dataset", "lab/private", private=True, files=seeded_queue(n))
        if rate is None:
            done, seconds, _ = run_workers(hub.url, private, data, scratch, lease, deadline=20 * lease)
            injected = {}
        else:
            with FaultProxy(hub.url, rate=rate, seed=seed, delay=delay) as proxy:
                done, seconds, _ = run_workers(proxy.url, private, data, scratch, lease, deadline=20 * lease)
                injected = dict(proxy.injected)
        results = hub.repo("dataset", "lab/results")
        published = repo_records(results.head.files)  # one row per submission, wherever compaction put it
        shards = {p for c in results.commits for p in c.files if shard_benchmark(p) and "/c-" not in p}
        once = done and len(published) == n and len(shards) == n and all(writes(results, p) == 1 for p in shards)
        finishes = sum(1 for p, d in private.head.files.items()
                       if p.startswith("private/queue/") and json.loads(d).get("finished_by"))
    return {"seconds": seconds, "rate": n / seconds, "once": once and finishes == n, "injected": injected}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--submissions", type=int, default=30)
    parser.add_argument("--lease", type=float, default=30.0)
    parser.add_argument("--delay", type=float, default=0.05, help="seconds an injected delay holds a request")
    parser.add_argument("--seed", type=int, default=32)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        build(registry.adapter("xpcr"), registry.get("xpcr").sample_dir, tmp / "built", hold_out_answers=True,
              sample=True, progress=False)
        rows = [("fault-free (no proxy)", None), ("0 % faults", 0.0), ("5 % faults", 0.05), ("20 % faults", 0.2)]
        baseline, ok = None, True
        print(f"{args.submissions} submissions, 3 workers, lease {args.lease:g} s")
        for i, (label, rate) in enumerate(rows):
            run = one_run(tmp / "built" / "xpcr", tmp / f"run{i}", args.submissions, args.lease, rate, args.delay,
                          args.seed)
            baseline = baseline or run["rate"]
            ok &= run["once"]
            print(f"{label:22} {run['seconds']:6.1f} s  {run['rate']:5.2f} submissions/s  "
                  f"x{run['rate'] / baseline:4.2f} of fault-free  exactly once: {run['once']}  "
                  f"injected: {run['injected'] or '-'}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
