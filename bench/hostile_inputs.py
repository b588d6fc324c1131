"""Time and peak memory to handle each hostile input of issues 13 and 25, each in its own process (so the peak
is that case's alone), beside a normal upload of the same benchmark measured in the same run (the floor); then
(issue 25) the two newest cases through the live Space's /submit while another client loads the page every
0.5 s: time to the verdict, that client's slowest page load against its own at-rest figure, and how much the
Space process grew (its VmRSS; the check runs in a child, upload_check.py).

    .venv/bin/python bench/hostile_inputs.py [--live-only | --offline-only]

Prints one row per case: what the user gets, wall time, peak RSS, and the ratio to the floor. docs/reliability.md's
Reliability table quotes these figures. Offline, each case runs the door's own check (`CheckJob.run`:
validation, hashes, hints, injection scan) in-process, then the scoring when accepted; a case over
OFFLINE_LIMIT_S is stopped and shown as such.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from forged_parquet import write_forged  # noqa: E402
from hostile.make_corpus import (CORPUS, all_cases, case_path, write_empty_objects_array,  # noqa: E402
                                 write_freeze_lines, write_million_lines)

OFFLINE_LIMIT_S = 300
LIVE_VERDICT_S = 90  # issue 25: each hostile upload gets a verdict within this
PAGE_LOAD_S = 2.0  # ... while another client's page loads stay under this
GROWTH_MB = 400  # ... and the Space process grows by less than this
FORGED_CHARS = 300_000_000


def write_blank_lines_response(path: Path) -> Path:
    """Issue 25's 6,032-byte Med-CMR line: a response of 2,000 x " \\n" froze the Space for 253 s (the injection
    scan's backtracking pattern, run on the request thread)."""
    Path(path).write_text(json.dumps({"id": "mcq-0", "response": " \n" * 2000}) + "\n", encoding="utf-8")
    return Path(path)

CHILD = """
import json, sys, time
def peak_mb():  # VmHWM: ru_maxrss would carry the parent's peak across exec
    return int([l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]) / 1000
from pathlib import Path
kind, path, data = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
from leaderboard.intake.run_settings import RunSettingsError, read_run_settings
key = None
if kind != "settings":  # imports and the answer key are loaded before the clock starts
    from leaderboard.scoring import registry
    from leaderboard.scoring.benchmark import ScoringContext
    from leaderboard.scoring.score_file import load_key, score_file
    from leaderboard.operations.upload_check import CheckJob
    key = load_key(registry.scorer(kind), data)
before = peak_mb()
start = time.perf_counter()
if kind == "settings":
    try:
        read_run_settings(path); said = "accepted"
    except RunSettingsError as exc:
        said = str(exc)
else:  # the door's check (what the Space's check child runs), then the scoring when accepted
    checked = CheckJob(kind, path, data, 200 * 10**6, key=key).run()
    errors = [l for l in checked.rendered.splitlines() if l.startswith("error")]  # file-level ones first
    said = "accepted" if checked.ok else next((l for l in errors if l.startswith("error: file")), None) or \
        (errors[0] if errors else checked.settings_error or checked.rendered)
    if checked.ok:
        said = "held for review" if checked.review else "accepted"
        score_file(kind, path, data, ScoringContext(resamples=0), key=key)
        said += " and scored"
print(json.dumps({"said": said[:70], "seconds": time.perf_counter() - start,
                  "peak_mb": peak_mb(), "added_mb": peak_mb() - before}))
"""


