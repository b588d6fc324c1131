"""X-PCR: stage-wise, tier, chain-completion, calibration and modality accuracy over the progressive
chain items (Tables 2-3), and case-group accuracy with modality ablation over the hospital
cross-modal items (Table 4).

The answer key is the dataset's text-free `items` config (one row per chain or cross-modal item)
plus its `ablations` config (one row per cross-modal item and removed modality, id
`<item id>/without-<MODALITY>`), so one prediction file carries the full-input run and every ablated
run, and validation accepts exactly those ids. Scoring is columnar (pyarrow + numpy): per-item Python
runs only for free-text responses that are not a bare letter, once per distinct text.
"""
from __future__ import annotations

import numpy as np
import pyarrow.compute as pc

from benchmarks.xpcr.alignment import ABLATIONS, _Scored
from benchmarks.xpcr.item_scores import coded_items, notes, pending_reasons, per_item
from benchmarks.xpcr.metric_specs import STRATA, metric_specs
from benchmarks.xpcr.response_letters import _parse_responses  # noqa: F401 (re-exported: tests import it here)
from benchmarks.xpcr.taxonomy import (ABLATION_SEP, CASE_GROUPS, CATEGORIES, CATEGORY_NAMES, LETTERS, MODALITIES,
                                      MODALITY_NAMES, STAGE_NAMES, STAGES, TIER_NAMES, TIER_WEIGHTS, TIERS)
from leaderboard.intake.answer_key import AnswerKey
from leaderboard.scoring.engine import coded_numbers
from leaderboard.scoring.letter_reader import DECISION as READER_DECISION, withhold
from leaderboard.scoring.letters import RULE_SUMMARY, RULE_VERSION
from leaderboard.scoring.metrics.calibration import BASE_SCORES, CONFIDENT_AT, ECE_BINS
from leaderboard.intake.prediction_files import (FieldSpec, Issue, PredictionSchema, ValidationReport, read_rows, table_from_valid)
from leaderboard.scoring.result import Result
from leaderboard.scoring.benchmark import Benchmark, MetricSpec, ScoringContext


