"""Parallel X-PCR build at the paper's scale against `datasets` on the same input, in the same run.

1. generate the full-size synthetic release of `bench/xpcr_scale.py` (26,415 images in 6 Parquet
   files of 1,000-row row groups, 177,868 chain items, 58 hospital cases);
2. build it with `dataset_builders` at --num-proc 1 and 2 (all four configs, one pass);
3. baseline: for each config, `datasets.Dataset.from_generator(gen, features=<the config's
   ConfigSpec features>, gen_kwargs={"parts": <one part per row group>}, num_proc=N).to_parquet(...)`
   where `gen` yields the adapter's own canonical rows of that config (`read_partition`), at N = 1
   and 2. `from_generator` takes one schema, so the baseline reads the release once per config; the
   `chains` pass alone is reported too, as a lower bound for any datasets-based build.

Each run is its own subprocess; the bench samples its whole process tree (the run, its workers, the
forkserver) from /proc every 0.1 s and reports the peak of the summed PSS (shared pages counted once)
and the largest single process's peak RSS (VmHWM). Seconds exclude nothing: imports, worker start-up and the card are included.

    .venv/bin/python bench/build_parallel.py [--workdir /tmp/xpcr-parallel] [--images 26415] [--items 177868]
        [--runs ours-1,ours-2,datasets-1,datasets-2]

The `load` column is the 1-minute load average around each run: on a shared machine with fewer free
CPUs than processes, the parallel runs cannot speed up and their figures mean little.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CONFIGS = ("chains", "cross_modal", "items", "ablations")


# --- the runs (each executed in a fresh subprocess: `--run NAME`) ---------------------------------

def run_ours(source: Path, out: Path, num_proc: int) -> dict:
    from leaderboard.scoring import registry
    from dataset_builders.stage import build

    report = build(registry.adapter("xpcr"), source, out, progress=False, num_proc=num_proc)
    return {"rows": report.rows}


def canonical_rows(parts: list, config: str, source: str):
    """The baseline's generator: the adapter's canonical rows of one config, cut to its features."""
    from benchmarks.xpcr.adapter import XPCRAdapter
    from dataset_builders.errors import ProblemLog

    adapter = XPCRAdapter()
    names = next(spec for spec in adapter.configs() if spec.name == config).features
    for part in parts:
        for name, row in adapter.read_partition(Path(source), part, ProblemLog(), {}):
            if name == config:
                yield {k: row[k] for k in names}


def run_datasets(source: Path, out: Path, num_proc: int, cache: Path) -> dict:
    import datasets
    from benchmarks.xpcr.adapter import XPCRAdapter

    datasets.disable_progress_bars()
    adapter = XPCRAdapter()
    parts = adapter.partitions(source, 10_000)  # one per row group: datasets shards the list over num_proc
    specs = {spec.name: spec for spec in adapter.configs()}
    rows, seconds = {}, {}
    for config in CONFIGS:
        start = time.perf_counter()
        ds = datasets.Dataset.from_generator(
            canonical_rows, features=specs[config].features, cache_dir=str(cache / config),
            gen_kwargs={"parts": parts, "config": config, "source": str(source)},
            num_proc=num_proc if num_proc > 1 else None)
        (out / config).mkdir(parents=True, exist_ok=True)
        ds.to_parquet(str(out / config / "test-00000-of-00001.parquet"))
        rows[config], seconds[config] = ds.num_rows, time.perf_counter() - start
    return {"rows": rows, "config_seconds": seconds}


def child(name: str, source: Path, out: Path, cache: Path) -> dict:
    kind, num_proc = name.rsplit("-", 1)
    start = time.perf_counter()
    if kind == "ours":
        result = run_ours(source, out, int(num_proc))
    elif kind == "datasets":
        result = run_datasets(source, out, int(num_proc), cache)
    else:
        raise SystemExit(f"unknown run {name}")
    return {"seconds": time.perf_counter() - start, **result}


# --- measuring a run from outside -----------------------------------------------------------------

def _status(pid: int) -> dict[str, int]:
    """VmHWM (the process's own peak RSS) and Pss (resident memory with shared pages split between
    their users: forkserver workers share the preloaded modules, RSS would count them twice), bytes."""
    out = {}
    for name, keys in ((f"/proc/{pid}/status", ("VmHWM:",)), (f"/proc/{pid}/smaps_rollup", ("Pss:",))):
        try:
            with open(name) as handle:
                for line in handle:
                    if line.startswith(keys):
                        out[line.split(":")[0]] = int(line.split()[1]) * 1024
        except OSError:  # the process ended between listing and reading
            pass
    return out


def _tree(root: int) -> list[int]:
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(parents.get(pid, []))
    return found


def measure(name: str, source: Path, out: Path, cache: Path) -> dict:
    """Run `name` in a subprocess; peak summed PSS of its tree and the largest process's peak RSS."""
    process = subprocess.Popen([sys.executable, __file__, "--run", name, "--source", str(source), "--out", str(out),
                                "--cache", str(cache)], stdout=subprocess.PIPE, text=True)
    peaks = {"tree": 0, "largest": 0, "processes": 0}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            stats = [_status(pid) for pid in _tree(process.pid)]
            peaks["tree"] = max(peaks["tree"], sum(s.get("Pss", 0) for s in stats))
            peaks["largest"] = max([peaks["largest"], *(s.get("VmHWM", 0) for s in stats)])
            peaks["processes"] = max(peaks["processes"], len([s for s in stats if s]))
            stop.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    stdout, _ = process.communicate()
    stop.set()
    sampler.join()
    if process.returncode:
        raise SystemExit(f"run {name} failed ({process.returncode})")
    return {**json.loads(stdout.strip().splitlines()[-1]), **peaks}


