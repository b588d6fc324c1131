"""What X-PCR hands the engine and reports beside its numbers: per-item columns and coded labels
(`coded_items`), why a metric without a value is pending, notes on the submission, and the private
per-item rows."""
from __future__ import annotations

import numpy as np

from benchmarks.xpcr.alignment import _Scored
from benchmarks.xpcr.metric_specs import ABLATION, CHAIN, CROSS
from benchmarks.xpcr.taxonomy import CASE_GROUPS, CATEGORIES, MODALITIES, STAGES, TIERS
from leaderboard.scoring.engine import CodedItems, Label, Numbers

NO_CASES = "no cross-modal case of this group in the dataset build"
NO_ABLATION = "no ablated predictions submitted for this group and modality"
NO_CONFIDENCE = "no chain item was submitted with a confidence"
EMPTY = "no item of this stratum in the dataset build"


def coded_items(s: _Scored) -> CodedItems:
    """Per key row: correct, answered, confidence (NaN: none) and, for an ablated run, whether the same item
    with every image was right; the labels the declarations read; the three universes."""
    baseline = np.zeros(len(s.correct), dtype=bool)  # for ablation rows: the same item's full-input outcome
    baseline[s.ablation_rows] = s.correct[s.ablation_item]
    both = np.where((s.stage >= 0) & (s.tier >= 0), s.stage * len(TIERS) + s.tier, -1)
    labels = {
        "stage": Label(s.stage, STAGES, "stage"), "tier": Label(s.tier, TIERS, "tier"),
        "modality": Label(s.modality, MODALITIES, "modality"),
        "category": Label(s.category, CATEGORIES, "disease_category"),
        "stage_tier": Label(both, [f"{a}/{b}" for a in STAGES for b in TIERS], "stage"),
        "case_group": Label(np.where(s.group > 0, s.group - 1, -1), [str(g) for g in CASE_GROUPS], "case_group"),
        "removed_modality": Label(s.removed, MODALITIES, "removed_modality"),
        "chain": _within(s.chain, (s.parent, s.parents), "parent_id"),
        "task_family": _within(s.cross, s.task_family, "task_family"),
    }
    labels.update({column: _within(s.chain, s.free_strata[column], column) for column in ("source_dataset", "disease")})
    return CodedItems(columns={"correct": s.correct, "answered": s.answered, "confidence": s.confidence,
                               "baseline_correct": baseline},
                      labels=labels, universes={CHAIN: s.chain, CROSS: s.cross, ABLATION: s.ablation})


def _within(universe: np.ndarray, factorized: tuple[np.ndarray, list], source: str) -> Label:
    """A label factorized over one universe's rows only (free text: its dictionary is what occurs there)."""
    codes = np.full(len(universe), -1, dtype=np.int64)
    codes[universe] = factorized[0]
    return Label(codes, factorized[1], source)


def pending_reasons(s: _Scored, numbers: Numbers) -> dict[str, str]:
    """Why each metric without a value has none."""
    pending = {}
    if not s.cross.any():
        pending["XM_All"] = NO_CASES.replace(" of this group", "")
    for g, mods in CASE_GROUPS.items():
        if not (s.cross & (s.group == g)).any():
            pending[f"All_G{g}"] = NO_CASES
        for m in mods:
            name = f"MCS_{m}_G{g}"
            if numbers.metrics[name] is None:
                pending[name] = NO_CASES if numbers.counts[name] == 0 else NO_ABLATION
    if s.chain.any() and not (s.has_conf & s.chain).any():
        pending["ECE"] = pending["UAS"] = NO_CONFIDENCE
    for name, value in numbers.metrics.items():
        if value is None and name not in pending:
            pending[name] = EMPTY
    return pending


def notes(s: _Scored) -> list[str]:
    out = []
    if s.conflict.any():
        out.append(f"{int(s.conflict.sum())} prediction row(s) name a removed_modality that contradicts their id "
                     "(or name one on a full-input item); they were ignored and count as wrong.")
    answered_ablation = int((s.answered & s.ablation).sum())
    if answered_ablation and answered_ablation < int(s.ablation.sum()):
        out.append(f"Ablated runs: {answered_ablation} of {int(s.ablation.sum())} ablation rows answered; within a "
                     "group and modality with any answer, missing rows count as wrong.")
    out_of_range = int((s.parse_failures & ~s.ablation).sum())
    if out_of_range:
        out.append(f"{out_of_range} answered item(s) gave no usable letter (unparseable response or a letter beyond "
                     "the item's options) and count as wrong.")
    return out


def per_item(s: _Scored) -> dict[str, dict[str, float]]:
    """Per item: correct / answered / confidence, and for chain items its share of SWA_Avg (correct x
    chains / (stages present x items of its stage)), so that the mean over chain items is SWA_Avg and
    the leaderboard can run paired bootstrap tie tests on the primary metric."""
    ids = s.ids.to_pylist()
    stage = np.where(s.chain, s.stage, -1)
    per_stage = np.bincount(stage[stage >= 0], minlength=len(STAGES)).astype(float)
    present = max(int((per_stage > 0).sum()), 1)
    n_chain = int(s.chain.sum())
    weight = np.where(stage >= 0, n_chain / (present * np.maximum(per_stage[np.maximum(stage, 0)], 1)), 0.0)
    share = np.where(s.chain, 100.0 * s.correct * weight, np.nan)  # x100 like the reported metric
    return {i: {"correct": float(c), "answered": float(a), "confidence": (None if np.isnan(x) else float(x)),
                "SWA_Avg": (None if np.isnan(v) else float(v) / 100.0)}
            for i, c, a, x, v in zip(ids, s.correct, s.answered, s.confidence, share)}

