"""A MedRealMM rescore from cached verdicts, timed as a user runs it (issue 31 item 4: <= 3x a plain read of the
cached verdicts, wall and CPU), with the current design side by side when --base-rev is given.

Each measurement is a whole process, started fresh, timed from outside (wall: perf_counter around the process;
CPU: the child's user + system time from wait4, all its threads):

  rescore  python -m leaderboard score medrealmm PRED --data DATA --cache-dir DIR --judge-base-url
           http://127.0.0.1:9/v1 --judge-model fake-judge --quiet       (every CLI default: 5,000 resamples)
  no-memo  the same rescore with the scoring memo (DIR/memo.sqlite: bootstrap CIs and dialogue digests,
           leaderboard/scoring/memo.py) deleted before each run: what a rescore costs when its CIs and renderings
           are computed again (and memoised). A reference: the target is the rescore as a user runs it again
  floor    python -c: sqlite3 reads every row (key, raw, parsed) of the cache's verdicts table and json-decodes
           `parsed`; interpreter start-up included, as in the rescore
  libs     python -c importing numpy and pyarrow (parquet, compute): a reference, what any scoring process pays
  base     (--base-rev REV) the same rescore command run by the code at REV (`git archive` into a temp folder)

Workload: bench/medrealmm_judge.py's synthetic release (5,620 cases, 50,586 criteria, 1-4 images per case, one
distinct reply per case), judged once through the fake judge pool by the same CLI (skipped when --workdir
already holds the cache). Left out, and why: the judge calls (a rescore makes none; checked below: nothing
listens at the judge URL and the verification run must report 0 HTTP calls and no pending metric), image bytes
(a rescore reads none), a cold OS page cache (one untimed run of each command first: the first read of a cold
disk measures the disk, not the code), compiling the project's sources (bytecode is written first, as an installed
copy has it: bench/bytecode.py; this machine sets PYTHONDONTWRITEBYTECODE, which would recompile ~100 modules
in every run).

Pass rule: medians of --repeats interleaved runs. "met" only when rescore/floor <= 3 at the medians AND at a
pessimistic pairing (the rescore's upper quartile over the floor's lower quartile); "unclear (noisy)" when only
the medians pass; "not met" otherwise. A floor that is not positive is an error, never a pass.

    .venv/bin/python bench/rescore_cli.py [--workdir /tmp/medrealmm-rescore] [--repeats 7] [--base-rev 4313eb1]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOWHERE = "http://127.0.0.1:9/v1"  # nothing listens: a rescore that asked the judge would fail, not wait
FLOOR = """import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = [(key, raw, json.loads(parsed)) for key, raw, parsed in db.execute("SELECT key, raw, parsed FROM verdicts")]
print(len(rows))
"""
# a reference, not a target: the third-party imports any scoring needs (what the 3x leaves for everything else)
LIBRARIES = "import numpy, numpy.random, pyarrow, pyarrow.parquet, pyarrow.compute"


def score_command(work: Path, judge_url: str = NOWHERE, *extra: str) -> list[str]:
    return [sys.executable, "-m", "leaderboard", "score", "medrealmm", str(work / "pred.jsonl"), "--data",
            str(work / "hub" / "medrealmm"), "--cache-dir", str(work / "cache"), "--judge-base-url", judge_url,
            "--judge-model", "fake-judge", "--quiet", *extra]


def run(command: list[str], cwd: Path) -> tuple[float, float, str]:
    """(wall, CPU, stdout) of one child process; CPU from this process's children totals before and after."""
    import resource

    env = {**os.environ, "PYTHONPATH": ""}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(command[:6])}... failed:\n{done.stderr.decode()[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout.decode()


def prepare(work: Path, cases: int) -> None:
    """The release, the predictions and the judged cache (once)."""
    from medrealmm_judge import make_predictions, make_release, responder
    from fake_judge_pool import FakeJudgePool
    from leaderboard.scoring import registry
    from dataset_builders.stage import build

    work.mkdir(parents=True, exist_ok=True)
    make_release(work / "release", cases, image_kb=2)
    make_predictions(work / "pred.jsonl", cases)
    build(registry.adapter("medrealmm"), work / "release", work / "hub", progress=False)
    with FakeJudgePool(responder, workers=3, latency=0.01) as server:
        wall, _, _ = run(score_command(work, server.base_url, "--judge-concurrency", "64"), ROOT)
        print(f"judged {server.calls():,} criteria once in {wall:.0f} s (fake judge pool)")


def verify(work: Path, cwd: Path, label: str) -> dict:
    """An untimed run (it also warms the page cache) whose result must come wholly from the cache."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / "result.json"
        run(score_command(work, NOWHERE, "--json", str(target)), cwd)
        result = json.loads(target.read_text())
    stats = result["protocol"]["judge_stats"]
    if stats["http_calls"] or result.get("pending") or result["metrics"].get("score_pct") is None:
        raise SystemExit(f"{label}: the rescore did not come from the cache: {stats}, pending {result.get('pending')}")
    return result


def quartiles(values: list[float]) -> tuple[float, float, float]:
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return q1, median, q3


def verdict(rescore: list[float], floor: list[float], bound: float = 3.0) -> tuple[str, float, float]:
    f1, fm, _ = quartiles(floor)
    _, rm, r3 = quartiles(rescore)
    if f1 <= 0 or fm <= 0:
        raise SystemExit(f"floor times not positive ({floor}): no ratio, no pass")
    median_ratio, pessimistic = rm / fm, r3 / f1
    status = "met" if pessimistic <= bound else "unclear (noisy)" if median_ratio <= bound else "not met"
    return status, median_ratio, pessimistic


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/medrealmm-rescore"))
    parser.add_argument("--cases", type=int, default=5620)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--base-rev", help="also time the rescore of the code at this git revision (side by side)")
    args = parser.parse_args()
    sys.path[:0] = [str(ROOT), str(ROOT / "bench")]
    work = args.workdir
    if not (work / "cache" / "judge_cache.sqlite").is_file():
        prepare(work, args.cases)
    cache = work / "cache" / "judge_cache.sqlite"
    commands = {"rescore": (score_command(work), ROOT), "floor": ([sys.executable, "-c", FLOOR, str(cache)], ROOT),
                "libs": ([sys.executable, "-c", LIBRARIES], ROOT), "no-memo": (score_command(work), ROOT)}
    memo_file = work / "cache" / "memo.sqlite"
    base_dir = None
    if args.base_rev:
        base_dir = Path(tempfile.mkdtemp(prefix="rescore-base-"))
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", args.base_rev], capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(base_dir)], input=archive.stdout, check=True)
        commands["base"] = (score_command(work), base_dir)
    from bytecode import compile_project

    compile_project()
    if base_dir is not None:
        import compileall

        for package in ("leaderboard", "benchmarks"):
            compileall.compile_dir(base_dir / package, quiet=1)
    results = {name: verify(work, cwd, name) for name, (command, cwd) in commands.items() if name != "floor"}
    rows = int(run(*commands["floor"])[2].strip())
    if "base" in results:
        same = all(results["base"][k] == results["rescore"][k] for k in ("metrics", "ci", "strata"))
        print(f"numbers identical to {args.base_rev}'s (metrics, CIs, strata): {same}")
        if not same:
            raise SystemExit("the rescore's numbers differ from the base revision's")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    times: dict[str, dict[str, list[float]]] = {name: {"wall": [], "cpu": []} for name in commands}
    for _ in range(args.repeats):
        for name, (command, cwd) in commands.items():
            if name == "no-memo":
                memo_file.unlink(missing_ok=True)
            wall, cpu, _ = run(command, cwd)
            times[name]["wall"].append(wall)
            times[name]["cpu"].append(cpu)
    print(f"load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.repeats} interleaved runs each; medians [quartiles]; "
          f"floor = plain read of the {rows:,} cached verdicts")
    for name in commands:
        for kind in ("wall", "cpu"):
            q1, median, q3 = quartiles(times[name][kind])
            print(f"  {name:8} {kind:4} {median:6.3f} s [{q1:.3f}, {q3:.3f}]")
    for name in [n for n in commands if n not in ("floor", "libs", "no-memo")]:
        for kind in ("wall", "cpu"):
            status, ratio, pessimistic = verdict(times[name][kind], times["floor"][kind])
            label = "this code" if name == "rescore" else f"base {args.base_rev}"
            print(f"{label:>16} {kind}: {ratio:.2f}x the floor at the medians, {pessimistic:.2f}x pessimistic; "
                  f"target <= 3x: {status}")
    for kind in ("wall", "cpu"):  # a reference, never a pass: the memo's share of a rescore
        _, ratio, _ = verdict(times["no-memo"][kind], times["floor"][kind])
        print(f"{'without the memo':>16} {kind}: {ratio:.2f}x the floor at the medians (reference, no target)")
    if base_dir is not None:
        subprocess.run(["rm", "-rf", str(base_dir)], check=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
