"""Scores the same MedReaMM files with two checkouts of the project and checks that the results are
identical: every metric, CI endpoint, stratum cell and per-item score (exact float equality), and the
protocol. Used to show a speed-up changed no number (issue 15: compared at 62,500 cases).

    git archive <old commit> | tar -x -C /tmp/base
    .venv/bin/python bench/medreamm_identical.py --base /tmp/base --data DIR/hub/medreamm --pred DIR/preds.jsonl

Each side scores in its own process with its own code (offline ICD coder; hashing stand-in embedder;
5,000 resamples; per-item rows kept).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.matching.embedder import HashingEmbedder
from leaderboard.scoring.matching.icd import OfflineTitleCoder
from leaderboard.scoring.score_file import score_file
_, r = score_file("medreamm", sys.argv[2], sys.argv[3],
                  ScoringContext(icd_coder=OfflineTitleCoder(), embedder=HashingEmbedder(), keep_per_item=True))
json.dump({"metrics": r.metrics, "ci": r.ci, "strata": r.strata, "per_item": r.per_item, "pending": r.pending,
           "n_items": r.n_items, "n_answered": r.n_answered, "parse_failures": r.parse_failures,
           "protocol": r.protocol}, open(sys.argv[4], "w"), sort_keys=True)
"""


def score(root: Path, data: Path, pred: Path, out: Path) -> dict:
    subprocess.run([sys.executable, "-c", CHILD, str(root), str(pred), str(data), str(out)], check=True)
    return json.loads(out.read_text())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=Path, required=True, help="a checkout of the older code")
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--pred", type=Path, required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = score(args.base, args.data, args.pred, Path(tmp) / "base.json")
        head = score(ROOT, args.data, args.pred, Path(tmp) / "head.json")
    print(f"{head['n_items']:,} cases, {len(head['metrics'])} metrics, {len(head['per_item']):,} per-item rows")
    different = [part for part in base if base[part] != head[part]]
    for part in different:
        print(f"DIFFERENT: {part}")
    if not different:
        print("identical: metrics, CIs, strata, per-item scores, pending, counts and protocol "
              "(exact equality of every float)")
    return 1 if different else 0


if __name__ == "__main__":
    raise SystemExit(main())
