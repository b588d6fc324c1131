"""Times MedReaMM building and scoring at the paper's size (625 cases) and 100x larger.

For each size: generate a synthetic raw release and a prediction file, then run each phase in its own
process (so peak memory is per phase): build the Hub folder, read the prediction file with plain
`json.loads` (the baseline), validate it, and score it (offline ICD coder, semantic matching with
the hashing stand-in embedder, 5,000 bootstrap resamples). Prints seconds, ms per case, the ratio to
the baseline read and peak RSS.

    .venv/bin/python bench/medreamm_scoring.py [--sizes 625 62500] [--workdir /tmp/medreamm-bench]
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


def make_release(folder: Path, cases: int, seed: int = 0) -> list[dict]:
    """Synthetic cases in the authors' format; images are a small shared pool of real PNGs."""
    from PIL import Image

    from leaderboard.matching.icd_offline import _load_index, find_gnuhealth_diseases_xml  # the coder's own data

    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "images").mkdir(exist_ok=True)
    for k in range(20):
        buffer = io.BytesIO()
        Image.new("RGB", (256, 256), (10 * k, 100, 200 - 5 * k)).save(buffer, format="PNG")
        (folder / "images" / f"{k}.png").write_bytes(buffer.getvalue())
    index = _load_index(find_gnuhealth_diseases_xml())
    titles = list(zip(index.codes, index.titles))[::5][:3000]
    gold = []
    with (folder / "cases.jsonl").open("w", encoding="utf-8") as handle:
        for c in range(cases):
            n_dx = rng.choice([1, 1, 1, 2, 2, 3, 4, 5])
            dx = rng.sample(titles, n_dx)
            record = {
                "pmid": f"C{c:07d}",
                "patient_info": {
                    "basic_info": "Synthetic record. " * 60,
                    "supplementary_info": [{"caption": "Synthetic image", "path": [f"images/{rng.randrange(20)}.png"]}
                                           for _ in range(rng.randint(1, 4))],
                    "standardized_diagnosis": [{"original_term": t, "code": code, "primary": i == 0}
                                               for i, (code, t) in enumerate(dx)],
                },
                "classification": rng.choice(["Cardiovascular", "Neoplastic", "Infectious", "Neurological"]),
                "year": rng.randint(2015, 2025),
            }
            handle.write(json.dumps(record) + "\n")
            gold.append({"id": record["pmid"], "titles": [t for _, t in dx]})
    return gold, [t for _, t in titles]


def make_predictions(path: Path, gold: list[dict], vocabulary: list[str], seed: int = 1) -> None:
    rng = random.Random(seed)
    with path.open("w", encoding="utf-8") as handle:
        for case in gold:
            preds = rng.sample(vocabulary, 10)
            if rng.random() < 0.4:
                preds[rng.randrange(10)] = case["titles"][0]
            if rng.random() < 0.1:
                preds[rng.randrange(10)] = case["titles"][0].lower() + "s"  # near miss: the fuzzy path
            handle.write(json.dumps({"id": case["id"], "diagnoses": preds}) + "\n")


def phase(name: str, data: Path, pred: Path) -> dict:
    start = time.perf_counter()
    if name == "read":
        with pred.open(encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle]
        count = len(rows)
    elif name == "validate":
        from leaderboard.scoring import validate_file

        report, _ = validate_file("medreamm", pred, data)
        count = len(report.valid)
    elif name == "score":
        from leaderboard.benchmark import ScoringContext
        from leaderboard.matching.embedder import HashingEmbedder
        from leaderboard.matching.icd import OfflineTitleCoder
        from leaderboard.scoring import score_file

        ctx = ScoringContext(icd_coder=OfflineTitleCoder(), embedder=HashingEmbedder(), keep_per_item=True)
        _, result = score_file("medreamm", pred, data, ctx)
        count = result.n_answered
        seconds = time.perf_counter() - start
        extra = _bootstrap_methods(result, ctx)
        return {"seconds": seconds, "items": count,
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra}
    else:
        raise SystemExit(f"unknown phase {name}")
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "items": count, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


