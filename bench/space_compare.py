"""Side by side in one run: the project's Space and its floor (bench/minimal_space.py) on the same store.

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

from leaderboard import registry  # noqa: E402
from leaderboard.board import BOARDS, MAIN, Board, Filters  # noqa: E402
from leaderboard.exports import Exports  # noqa: E402
from leaderboard.result import ModelInfo  # noqa: E402
from leaderboard.tables import Entry  # noqa: E402
from leaderboard.service import Service  # noqa: E402
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
            extra = Entry(replace(base.result, model=ModelInfo(name=f"new-{next(landed)}")), f"new-{next(landed)}",
                          score + np.random.default_rng(len(entries)).normal(0, 2, 1000))
            Board.build(bench, [*entries, extra]).view(MAIN, Filters(), SHOWN)

        rebuild = timed(rebuilt, repeat=3)

        def view(filters):
            board = BOARDS.get(bench, service.entries(bench.name))
            v = board.view(MAIN, filters, SHOWN)
            exports.files(bench.name, board.serial, repr(filters), lambda: v.download)
            return v.payload()

        rows = {"board rebuilt (after a new result)": rebuild,
                "ranked table (default view)": timed(lambda: view(Filters())),
                "filter change (open, search)": timed(lambda: view(Filters(access="open", search="model-0")))}
        for name, seconds in rows.items():
            flag = "  > 300 ms" if 1000 * seconds > GOAL_MS else ""
            print(f"{bench.name:<10} {name:<34} {1000 * seconds:>8.1f} {1000 * floor:>8.1f} {seconds / floor:>6.1f}{flag}")


def start(argv: list[str], env: dict, log: Path, wait: float = 900):
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
                    return process, url, time.perf_counter() - begin
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{argv} did not answer within {wait} s")


def Client_check(url: str) -> None:
    """The page answers and still answers a moment later (gradio exits if its self-check failed)."""
    time.sleep(1.0)
    with urllib.request.urlopen(url + "config", timeout=60) as response:
        response.read()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def refresh_call(url: str, project: bool, bench: str) -> float:
    from gradio_client import Client

    client = Client(url, verbose=False)
    if project:
        spec = registry.scorer(bench)
        columns = [m.name for m in spec.metrics if m.group == spec.metric(spec.primary_metric).group]
        args = ("any", "any", "any", "any", "any", ["paper", "submission", "human"], False, "", columns)
        return timed(lambda: client.predict(*args, api_name=f"/table_{bench}"), repeat=5)
    return timed(lambda: client.predict(api_name=f"/table_{bench}"), repeat=5)


def apps(store_root: Path, data: Path, work: Path, runs: int, bench: str) -> None:
    env = {"LEADERBOARD_STORE": str(store_root), "LEADERBOARD_DATA": str(data), "LEADERBOARD_WORKER": "external"}
    commands = {"project": [sys.executable, "-m", "space"], "floor": [sys.executable, str(ROOT / "bench" / "minimal_space.py")]}
    seen = {name: {"start": [], "rss": [], "refresh": []} for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            for attempt in range(3):  # under heavy load gradio's own 3 s self-check of the page can fail
                try:
                    process, url, seconds = start(argv, env, work / f"{name}.log")
                    Client_check(url)
                    break
                except Exception as exc:  # noqa: BLE001 - reported, then retried
                    print(f"({name} start-up attempt {attempt + 1} failed: {type(exc).__name__}; retrying)")
                    try:
                        process.terminate()
                    except Exception:  # noqa: BLE001
                        pass
            else:
                raise RuntimeError(f"{name} did not start")
            try:
                seen[name]["start"].append(seconds)
                seen[name]["rss"].append(rss_mb(process.pid))
                seen[name]["refresh"].append(refresh_call(url, name == "project", bench))
            finally:
                process.terminate()
                process.wait(30)
    med = {name: {k: statistics.median(v) for k, v in d.items()} for name, d in seen.items()}
    p, f = med["project"], med["floor"]
    print(f"\nthe apps, interleaved, median of {runs} runs each")
    print(f"{'what':<44} {'project':>9} {'floor':>9} {'ratio':>6}")
    print(f"{'start-up until the page answers (s)':<44} {p['start']:>9.2f} {f['start']:>9.2f} {p['start'] / f['start']:>6.2f}")
    print(f"{'resident memory after start-up (MB)':<44} {p['rss']:>9.0f} {f['rss']:>9.0f} {p['rss'] / f['rss']:>6.2f}")
    print(f"{f'table refresh through gradio_client, {bench} (ms)':<44} {1000 * p['refresh']:>9.0f} "
          f"{1000 * f['refresh']:>9.0f} {p['refresh'] / f['refresh']:>6.2f}")
