"""Side by side in one run: the project's Space and its floor (bench/minimal_parquet_space.py: the same result shards) on the same store.

In process, per benchmark: a ranked-table view (the precomputed board sliced, filtered, formatted; downloads
reused) against the floor of sorting a plain DataFrame of the same records and taking the top 500; the first
view after a new result (board rebuilt) is shown too. Then both apps are started in turn (interleaved, median
of `runs`): start-up until the page answers, resident memory, and a table refresh through gradio_client."""
from __future__ import annotations

import itertools
import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from dataclasses import replace  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from leaderboard.scoring import registry  # noqa: E402
from leaderboard.publishing.board import BOARDS, MAIN, Board, Filters  # noqa: E402
from leaderboard.publishing.exports import Exports  # noqa: E402
from leaderboard.scoring.result import ModelInfo  # noqa: E402
from leaderboard.publishing.tables import Entry  # noqa: E402
from leaderboard.operations.service import Service  # noqa: E402
from space_server import free_port  # noqa: E402

SHOWN = 500
GOAL_MS = 300


def timed(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def in_process(store, results: int) -> None:
    print(f"\nin process, {results:,} results per benchmark (median of 5; ms)")
    print(f"{'benchmark':<10} {'view':<34} {'project':>8} {'floor':>8} {'ratio':>6}")
    exports = Exports()
    for bench in registry.scorers().values():
        service = Service(store=store, data_dirs={})
        entries = service.entries(bench.name)
        primary = bench.primary_metric
        floor = timed(lambda: pd.DataFrame([{"model": e.result.model.name, **e.result.metrics} for e in entries])
                      .sort_values(primary, ascending=False).head(SHOWN))
        BOARDS.get(bench, entries)  # the board the Space holds (its paired outcomes are kept)
        landed = itertools.count()

        def rebuilt():  # one more result lands: the board is rebuilt, testing only the new row's pairs
            base = entries[-1]
            score = base.result.metrics[primary]
            result = getattr(base.result, "full", base.result)  # a stored result's Result (board_rows.RowResult)
            extra = Entry(replace(result, model=ModelInfo(name=f"new-{next(landed)}")), f"new-{next(landed)}",
                          score + np.random.default_rng(len(entries)).normal(0, 2, 1000))
            Board.build(bench, [*entries, extra]).view(MAIN, Filters(), SHOWN)

        rebuild = timed(rebuilt, repeat=3)

        def view(filters):
            board = BOARDS.get(bench, service.entries(bench.name))
            v = board.view(MAIN, filters, SHOWN)
            exports.files(bench.name, board.serial, repr(filters), lambda: v.download)
            return v.payload()

        searches = itertools.count()  # a new search each time: a filter change is drawn, not a view seen before
        rows = {"board rebuilt (after a new result)": rebuild,
                "ranked table (default view; a refresh)": timed(lambda: view(Filters())),
                "filter change (open, search)": timed(lambda: view(Filters(access="open",
                                                                              search=f"model-{next(searches) % 10}")))}
        for name, seconds in rows.items():
            flag = "  > 300 ms" if 1000 * seconds > GOAL_MS else ""
            print(f"{bench.name:<10} {name:<34} {1000 * seconds:>8.1f} {1000 * floor:>8.1f} {seconds / floor:>6.1f}{flag}")


def start(argv: list[str], env: dict, log: Path, wait: float = 900):
    """Starts an app; returns (process, url, the moment it was started, seconds until `/` answered 200)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    full = {**os.environ, "GRADIO_SERVER_PORT": str(port), "HF_HUB_OFFLINE": "1", "GRADIO_ANALYTICS_ENABLED": "False",
            "LEADERBOARD_LOCAL_USER": "bench", **env}
    begin = time.perf_counter()
    process = subprocess.Popen(argv, cwd=ROOT, env=full, stdout=log.open("a"), stderr=subprocess.STDOUT)
    while time.perf_counter() - begin < wait:
        if process.poll() is not None:
            raise RuntimeError(f"{argv} exited early; see {log}")
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    return process, url, begin, time.perf_counter() - begin
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError(f"{argv} did not answer within {wait} s")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def table_call(client, project: bool, bench: str):
    """One ranked-table refresh as a reader's browser asks for it (the default filters), through gradio_client."""
    if project:
        spec = registry.scorer(bench)
        columns = [m.name for m in spec.metrics if m.group == spec.metric(spec.primary_metric).group]
        args = ("any", "any", "any", "any", "any", ["paper", "submission", "human"], False, "", columns)
        return lambda: client.predict(*args, api_name=f"/table_{bench}")
    return lambda: client.predict(api_name=f"/table_{bench}")


def connect(url: str, tries: int = 20):
    """gradio_client's Client; its config request times out after 5 s on a busy machine: ask again."""
    import httpx
    from gradio_client import Client

    for attempt in range(tries):
        try:
            return Client(url, verbose=False, download_files=False)  # a browser gets the files' URLs, not the files
        except httpx.TimeoutException:
            if attempt == tries - 1:
                raise


def run_app(argv: list[str], env: dict, log: Path, project: bool, bench: str, others: list[str]) -> dict:
    """One start-up, measured the same way for both apps. Start-up = process start until BOTH the page answers
    200 on `/` AND the first benchmark's ranked table has come back through gradio_client (what a reader waits
    for). Then: every other benchmark's table once (all tables served), resident memory once all are served,
    and the median of 5 refreshes of the first table (boards ready)."""
    process, url, begin, page = start(argv, env, log)
    try:
        client = connect(url)
        table = table_call(client, project, bench)
        rows = table()
        first = time.perf_counter() - begin
        if project:  # the table really is the ranked board: a rank and a model in every drawn row
            data = rows[0]["value"]["data"]
            assert data and data[0][0] == 1, data[:1]
        for other in others:
            table_call(client, project, other)()
        every = time.perf_counter() - begin
        rss = rss_mb(process.pid)
        refresh = timed(table, repeat=5)
        return {"page": page, "start": first, "all": every, "rss": rss, "refresh": refresh}
    finally:
        process.terminate()
        process.wait(30)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def apps(store_root: Path, data: Path, work: Path, runs: int, bench: str) -> None:
    env = {"LEADERBOARD_STORE": str(store_root), "LEADERBOARD_DATA": str(data), "LEADERBOARD_WORKER": "external"}
    commands = {"project": [sys.executable, "-m", "space"], "floor": [sys.executable, str(ROOT / "bench" / "minimal_parquet_space.py")]}
    others = [name for name in registry.names() if name != bench]
    seen: dict[str, list[dict]] = {name: [] for name in commands}
    from bytecode import compile_project

    compile_project()  # as installed copies have it (see bench/bytecode.py)
    print(f"\nload average before the apps: {load_average()}")
    for _ in range(runs):  # interleaved: project, floor, project, floor...
        for name, argv in commands.items():
            for attempt in range(3):  # under heavy load gradio's own 3 s self-check of the page can fail
                try:
                    seen[name].append(run_app(argv, env, work / f"{name}.log", name == "project", bench, others))
                    break
                except Exception as exc:  # noqa: BLE001 - reported, then retried
                    print(f"({name} start-up attempt {attempt + 1} failed: {type(exc).__name__}: {exc}; retrying)")
            else:
                raise RuntimeError(f"{name} did not start")
    med = {name: {k: statistics.median(run[k] for run in runs_) for k in runs_[0]} for name, runs_ in seen.items()}
    p, f = med["project"], med["floor"]
    print(f"load average after the apps: {load_average()}")
    print(f"\nthe apps, interleaved, median of {runs} runs each (start-up = process start until the page answers "
          f"200 AND the first ranked table, {bench}, came back through gradio_client)")
    print(f"{'what':<52} {'project':>9} {'floor':>9} {'ratio':>6}")
    lines = [("page answers 200 on / (s)", "page", 1, "{:.2f}"), (f"start-up: page + first ranked table (s)", "start", 1, "{:.2f}"),
             ("all five tables served (s)", "all", 1, "{:.2f}"), ("resident memory, all tables served (MB)", "rss", 1, "{:.0f}"),
             (f"table refresh through gradio_client, {bench} (ms)", "refresh", 1000, "{:.0f}")]
    for label, key, scale, fmt in lines:
        print(f"{label:<52} {fmt.format(scale * p[key]):>9} {fmt.format(scale * f[key]):>9} {p[key] / f[key]:>6.2f}")
    ratio = p["start"] / f["start"]
    print(f"start-up ratio {ratio:.2f}x (target <= 1.1x): {'target met' if ratio <= 1.1 else 'target not met'}; "
          f"memory ratio {p['rss'] / f['rss']:.2f}x")
    print(f"refresh {1000 * p['refresh']:.0f} ms (target < {GOAL_MS} ms): "
          f"{'target met' if 1000 * p['refresh'] < GOAL_MS else 'target not met'}")
