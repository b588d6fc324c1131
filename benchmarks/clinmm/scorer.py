"""ClinMM-Bench: dual-judge diagnostic accuracy (0-2) and atomic-fact reasoning quality.

Per case: each diagnosis judge scores the predicted vs the ground-truth diagnosis 0/1/2 (paper
Supplementary H, XML answer); the consensus c is their mean. The model's reasoning is decomposed into
atomic facts (I1) and matched against the frozen reference facts (I2); recall, hallucination and
density follow deterministically. Judge 1 (`context.service("judge")`) does extraction and matching.
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from benchmarks.clinmm.taxonomy import SPECIALTIES

from leaderboard.intake.answer_key import AnswerKey
from leaderboard.scoring.engine import scored_means
from .metrics import categories, consensus, fact_scores
from leaderboard.intake.prediction_files import FieldSpec, Issue, PredictionSchema, ValidationReport, read_rows
from leaderboard.scoring.result import Result
from benchmarks.clinmm import specialty as specialty_profile
from leaderboard.scoring.benchmark import Benchmark, MetricSpec, ScoringContext
from . import anomaly
from .judging import (FACTS_SCHEMA, MATCHING_SCHEMA, diagnosis_call, extraction_call, matching_call,
                             matching_parser, parse_accuracy_xml, parse_facts, run_each, xml_judge)

PAPER_JUDGES = ("GPT-5-medium", "Claude-4.5-Sonnet")
DIAGNOSIS_METRICS = ("diagnostic_accuracy_score", "pct_completely_correct", "pct_partially_correct",
                     "pct_complete_error")
FACT_METRICS = ("fact_recall", "hallucination", "fact_density")
SCALES = {"diagnostic_accuracy_score": 1.0, **{m: 100.0 for m in DIAGNOSIS_METRICS[1:]},
          **{m: 100.0 for m in FACT_METRICS}}
MAX_TURN_RESPONSES = 64
SHOWN_IDS = 10
RERUN = "{n} judge failure(s) in {what}; rerun to retry (cached verdicts are reused)"


class ClinMM(Benchmark):
    name = "clinmm"
    pretty_name = "ClinMM-Bench"
    id_column = "case_id"
    answer_columns = ("final_diagnosis_en", "reference_facts")
    strata_columns = ("specialty",)
    schema = PredictionSchema(
        fields=(FieldSpec("diagnosis", "string", required=True), FieldSpec("reasoning", "string")),
        optional_metadata=("turn_responses", "model", "notes", "metadata"),
    )
    metrics = (
        MetricSpec("diagnostic_accuracy_score", "Diagnostic accuracy score (0-2, mean dual-judge consensus)",
                   group="diagnosis", item_span=2.0, value_range=(0.0, 2.0), decimals=2),
        MetricSpec("pct_completely_correct", "% completely correct (both judges 2)", group="diagnosis",
                   proportion=True),
        MetricSpec("pct_partially_correct", "% partially correct (0 < consensus < 2)", group="diagnosis"),
        MetricSpec("pct_complete_error", "% complete error (both judges 0)", higher_is_better=False,
                   group="diagnosis"),
        MetricSpec("fact_recall", "Fact recall (x100)", group="reasoning"),
        MetricSpec("hallucination", "Hallucination (x100)", higher_is_better=False, group="reasoning"),
        MetricSpec("fact_density", "Fact density (x100)", group="reasoning"),
    )
    primary_metric = "diagnostic_accuracy_score"  # a 0-2 mean, not a proportion: paper rows get no CI
    release_items = 1089  # cases in the paper's release
    stratum_labels = {"specialty": "Specialty"}
    value_labels = {"specialty": {s: s for s in SPECIALTIES}}  # the paper's order (its case counts)
    needs = ("judge", "judge_2")  # scoring services it uses; front doors configure only these
    decisions = (
        "Scales: diagnostic_accuracy_score is the mean consensus on the paper's 0-2 scale; the pct_* metrics are "
        "percent of cases (x100); fact_recall, hallucination and fact_density are mean per-case proportions x100 "
        "(the paper prints fractions: 0.599 = 59.9).",
        "Diagnosis: each of two judges (services `judge` and `judge_2`) sees only the predicted and the "
        "ground-truth diagnosis (English) with the paper's Supplementary H prompt and answers XML "
        "<result><reasoning/><accuracy>0|1|2</accuracy></result>, parsed strictly. Consensus c = mean of the two; "
        "completely correct c = 2, partially correct 0 < c < 2, complete error c = 0 (partitions the cases).",
        "Missing prediction or empty diagnosis: c = 0 (complete error), no judge call; the denominator is every "
        "case of the split (the paper scored all 1,089 cases per model).",
        "One judge configured: diagnostic metrics are computed from that judge alone (c in {0, 1, 2}) and the "
        "result is flagged not comparable (protocol `diagnosis_judges: 1`); two judges with the same model id "
        "are flagged the same way. No judge: every metric pending.",
        "Judge failures (after retries and one repair re-ask) are never scores and never silently dropped: if "
        "any case's verdict failed, the metrics of that group (diagnosis, or facts) are pending with the failure "
        "count; a rerun retries only the failures (parsed verdicts are cached).",
        "Reasoning quality: the prediction's `reasoning` is decomposed into atomic facts with the Supplementary "
        "I1 prompt and matched against the dataset's frozen reference facts with the I2 prompt (numbered P-/G-"
        "lists, N-to-M); both calls use judge 1 (the paper does not name its extractor/matcher). The matcher's "
        "JSON is validated (ids in range, every unmatched predicted id in exactly one unmatched list).",
        "fact_recall = reference facts in any matched pair / reference facts; hallucination = hallucinated "
        "predicted facts / predicted facts (the I2 prompt's definition: incorrect or contradicting, not merely "
        "uncovered); fact_density = predicted facts in any matched pair / predicted facts. Means over cases.",
        "No prediction, no reasoning, or reasoning that yields no atomic fact: recall 0 and density 0; "
        "hallucination (a rate over predicted facts, lower is better) is undefined and left out of its mean: 0 "
        "would reward silence and 1 would call an unanswered case a fabricating one; the number of cases it "
        "covers is in the protocol and each stratum (`n_by_metric`).",
        "`turn_responses` (per-turn answers) are accepted and checked but not scored: the paper scores one "
        "final diagnosis and reasoning per case.",
        "CIs: 95% percentile bootstrap over cases (resamples and seed in the protocol; the paper used 100,000); "
        "per specialty the cases of that specialty are resampled (the paper's per-specialty CIs).",
        "Candidate text reaches a judge only as quoted data; sentences addressing the grader are redacted and "
        "counted (protocol `flagged_injection`), so they cannot raise a score.",
        "Caveats: the paper's judges (GPT-5-medium, Claude-4.5-Sonnet) are also evaluated models (self-preference "
        "bias possible); cases are public PMC-OA reports (contamination possible) enriched for rare presentations.",
    )
    citation = ("Yang et al. Evaluating Multi-Turn Multimodal Diagnostic Reasoning on Challenging Real-World "
                "Clinical Cases, arXiv:2607.25933.")

    # ------------------------------------------------------------------ validation

    specialty_stratum, specialty_map = specialty_profile.SPECIALTY_STRATUM, specialty_profile.SPECIALTY_MAP
    def anomalies(self, metrics: dict, protocol: dict) -> list[str]:
        return anomaly.anomalies(metrics, protocol)
    def extra_issues(self, path, key: AnswerKey, report: ValidationReport) -> list[Issue]:
        """`turn_responses` must be a list of strings (the generic validator ignores metadata fields)."""
        issues = []
        for line, row in read_rows(path):
            if not isinstance(row, dict) or "turn_responses" not in row:
                continue
            value = row["turn_responses"]
            if not isinstance(value, list) or any(not isinstance(v, str) for v in value):
                issues.append(Issue(line, "turn_responses", "must be a list of strings (one response per turn)"))
            elif len(value) > MAX_TURN_RESPONSES:
                issues.append(Issue(line, "turn_responses", f"has {len(value)} items; the limit is {MAX_TURN_RESPONSES}"))
            elif any(len(v) > 100_000 for v in value):
                issues.append(Issue(line, "turn_responses", "an item is longer than 100,000 characters"))
        return issues

    # ------------------------------------------------------------------ scoring
    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        cases = _Cases(key, report)
        judges = [j for j in (context.service("judge"), context.service("judge_2")) if j is not None]
        protocol = self.base_protocol(key, context)
        protocol.update(_static_protocol())
        notes: list[str] = []
        values: dict[str, np.ndarray] = {}
        pending: dict[str, str] = {}
        per_item: dict[str, dict] = {cid: {} for cid in cases.ids}
        flagged = np.zeros(len(cases), dtype=bool)

        if not judges:
            pending.update({m: context.why_missing("judge") for m in (*DIAGNOSIS_METRICS, *FACT_METRICS)})
        else:
            xml_judges = self._diagnosis(cases, judges, values, pending, per_item, flagged, protocol, notes)
            self._facts(cases, judges[0], values, pending, per_item, flagged, protocol)
            protocol["judge_stats"] = _stats(judges, xml_judges)
        n_flagged = int(flagged.sum())
        protocol["flagged_injection"] = {"cases": n_flagged, "ids": [cases.ids[k] for k in np.flatnonzero(flagged)][:SHOWN_IDS]}
        if n_flagged:
            notes.append(f"{n_flagged} case(s) had text addressed to the grader in their diagnosis or reasoning; "
                         "it was redacted before judging and cannot raise the score")
        numbers = scored_means(values, SCALES, "specialty", cases.specialty, SPECIALTIES, context.resamples,
                               context.seed)  # the paper's eight specialties in its order, then any other
        protocol["n_by_metric"] = numbers.counts
        return self.result(
            context, metrics=numbers.metrics, ci=numbers.ci, n_items=len(cases), n_answered=int(cases.answered.sum()),
            parse_failures=int((cases.answered & ~cases.has_diagnosis).sum()), pending=pending,
            strata=numbers.strata, cells=numbers.cells, protocol=protocol, notes=notes, per_item=per_item)

    def _diagnosis(self, cases, judges, values, pending, per_item, flagged, protocol, notes) -> list:
        """Scores every answered case with each judge; returns the (XML-mode judge, made) pairs used."""
        todo = np.flatnonzero(cases.has_diagnosis)
        scores = np.full((len(cases), len(judges)), np.nan)
        failures, xml_judges, kinds = 0, [], Counter()
        for j, judge in enumerate(judges):
            asker, made = xml_judge(judge)
            xml_judges.append((asker, made))
            calls = [diagnosis_call(f"{cases.ids[k]}#dx", cases.diagnosis[k], cases.gold[k]) for k in todo]
            for k, verdict in zip(todo, asker.run(calls, parse_accuracy_xml, desc=f"diagnosis judge {j + 1}")):
                flagged[k] |= verdict.flagged_injection
                if verdict.ok:
                    scores[k, j] = verdict.value["accuracy"]
                else:
                    failures += 1
                    kinds[verdict.kind] += 1
        protocol["diagnosis_judges"] = [asker.identity for asker, _ in xml_judges]
        protocol["judge_failures"] = {"diagnosis": failures, "kinds": dict(kinds)}
        if len(judges) == 1:
            protocol["not_comparable_because"].append("one diagnosis judge instead of the paper's two (c in {0, 1, 2})")
            notes.append("Only one diagnosis judge was configured: the consensus is that judge's score alone; set "
                         "a second judge (--judge-model-2 / JUDGE_MODEL_2) for the paper's protocol")
        elif judges[0].config.model == judges[1].config.model:
            protocol["not_comparable_because"].append("both diagnosis judges are the same model")
            notes.append("Both diagnosis judges are the same model; the paper's consensus uses two different ones")
        both = ~np.isnan(scores).any(axis=1) if len(judges) == 2 else np.zeros(len(cases), dtype=bool)
        protocol["judge_agreement"] = {"cases": int(both.sum()),  # for anomaly review (anomaly.py)
                                       "sharp_disagreements": int((np.abs(scores[both, 0] - scores[both, 1]) == 2).sum())
                                       if both.any() else 0}
        c = consensus(scores, cases.has_diagnosis)
        for k, cid in enumerate(cases.ids):
            per_item[cid].update({f"judge_{j + 1}": _num(scores[k, j]) for j in range(len(judges))})
            per_item[cid]["consensus"] = _num(c[k])
            per_item[cid]["diagnostic_accuracy_score"] = per_item[cid]["consensus"]  # for the paired tie test
        if failures:
            reason = RERUN.format(n=failures, what="diagnosis judging")
            pending.update({m: reason for m in DIAGNOSIS_METRICS})
            return xml_judges
        values["diagnostic_accuracy_score"] = c
        for name, column in categories(c).items():
            values[f"pct_{name}"] = column
        return xml_judges

    def _facts(self, cases, judge, values, pending, per_item, flagged, protocol) -> None:
        if cases.missing_facts:
            reason = (f"the dataset has no frozen reference facts for {cases.missing_facts} case(s); build it from a "
                      "release with reference facts (python -m benchmarks.clinmm.facts)")
            pending.update({m: reason for m in FACT_METRICS})
            return
        todo = [k for k in range(len(cases)) if cases.reasoning[k]]
        extracted = run_each(judge, [(extraction_call(f"{cases.ids[k]}#facts", cases.reasoning[k]), parse_facts)
                                     for k in todo], schema=FACTS_SCHEMA)
        predicted: dict[int, list[str]] = {}
        failures = {"fact_extraction": 0, "fact_matching": 0}
        kinds = Counter(protocol["judge_failures"].get("kinds", {}))
        for k, verdict in zip(todo, extracted):
            flagged[k] |= verdict.flagged_injection
            if verdict.ok:
                predicted[k] = verdict.value["facts"]
            else:
                failures["fact_extraction"] += 1
                kinds[verdict.kind] += 1
        to_match = [k for k in todo if predicted.get(k)]
        jobs = [(matching_call(f"{cases.ids[k]}#match", predicted[k], cases.facts[k]),
                 matching_parser(len(predicted[k]), len(cases.facts[k]))) for k in to_match]
        matched: dict[int, dict] = {}
        for k, verdict in zip(to_match, run_each(judge, jobs, schema=MATCHING_SCHEMA)):
            flagged[k] |= verdict.flagged_injection
            if verdict.ok:
                matched[k] = verdict.value
            else:
                failures["fact_matching"] += 1
                kinds[verdict.kind] += 1
        protocol["judge_failures"].update(failures, kinds=dict(kinds))
        protocol["fact_judge"] = judge.identity
        total = sum(failures.values())
        if total:
            reason = RERUN.format(n=total, what="fact extraction/matching")
            pending.update({m: reason for m in FACT_METRICS})
            return
        recall, halluc, density = (np.zeros(len(cases)), np.full(len(cases), np.nan), np.zeros(len(cases)))
        for k in range(len(cases)):
            m = matched.get(k)
            n_pred = len(predicted.get(k, []))
            recall[k], halluc[k], density[k] = fact_scores(
                n_pred, len(cases.facts[k]), m["matched_predicted"] if m else 0, m["matched_reference"] if m else 0,
                m["hallucinated"] if m else 0)
            per_item[cases.ids[k]].update({"n_predicted_facts": n_pred, "fact_recall": recall[k],
                                           "hallucination": _num(halluc[k]), "fact_density": density[k]})
        values.update({"fact_recall": recall, "hallucination": halluc, "fact_density": density})


class _Cases:
    """The answer key's rows with the predictions aligned to them (None where absent)."""

    def __init__(self, key: AnswerKey, report: ValidationReport):
        table = key.table
        self.ids = table.column(key.id_column).to_pylist()
        self.gold = table.column("final_diagnosis_en").to_pylist()
        self.facts = (table.column("reference_facts").to_pylist() if "reference_facts" in table.column_names
                      else [None] * len(self.ids))
        self.specialty = (table.column("specialty").to_pylist() if "specialty" in table.column_names
                          else [None] * len(self.ids))
        self.missing_facts = sum(1 for f in self.facts if not f)
        rows = _prediction_rows(report)
        self.answered = np.array([cid in rows for cid in self.ids], dtype=bool)
        self.diagnosis = [_text(rows.get(cid, {}).get("diagnosis")) for cid in self.ids]
        self.reasoning = [_text(rows.get(cid, {}).get("reasoning")) for cid in self.ids]
        self.has_diagnosis = np.array([d is not None for d in self.diagnosis], dtype=bool)

    def __len__(self) -> int:
        return len(self.ids)


