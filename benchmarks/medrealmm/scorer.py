"""MedRealMM: the model's next physician reply, graded per rubric criterion by an LLM judge.

Per criterion one verdict (met / not met; for a negative criterion met = triggered); per case
S = clip(sum w v / sum max(w, 0), 0, 1); reported: mean S x100, positives met and negatives
triggered per case, share of cases at S = 0. Without a judge every metric is pending; when some
judge calls fail the metrics are pending with the failure count, and rerunning the same command
completes them (verdicts already obtained come from the cache at no cost).
"""
from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leaderboard.scoring.engine import mean_metrics
from leaderboard.intake.answer_key import AnswerKey
from leaderboard.scoring.metrics.rubric import rubric_scores, score_histogram
from leaderboard.intake.prediction_files import FieldSpec, Issue, PredictionSchema, ValidationReport
from leaderboard.scoring.result import Result
from benchmarks.medrealmm import specialty as specialty_profile
from leaderboard.scoring.benchmark import Benchmark, MetricSpec, ScoringContext
from .judging import (BATCH_CASES, VERDICT_SCHEMA, clean_response, criterion_calls, criterion_item, data_folder,
                      default_prompt, iter_contexts, iter_key_contexts, parse_verdict)
from benchmarks.medrealmm.taxonomy import BIBTEX, image_count_bin, turn_count_bin

PAPER_GRADER = "gemini-3-pro-preview"
MODALITIES = ("multimodal", "text-only")
COUNT_METRICS = ("positives_met_per_case", "negatives_triggered_per_case")  # counts, not percentages


