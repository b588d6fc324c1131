"""Regenerates `submissions/clinmm/paper/*.json` (one Result record per model, 15 models) and
`submissions/clinmm/pooled/all-models.json` (Figs. 3 and 7: per-specialty values pooled over the 15 models, a
record with `source: pooled`, shown in the breakdown views and never ranked) from ClinMM-Bench's published numbers.

Run from the project root: `python benchmarks/clinmm/paper_records.py [--results DIR]`.

The paper's figure and table bodies are absent from the source text; every number comes from the
Results prose describing Figs. 2a, 2b, 3, 5, 6 and 7, copied at the printed precision. Cells the text
does not state stay empty (None, listed in `pending`), never filled in: values one could derive (e.g.
complete error = 100 - complete - partial, or a model's value from a published delta) go to `notes`
with their arithmetic, not into `metrics`. Scales follow the scorer: diagnostic score 0-2, percentages
and fact metrics x100 (the paper prints fact metrics as fractions: 0.599 -> 59.9).
The paper reports no human baseline, so there is no `human/` folder.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the project root
sys.path.insert(0, str(ROOT))

from benchmarks.clinmm.scorer import PAPER_JUDGES, ClinMM  # noqa: E402
from leaderboard.scoring.result import ModelInfo, Result  # noqa: E402

DEFAULT_RESULTS = Path(__file__).resolve().parent / "paper_tables"  # the published tables as CSV
OUT = ROOT / "submissions" / "clinmm"
CREATED = "2026-07-28T00:00:00+00:00"  # arXiv 2607.25933v1
N_CASES = 1089
NOT_STATED = "not stated in the paper's text (figure and table bodies are absent from the source)"
SOURCE = ("ClinMM-Bench paper (arXiv 2607.25933v1), Results text for Figs. 2a/2b (diagnosis) and Fig. 6 "
          "(reasoning quality); figure and supplementary-table bodies absent")

# name: (access, domain, params in billions or None, reasoning or None when the paper does not say)
MODELS = {
    "GPT-5-medium": ("proprietary", "general", None, True),
    "Gemini 3 Pro": ("proprietary", "general", None, None),
    "GPT-5-minimal": ("proprietary", "general", None, None),
    "Claude-4.5-Sonnet": ("proprietary", "general", None, None),
    "Qwen3-VL-32B": ("open", "general", 32, False),
    "LLaMA-4-Scout": ("open", "general", None, None),
    "Qwen3-VL-32B-thinking": ("open", "general", 32, True),
    "MedGemma-27B": ("open", "medical", 27, None),
    "Qwen3-VL-8B": ("open", "general", 8, False),
    "Gemma-3-27B": ("open", "general", 27, None),
    "Qwen3-VL-8B-thinking": ("open", "general", 8, True),
    "Qwen3-VL-4B": ("open", "general", 4, False),
    "Qwen3-VL-4B-thinking": ("open", "general", 4, True),
    "MedGemma-4B": ("open", "medical", 4, None),
    "Gemma-3-4B": ("open", "general", 4, None),
}
NOTES = {
    "Claude-4.5-Sonnet": ["Overall diagnostic accuracy score not stated; the text ranks it below GPT-5-minimal (1.031)."],
    "Gemini 3 Pro": ["% completely / partially correct not stated."],
    "LLaMA-4-Scout": ["Derived, not published: % complete error = 100 - 8.82 - 54.36 = 36.82 (the three categories "
                      "partition the cases)."],
    "Qwen3-VL-8B-thinking": ["The paper calls it a 'reasoning variant'; the '-thinking' name follows the pattern of "
                             "'Qwen3-VL-4B-thinking'."],
    "Qwen3-VL-32B-thinking": ["The paper calls it a 'reasoning variant'; the '-thinking' name follows the pattern of "
                              "'Qwen3-VL-4B-thinking'.",
                              "Derived, not published: fact recall = 52.4 - 6.0 = 46.4 (Fig. 8 delta; the order "
                              "4B, 8B, 32B of the unlabelled delta list is assumed)."],
    "MedGemma-27B": ["Derived, not published: fact density = 34.8 - 3.0 = 31.8 (Gemma-3-27B + Fig. 8 delta)."],
    "Gemma-3-4B": ["Derived, not published: fact density = 35.3 - 3.7 = 31.6 (MedGemma-4B - Fig. 8 delta)."],
}
# Fig. 5: per-specialty values stated for the 32B pair (Nephrology, n = 29); complete error as a percentage.
NEPHROLOGY_32B = {"Qwen3-VL-32B": (0.983, 17.2), "Qwen3-VL-32B-thinking": (0.759, 31.0)}


def slug(name: str) -> str:
    return "".join(ch.lower() if ch.isalnum() else "-" for ch in name).strip("-")


def read_csv(path: Path, key: str = "model") -> dict[str, dict]:
    with path.open(encoding="utf-8") as handle:
        return {row[key]: row for row in csv.DictReader(handle)}


def number(cell: str | None, scale: float = 1.0) -> float | None:
    return None if cell in (None, "") else round(float(cell) * scale, 4)


def deltas(results: Path) -> dict[str, list[str]]:
    """Fig. 4/5/8 deltas as notes on the model they describe (the second model of each pair)."""
    notes: dict[str, list[str]] = {}
    with (results / "fig8_reasoning_quality_deltas.csv").open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            medical = row["comparison"].startswith("MedGemma")
            model = f"MedGemma-{row['scale']}" if medical else f"Qwen3-VL-{row['scale']}-thinking"
            other = f"Gemma-3-{row['scale']}" if medical else f"Qwen3-VL-{row['scale']}"
            notes.setdefault(model, []).append(f"Fig. 8: {row['metric']} {float(row['delta']):+.3f} vs {other} "
                                               "(paper fraction units).")
    for name, row in read_csv(results / "fig4_gemma_vs_medgemma_diagnostic_accuracy.csv", "specialty").items():
        notes.setdefault(f"MedGemma-{row['scale']}", []).append(
            f"Fig. 4: {name} diagnostic accuracy score {float(row['delta_medgemma_minus_gemma']):+.3f} vs "
            f"Gemma-3-{row['scale']}.")
    notes.setdefault("Qwen3-VL-4B-thinking", []).append(
        "Fig. 5: Neurology diagnostic accuracy score +0.056 vs Qwen3-VL-4B.")
    return notes


def record(name: str, fig2a: dict, fig2b: dict, fig6: dict, extra_notes: list[str]) -> Result:
    access, domain, params, reasoning = MODELS[name]
    metrics = {
        "diagnostic_accuracy_score": number(fig2a.get("diagnostic_accuracy_score")),
        "pct_completely_correct": number(fig2b.get("pct_completely_correct")),
        "pct_partially_correct": number(fig2b.get("pct_partially_correct")),
        "pct_complete_error": None,
        "fact_recall": number(fig6.get("fact_recall"), 100),
        "hallucination": number(fig6.get("hallucination"), 100),
        "fact_density": number(fig6.get("fact_density"), 100),
    }
    strata = {}
    if name in NEPHROLOGY_32B:
        score, error = NEPHROLOGY_32B[name]
        strata = {"specialty": {"Nephrology": {"n": 29, "metrics": {"diagnostic_accuracy_score": score,
                                                                   "pct_complete_error": error}}}}
    return Result(
        benchmark="clinmm", source="paper",
        model=ModelInfo(name=name, access=access, domain=domain, params_b=params, reasoning=reasoning,
                        input_modality="multimodal"),
        metrics=metrics, n_items=N_CASES, n_answered=None, parse_failures=None,
        pending={m: NOT_STATED for m, v in metrics.items() if v is None}, strata=strata,
        protocol={"source": SOURCE, "model_group": fig2a.get("model_group"),
                  "reasoning_setting": fig2a.get("reasoning_setting") or None,
                  "diagnosis_judges": list(PAPER_JUDGES), "fact_judge": "not named in the paper",
                  "scales": {"diagnostic_accuracy_score": "0-2", "pct_*": "percent", "fact metrics": "x100"},
                  "comparable_to_paper": True, "not_comparable_because": []},
        notes=["Published values as stated in the Results text; every model was scored on all 1,089 cases "
               "(each Fig. 2b percentage is k/1089).", "Coverage and parse failures not reported."]
        + NOTES.get(name, []) + extra_notes,
        created_at=CREATED,
    )


def pooled(results: Path) -> Result:
    """Figs. 3 and 7: per-specialty values pooled over the 15 models (not a model row, so no overall metric)."""
    fig3 = read_csv(results / "fig3_specialty_diagnostic_accuracy_all_models.csv", "specialty")
    fig7 = read_csv(results / "fig7_specialty_fact_recall_all_models.csv", "specialty")
    cells = {}
    for specialty, row in fig3.items():
        cells[specialty] = {
            "n": int(row["n_cases"]),
            "metrics": {"diagnostic_accuracy_score": float(row["diagnostic_accuracy_score"]),
                        "fact_recall": number(fig7[specialty]["fact_recall"], 100)},
            "ci": {"diagnostic_accuracy_score": [float(row["ci95_low"]), float(row["ci95_high"])],
                   "fact_recall": [number(fig7[specialty]["ci95_low"], 100), number(fig7[specialty]["ci95_high"], 100)]},
        }
    names = [m.name for m in ClinMM.metrics]
    return Result(
        benchmark="clinmm", source="pooled", model=ModelInfo(name=f"All {len(MODELS)} models, pooled"),
        metrics={m: None for m in names}, n_items=N_CASES, n_answered=None, parse_failures=None,
        pending={m: "the paper pools models per specialty only" for m in names}, strata={"specialty": cells},
        protocol={"source": "ClinMM-Bench paper, Figs. 3 and 7 (arXiv 2607.25933v1)",
                  "what": "mean over all 15 models' per-case scores, per specialty; 95% CIs from 100,000 bootstrap "
                          "resamples of cases",
                  "scales": {"diagnostic_accuracy_score": "0-2", "fact_recall": "x100"},
                  "comparable_to_paper": True, "not_comparable_because": []},
        notes=["Pooled over the paper's 15 models: describes the benchmark's specialties, not one model."],
        created_at=CREATED)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    args = parser.parse_args()
    fig2a = read_csv(args.results / "fig2a_overall_diagnostic_accuracy.csv")
    fig2b = read_csv(args.results / "fig2b_diagnosis_category_proportions.csv")
    fig6 = read_csv(args.results / "fig6_reasoning_quality_overall.csv")
    if set(fig2a) != set(MODELS) or not set(fig2b) <= set(MODELS) or not set(fig6) <= set(MODELS):
        raise SystemExit("the results CSVs name models missing from MODELS; update this script")
    names = {m.name for m in ClinMM.metrics}
    extra = deltas(args.results)
    (OUT / "paper").mkdir(parents=True, exist_ok=True)
    for name in MODELS:
        result = record(name, fig2a[name], fig2b.get(name, {}), fig6.get(name, {}), extra.get(name, []))
        assert set(result.metrics) == names
        result.write(OUT / "paper" / f"{slug(name)}.json")
    (OUT / "pooled").mkdir(parents=True, exist_ok=True)
    pooled(args.results).write(OUT / "pooled" / "all-models.json")
    print(f"wrote {len(MODELS)} records to {OUT / 'paper'} and the pooled specialty table")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
