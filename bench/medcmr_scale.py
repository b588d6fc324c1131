"""Times Med-CMR building and scoring at the paper's full size (16,655 MCQs + 3,998 open-ended items).

Generates a synthetic raw release in the authors' layout (MCQs as one JSON array, open-ended items as
JSONL, one tiny distinct PNG per item; task, category, modality and organ-system shares follow the
paper's tables and the spec's inferred task sizes) and a full prediction file (MCQ responses in mixed
styles, some unparseable, ~5% of items missing; open-ended free text). Then runs each phase in its own
process, so peak RSS is per phase: build the Hub folder, read the prediction file with
`pyarrow.json.read_json` (the baseline), validate it, and score it (5,000 bootstrap resamples).

    .venv/bin/python bench/medcmr_scale.py [--mcq 16655 --open 3998] [--workdir /tmp/medcmr-bench]
"""
from __future__ import annotations

import argparse
import io
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TASK_SIZES = {"SOD": 1023, "FDD": 711, "SU": 709, "TP": 336, "CR": 1922, "LTG": 11583, "MSI": 371}  # spec 3.1 [I]
MI_SHARES = {"CDS": 6.6, "DX": 55.8, "PA": 27.7, "PRA": 0.45, "SEE": 4.6, "TRE": 4.9}  # results README [I]
STYLES = ["Answer: {x}", "{x}", "The answer is ({x}).", "**{x}**", "{x}. " + "The finding supports this option. " * 6,
          "Looking at the image, the lesion is subtle. " * 4 + "Final answer: {x}", "A or B", "I cannot tell."]