class MedRealMM(Benchmark):
    name = "medrealmm"
    pretty_name = "MedRealMM"
    id_column = "id"
    answer_columns = ("rubric",)
    strata_columns = ("department", "department_group", "intent", "stage", "num_images", "num_turns")
    schema = PredictionSchema(
        fields=(
            FieldSpec("response", "string", required=True),
            FieldSpec("input_modality", "choice", choices=MODALITIES),
        ),
        optional_metadata=("model", "notes", "metadata"),
    )
    metrics = (
        MetricSpec("score_pct", "Score (%)"),
        # one case moves n x these by at most its criteria count; 20 is a generous typical bound
        MetricSpec("positives_met_per_case", "Positive criteria met per case", item_span=20.0, value_range=(0.0, None),
                   decimals=2),
        MetricSpec("negatives_triggered_per_case", "Negative criteria triggered per case", higher_is_better=False,
                   item_span=20.0, value_range=(0.0, None), decimals=2),
        MetricSpec("pct_clipped_zero", "Cases scored 0 (%)", higher_is_better=False, proportion=True),
    )
    primary_metric = "score_pct"  # a mean of per-case rubric ratios, not a proportion: paper rows get no CI
    release_items = 5620  # cases in the paper's release
    stratum_labels = {"department": "Department", "department_group": "Department group",
                      "intent": "Consultation intent", "stage": "Consultation stage",
                      "image_count": "Images in the context", "turn_count": "Messages in the context"}
    breakdown_note = (
        "The MedRealMM paper shows its per-department, per-intent and per-stage results only as figures "
        "(Figs. 6, 7, 11, 12) and prints no per-model numbers for them, so no paper row has a breakdown here. "
        "What its text states: Claude-Opus-4.7 scores between 51 and 58 in nearly all departments; in Psychiatry "
        "every system, including the online physicians, scores 40 or less; across the seven intents the frontier "
        "models stay within 40-60; in history taking the online physicians reach about 70 while every model stays "
        "below 50 (Sections 4.4 and B.4). Submissions scored here get all of these breakdowns.")
    needs = ("judge",)  # scoring services it uses; front doors configure only these
    citation = BIBTEX
    decisions = (
        "Grader: one LLM call per rubric criterion, as in the paper (B.2). The call carries the department, "
        "patient metadata, the dialogue up to the challenge point with every image (the paper's phi_J(x, y, c_j) "
        "takes the full instance), the reply as quoted data and the criterion text; never its points, its "
        "polarity or the other criteria.",
        "Grader prompt: this project's `medrealmm_criterion.v1` (the paper's Figure 10 is an image and "
        "unavailable): met = the behaviour or content the criterion describes is present in the reply, for "
        "positive and negative criteria alike; strict JSON {\"met\": bool, \"rationale\": str}; temperature 0.",
        "S = clip(sum_j w_j v_j / sum_j max(w_j, 0), 0, 1); Score = mean S over every case x100. A rubric without "
        "a positive point (refused by the builder) would score 1 if no penalty is triggered, else 0.",
        "positives_met_per_case / negatives_triggered_per_case are counts of criteria (not points), averaged "
        "over every case; pct_clipped_zero is the share of all cases whose final S is 0: clipped from a negative "
        "raw ratio, a raw ratio of exactly 0, and missing or empty replies alike (the paper's 'spike at 0').",
        "Missing predictions and empty replies (after removing <think>...</think> reasoning traces) score S = 0 "
        "with no criterion met or triggered, and cost no judge call; the denominator is every case.",
        "Judge failures (after retries and one repair re-ask) are never scored: every judged metric is then "
        "pending with the failure count; rerunning the same command completes the result, cached verdicts are "
        "free.",
        "Prompt injection: replies are quoted; sentences addressing the grader (in Chinese, English and other "
        "languages, by the shared detector leaderboard.scoring.judge.safety) are redacted before judging and counted in "
        "the protocol.",
        "input_modality (per line, all lines alike; default multimodal) is recorded; the judge always sees the "
        "images. The image gain pairs a model's multimodal and text-only results (`image_gain`).",
        "Strata: department, department group, intent, stage, images in the context (1, 2, 3, 4-5, 6-10), "
        "messages in the context (1-3, 4-6, 7-9, 10-14, 15+).",
        "95% percentile bootstrap CIs over cases (not in the paper).",
    )

    # ------------------------------------------------------------ validation
    specialty_stratum, specialty_map = specialty_profile.SPECIALTY_STRATUM, specialty_profile.SPECIALTY_MAP
    def extra_issues(self, path, key: AnswerKey, report: ValidationReport) -> list:
        modes = _declared_modalities(report)
        if len(modes) > 1:
            counts = ", ".join(f"{m}: {n} lines" for m, n in sorted(modes.items()))
            return [Issue(None, "input_modality", f"one file must hold one condition, got {counts}; submit the "
                                                  "multimodal and the text-only run as two files")]
        return []

    # ----------------------------------------------------------------- score
    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        ids = key.table.column(self.id_column).to_pylist()
        rubrics = _Rubrics(key.table.column("rubric"))
        responses = {i: clean_response(r) for i, r in _responses(report).items()}
        modality = _run_modality(_declared_modalities(report), context)
        protocol = self.base_protocol(key, context)
        protocol.update({"input_modality": modality, "case_set": f"all {len(ids)} cases of the built dataset",
                         "empty_responses": sum(1 for i in ids if i in responses and not responses[i])})
        strata = self._strata_labels(key)
        answered = sum(1 for i in ids if i in responses)
        result = self.result(context, metrics={}, n_items=len(ids), n_answered=answered, protocol=protocol)
        if context.service("judge") is None:
            return self._pending(result, context.why_missing("judge"), strata, ["no LLM judge configured"])
        try:
            outcome = _judge_all(ids, rubrics, responses, key, context)
        except LookupError as exc:
            return self._pending(result, str(exc), strata, [str(exc)])
        protocol.update(outcome.protocol)
        if outcome.failed_criteria:
            reason = (f"judge failed on {outcome.failed_criteria} of {outcome.total_criteria} criteria in "
                      f"{outcome.failed_cases} cases; rerun the same command to complete the result (verdicts "
                      "already obtained are cached and cost nothing)")
            result.notes.append(reason)
            return self._pending(result, reason, strata, protocol["not_comparable_because"])
        scored = outcome.scored
        scores = rubric_scores(rubrics.case_index[scored], rubrics.points[scored], outcome.met[scored], len(ids))
        per_item = {
            "score_pct": scores.score,
            # aggregate.overall reports means x100: counts go in /100 so they come out as plain counts
            "positives_met_per_case": scores.positives_met / 100.0,
            "negatives_triggered_per_case": scores.negatives_triggered / 100.0,
            "pct_clipped_zero": (scores.score == 0).astype(np.float64),
        }
        numbers = mean_metrics(per_item, strata, len(ids), context.resamples, context.seed)
        result.metrics = {m.name: numbers.metrics.get(m.name) for m in self.metrics}
        result.ci = numbers.ci
        result.strata = numbers.strata
        result.disclosure.cells = numbers.cells
        protocol["score_histogram_pct"] = score_histogram(scores.score)
        protocol["cases_without_positive_criteria"] = scores.no_positive
        if context.keep_per_item:
            # `score_pct` (the case's S, 0-1) is what the leaderboard's paired tie test resamples
            result.per_item = {i: {"score": float(scores.score[n]), "score_pct": float(scores.score[n]),
                                   "positives_met": float(scores.positives_met[n]),
                                   "negatives_triggered": float(scores.negatives_triggered[n])}
                               for n, i in enumerate(ids)}
        return result

    def _pending(self, result: Result, reason: str, strata: dict, not_comparable: list[str]) -> Result:
        result.pending = {m.name: reason for m in self.metrics}
        numbers = mean_metrics({}, strata, result.n_items, resamples=0)  # n per cell, no values
        result.strata, result.disclosure.cells = numbers.strata, numbers.cells
        result.protocol["comparable_to_paper"] = False
        result.protocol["not_comparable_because"] = list(dict.fromkeys(not_comparable))
        return result

    def _strata_labels(self, key: AnswerKey) -> dict[str, list]:
        cols = {c: key.table.column(c).to_pylist() for c in self.strata_columns if c in key.table.column_names}
        labels = {name: cols[name] for name in ("department", "department_group", "intent", "stage") if name in cols}
        if "num_images" in cols:
            labels["image_count"] = [image_count_bin(n) for n in cols["num_images"]]
        if "num_turns" in cols:
            labels["turn_count"] = [turn_count_bin(n) for n in cols["num_turns"]]
        return labels