class XPCR(Benchmark):
    name = "xpcr"
    pretty_name = "X-PCR"
    configs = ("items", ABLATIONS)
    id_column = "id"
    answer_columns = ("answer",)
    strata_columns = ("task", "parent_id", "stage", "tier", "modality", "case_group", "task_family", "source_dataset",
                      "disease", "disease_category", "n_options", "item_id", "removed_modality")
    context_columns = ("options",)  # the option texts: the letter rule reads option-text answers (letters-v5)
    schema = PredictionSchema(
        fields=(
            FieldSpec("response", "string"),
            FieldSpec("answer", "choice", choices=tuple(LETTERS) + tuple(LETTERS.lower())),  # as Med-CMR: any case
            FieldSpec("confidence", "number", minimum=0.0, maximum=1.0),
            FieldSpec("removed_modality", "choice", choices=MODALITIES),
        ),
        one_of=("response", "answer"),
        optional_metadata=("model", "notes", "metadata"),
    )
    metrics = metric_specs()
    primary_metric = "SWA_Avg"  # a mean of six stage accuracies, not one proportion: paper rows get no CI
    release_items = 177_868  # items in the paper's release
    needs = ("letter_reader",)  # scoring services it uses; front doors configure only these
    stratum_metric = "accuracy"  # strata cells hold item accuracy
    cell_metrics = (MetricSpec("accuracy", "Accuracy (%)"),)
    stratum_labels = {"stage": "Reasoning stage", "tier": "Expertise tier", "modality": "Imaging modality",
                      "disease_category": "Disease category", "stage_tier": "Stage × tier",
                      "source_dataset": "Source dataset", "disease": "Disease",
                      "case_group": "Hospital case group (cross-modal)", "task_family": "Cross-modal task family",
                      "cross_modal_tier": "Expertise tier (cross-modal)"}
    value_labels = {
        "stage": {s: f"{i}. {STAGE_NAMES[s]}" for i, s in enumerate(STAGES, 1)},
        "tier": dict(TIER_NAMES), "cross_modal_tier": dict(TIER_NAMES),
        "modality": dict(MODALITY_NAMES), "disease_category": dict(CATEGORY_NAMES),
        "stage_tier": {f"{s}/{t}": f"{STAGE_NAMES[s]}, {TIER_NAMES[t]}" for s in STAGES for t in TIERS},
        "case_group": {str(g): f"Group {g}: {' + '.join(mods)}" for g, mods in CASE_GROUPS.items()},
    }
    decisions = (
        "Items: Tables 2-3 metrics are over the progressive chain items only; the hospital cross-modal items are "
        "scored separately (XM_All, All_G*, MCS_*) as in Table 4.",
        "Answer: an `answer` letter is used as given; otherwise `response` is parsed with the project's MCQ rule "
        f"({RULE_SUMMARY}) restricted to the item's option letters. A letter beyond the item's "
        "options, or a response naming no single option, is wrong and counted as a parse failure (an `answer` letter "
        "beyond the options is also a line-level validation error). When a row has both, `answer` wins.",
        READER_DECISION,
        "Missing items count as wrong; every accuracy's denominator is all items of its stratum.",
        "SWA_s = accuracy over stage s items; SWA_Avg = unweighted mean of the six stage accuracies. ESA_t likewise "
        "per tier; ESA_Avg = mean of R/A/S. modality_m likewise per image modality; modality_Avg = mean of the six. "
        "category_c per disease category (Rare included). An average runs over the strata present in the build (a "
        "sample without RetCam averages five modalities); an empty stratum is pending, not zero.",
        "Chains: a chain is one image's items. CCR = 100 x chains with every item correct / chains that have items of "
        "all six stages (a stage with several items needs all of them correct; images lacking a stage are not "
        "chains). Each item is scored on its own: the prediction file decides whether earlier answers (the model's "
        "or gold) were carried into later prompts; that choice belongs in the submission's metadata. No IQA gating.",
        f"ECE: {ECE_BINS} equal-width bins on the submitted confidence ([0,0.1), ..., [0.9,1]), "
        "sum |B|/N x |acc(B) - conf(B)|, reported as a fraction (lower is better). Raw submitted confidence, no "
        "calibrator applied by the scorer: a submission that calibrated on the validation split says so in metadata.",
        f"UAS: confident means confidence >= {CONFIDENT_AT}; base scores CC {BASE_SCORES['CC']}, CU {BASE_SCORES['CU']}, "
        f"IU {BASE_SCORES['IU']}, IC {BASE_SCORES['IC']}; weights by tier R {TIER_WEIGHTS['R']}, A {TIER_WEIGHTS['A']}, "
        f"S {TIER_WEIGHTS['S']} (the paper's per-item importance scores are unreleased); UAS = 100 x sum(w x b) / "
        "sum(w). The paper's validation-split calibration step is not applied: UAS and ECE use the submitted "
        "confidence as is and are never comparable with the paper.",
        "Items without a confidence (including missing items) are left out of ECE and UAS; conf_coverage reports "
        "the share of chain items that had one. Compare ECE/UAS only at (near) full coverage.",
        "Modality ablation: the ablated runs are rows whose id is `<item id>/without-<MODALITY>` (optionally with "
        "`removed_modality` repeating the modality; a row whose removed_modality contradicts its id is ignored). "
        "All_Gg = accuracy over group g's cross-modal items with every image; MCS_m_Gg = All_Gg - accuracy over the "
        "same items with modality m's images withheld, in percentage points (positive = removing m hurts; the "
        "caption's reading, the header's 'Accuracy Drop %' taken as points, not relative %). MCS is descriptive and "
        "not used for ranking. When no ablated prediction is submitted for a group and modality its MCS is pending; "
        "when some are, the missing ones count as wrong.",
        "95% CIs: percentile bootstrap over items (chains for CCR), 5,000 resamples, fixed seed, computed exactly from "
        "cell counts (multinomial over the label x correctness cells each metric reads). MCS CIs resample items "
        "paired (each item's full and ablated outcomes together). No CI for ECE.",
    )

    whole_specialty = "Ophthalmology"  # the cross-benchmark profile: the whole benchmark is one specialty
    def optional_ids(self, key: AnswerKey):
        """Ablation rows are optional: without them MCS is pending, not wrong."""
        table = key.table
        if "config" not in table.column_names:
            return None
        return table.filter(pc.equal(table.column("config"), ABLATIONS)).column(self.id_column).combine_chunks()

    def extra_issues(self, path, key: AnswerKey, report: ValidationReport) -> list[Issue]:
        """Line-level problems that need the key: an `answer` letter beyond the item's options, and a
        `removed_modality` that contradicts the id. Found column-wise; the file is re-read for line
        numbers only when there is one. Messages name the id and option count, never an answer."""
        preds = report.table if report.table is not None else table_from_valid(report.valid, self.schema)
        s = _Scored(key.table, preds, parse=False, key_rows=report.key_rows if report.table is preds else None)
        problems: dict[str, tuple[str, str]] = {}
        ids = s.ids.to_pylist()
        for row in np.flatnonzero(s.answered & (s.given >= s.n_options)):
            n = int(s.n_options[row])
            problems[ids[row]] = ("answer", f"letter {LETTERS[s.given[row]]!r} is beyond this item's {n} options "
                                            f"(A-{LETTERS[n - 1]})")
        for row in np.flatnonzero(s.conflict):
            where = (f"the id is the ablated run without {MODALITIES[s.removed[row]]}" if s.removed[row] >= 0 else
                     f"the id is a full-input item; ablated runs use ids '<item id>{ABLATION_SEP}<MODALITY>'")
            problems[ids[row]] = ("removed_modality", f"contradicts the id: {where}")
        if not problems:
            return []
        issues = []
        for line, row in read_rows(path):
            item_id = row.get("id") if isinstance(row, dict) else None
            item_id = str(item_id).strip() if item_id is not None else None
            if item_id in problems:
                field, message = problems.pop(item_id)
                issues.append(Issue(line, field, f"id {item_id!r}: {message}"))
        return issues

    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        t = key.table
        preds = report.table if report.table is not None else table_from_valid(report.valid, self.schema)
        s = _Scored(t, preds, key_rows=report.key_rows if report.table is preds else None)
        tail = s.read_tail(context)
        numbers = coded_numbers(self.metrics, coded_items(s), STRATA, self.stratum_metric, context.resamples,
                                context.seed)
        pending = pending_reasons(s, numbers)
        held = withhold(tail, numbers.metrics, numbers.ci, [m.name for m in self.metrics])
        pending.update(held)
        protocol = self.base_protocol(key, context)
        protocol["letter_rule"], protocol["letter_rule_version"] = RULE_SUMMARY, RULE_VERSION
        protocol["letter_reader"] = None if tail is None else tail.protocol(context.service("letter_reader"))
        protocol["bootstrap"]["type"] = "percentile over items (chains for CCR), exact via cell-count multinomial"
        protocol["confidence"] = {"items_with_confidence": int(s.has_conf[s.chain].sum()),
                                  "chain_items": int(s.chain.sum()), "threshold": CONFIDENT_AT, "bins": ECE_BINS}
        protocol["ablation"] = {"rows": int(s.ablation.sum()), "answered": int((s.answered & s.ablation).sum()),
                                "conflicting_removed_modality": int(s.conflict.sum())}
        protocol["comparable_to_paper"] = False
        protocol["not_comparable_because"] = [
            "the paper's prompts, chain prompting (model vs gold answers carried forward) and item subset are unpublished",
            "UAS threshold, base scores and weights, and CCR's chain definition are this project's (unpublished in the paper)",
        ]
        if tail is not None:
            protocol["not_comparable_because"] += tail.not_comparable_because(context.service("letter_reader"))
        scored = s.chain | s.cross
        return self.result(
            context, metrics=numbers.metrics, ci=numbers.ci, n_items=int(scored.sum()),
            n_answered=int((s.answered & scored).sum()), parse_failures=int(s.parse_failures.sum()),
            pending=pending, strata={} if held else numbers.strata, protocol=protocol, notes=notes(s),
            per_item=per_item(s) if context.keep_per_item else None, metric_n=numbers.counts,
            cells=[] if held else numbers.cells,
            derived=numbers.derived, sources={f"category_{c}": "disease_category" for c in CATEGORIES})