def tiny_png(k: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (k % 256, (k // 256) % 256, 77)).save(buffer, format="PNG")
    return buffer.getvalue()


def make_release(folder: Path, n_mcq: int, n_open: int, seed: int = 0) -> list[tuple[str, str | None]]:
    """Writes the release; returns (id, gold letter or None) per item."""
    from benchmarks.medcmr.taxonomy import MODALITIES, ORGAN_SYSTEMS

    rng = random.Random(seed)
    (folder / "imgs").mkdir(parents=True, exist_ok=True)
    scale = n_mcq / sum(TASK_SIZES.values())
    tasks = [t for t, n in TASK_SIZES.items() for _ in range(round(n * scale))]
    tasks = (tasks + ["LTG"] * n_mcq)[:n_mcq]
    modality_weights = [5662, 4662, 3441, 2593, 2017, 896, 764, 649, 436, 225, 54, 23]
    organ_weights = [3843, 3218, 2545, 2266, 1848, 1824, 1821, 1274, 842, 813, 360]
    gold, records = [], []
    for k in range(n_mcq + n_open):
        (folder / "imgs" / f"{k}.png").write_bytes(tiny_png(k))
        modality = rng.choices(MODALITIES, modality_weights, k=2 if rng.random() < 0.037 else 1)
        record = {"index": k, "image_path": f"imgs/{k}.png", "question": f"Synthetic question {k}: which option fits?",
                  "visual_description": "Synthetic description of the image. " * 3, "subtype": "synthetic",
                  "organ system": rng.choices(ORGAN_SYSTEMS, organ_weights)[0],
                  "modality": list(dict.fromkeys(modality))}
        if k < n_mcq:
            letter = "ABCDE"[rng.randrange(5)]
            record.update({c: f"Option {c} for item {k}" for c in "ABCDE"})
            record.update({"answer": letter, "task": tasks[k],
                           "question type": rng.choices(list(MI_SHARES), list(MI_SHARES.values()))[0]})
            gold.append((f"mcq-{k}", letter))
        else:
            record.update({"answer": "Synthetic reference answer text.", "task": rng.choice(list(TASK_SIZES))})
            gold.append((f"open-{k}", None))
        records.append(record)
    (folder / "mcq.json").write_text(json.dumps(records[:n_mcq], indent=1), encoding="utf-8")
    with (folder / "open_ended.jsonl").open("w", encoding="utf-8") as handle:
        for record in records[n_mcq:]:
            handle.write(json.dumps(record) + "\n")
    return gold


def make_predictions(path: Path, gold: list[tuple[str, str | None]], seed: int = 1) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for item_id, letter in gold:
            if rng.random() < 0.05:
                continue  # missing: counts as wrong
            if letter is None:
                handle.write(json.dumps({"id": item_id, "response": "The image shows a synthetic finding. " * 12}) + "\n")
                continue
            chosen = letter if rng.random() < 0.5 else "ABCDE"[rng.randrange(5)]
            handle.write(json.dumps({"id": item_id, "response": rng.choice(STYLES).format(x=chosen)}) + "\n")


def phase(name: str, data: Path, pred: Path) -> dict:
    start = time.perf_counter()
    if name == "read":
        import pyarrow.json as pa_json

        count = pa_json.read_json(pred).num_rows
    elif name == "validate":
        from leaderboard.scoring.score_file import validate_file

        report, _ = validate_file("medcmr", pred, data)
        count = report.n_valid
        extra = {"path": report.path}
    elif name == "score":
        from leaderboard.scoring.benchmark import ScoringContext
        from leaderboard.scoring.score_file import score_file

        _, result = score_file("medcmr", pred, data, ScoringContext())
        count = result.n_answered
        extra = {"mcq_all": result.metrics["mcq_all"], "parse_failures": result.parse_failures}
    else:
        raise SystemExit(f"unknown phase {name}")
    seconds = time.perf_counter() - start
    out = {"seconds": seconds, "items": count, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    if name != "read":
        out.update(extra)
    return out


def run_phase(name: str, data: Path, pred: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--phase", name, "--data", str(data), "--pred", str(pred)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def build_phase(source: Path, out: Path) -> dict:
    start = time.perf_counter()
    code = ("import json,resource,sys; sys.path.insert(0, %r);"
            "from pathlib import Path; from leaderboard.scoring import registry;"
            "from dataset_builders.stage import build;"
            "r = build(registry.adapter('medcmr'), Path(%r), Path(%r), progress=False);"
            "print(json.dumps({'rows': r.rows, 'mb': r.download_bytes / 1e6,"
            " 'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))") % (str(ROOT), str(source), str(out))
    result = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                       check=True).stdout.strip().splitlines()[-1])
    result["seconds"] = time.perf_counter() - start
    return result


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mcq", type=int, default=16_655)
    parser.add_argument("--open", type=int, default=3_998)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/medcmr-bench"))
    parser.add_argument("--phase")
    parser.add_argument("--data", type=Path)
    parser.add_argument("--pred", type=Path)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.data, args.pred)))
        return 0
    work = args.workdir
    start = time.perf_counter()
    gold = make_release(work / "raw", args.mcq, args.open)
    make_predictions(work / "preds.jsonl", gold)
    size = len(gold)
    print(f"generated {size:,} items ({args.mcq:,} MCQ + {args.open:,} open) and predictions "
          f"({(work / 'preds.jsonl').stat().st_size / 1e6:.1f} MB) in {time.perf_counter() - start:.1f} s")
    rows = {"build": build_phase(work / "raw", work / "hub")}
    print(f"built: {rows['build']['rows']}, {rows['build']['mb']:.1f} MB of Parquet")
    for name in ("read", "validate", "score"):
        rows[name] = run_phase(name, work / "hub" / "medcmr", work / "preds.jsonl")
    base = rows["read"]["seconds"]
    print(f"{'items':>7} {'phase':>9} {'seconds':>9} {'ms/item':>9} {'x read':>8} {'peak MB':>9}  notes")
    for name, r in rows.items():
        notes = {k: v for k, v in r.items() if k in ("path", "mcq_all", "parse_failures")}
        print(f"{size:>7} {name:>9} {r['seconds']:>9.2f} {1000 * r['seconds'] / size:>9.3f} "
              f"{r['seconds'] / base:>8.1f} {r['peak_mb']:>9.0f}  {notes or ''}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