# --------------------------------------------------------------------- helpers
def _responses(report: ValidationReport) -> dict[str, str | None]:
    """id -> response of every valid prediction; from the columnar table when the validator built one."""
    table = getattr(report, "table", None)
    if table is not None:
        return dict(zip(table.column("id").to_pylist(), table.column("response").to_pylist()))
    return {i: p.get("response") for i, p in report.valid.items()}


def _declared_modalities(report: ValidationReport) -> Counter:
    """input_modality -> lines declaring it (lines without one are not counted)."""
    table = getattr(report, "table", None)
    if table is not None:
        if "input_modality" not in table.column_names:
            return Counter()
        counts = table.column("input_modality").value_counts().to_pylist()
        return Counter({c["values"]: c["counts"] for c in counts if c["values"]})
    return Counter(p["input_modality"] for p in report.valid.values() if p.get("input_modality"))


def _run_modality(declared: Counter, context: ScoringContext) -> str:
    if len(declared) == 1:
        return next(iter(declared))
    if len(declared) > 1:
        return "mixed"
    return getattr(context.model, "input_modality", None) or "multimodal"


class _Rubrics:
    """Every case's criteria, flat in dataset order: case n's texts and signed points are entries
    start[n]..start[n+1] (read column by column: a rescore holds 50,586 criteria)."""

    def __init__(self, column: pa.ChunkedArray):
        rubric = column.combine_chunks() if column.num_chunks != 1 else column.chunk(0)
        # through Python lists, not to_numpy: pyarrow's numpy conversion imports pandas (0.3 s) on first use
        lengths = [n or 0 for n in pc.list_value_length(rubric).to_pylist()]  # a null rubric: no criteria
        flat = pc.list_flatten(rubric)
        self.criteria: list[str] = pc.struct_field(flat, "criterion").to_pylist()
        self.points = np.array(pc.struct_field(flat, "points").to_pylist(), dtype=np.float64)
        self.start = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)]).tolist()
        self.case_index = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)

    def of(self, case: int) -> list[str]:
        return self.criteria[self.start[case]:self.start[case + 1]]


class _Failure:
    """A criterion the judge could not answer (after its attempts): the failure kind (leaderboard/scoring/judge/limits.py)."""

    __slots__ = ("kind",)

    def __init__(self, kind: str | None):
        self.kind = kind or "judge unavailable"


