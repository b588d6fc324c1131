"""Regenerates `submissions/xpcr/paper/*.json` (Tables 2, 3 and 4 merged per model) and
`submissions/xpcr/human/*.json` (Table 2's three clinician rows) from the published CSVs.

Run from the project root: `python benchmarks/xpcr/paper_records.py [--results DIR]`.
Cells are kept as published; suspect ones are flagged in `cell_flags`, never corrected.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the project root
sys.path.insert(0, str(ROOT))

from leaderboard.scoring.result import ModelInfo, Result  # noqa: E402

DEFAULT_RESULTS = Path(__file__).resolve().parent / "paper_tables"  # the published tables as CSV
OUT = ROOT / "submissions" / "xpcr"
CREATED = "2026-04-22T00:00:00+00:00"  # arXiv 2604.20350
TABLE2 = ("IQA", "AL", "LC", "DD", "SG", "CD", "SWA_Avg", "R_level", "A_level", "S_level", "ESA_Avg", "CCR", "ECE", "UAS")
TABLE3 = {"CFP": "modality_CFP", "OCT": "modality_OCT", "FFA": "modality_FFA", "ICGA": "modality_ICGA",
          "Retcam": "modality_RetCam", "EP": "modality_EP", "Avg": "modality_Avg"}
TABLE4_MODALITIES = ("CFP", "OCT", "FFA", "ICGA", "EP")
# Table 3 spelling -> Table 2 name (results README, irregularity 1).
ALIASES = {"InternVL3-32B": "InternVL-32B", "InternVL3-8B": "InternVL-8B", "HuaTuoGPT-Vision-34B": "HuatuoGPT-Vision-34B",
           "HuaTuoGPT-Vision-7B": "HuatuoGPT-Vision-7B", "qwen3-VL-8B": "Qwen3-VL-8B"}

# name: (access, domain, params in billions or None). Params read from the model names; the paper's
# "Commercial" block is API use, so GLM-4.5v (open weights) keeps access "open".
MODELS = {
    "GPT-5": ("proprietary", "general", None), "Gemini-2.5-Pro": ("proprietary", "general", None),
    "GLM-4.5v": ("open", "general", 106), "GPT-5-nano": ("proprietary", "general", None),
    "Gemini-2.5-Flash": ("proprietary", "general", None), "Claude-Haiku-4.5": ("proprietary", "general", None),
    "Qwen2.5-VL-72B": ("open", "general", 72), "Qwen3-VL-30B-A3B": ("open", "general", 30),
    "InternVL-32B": ("open", "general", 32), "LLaVA-v1.5-13B": ("open", "general", 13),
    "Qwen3-VL-8B": ("open", "general", 8), "Qwen2.5-VL-7B": ("open", "general", 7),
    "LLaMA3-LLaVA-Next-8B": ("open", "general", 8), "InternVL-8B": ("open", "general", 8),
    "ShareGPT4V-7B": ("open", "general", 7), "LLaVA-v1.5-7B": ("open", "general", 7),
    "MedGemma-27B-IT": ("open", "medical", 27), "HuatuoGPT-Vision-34B": ("open", "medical", 34),
    "Lingshu-7B": ("open", "medical", 7), "LLaVA-Med-7B": ("open", "medical", 7),
    "HuatuoGPT-Vision-7B": ("open", "medical", 7),
}
COMMERCIAL = {"GPT-5", "Gemini-2.5-Pro", "GLM-4.5v", "GPT-5-nano", "Gemini-2.5-Flash", "Claude-Haiku-4.5"}

COMMON_NOTES = [
    "Published values as transcribed (results/table2-4 CSVs); coverage and parse failures not reported.",
    "UAS threshold, base scores and weights, CCR's chain definition, prompts and chain prompting are unpublished: "
    "this leaderboard's own UAS/CCR may differ in definition.",
    "Table 3 Avg differs from Table 2 SWA_Avg (e.g. GPT-5 72.60 vs 76.24): the item subset behind Table 3 is unstated.",
]


STAGES = ("IQA", "AL", "LC", "DD", "SG", "CD")
TIERS = ("R", "A", "S")


def stage_counts(results: Path) -> dict[str, int]:
    """Items per stage, Figure 2(f) ('Stage 1 (IQA)' -> IQA)."""
    return {row["key"].split("(")[1].rstrip(")"): int(row["count"]) for row in read(results / "figure2_dataset_statistics.csv")
            if row["panel"] == "f_vqa_by_stage"}


def strata_of(metrics: dict, table4: list[dict], counts: dict[str, int], flags: dict | None = None) -> dict[str, dict]:
    """Tables 2-4 as stratum cells shaped like a scored submission's (`accuracy` in each cell): stage and tier
    (Table 2; stage n from Figure 2(f), tier n unpublished), modality (Table 3, over an unstated item subset:
    n unknown) and hospital case group (Table 4, all modalities, n = cases)."""
    def cell(value, n=None):
        return {"n": n, "metrics": {"accuracy": value}}
    strata = {"stage": {s: cell(metrics[s], counts.get(s)) for s in STAGES if metrics.get(s) is not None},
              "tier": {t: cell(metrics[f"{t}_level"]) for t in TIERS if metrics.get(f"{t}_level") is not None}}
    modality = {m: cell(metrics[f"modality_{m}"]) for m in ("CFP", "OCT", "FFA", "ICGA", "RetCam", "EP")
                if metrics.get(f"modality_{m}") is not None}
    groups = {r["case_group"]: cell(number(r["All"]), int(r["n_cases"])) for r in table4 if number(r["All"]) is not None}
    strata = {k: v for k, v in {**strata, "modality": modality, "case_group": groups}.items() if v}
    # a suspect published value keeps its note in the cell too (the breakdown shows it on hover)
    where = {**{s: ("stage", s) for s in STAGES}, **{f"{t}_level": ("tier", t) for t in TIERS},
             **{f"modality_{m}": ("modality", m) for m in ("CFP", "OCT", "FFA", "ICGA", "RetCam", "EP")},
             **{f"All_G{g}": ("case_group", str(g)) for g in range(1, 5)}}
    for metric, text in (flags or {}).items():
        stratum, value = where.get(metric, (None, None))
        if value in strata.get(stratum, {}):
            strata[stratum][value]["flags"] = {"accuracy": text}
    return strata


def slug(name: str) -> str:
    return "".join(ch.lower() if ch.isalnum() else "-" for ch in name).strip("-")


def read(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def number(cell: str) -> float | None:
    return float(cell) if cell.strip() else None


def flags_for(name: str, table3: dict | None, table4: list[dict]) -> dict[str, str]:
    """Suspect cells (results README 'Irregularities')."""
    flags: dict[str, str] = {}
    if table3 is not None:
        same = table3["FFA"] == table3["ICGA"]
        text = ("Identical to the other angiography column (FFA = ICGA for all six commercial models; Figure 2 also "
                "gives both 3,356 images and 25,841 VQA): probable copy error." if same else
                "Nearly identical to the other angiography column (FFA ~ ICGA in every row): possible copy error.")
        flags["modality_FFA"] = flags["modality_ICGA"] = text
    if name == "GPT-5":
        flags["CCR"] = "Text says 'a deficit of 38.52%' against specialists' 62.48, but 62.48 - 24.47 = 38.01."
    if name == "HuatuoGPT-Vision-7B":
        flags["R_level"] = flags["A_level"] = ("R 54.22 < A 55.23 contradicts the text's 'All models perform better on "
                                               "R-level than A-level' (the text, not necessarily the cells, is wrong).")
    if name == "Qwen3-VL-8B" and table4:
        flags["MCS_OCT_G1"] = flags["MCS_CFP_G1"] = ("Text says Qwen3-VL-8B improves 'upon OCT removal' in Group 1, but "
                                                     "the table has OCT +1.65 (a drop) and CFP -0.59 (an improvement).")
    if name in {"Qwen3-VL-30B-A3B", "Qwen3-VL-8B"} and table4:
        flags["All_G2"] = "Rises from Group 1 to Group 2, against the text's 'accuracy consistently decreases'."
    return flags


def model_record(row: dict, rank: int, table3: dict | None, table4: list[dict], counts: dict[str, int]) -> Result:
    name = row["model"]
    access, domain, params = MODELS[name]
    metrics: dict[str, float | None] = {k: number(row[k]) for k in TABLE2}
    if table3 is not None:
        metrics.update({TABLE3[k]: number(table3[k]) for k in TABLE3})
    for cell in table4:
        g = cell["case_group"]
        metrics[f"All_G{g}"] = number(cell["All"])
        for m in TABLE4_MODALITIES:
            value = number(cell[f"MCS_{m}"])
            if value is not None:
                metrics[f"MCS_{m}_G{g}"] = value
    notes = list(COMMON_NOTES)
    if table3 is not None and table3["model"] != name:
        notes.append(f"Table 3 prints this model as {table3['model']!r}.")
    if table4:
        notes.append("Table 4: 58 hospital cases (groups of 22/18/14/4); MCS printed under 'Accuracy Drop %' with a "
                     "down arrow while the caption says higher = stronger dependence; points vs relative % unstated.")
    if name == "Lingshu-7B":
        notes.append("Table 2 prints the name twice ('Lingshu-7B Lingshu-7B').")
    return Result(
        benchmark="xpcr", source="paper",
        model=ModelInfo(name=name, access=access, domain=domain, params_b=params, input_modality="multimodal"),
        metrics=metrics, strata=strata_of(metrics, table4, counts, flags_for(name, table3, table4)), n_items=177_868,
        n_answered=None,
        parse_failures=None, notes=notes,
        cell_flags=flags_for(name, table3, table4), created_at=CREATED,
        protocol={
            "source": "X-PCR paper, Tables 2-4 (arXiv 2604.20350)", "table_row": rank, "family": row["group"],
            "paper_ref": row["ref"] or None,
            "decoding": {"temperature": 0.0, "top_p": 1.0, "max_new_tokens": 256, "max_new_tokens_cross_modal": 16384},
            "confidence": "self-reported, normalised to [0,1]; calibrated on the validation split (temperature "
                          "scaling and isotonic regression; which one is reported is unstated)",
            "api_model": name in COMMERCIAL, "comparable_to_paper": True,
        },
    )


def human_record(row: dict, rank: int) -> Result:
    metrics = {k: number(row[k]) for k in TABLE2}
    strata = strata_of(metrics, [], {})  # the clinicians' item subset is unstated: no n
    return Result(
        benchmark="xpcr", source="human", model=ModelInfo(name=row["model"]),
        metrics=metrics, strata=strata, n_items=0, n_answered=None, parse_failures=None, created_at=CREATED,
        protocol={"source": "X-PCR paper, Table 2 (gray rows)", "table_row": rank, "family": "Expert",
                  "comparable_to_paper": True},
        notes=["Human protocol undescribed: item subset (n_items unknown, recorded as 0), how raters are aggregated and "
               "how confidence was collected are not reported.",
               "CCR exceeds the product of the stage accuracies for all three tiers (results README irregularity 6)."],
    )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--results", type=Path, default=DEFAULT_RESULTS)
    args = parser.parse_args()
    table2 = read(args.results / "table2_main_benchmark.csv")
    table3 = {ALIASES.get(r["model"], r["model"]): r for r in read(args.results / "table3_modality_accuracy.csv")}
    table4: dict[str, list[dict]] = {}
    for r in read(args.results / "table4_modality_ablation_mcs.csv"):
        table4.setdefault(r["model"], []).append(r)
    unknown = (set(table3) | set(table4)) - {r["model"] for r in table2}
    if unknown:
        raise SystemExit(f"model names in Tables 3/4 not in Table 2: {sorted(unknown)}")
    (OUT / "paper").mkdir(parents=True, exist_ok=True)
    (OUT / "human").mkdir(parents=True, exist_ok=True)
    models = humans = 0
    counts = stage_counts(args.results)
    for rank, row in enumerate(table2, start=1):
        if row["group"] == "Expert":
            human_record(row, rank).write(OUT / "human" / f"{slug(row['model'])}.json")
            humans += 1
        else:
            model_record(row, rank, table3.get(row["model"]), table4.get(row["model"], []), counts).write(
                OUT / "paper" / f"{slug(row['model'])}.json")
            models += 1
    print(f"wrote {models} model records to {OUT / 'paper'} and {humans} human rows to {OUT / 'human'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