def measure(kind: str, path: Path, data: Path) -> dict:
    try:
        done = subprocess.run([sys.executable, "-c", CHILD, kind, str(path), str(data)], cwd=ROOT,
                              capture_output=True, text=True, timeout=OFFLINE_LIMIT_S)
    except subprocess.TimeoutExpired:
        return {"said": f"STOPPED after the bench's {OFFLINE_LIMIT_S} s limit", "seconds": float(OFFLINE_LIMIT_S),
                "peak_mb": float("nan"), "added_mb": float("nan")}
    if done.returncode != 0:
        return {"said": f"CRASH {done.stderr.strip().splitlines()[-1][:60]}", "seconds": float("nan"),
                "peak_mb": float("nan"), "added_mb": float("nan")}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    from dataset_builders.stage import build
    from leaderboard.scoring import registry

    work = Path(tempfile.mkdtemp(prefix="hostile-bench-"))
    for name in ("medreamm", "medcmr"):
        build(registry.adapter(name), ROOT / "benchmarks" / name / "sample", work / "hub", progress=False)
    blank = write_blank_lines_response(work / "blank_lines_response.jsonl")
    forged = write_forged(work / "forged_footer.parquet", FORGED_CHARS)
    print(f"issue 25 cases: {blank.stat().st_size:,}-byte Med-CMR line; {forged.stat().st_size:,}-byte Parquet, one "
          f"{FORGED_CHARS / 1e6:.0f} MB zstd string, footer sizes rewritten to 100", flush=True)
    status = 0
    if "--offline-only" not in sys.argv:
        status = live(work, [("Med-CMR line of 2,000 x ' \\n' (6 kB)", "medcmr", blank),
                             (f"Parquet forged footer ({forged.stat().st_size / 1e3:.0f} kB, {FORGED_CHARS / 1e6:.0f} MB "
                              "string)", "medreamm", forged)])
    if "--live-only" in sys.argv:
        return status
    corpus = {c.name: case_path(CORPUS, c) for c in all_cases()}
    deep = work / "deep.meta.json"
    deep.write_text('{"protocol": ' + "[" * 100_000 + "]" * 100_000 + "}")
    cases = [
        ("floor: a normal Med-CMR file", "medcmr", corpus["valid.csv"]),
        ("freeze lines: 21 x 'answer' + 10^5 spaces", "medcmr", write_freeze_lines(work / "freeze.jsonl")),
        ("floor: a normal MedReaMM file", "medreamm", corpus["bom.jsonl"]),
        ("Parquet dictionary bomb (930 B -> 3 GB)", "medreamm", corpus["dictionary_bomb.parquet"]),
        ("Parquet 1,000,001 rows (3.5 kB)", "medreamm", corpus["too_many_rows.parquet"]),
        ("Parquet out-of-range date32", "medreamm", corpus["date32_out_of_range.parquet"]),
        ("Parquet nested struct column", "medreamm", corpus["nested_struct.parquet"]),
        ("JSON array [{},{},...] of 25 MB", "medreamm", write_empty_objects_array(work / "empty.json")),
        ("10^6 JSONL lines (49 MB)", "medreamm", write_million_lines(work / "million.jsonl")),
        ("run settings nested 10^5 deep", "settings", deep),
        ("Med-CMR line of 2,000 x ' \\n' (6 kB)", "medcmr", blank),
        ("Parquet forged footer, 300 MB string", "medreamm", forged),
    ]
    rows, floor = [], None
    print(f"{'case':44} {'seconds':>8} {'peak MB':>8} {'+MB':>6} {'x floor':>8}  user gets")
    for label, kind, path in cases:
        figures = measure(kind, path, work / "hub" / kind)
        if label.startswith("floor"):
            floor = figures
        ratio = figures["seconds"] / floor["seconds"] if floor else float("nan")
        print(f"{label:44} {figures['seconds']:8.2f} {figures['peak_mb']:8.0f} {figures['added_mb']:6.0f} {ratio:8.1f}  "
              f"{figures['said']}", flush=True)
        rows.append({"case": label, **figures})
    (work / "figures.json").write_text(json.dumps(rows, indent=1))
    print(f"(seconds: the door's check (+ score when accepted), imports and answer key loaded before the clock; peak "
          f"MB: the process's max RSS; +MB: above what imports and the key took; {work})")
    return status


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as handle:
        return int(next(l for l in handle if l.startswith("VmRSS")).split()[1]) / 1000


def live(work: Path, cases: list[tuple[str, str, Path]]) -> int:
    """Each case through the live Space's /submit while another client loads the page every 0.5 s."""
    import threading
    import urllib.request

    from gradio_client import Client
    from reliability_helpers import submit_form
    from space_server import SpaceServer

    def page_load() -> float:
        start = time.perf_counter()
        for url in (server.url, server.url + "gradio_api/info"):
            with urllib.request.urlopen(url, timeout=120) as response:
                response.read()
        return time.perf_counter() - start

    server = SpaceServer(work / "hub", work / "store", work / "space.log",
                         env={"GRADIO_TEMP_DIR": str(work / "gradio"), "LEADERBOARD_QUOTA": "50"})
    failed = 0
    try:
        client = Client(server.url, verbose=False)
        client.predict(*submit_form("medcmr", "warm-up", case_path(CORPUS, next(c for c in all_cases()
                                                                                   if c.name == "valid.csv"))),
                       api_name="/submit")  # starts a check child: its start-up is not a case's
        rest = sorted(page_load() for _ in range(10))
        print(f"\nlive Space: another client's page load at rest: median {rest[5]:.2f} s, max {rest[-1]:.2f} s "
              f"(bound {PAGE_LOAD_S} s); checks limited to the defaults (LEADERBOARD_CHECK_SECONDS / _MEMORY_MB)")
        print(f"{'case':52} {'verdict s':>9} {'page max s':>10} {'RSS +MB':>8} {'met':>4}  the Space said")
        for label, benchmark, path in cases:
            base = _rss_mb(server.process.pid)
            loads, done, peak = [], threading.Event(), [base]

            def other_client():
                while not done.is_set():
                    try:
                        loads.append(page_load())
                    except OSError:
                        loads.append(float("inf"))
                    peak.append(_rss_mb(server.process.pid))
                    done.wait(0.5)

            watcher = threading.Thread(target=other_client)
            watcher.start()
            start = time.perf_counter()
            message, report, *_ = Client(server.url, verbose=False).predict(
                *submit_form(benchmark, f"hostile {path.stem}", path), api_name="/submit")
            verdict = time.perf_counter() - start
            done.set()
            watcher.join()
            peak.append(_rss_mb(server.process.pid))
            grown = max(peak) - base
            met = verdict < LIVE_VERDICT_S and max(loads) < PAGE_LOAD_S and grown < GROWTH_MB
            failed += not met
            said = " ".join((message or "").replace("*", "").split())[:110]
            print(f"{label:52} {verdict:9.1f} {max(loads):10.2f} {grown:8.0f} {'yes' if met else 'NO':>4}  {said}",
                  flush=True)
        print(f"(targets: verdict < {LIVE_VERDICT_S} s, page load < {PAGE_LOAD_S} s, Space RSS growth < {GROWTH_MB} MB; "
              f"{len(loads)} page loads during the last case)")
    finally:
        server.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