class _Outcome:
    def __init__(self, total: int):
        self.met = np.zeros(total, dtype=bool)  # per criterion, flat as _Rubrics (unanswered cases: unmet)
        self.scored = np.ones(total, dtype=bool)  # False where the judge failed (the result is then pending)
        self.failed_criteria = 0
        self.failed_cases = 0
        self.total_criteria = 0
        self.protocol: dict[str, Any] = {}


def _judge_all(ids, rubrics: _Rubrics, responses, key: AnswerKey, context: ScoringContext) -> _Outcome:
    """Every criterion of every answered, non-empty case through the judge, batch by batch; cases without
    a reply keep every criterion unmet and cost no call."""
    judge = context.service("judge")
    prompt = default_prompt()
    before = judge.stats.as_dict()
    index = {i: n for n, i in enumerate(ids)}
    out = _Outcome(len(rubrics.criteria))
    wanted = {i for i in ids if responses.get(i)}
    flagged_cases, failed_cases, error_kinds = set(), set(), Counter()
    replies = {case_id: responses[case_id] for case_id in wanted}  # the judge client redacts injections
    # values[case][j]: whether criterion j was met (or a _Failure). Looked up first from key contexts (no image
    # read: the dataset's image digests stand for the images); only cases with a miss are read again with images
    values: dict[str, list] = {}
    order: list[str] = []  # cases in dataset order, as the criteria are then counted
    folder = data_folder(key, context)
    keyed = (iter_key_contexts(folder, wanted) if hasattr(judge, "lookup") and hasattr(judge, "items_keys")
             else None)
    for batch in keyed or ():
        flags, owners = [], []
        # each reply's part of the keys, memoised by the judge's cache: a rescore runs no injection detector
        quoted = (iter(judge.quoted_many([replies[c.case_id] for c in batch if c.image_sha256 is not None]))
                  if hasattr(judge, "quoted_many") else None)
        items, criteria = [], []
        for case in batch:
            order.append(case.case_id)
            if case.image_sha256 is not None:  # else its images are read and hashed below
                items.append(criterion_item(case, replies[case.case_id], next(quoted) if quoted is not None else None))
                criteria.append(rubrics.of(index[case.case_id]))
                flags += [items[-1][2]] * len(criteria[-1])
                owners.append((case.case_id, len(criteria[-1]), items[-1][2]))
        keys = judge.items_keys(prompt, VERDICT_SCHEMA, items, "criterion", criteria)  # the whole batch at once
        found, at = judge.lookup(keys, [prompt], flags, field="met"), 0
        for case_id, count, flagged in owners:
            values[case_id] = found[at:at + count]
            at += count
            if flagged and any(value is not None for value in values[case_id]):  # as a verdict's flag would
                flagged_cases.add(case_id)
    to_judge = {i for i in wanted if i not in values or None in values[i]}
    for batch in iter_contexts(folder, to_judge, BATCH_CASES) if to_judge else ():
        calls, owners = [], []
        for case in batch:
            if keyed is None:
                order.append(case.case_id)
            criteria = rubrics.of(index[case.case_id])
            found = values.setdefault(case.case_id, [None] * len(criteria))
            case_calls = criterion_calls(case, replies[case.case_id], criteria, prompt)
            calls.extend(call for call, value in zip(case_calls, found) if value is None)
            owners.extend((case.case_id, j) for j, value in enumerate(found) if value is None)
        judged = judge.run(calls, parse_verdict, schema=VERDICT_SCHEMA, progress=context.progress,
                           desc="judging MedRealMM criteria")
        for (case_id, j), verdict in zip(owners, judged):
            if verdict.value is not None:
                values[case_id][j] = verdict.value["met"]
            else:
                values[case_id][j] = _Failure(verdict.kind)
                failed_cases.add(case_id)
            if verdict.flagged_injection:
                flagged_cases.add(case_id)
    seen = set(order)
    missing = wanted - seen
    if missing:
        raise LookupError(f"{len(missing)} answered cases have no dialogue in the dataset folder "
                          f"({data_folder(key, context)}); pass the public dataset folder as --data")
    met = out.met.tolist()  # filled as a list, converted once: a rescore places 50,586 flags case by case
    for case_id in order:
        found = values[case_id]  # complete: every case in `order` went through the judge's lookup or run
        start = rubrics.start[index[case_id]]
        out.total_criteria += len(found)
        if case_id not in failed_cases:  # each criterion met (True) or not (False)
            met[start:start + len(found)] = found
            continue
        for j, value in enumerate(found):  # a failure among them: counted, and left out of the scores
            if isinstance(value, _Failure):
                out.scored[start + j] = False
                out.failed_criteria += 1
                error_kinds[value.kind] += 1  # a category only: never the judge's text
            else:
                met[start + j] = value
    out.met = np.array(met, dtype=bool)
    out.failed_cases = len(failed_cases)
    after = judge.stats.as_dict()
    out.protocol = _judge_protocol(judge, before, after, flagged_cases, out, error_kinds)
    return out


