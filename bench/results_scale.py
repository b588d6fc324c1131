"""Issue 31, side by side in ONE run at 100,000 stored results in total (20,000 per benchmark):

- the old design: the Space of commit 4313eb1 (`git archive`, run as it was) on a JSON store (one JSON per
  result), against bench/minimal_space.py (the floor on the same JSON);
- the new design: this tree's Space on the same records as result shards, against
  bench/minimal_parquet_space.py (a minimal app reading the same Parquet).

Per app: start-up = process start until every benchmark's ranked table has come back through gradio_client
(with its download files: the new Space writes them in a step after the rows, the bench asks for it as a page
does); resident memory once all are served. Then, with each Space running, a new result is written the way a worker
writes it (the new design: one shard through LocalStore; the old: one JSON through the same atomic write), and
the first table is polled until the new row is on top: seconds from the write to the row shown. The tables of
the two Spaces are compared cell by cell (same records: the same rows must show).

Targets (issue 31): every table served <= 15 s; memory <= 1.5x the minimal app on the same Parquet; a new result
on the board <= 1 s after it is written. A target is "met" only when the measured value is under it; ratios are
printed against the floor measured in the same run.

    nice -n 10 .venv/bin/python bench/results_scale.py [--per-benchmark 20000] [--work DIR] [--skip-old]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import numpy as np  # noqa: E402

from leaderboard.scoring import registry  # noqa: E402
from leaderboard.publishing import result_shards as shards  # noqa: E402
from leaderboard.operations.store import LocalStore, atomic_write  # noqa: E402
from space_compare import connect, rss_mb, table_call  # noqa: E402
from space_server import free_port  # noqa: E402

OLD_COMMIT = "4313eb1"
GOALS = {"all": 15.0, "memory": 1.5, "appear": 1.0}


def synthetic(bench, k: int, rng) -> dict:
    """One public record as the store writes it: every metric, a CI on each, two stratum cells, run settings."""
    names = [m.name for m in bench.metrics]
    values = np.round(rng.uniform(5, 95, len(names)), 4)
    return {"benchmark": bench.name,
            "model": {"name": f"model-{k % 5000:04d}-{bench.name}", "link": None, "organisation": f"org-{k % 97}",
                      "access": ("open", "proprietary")[k % 2], "domain": ("general", "medical")[k % 3 == 0],
                      "reasoning": bool(k % 5 == 0), "input_modality": "multimodal", "params_b": float(1 + k % 120)},
            "metrics": dict(zip(names, values.tolist())), "source": "submission",
            "ci": {n: [round(v - 3.1, 4), round(v + 2.9, 4)] for n, v in zip(names, values.tolist())},
            "n_items": bench.release_items or 1000, "n_answered": (bench.release_items or 1000) - k % 7,
            "parse_failures": k % 3, "pending": {},
            "strata": {"group": {"a": {"n": 40, "metrics": {names[0]: float(values[0])}},
                                 "b": {"n": 3, "metrics": {}, "suppressed": True, "reason": "k-rule"}}},
            "protocol": {"comparable_to_paper": k % 4 != 0, "not_comparable_because": [] if k % 4 else ["temperature"],
                         "run_settings": {"protocol": bench.name, "protocol_version": "1", "temperature": 0.0},
                         "disclosure": {"min_cell": 5, "noise_items": 0}},
            "notes": [], "cell_flags": {}, "created_at": f"2026-{1 + k % 12:02d}-{1 + k % 28:02d}T10:00:00+00:00",
            "metric_n": {n: 1000 for n in names}, "schema_version": 1,
            "coverage": round(1 - (k % 7) / (bench.release_items or 1000), 6),
            "submission_id": f"2026{1 + k % 12:02d}{1 + k % 28:02d}-100000-{k:08x}"}


def make_stores(work: Path, per_benchmark: int, old: bool) -> tuple[Path, Path]:
    """The same records twice: as shards (one compacted shard per benchmark) and as one JSON each."""
    new_root, old_root = work / "store-new", work / "store-old"
    if (new_root / "done").is_file() and (not old or (old_root / "done").is_file()):
        return new_root, old_root
    rng = np.random.default_rng(31)
    for bench in registry.scorers().values():
        records = [synthetic(bench, k, rng) for k in range(per_benchmark)]
        folder = shards.shard_folder(new_root, bench.name)
        folder.mkdir(parents=True, exist_ok=True)
        table = shards.records_table(records, bench.name, "2026-12-01T00:00:00.000000+00:00")
        (folder / shards.compacted_name(table)).write_bytes(shards.to_bytes(table))
        if old:
            target = old_root / "results" / bench.name
            target.mkdir(parents=True, exist_ok=True)
            for record in records:
                (target / f"{record['submission_id']}.json").write_text(json.dumps(record, indent=2))
    (new_root / "README.md").write_text(__import__("leaderboard.publishing.results_card", fromlist=["card"]).card())
    (new_root / "done").write_text("")
    if old:
        (old_root / "done").write_text("")
    return new_root, old_root


def old_tree(work: Path) -> Path:
    """The project at OLD_COMMIT, as it was (a `git archive`), sharing this tree's .venv."""
    target = work / f"old-{OLD_COMMIT}"
    if not (target / "space").is_dir():
        target.mkdir(parents=True, exist_ok=True)
        archive = subprocess.run(["git", "archive", OLD_COMMIT], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(target)], input=archive, check=True)
    return target