def same_rows(a: Path, b: Path) -> bool:
    """Ids (and image hashes) of every config equal, in order, across two builds' shards."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    def column(folder: Path, config: str, name: str) -> list:
        files = sorted((folder / config).glob("*.parquet"))
        return pa.concat_tables([pq.read_table(f, columns=[name]) for f in files]).column(0).to_pylist()

    return all(column(a, c, "id") == column(b, c, "id") for c in CONFIGS) and \
        column(a, "chains", "sha256") == column(b, "chains", "sha256")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/xpcr-parallel"))
    parser.add_argument("--images", type=int, default=26_415)
    parser.add_argument("--items", type=int, default=177_868)
    parser.add_argument("--runs", default="ours-1,ours-2,datasets-1,datasets-2",
                        help="comma-separated subset (ratios need ours-N with datasets-N)")
    parser.add_argument("--run")
    parser.add_argument("--source", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--cache", type=Path)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(child(args.run, args.source, args.out, args.cache)))
        return 0
    from xpcr_scale import make_release

    shutil.rmtree(args.workdir, ignore_errors=True)
    raw = args.workdir / "raw"
    t = time.perf_counter()
    release = make_release(raw, args.images, args.items)
    size = sum(p.stat().st_size for p in raw.rglob("*") if p.is_file())
    print(f"generated {args.images:,} images, {len(release['answers']):,} chain items, {len(release['cross'])} "
          f"cross-modal items ({size / 1e6:.1f} MB on disk) in {time.perf_counter() - t:.1f} s; {os.cpu_count()} CPUs")
    results = {}
    for name in args.runs.split(","):
        # other jobs on a shared machine skew parallel timings: show the load each run saw
        load = os.getloadavg()[0]
        results[name] = measure(name, raw, args.workdir / name, args.workdir / f"cache-{name}")
        results[name]["load"] = (load + os.getloadavg()[0]) / 2
    if len({json.dumps(r["rows"], sort_keys=True) for r in results.values()}) != 1:
        raise SystemExit("row counts differ between runs")
    print(f"rows per config: {next(iter(results.values()))['rows']}")
    if "ours-1" in results and "ours-2" in results:
        print("--num-proc 1 and 2 give the same ids and image hashes in the same order: "
              f"{same_rows(args.workdir / 'ours-1' / 'xpcr', args.workdir / 'ours-2' / 'xpcr')}")
    base = results.get("datasets-1", next(iter(results.values())))["seconds"]
    print(f"\n{'run':>12} {'seconds':>8} {'x base':>7} {'tree PSS MB':>13} {'largest MB':>11} {'procs':>6} {'load':>5}  detail")
    for name, r in results.items():
        detail = ""
        if "config_seconds" in r:
            detail = "per config: " + ", ".join(f"{c} {s:.1f} s" for c, s in r["config_seconds"].items())
        print(f"{name:>12} {r['seconds']:>8.1f} {r['seconds'] / base:>7.2f} {r['tree'] / 2**20:>13.0f} "
              f"{r['largest'] / 2**20:>11.0f} {r['processes']:>6} {r['load']:>5.1f}  {detail}")
    for n in (1, 2):
        if f"datasets-{n}" not in results or f"ours-{n}" not in results:
            continue
        ds, me = results[f"datasets-{n}"], results[f"ours-{n}"]
        print(f"num_proc {n}: dataset_builders is x {ds['seconds'] / me['seconds']:.2f} faster than datasets (all "
              f"configs), x {ds['config_seconds']['chains'] / me['seconds']:.2f} vs its chains pass alone; "
              f"tree peak PSS x {me['tree'] / ds['tree']:.2f} of datasets'")
    for kind in ("ours", "datasets"):
        if f"{kind}-1" in results and f"{kind}-2" in results:
            print(f"speed-up 1 -> 2 processes, {kind}: x {results[f'{kind}-1']['seconds'] / results[f'{kind}-2']['seconds']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