def _judge_protocol(judge, before: dict, after: dict, flagged_cases: set, out: _Outcome,
                    error_kinds: Counter) -> dict:
    identity = dict(judge.identity)
    reasons = ["grader prompt is this project's (the paper's Figure 10 prompt is unavailable)"]
    if str(identity.get("model", "")).lower() != PAPER_GRADER:
        reasons.append(f"grader {identity.get('model')!r}, the paper's is Gemini-3-Pro-Preview")
    if out.failed_criteria:
        reasons.append("incomplete: judge failures")
    return {
        "judge": identity,
        "judge_prompts": sorted(identity.get("prompts", {})),
        "judge_calls": "one per criterion",
        "judge_stats": {k: after[k] - before.get(k, 0) for k in after},
        "judged_criteria": out.total_criteria,
        "judge_failures": {"criteria": out.failed_criteria, "cases": out.failed_cases, "kinds": dict(error_kinds)},
        "flagged_injections": {"cases": len(flagged_cases), "ids": sorted(flagged_cases)[:100]},
        "comparable_to_paper": False,
        "not_comparable_because": reasons,
    }


# --------------------------------------------------------------------- image gain
def image_gain(multimodal_result: Result | dict, text_only_result: Result | dict) -> dict:
    """score_pct(multimodal) - score_pct(text-only), overall and per stratum cell (cells present in
    both with the same n). `comparable` is False, with `issues`, when the two runs differ in dataset,
    judge or prompt, or a modality label is wrong; values are None where either side is pending."""
    mm, to = _as_dict(multimodal_result), _as_dict(text_only_result)
    issues = []
    if mm.get("benchmark") != "medrealmm" or to.get("benchmark") != "medrealmm":
        issues.append("both results must be MedRealMM results")
    if mm.get("protocol", {}).get("input_modality") != "multimodal":
        issues.append("the first result is not a multimodal run")
    if to.get("protocol", {}).get("input_modality") != "text-only":
        issues.append("the second result is not a text-only run")
    for field, label in (("dataset_fingerprint", "dataset"), ("judge_prompts", "grader prompt")):
        if mm.get("protocol", {}).get(field) != to.get("protocol", {}).get(field):
            issues.append(f"different {label}")
    judges = [(r.get("protocol", {}).get("judge") or {}).get("model") for r in (mm, to)]
    if judges[0] != judges[1]:
        issues.append("different grader model")
    if mm.get("model", {}).get("name") != to.get("model", {}).get("name"):
        issues.append("different model names")
    overall_gain = _difference(mm.get("metrics", {}).get("score_pct"), to.get("metrics", {}).get("score_pct"))
    strata: dict[str, dict] = {}
    for stratum, cells in (mm.get("strata") or {}).items():
        other = (to.get("strata") or {}).get(stratum, {})
        for value, cell in cells.items():
            twin = other.get(value)
            if twin is None or twin.get("n") != cell.get("n"):
                continue
            a, b = cell.get("metrics", {}).get("score_pct"), twin.get("metrics", {}).get("score_pct")
            strata.setdefault(stratum, {})[value] = {"n": cell["n"], "multimodal": a, "text_only": b,
                                                     "gain": _difference(a, b)}
    return {"score_pct": {"multimodal": mm.get("metrics", {}).get("score_pct"),
                          "text_only": to.get("metrics", {}).get("score_pct"), "gain": overall_gain},
            "strata": strata, "comparable": not issues, "issues": issues}


def _as_dict(result: Result | dict) -> dict:
    return result.to_public_dict() if isinstance(result, Result) else result


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 4)