def _bootstrap_methods(result, ctx) -> dict:
    """The scorer's bootstrap (auto: draws over distinct per-item rows) against resampling item indices,
    on the same per-item matrix and seed: seconds of each and the largest CI endpoint difference (pp)."""
    import numpy as np

    from leaderboard.metrics.bootstrap import bootstrap_means

    names = sorted(next(iter(result.per_item.values())))
    matrix = np.array([[row[n] for n in names] for row in result.per_item.values()], dtype=np.float64)
    out = {"distinct_rows": int(len(np.unique(matrix, axis=0)))}
    ends = {}
    for method in ("auto", "items"):
        t = time.perf_counter()
        draws = bootstrap_means(matrix, ctx.resamples, ctx.seed, method=method)
        out[f"bootstrap_{method}_s"] = time.perf_counter() - t
        ends[method] = np.quantile(draws, [0.025, 0.975], axis=0) * 100
    out["ci_endpoint_max_diff_pp"] = float(np.max(np.abs(ends["auto"] - ends["items"])))
    out["ci_width_median_pp"] = float(np.median(ends["items"][1] - ends["items"][0]))
    return out


def run_phase(name: str, data: Path, pred: Path) -> dict:
    out = subprocess.run([sys.executable, __file__, "--phase", name, "--data", str(data), "--pred", str(pred)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def build_phase(source: Path, out: Path) -> dict:
    start = time.perf_counter()
    out_json = subprocess.run(
        [sys.executable, "-c",
         "import json,resource,sys; sys.path.insert(0, %r);"
         "from leaderboard import registry; from dataset_builders.stage import build;"
         "build(registry.adapter('medreamm'), __import__('pathlib').Path(%r), __import__('pathlib').Path(%r), progress=False);"
         "print(json.dumps({'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))" % (str(ROOT), str(source), str(out))],
        capture_output=True, text=True, check=True)
    result = json.loads(out_json.stdout.strip().splitlines()[-1])
    result["seconds"] = time.perf_counter() - start
    return result


def ctx_resamples() -> int:
    from leaderboard.metrics.bootstrap import DEFAULT_RESAMPLES

    return DEFAULT_RESAMPLES


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[625, 62_500])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/medreamm-bench"))
    parser.add_argument("--phase")
    parser.add_argument("--data", type=Path)
    parser.add_argument("--pred", type=Path)
    args = parser.parse_args()
    if args.phase:
        print(json.dumps(phase(args.phase, args.data, args.pred)))
        return 0
    print(f"{'cases':>8} {'phase':>9} {'seconds':>9} {'ms/case':>9} {'x read':>8} {'peak MB':>9}")
    for size in args.sizes:
        work = args.workdir / str(size)
        gold, vocabulary = make_release(work / "raw", size)
        make_predictions(work / "preds.jsonl", gold, vocabulary)
        built = build_phase(work / "raw", work / "hub")
        rows = {"build": built}
        for name in ("read", "validate", "score"):
            rows[name] = run_phase(name, work / "hub" / "medreamm", work / "preds.jsonl")
        base = rows["read"]["seconds"]
        for name, r in rows.items():
            print(f"{size:>8} {name:>9} {r['seconds']:>9.2f} {1000 * r['seconds'] / size:>9.3f} "
                  f"{r['seconds'] / base:>8.1f} {r['peak_mb']:>9.0f}")
        score = rows["score"]
        print(f"{size:>8} bootstrap ({ctx_resamples()} resamples, {score['distinct_rows']} distinct per-item rows): "
              f"pattern draws {score['bootstrap_auto_s']:.2f} s vs item draws {score['bootstrap_items_s']:.2f} s; "
              f"CI endpoints differ by at most {score['ci_endpoint_max_diff_pp']:.3f} pp (median CI width "
              f"{score['ci_width_median_pp']:.2f} pp)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
