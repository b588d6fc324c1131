"""Time and peak memory to handle each hostile input of issue 13, each in its own process (so the peak is
that case's alone), beside a normal upload of the same benchmark measured in the same run (the floor).

    .venv/bin/python bench/hostile_inputs.py

Prints one row per case: what the user gets, wall time, peak RSS, and the ratio to the floor. The README's
Reliability table quotes these figures.
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

from hostile.make_corpus import (CORPUS, all_cases, case_path, write_empty_objects_array,  # noqa: E402
                                 write_freeze_lines, write_million_lines)

CHILD = """
import json, sys, time
def peak_mb():  # VmHWM: ru_maxrss would carry the parent's peak across exec
    return int([l for l in open("/proc/self/status") if l.startswith("VmHWM")][0].split()[1]) / 1000
from pathlib import Path
kind, path, data = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
from leaderboard.run_settings import RunSettingsError, read_run_settings
key = None
if kind != "settings":  # imports and the answer key are loaded before the clock starts
    from leaderboard import registry
    from leaderboard.benchmark import ScoringContext
    from leaderboard.scoring import load_key, score_file, validate_file
    key = load_key(registry.scorer(kind), data)
before = peak_mb()
start = time.perf_counter()
if kind == "settings":
    try:
        read_run_settings(path); said = "accepted"
    except RunSettingsError as exc:
        said = str(exc)
else:
    report, key = validate_file(kind, path, data, key=key)
    said = "accepted" if report.ok else next(i.message for i in sorted(report.issues, key=lambda i: i.line is not None)
                                             if i.severity == "error")
    if report.ok:
        score_file(kind, path, data, ScoringContext(resamples=0), key=key, report=report)
        said = "accepted and scored"
print(json.dumps({"said": said[:70], "seconds": time.perf_counter() - start,
                  "peak_mb": peak_mb(), "added_mb": peak_mb() - before}))
"""


def measure(kind: str, path: Path, data: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", CHILD, kind, str(path), str(data)], cwd=ROOT, capture_output=True,
                          text=True, timeout=900)
    if done.returncode != 0:
        return {"said": f"CRASH {done.stderr.strip().splitlines()[-1][:60]}", "seconds": float("nan"),
                "peak_mb": float("nan"), "added_mb": float("nan")}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> int:
    from dataset_builders.stage import build
    from leaderboard import registry

    work = Path(tempfile.mkdtemp(prefix="hostile-bench-"))
    for name in ("medreamm", "medcmr"):
        build(registry.adapter(name), ROOT / "benchmarks" / name / "sample", work / "hub", progress=False)
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
    print(f"(seconds: validate (+ score when accepted), imports and answer key loaded before the clock; peak MB: the "
          f"process's max RSS; +MB: above what imports and the key took; {work})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
