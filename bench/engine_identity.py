"""Every number of every benchmark, dumped and compared across two checkouts (issue 26: the aggregation
engine must leave every metric, CI endpoint, stratum cell and per-item score unchanged).

    .venv/bin/python bench/engine_identity.py prepare --workdir /tmp/engine-id        # samples + synthetic data
                                                                  # (--only xpcr: one benchmark's sets)
    git archive <old commit> | tar -x -C /tmp/base
    .venv/bin/python bench/engine_identity.py dump --root /tmp/base --workdir /tmp/engine-id --out /tmp/base.json
    .venv/bin/python bench/engine_identity.py dump --root . --workdir /tmp/engine-id --out /tmp/head.json
    .venv/bin/python bench/engine_identity.py compare /tmp/base.json /tmp/head.json

Data: each benchmark's shipped sample scored with its `submissions/<name>/example_predictions.jsonl`,
plus larger synthetic releases of X-PCR, Med-CMR and MedReaMM made by the scale benches' generators
(offline ICD coder, hashing stand-in embedder, no judge: judged metrics stay pending on both sides).
X-PCR also gets its sample with gaps (`sample-partial`: missing rows, confidences and ablated runs).
Each side scores in its own process with its own code, its default resample count, per-item rows kept.
`compare` prints every difference; CIs are compared separately, since the one allowed change is the
unified CI scheme (recorded in protocol.bootstrap).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ("medreamm", "clinmm", "medrealmm", "medcmr", "xpcr")
SYNTHETIC = {"xpcr": {"images": 1_500, "items": 10_000}, "medcmr": {"mcq": 3_000, "open": 300},
             "medreamm": {"cases": 2_000}}


def _partial_xpcr(source: Path, out: Path) -> Path:
    """The X-PCR sample predictions with gaps, so the pending, missing-counts-as-wrong and partial-coverage
    paths are scored too: every third row dropped, every fourth row's confidence removed, and the first
    ablated item's runs dropped entirely (its group and modality's MCS pending, the others' gaps wrong)."""
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    first = next(r["id"] for r in rows if "/without-" in r["id"]).split("/without-")[0] + "/without-"
    kept = []
    for k, row in enumerate(rows):
        if k % 3 == 2 or row["id"].startswith(first):
            continue
        if k % 4 == 1:
            row.pop("confidence", None)
        kept.append(json.dumps(row))
    out.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return out


def prepare(work: Path, only: tuple[str, ...] = BENCHMARKS) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "bench"), str(ROOT / "tests")]
    from dataset_builders.stage import build
    from leaderboard.scoring import registry

    work.mkdir(parents=True, exist_ok=True)
    sets = {}
    for name in only:
        build(registry.adapter(name), registry.get(name).sample_dir, work / "samples", progress=False)
        sets[f"{name}/sample"] = {"benchmark": name, "data": str(work / "samples" / name),
                                  "pred": str(ROOT / "submissions" / name / "example_predictions.jsonl")}
    if "xpcr" in only:
        sets["xpcr/sample-partial"] = {"benchmark": "xpcr", "data": str(work / "samples" / "xpcr"),
                                       "pred": str(_partial_xpcr(ROOT / "submissions" / "xpcr" / "example_predictions.jsonl",
                                                                 work / "xpcr-partial.jsonl"))}
        _synthetic_xpcr(work, sets)
    if "medcmr" in only:
        _synthetic_medcmr(work, sets)
    if "medreamm" in only:
        _synthetic_medreamm(work, sets)
    (work / "sets.json").write_text(json.dumps(sets, indent=1))
    print(f"{len(sets)} data sets in {work}")


def _synthetic_xpcr(work: Path, sets: dict) -> None:
    from dataset_builders.stage import build
    from leaderboard.scoring import registry
    import xpcr_scale

    folder = work / "xpcr"
    release = xpcr_scale.make_release(folder / "raw", SYNTHETIC["xpcr"]["images"], SYNTHETIC["xpcr"]["items"])
    preds = xpcr_scale.make_predictions(folder, release)
    build(registry.adapter("xpcr"), folder / "raw", folder / "hub", progress=False)
    for kind, path in preds.items():
        sets[f"xpcr/synthetic-{kind}"] = {"benchmark": "xpcr", "data": str(folder / "hub" / "xpcr"), "pred": str(path)}


def _synthetic_medcmr(work: Path, sets: dict) -> None:
    from dataset_builders.stage import build
    from leaderboard.scoring import registry
    import medcmr_scale

    folder = work / "medcmr"
    gold = medcmr_scale.make_release(folder / "raw", SYNTHETIC["medcmr"]["mcq"], SYNTHETIC["medcmr"]["open"])
    medcmr_scale.make_predictions(folder / "preds.jsonl", gold)
    build(registry.adapter("medcmr"), folder / "raw", folder / "hub", progress=False)
    sets["medcmr/synthetic"] = {"benchmark": "medcmr", "data": str(folder / "hub" / "medcmr"),
                                "pred": str(folder / "preds.jsonl")}


def _synthetic_medreamm(work: Path, sets: dict) -> None:
    from dataset_builders.stage import build
    from leaderboard.scoring import registry
    import medreamm_scoring

    folder = work / "medreamm"
    gold, vocabulary = medreamm_scoring.make_release(folder / "raw", SYNTHETIC["medreamm"]["cases"])
    medreamm_scoring.make_predictions(folder / "preds.jsonl", gold, vocabulary)
    build(registry.adapter("medreamm"), folder / "raw", folder / "hub", progress=False)
    sets["medreamm/synthetic"] = {"benchmark": "medreamm", "data": str(folder / "hub" / "medreamm"),
                                  "pred": str(folder / "preds.jsonl")}


CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.matching.embedder import HashingEmbedder
from leaderboard.scoring.matching.icd import OfflineTitleCoder
from leaderboard.scoring.score_file import score_file
sets = json.load(open(sys.argv[2]))
out = {}
for label, s in sets.items():
    ctx = ScoringContext(keep_per_item=True)
    if s["benchmark"] == "medreamm":
        ctx.provide("icd_coder", OfflineTitleCoder())
        ctx.provide("embedder", HashingEmbedder())
    _, r = score_file(s["benchmark"], s["pred"], s["data"], ctx)
    public = r.to_public_dict()
    public.pop("created_at", None)
    d = r.disclosure  # the item set behind every number, as key -> sorted item positions per universe
    item_sets = [{"|".join(k): [int(i) for i in c.masks[:, j].nonzero()[0]] for j, k in enumerate(c.keys)}
                 for c in d.cells]
    disclosure = {"cells": item_sets, "sources": [{"|".join(k): v for k, v in c.sources.items()} for c in d.cells],
                  "derived": d.derived, "metric_sources": d.sources, "item_span": d.item_span,
                  "bounds": {k: list(v) for k, v in d.bounds.items()}, "chance": d.chance}
    out[label] = {"metrics": r.metrics, "ci": r.ci, "strata": r.strata, "per_item": r.per_item,
                  "pending": r.pending, "metric_n": r.metric_n, "n_items": r.n_items, "n_answered": r.n_answered,
                  "parse_failures": r.parse_failures, "protocol": r.protocol, "public": public,
                  "disclosure": disclosure}
json.dump(out, open(sys.argv[3], "w"), sort_keys=True, default=float)
"""


def dump(root: Path, work: Path, out: Path) -> None:
    subprocess.run([sys.executable, "-c", CHILD, str(root), str(work / "sets.json"), str(out)], check=True)
    print(f"wrote {out}")


def _strip_cell_ci(strata: dict) -> tuple[dict, dict]:
    """(strata without cell CIs, the cell CIs)."""
    plain, cis = {}, {}
    for stratum, cells in (strata or {}).items():
        plain[stratum] = {}
        for value, cell in cells.items():
            cell = dict(cell)
            if "ci" in cell:
                cis[f"{stratum}/{value}"] = cell.pop("ci")
            plain[stratum][value] = cell
    return plain, cis


def compare(base_path: Path, head_path: Path) -> int:
    base, head = json.loads(base_path.read_text()), json.loads(head_path.read_text())
    failures = 0
    for label in sorted(set(base) | set(head)):
        a, b = base.get(label), head.get(label)
        if a is None or b is None:
            print(f"{label}: only in {'head' if a is None else 'base'}")
            failures += 1
            continue
        strata_a, cell_ci_a = _strip_cell_ci(a["strata"])
        strata_b, cell_ci_b = _strip_cell_ci(b["strata"])
        protocol_a = {k: v for k, v in a["protocol"].items() if k != "bootstrap"}
        protocol_b = {k: v for k, v in b["protocol"].items() if k != "bootstrap"}
        parts = {"metrics": (a["metrics"], b["metrics"]), "strata": (strata_a, strata_b),
                 "per_item": (a["per_item"], b["per_item"]), "pending": (a["pending"], b["pending"]),
                 "metric_n": (a["metric_n"], b["metric_n"]),
                 "counts": ([a["n_items"], a["n_answered"], a["parse_failures"]],
                            [b["n_items"], b["n_answered"], b["parse_failures"]]),
                 "protocol (without bootstrap)": (protocol_a, protocol_b)}
        if "disclosure" in a and "disclosure" in b:  # item sets, derived, sources (dumps before this field: skipped)
            parts["item sets"] = (a["disclosure"], b["disclosure"])
        different = [part for part, (x, y) in parts.items() if x != y]
        same_scheme = a["protocol"].get("bootstrap") == b["protocol"].get("bootstrap")
        ci_same = a["ci"] == b["ci"] and cell_ci_a == cell_ci_b
        note = "CIs identical" if ci_same else (
            "CIs differ: " + ("SAME scheme -> a real change" if same_scheme else
                              f"scheme changed {a['protocol'].get('bootstrap')} -> {b['protocol'].get('bootstrap')}"))
        if ci_same or not same_scheme:
            pass
        else:
            different.append("ci")
        failures += bool(different)
        n_numbers = (len(a["metrics"]) + sum(len(c) for c in a["strata"].values())
                     + sum(len(v) for v in (a["per_item"] or {}).values()))
        print(f"{label}: {'DIFFERENT ' + ', '.join(different) if different else 'identical'} "
              f"({n_numbers:,} numbers); {note}; public record {'same' if a['public'] == b['public'] else 'changed'}")
    return 1 if failures else 0


def main() -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--workdir", type=Path, required=True)
    p.add_argument("--only", nargs="+", choices=BENCHMARKS, default=list(BENCHMARKS),
                   help="benchmarks to prepare (default: all)")
    d = sub.add_parser("dump")
    d.add_argument("--root", type=Path, default=ROOT)
    d.add_argument("--workdir", type=Path, required=True)
    d.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("compare")
    c.add_argument("base", type=Path)
    c.add_argument("head", type=Path)
    args = parser.parse_args()
    if args.command == "prepare":
        prepare(args.workdir, tuple(args.only))
    elif args.command == "dump":
        dump(args.root.resolve(), args.workdir, args.out)
    else:
        return compare(args.base, args.head)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