def rows_of(reply, project: bool) -> list:
    value = reply[0]["value"] if project else reply
    value = value.get("value", value) if isinstance(value, dict) else value
    return value["data"]


class App:
    def __init__(self, argv: list[str], cwd: Path, store: Path, data: Path, log: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "GRADIO_SERVER_PORT": str(self.port), "HF_HUB_OFFLINE": "1",
               "GRADIO_ANALYTICS_ENABLED": "False", "LEADERBOARD_LOCAL_USER": "bench", "LEADERBOARD_STORE": str(store),
               "LEADERBOARD_DATA": str(data), "LEADERBOARD_WORKER": "external", "PYTHONDONTWRITEBYTECODE": "1",
               "ARROW_DEFAULT_MEMORY_POOL": "system",  # what the new Space sets for itself (space/app.py, heap.py):
               "MALLOC_ARENA_MAX": "2"}  # every app gets it, the floor and the old Space too
        self.begin = time.perf_counter()
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=log.open("a"), stderr=subprocess.STDOUT)

    def wait_page(self, wait: float = 900) -> None:
        while time.perf_counter() - self.begin < wait:
            if self.process.poll() is not None:
                raise RuntimeError("the app exited early")
            try:
                with urllib.request.urlopen(self.url, timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the app did not answer")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()


def serve_all(app: App, project: bool, files: bool) -> dict:
    """Every table, as a browser gets it: the rows, then (new Space, `files`) the download files its page asks for
    next (the old Space wrote them inside the table call): both count in "every table served" and the memory."""
    app.wait_page()
    client = connect(app.url)
    tables = {}
    for bench in registry.names():
        tables[bench] = rows_of(table_call(client, project, bench)(), project)
        if files:
            spec = registry.scorer(bench)
            columns = [m.name for m in spec.metrics if m.group == spec.metric(spec.primary_metric).group]
            client.predict("any", "any", "any", "any", "any", ["paper", "submission", "human"], False, "", columns,
                           api_name=f"/table_files_{bench}")
    served = time.perf_counter() - app.begin
    return {"client": client, "all": served, "rss": rss_mb(app.process.pid), "tables": tables}


def new_result(store: Path, bench, new_design: bool) -> tuple[str, Path]:
    """A result better than every other, written as a worker writes it; returns its model name and file."""
    record = synthetic(bench, 10**7 + int(time.time()) % 10**6, np.random.default_rng(5))
    record["metrics"] = {k: 99.99 for k in record["metrics"]}
    record["ci"] = {k: [99.0, 100.0] for k in record["metrics"]}
    record["model"]["name"] = name = f"new-result-{time.time_ns()}"
    record["submission_id"] = "20261231-235959-" + name[-8:]
    if new_design:
        return name, LocalStore(store).write_records(bench.name, [record])
    path = store / "results" / bench.name / f"{record['submission_id']}.json"
    atomic_write(path, json.dumps(record, indent=2).encode())
    return name, path


def appear(result: dict, store: Path, new_design: bool, project: bool = True, limit: float = 60.0) -> float:
    """Seconds from a new result's write until the first table's top row shows it."""
    bench = registry.scorer(registry.names()[0])
    call = table_call(result["client"], project, bench.name)
    call()
    name, path = new_result(store, bench, new_design)
    written = time.perf_counter()
    try:
        while time.perf_counter() - written < limit:
            rows = rows_of(call(), project)
            if rows and any(name in str(cell) for cell in rows[0][:3]):
                return time.perf_counter() - written
            time.sleep(0.02)
        return float("inf")
    finally:
        path.unlink()  # the stores stay the same records for the next run


def verdict(value: float, goal: float) -> str:
    return "target met" if value <= goal else "target NOT met"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-benchmark", type=int, default=20000)
    parser.add_argument("--work", type=Path, default=None, help="keeps the generated stores between runs")
    parser.add_argument("--skip-old", action="store_true", help="only the new design and its floor")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="results-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    data = work / "no-data"  # tables need no built dataset: the ranked boards come from the store alone
    data.mkdir(exist_ok=True)
    started = time.perf_counter()
    new_root, old_root = make_stores(work, args.per_benchmark, not args.skip_old)
    total = args.per_benchmark * len(registry.names())
    print(f"{total:,} stored results ({args.per_benchmark:,} per benchmark) in {work}; stores ready in "
          f"{time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.1f}")
    python = sys.executable
    runs = {"new Space (shards)": ([python, "-m", "space"], ROOT, new_root, True),
            "floor: minimal app on the Parquet": ([python, str(ROOT / "bench" / "minimal_parquet_space.py")], ROOT,
                                                  new_root, False)}
    if not args.skip_old:
        old = old_tree(work)
        runs["old Space (JSON, 4313eb1)"] = ([python, "-m", "space"], old, old_root, True)
        runs["floor: minimal app on the JSON"] = ([python, str(ROOT / "bench" / "minimal_space.py")], ROOT, old_root,
                                                  False)
    seen = {}
    for label, (argv_, cwd, store, project) in runs.items():
        app = App(argv_, cwd, store, data, work / f"{label.split()[0]}-{label.split()[1]}.log")
        try:
            seen[label] = serve_all(app, project, files=project and store == new_root)
            if project:
                seen[label]["appear"] = appear(seen[label], store, store == new_root)
        finally:
            app.stop()
        print(f"  {label}: every table served in {seen[label]['all']:.2f} s, {seen[label]['rss']:.0f} MB"
              + (f", new result shown {seen[label]['appear']:.2f} s after its write" if project else ""))
    new, floor = seen["new Space (shards)"], seen["floor: minimal app on the Parquet"]
    print(f"\n{'what':<46} {'new':>9} {'old':>9} {'floor(pq)':>10} {'new/floor':>9} {'new/old':>8}")
    old_ = seen.get("old Space (JSON, 4313eb1)")
    for key, label, fmt in (("all", "start to every table served (s)", "{:.2f}"), ("rss", "resident memory (MB)", "{:.0f}"),
                            ("appear", "new result on the board after write (s)", "{:.2f}")):
        o = old_.get(key) if old_ else None
        f = floor.get(key)
        print(f"{label:<46} {fmt.format(new[key]):>9} {fmt.format(o) if o is not None else '-':>9} "
              f"{fmt.format(f) if f is not None else '-':>10} {new[key] / f if f else float('nan'):>9.2f} "
              f"{new[key] / o if o else float('nan'):>8.2f}")
    if "floor: minimal app on the JSON" in seen:
        jf = seen["floor: minimal app on the JSON"]
        print(f"{'floor on the JSON (s / MB)':<46} {jf['all']:>9.2f} {jf['rss']:>9.0f}")
    print(f"\nevery table served: {new['all']:.2f} s (target <= {GOALS['all']:.0f} s): {verdict(new['all'], GOALS['all'])}")
    ratio = new["rss"] / floor["rss"]
    print(f"memory: {ratio:.2f}x the minimal app on the same Parquet (target <= {GOALS['memory']}x): "
          f"{verdict(ratio, GOALS['memory'])}")
    print(f"new result on the board: {new['appear']:.2f} s after its write (target <= {GOALS['appear']:.0f} s): "
          f"{verdict(new['appear'], GOALS['appear'])}")
    if old_:
        same = all(new["tables"][b] == old_["tables"][b] for b in registry.names())
        differing = [b for b in registry.names() if new["tables"][b] != old_["tables"][b]]
        print(f"tables of the old and new Space on the same records: {'identical' if same else 'DIFFER: ' + ', '.join(differing)}"
              f" ({sum(len(t) for t in new['tables'].values()):,} rows drawn)")
        gain = old_["all"] - new["all"]
        print(f"start-up: new - old = {-gain:+.2f} s; memory new - old = {new['rss'] - old_['rss']:+.0f} MB")
    print(f"bench wall time {time.perf_counter() - started:.0f} s; load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
