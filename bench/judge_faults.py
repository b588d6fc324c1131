"""A judge that hangs on every call: how long a 59-criterion MedRealMM score (the sample release) takes to
give up, with the default judge limits, and what it records.

    .venv/bin/python bench/judge_faults.py            # defaults (JUDGE_TIMEOUT 15 s, 3 attempts, stall 60 s)
    .venv/bin/python bench/judge_faults.py --flags --judge-timeout 2 --judge-stall 5   # any score flags

Runs `python -m leaderboard score` as users do, against tests/fake_openai_server.py scripted to hang (the
request is read, no byte of an answer is ever sent). Target (issue 33): <= 120 s with the defaults, with
"timeout" among the recorded failure kinds. Before issue 33 the same run took ~82 minutes (5 attempts x 120 s
per call at concurrency 8; measured in the issue, not re-run here).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

TARGET_SECONDS = 120.0
RESPONSE = "建议到皮肤科就诊，外用抗真菌药膏两周，保持患处干燥。"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--flags", nargs=argparse.REMAINDER, default=[], help="extra `score` flags")
    args = parser.parse_args()
    from dataset_builders.stage import build
    from fake_openai_server import FakeOpenAIServer
    from leaderboard.scoring import registry

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        build(registry.adapter("medrealmm"), ROOT / "benchmarks" / "medrealmm" / "sample", work / "hub", sample=True,
              progress=False)
        import pyarrow.parquet as pq

        table = pq.read_table(next((work / "hub" / "medrealmm").rglob("*.parquet")), columns=["id", "num_criteria"])
        criteria = sum(table.column("num_criteria").to_pylist())
        pred = work / "pred.jsonl"
        pred.write_text("".join(json.dumps({"id": i, "response": RESPONSE}, ensure_ascii=False) + "\n"
                                for i in table.column("id").to_pylist()), encoding="utf-8")
        env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "LEADERBOARD_"))}
        with FakeOpenAIServer() as server:
            server.script = ["hang"] * 100_000
            command = [sys.executable, "-m", "leaderboard", "score", "medrealmm", str(pred), "--data",
                       str(work / "hub" / "medrealmm"), "--judge-base-url", server.base_url, "--judge-model", "fake-judge",
                       "--cache-dir", str(work / "cache"), "--resamples", "0", "--quiet", "--json",
                       str(work / "result.json"), *args.flags]
            start = time.monotonic()
            done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
            elapsed = time.monotonic() - start
            requests = server.calls()
        if done.returncode != 0:
            print(done.stdout[-2000:], done.stderr[-2000:], file=sys.stderr)
            return 1
        result = json.loads((work / "result.json").read_text(encoding="utf-8"))
    failures = result["protocol"].get("judge_failures", {})
    kinds = failures.get("kinds", {})
    met = elapsed <= TARGET_SECONDS and "timeout" in kinds and result["metrics"].get("score_pct") is None
    print(f"hung judge, {criteria} criteria, flags {' '.join(args.flags) or '(defaults)'}")
    print(f"  wall time {elapsed:.1f} s (target <= {TARGET_SECONDS:.0f} s), {requests} HTTP requests sent")
    print(f"  judge_failures: {json.dumps(failures, ensure_ascii=False)}")
    print(f"  score_pct pending: {result['metrics'].get('score_pct') is None}")
    print(f"  target met: {met}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