def _prediction_rows(report: ValidationReport) -> dict[str, dict]:
    """id -> {diagnosis, reasoning}: from the columnar table when there is one, else the `valid` dict."""
    table = getattr(report, "table", None)
    if table is not None:
        columns = {n: table.column(n).to_pylist() for n in ("diagnosis", "reasoning") if n in table.column_names}
        return {cid: {n: columns[n][i] for n in columns} for i, cid in enumerate(table.column("id").to_pylist())}
    return report.valid


def _text(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _num(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _static_protocol() -> dict:
    return {
        "scales": {"diagnostic_accuracy_score": "0-2 (paper units)", "pct_*": "percent of cases (x100)",
                   "fact_recall/hallucination/fact_density": "mean per-case proportion x100"},
        "paper_judges": list(PAPER_JUDGES),
        "prompts": _prompt_ids(),
        "turn_structure": "presentation, one turn per image (image + image_type), final diagnosis+reasoning turn",
        "comparable_to_paper": False,
        "not_comparable_because": [
            "the paper's inference prompts and turn replay are unpublished; this project's turn texts are used",
            "the paper's fact extractor/matcher model is unnamed",
        ],
    }


def _prompt_ids() -> dict[str, str]:
    from leaderboard.scoring.judge import load_prompt
    from .judging import DIAGNOSIS_PROMPT, EXTRACTION_PROMPT, MATCHING_PROMPT, PROMPTS

    return {p.id: p.sha for p in (load_prompt(n, folder=PROMPTS) for n in (DIAGNOSIS_PROMPT, EXTRACTION_PROMPT, MATCHING_PROMPT))}


def _stats(judges, xml_judges) -> list[dict]:
    """Per configured judge: its identity and call statistics, adding those of its XML-mode sibling."""
    out = []
    for judge, (asker, made) in zip(judges, xml_judges):
        stats = judge.stats.as_dict()
        if made:
            for name, value in asker.stats.as_dict().items():
                stats[name] = stats.get(name, 0) + value
            asker.close()
        out.append({"model": judge.config.model, "stats": stats})
    return out
