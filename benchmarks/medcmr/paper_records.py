"""Regenerates `submissions/medcmr/paper/*.json` from the Med-CMR paper's Tables 2 and 3 (18 models).

Run from the project root: `python benchmarks/medcmr/paper_records.py [--results DIR]`.
The CSVs are transcribed as published (`benchmarks/medcmr/paper_tables/`); suspect cells are kept
and flagged (see that folder's README, "Irregularities"), never corrected. The paper reports no human
baseline, so there is no `human/` folder.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the project root
sys.path.insert(0, str(ROOT))

from benchmarks.medcmr.taxonomy import MEDICAL_INTELLIGENCE, TASKS  # noqa: E402
from benchmarks.medcmr.scorer import JUDGE, OPEN_CRITERIA, OPEN_WEIGHTS  # noqa: E402
from leaderboard.scoring.result import ModelInfo, Result  # noqa: E402

DEFAULT_RESULTS = Path(__file__).resolve().parent / "paper_tables"  # the published tables as CSV
OUT = ROOT / "submissions" / "medcmr" / "paper"
CREATED = "2026-04-01T00:00:00+00:00"  # arXiv 2512.00818v2
N_MCQ, N_OPEN = 16_655, 3_998

# name: (access, domain, params in billions or None, reasoning or None when the paper does not say)
MODELS = {
    "GPT-5": ("proprietary", "general", None, True),
    "Gemini-2.5-Pro": ("proprietary", "general", None, True),
    "Medgemma-4B": ("open", "medical", 4, None),
    "Lingshu-7B": ("open", "medical", 7, None),
    "Gemma3-4B": ("open", "general", 4, None),
    "Qwen2.5-VL-7B": ("open", "general", 7, None),
    "InternVL3.5-8B": ("open", "general", 8, None),
    "Qwen3-VL-8B": ("open", "general", 8, None),
    "Medgemma-27B": ("open", "medical", 27, None),
    "Lingshu-32B": ("open", "medical", 32, None),
    "Gemma3-27B": ("open", "general", 27, None),
    "Qwen2.5-VL-32B": ("open", "general", 32, None),
    "Qwen2.5-VL-72B": ("open", "general", 72, None),
    "InternVL3.5-38B": ("open", "general", 38, None),
    "Qwen3-VL-30B-A3B": ("open", "general", 30, None),
    "Qwen3-VL-32B": ("open", "general", 32, None),
    "InternVL3.5-241B-A28B": ("open", "general", 241, None),
    "Qwen3-VL-235B-A22B": ("open", "general", 235, None),
}
FILTER_MODELS = {"Lingshu-7B", "Qwen2.5-VL-7B"}  # used to drop items all three filter models got right

FILTER_FLAG = ("Adversarial filter model: items answered correctly by all three filter models (Lingshu-7B, "
               "Qwen2.5-VL-7B, LLaVA-Med-v1.5-Mistral-7B) were removed, so its MCQ scores are biased downward.")
# From the results README ("Irregularities").
FLAGS = {
    "Gemini-2.5-Pro": {"open_all": "Reported 45.98 (also in the abstract); (Con + Coh + 4 VA + 4 GT)/10 of the "
                                   "published criteria gives 45.88."},
    "Qwen3-VL-32B": {"open_all": "Reported 39.37, identical to the Qwen3-VL-30B-A3B row; the formula gives 40.23: "
                                 "probable copy error."},
    **{name: {"mcq_all": FILTER_FLAG} for name in FILTER_MODELS},
}
NOTES = {
    "Gemini-2.5-Pro": ["The text calls it 'second on each subtask', but Qwen3-VL-235B-A22B is higher on TP "
                       "(55.06 vs 52.08)."],
    "GPT-5": ["The text calls it strongest in every category; true for the MCQ columns only (Gemini-2.5-Pro has "
              "higher Con/Coh, InternVL3.5-241B-A28B higher VA)."],
    "Qwen3-VL-235B-A22B": ["The abstract calls it the leading open-source model; on the open-ended score "
                           "InternVL3.5-241B-A28B (47.88) is higher."],
    "Gemma3-4B": ["The text names it 'Gemma-4B'."],
    "Gemma3-27B": ["The text names it 'Gemma-27B'."],
}


def slug(name: str) -> str:
    return "".join(ch.lower() if ch.isalnum() else "-" for ch in name).strip("-")


def paper_protocol(group: str, row: int, name: str) -> dict:
    return {
        "source": "Med-CMR paper, Tables 2 and 3 (arXiv 2512.00818v2)",
        "size_group": group,
        "table_row": row,
        "judge": {"model": JUDGE, "weights": OPEN_WEIGHTS},
        "letter_rule": "authors' regular expression (unpublished)",
        "serving": "vLLM" if MODELS[name][0] == "open" else "official API",
        "filter_model": name in FILTER_MODELS,
        "comparable_to_paper": True,
        "not_comparable_because": [],
    }


def read_csv(path: Path) -> dict[str, dict]:
    with path.open(encoding="utf-8") as handle:
        return {row["model"]: row for row in csv.DictReader(handle)}


def metrics_of(main: dict, intelligence: dict) -> dict[str, float]:
    metrics = {"mcq_all": float(main["mcq_all"])}
    metrics.update({f"mcq_{t}": float(main[f"mcq_{t}"]) for t in TASKS})
    metrics["mcq_macro"] = round(sum(metrics[f"mcq_{t}"] for t in TASKS) / len(TASKS), 2)
    metrics.update({f"mcq_{c}": float(intelligence[c]) for c in MEDICAL_INTELLIGENCE})
    metrics.update({f"open_{c}": float(main[f"open_{c}"]) for c in OPEN_CRITERIA})
    metrics["open_all"] = float(main["open_all"])
    return metrics


def strata_of(metrics: dict[str, float], flag: str | None = None) -> dict[str, dict]:
    """The per-task (Table 2) and per-category (Table 3) accuracies as stratum cells, shaped like a scored
    submission's (`mcq_all` within the cell); the paper gives no per-cell item counts (n = None). `flag`: a
    note every MCQ cell of the row carries (the adversarial filter models)."""
    def cell(value):
        return {"n": None, "metrics": {"mcq_all": value}, **({"flags": {"mcq_all": flag}} if flag else {})}
    return {"task": {t: cell(metrics[f"mcq_{t}"]) for t in TASKS},
            "medical_intelligence": {c: cell(metrics[f"mcq_{c}"]) for c in MEDICAL_INTELLIGENCE}}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    args = parser.parse_args()
    main_rows = read_csv(args.results / "table2_main_results.csv")
    mi_rows = read_csv(args.results / "table3_medical_intelligence.csv")
    if set(main_rows) != set(MODELS) or set(mi_rows) != set(MODELS):
        raise SystemExit("Tables 2/3 models differ from MODELS; update this script")
    OUT.mkdir(parents=True, exist_ok=True)
    for rank, (name, row) in enumerate(main_rows.items(), start=1):
        access, domain, params, reasoning = MODELS[name]
        notes = ["Published values as transcribed; mcq_macro (mean of the 7 task columns) derived here, non-paper.",
                 "mcq_CDS ... mcq_TRE are Table 3's columns (metric unnamed in the paper; behaves as MCQ accuracy).",
                 "Coverage and parse failures not reported."] + NOTES.get(name, [])
        if name in FILTER_MODELS:
            notes.append(FILTER_FLAG)
        metrics = metrics_of(row, mi_rows[name])
        result = Result(
            benchmark="medcmr", source="paper",
            model=ModelInfo(name=name, access=access, domain=domain, params_b=params, reasoning=reasoning,
                            input_modality="multimodal"),
            metrics=metrics, strata=strata_of(metrics, FILTER_FLAG if name in FILTER_MODELS else None), n_items=N_MCQ + N_OPEN, n_answered=None, parse_failures=None,
            protocol=paper_protocol(row["group"], rank, name), notes=notes, cell_flags=FLAGS.get(name, {}),
            created_at=CREATED,
        )
        result.write(OUT / f"{slug(name)}.json")
    print(f"wrote {len(main_rows)} records to {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
