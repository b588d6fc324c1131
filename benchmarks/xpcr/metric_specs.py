"""X-PCR's metrics and breakdowns as declarations: each metric's aggregation (`leaderboard.scoring.engine.kinds`)
over the scorer's per-item columns and coded labels (`item_scores.coded_items`), computed by the engine.

Universes: CHAIN (the progressive chain items, Tables 2-3), CROSS (the hospital cross-modal items with
every image, Table 4) and ABLATION (their ablated runs). Streams keep the bootstrap draws the scorer has
always used: one per family (stage 1, tier 2, modality 3, category 4), chains 5, UAS 6, cross-modal
accuracies 10 + group, all MCS together 100.
"""
from __future__ import annotations

from dataclasses import replace

from benchmarks.xpcr.taxonomy import CASE_GROUPS, CATEGORIES, MODALITIES, STAGES, TIER_WEIGHTS, TIERS
from leaderboard.scoring.benchmark import MetricSpec
from leaderboard.scoring.engine.kinds import (CalibrationError, Coverage, GroupCompletion, LabelAccuracy, MacroMean, PairedDifference, Proportion, Stratum, UncertaintyScore)

CHAIN, CROSS, ABLATION = "chain", "cross", "ablation"


def metric_specs() -> tuple[MetricSpec, ...]:
    specs = [MetricSpec(s, f"{s} accuracy (stage {i})", group="stage", aggregation=LabelAccuracy(CHAIN, "stage", s, 1))
             for i, s in enumerate(STAGES, 1)]
    specs.append(MetricSpec("SWA_Avg", "Stage-wise accuracy, mean of the six stages", group="stage",
                            aggregation=MacroMean(CHAIN, "stage", 1)))
    specs += [MetricSpec(f"{t}_level", f"{t}-level accuracy", group="tier", aggregation=LabelAccuracy(CHAIN, "tier", t, 2))
              for t in TIERS]
    specs.append(MetricSpec("ESA_Avg", "Expertise-stratified accuracy, mean of R/A/S", group="tier",
                            aggregation=MacroMean(CHAIN, "tier", 2)))
    specs.append(MetricSpec("CCR", "Chain completion rate", group="chain",
                            aggregation=GroupCompletion(CHAIN, group="chain", stage="stage", stream=5)))
    specs.append(MetricSpec("ECE", "Expected calibration error (fraction, 10 bins)", higher_is_better=False,
                            group="calibration", item_span=1.0, value_range=(0.0, 1.0), decimals=3,
                            aggregation=CalibrationError(CHAIN)))
    specs.append(MetricSpec("UAS", "Uncertainty-aware score", group="calibration",
                            aggregation=UncertaintyScore(CHAIN, "tier", tuple(TIER_WEIGHTS[t] for t in TIERS), 6)))
    specs.append(MetricSpec("conf_coverage", "Chain items with a confidence (%)", group="calibration",
                            aggregation=Coverage(CHAIN)))
    specs += [MetricSpec(f"modality_{m}", f"{m} accuracy", group="modality",
                         aggregation=LabelAccuracy(CHAIN, "modality", m, 3)) for m in MODALITIES]
    specs.append(MetricSpec("modality_Avg", "Modality accuracy, mean of the six", group="modality",
                            aggregation=MacroMean(CHAIN, "modality", 3)))
    specs += [MetricSpec(f"category_{c}", f"{c} accuracy", group="category",
                         aggregation=LabelAccuracy(CHAIN, "category", c, 4)) for c in CATEGORIES]
    specs.append(MetricSpec("XM_All", "Cross-modal accuracy, all cases, all modalities", group="cross_modal",
                            aggregation=Proportion(CROSS, stream=10)))
    for g, mods in CASE_GROUPS.items():
        group = ("case_group", str(g))
        specs.append(MetricSpec(f"All_G{g}", f"Group {g} ({'/'.join(mods)}) accuracy, all modalities",
                                group="cross_modal", aggregation=Proportion(CROSS, (group,), stream=10 + g)))
        specs += [MetricSpec(f"MCS_{m}_G{g}", f"Group {g} MCS, {m} removed (pp)", group="cross_modal",
                             value_range=(-100.0, 100.0),
                             aggregation=PairedDifference(ABLATION, (group, ("removed_modality", m)), stream=100))
                  for m in mods]
    return tuple(s if s.decimals != 1 else replace(s, decimals=2) for s in specs)  # the paper prints two decimals


# The breakdowns, in display order; labels as in `item_scores.coded_items`.
STRATA = (
    Stratum("stage", CHAIN, "stage"), Stratum("tier", CHAIN, "tier"), Stratum("modality", CHAIN, "modality"),
    Stratum("disease_category", CHAIN, "category"), Stratum("stage_tier", CHAIN, "stage_tier"),
    Stratum("source_dataset", CHAIN, "source_dataset", by_value=True),
    Stratum("disease", CHAIN, "disease", by_value=True),
    Stratum("case_group", CROSS, "case_group"), Stratum("task_family", CROSS, "task_family", by_value=True),
    Stratum("cross_modal_tier", CROSS, "tier"),
)
