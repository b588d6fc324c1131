"""Med-CMR: five-option MCQ accuracy (item-weighted, per task, per medical-intelligence category) and the
open-ended LLM-judge score (pending until a judge is wired in).

Scoring is columnar: the answer key is a pyarrow table; predictions are aligned to it by id with one
`index_in`; letters are parsed once per distinct response; every accuracy (overall, per task, per
category, per stratum value) and its bootstrap CI comes from one matrix product per resample chunk.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from benchmarks.medcmr.taxonomy import MEDICAL_INTELLIGENCE, MODALITIES, ORGAN_SYSTEMS, TASKS

from leaderboard.scoring.aggregate import overall
from leaderboard.intake.answer_key import AnswerKey
from leaderboard.scoring.letter_reader import DECISION as READER_DECISION, read_unparsed, withhold
from leaderboard.scoring.letters import RULE_SUMMARY, RULE_VERSION, needs_options, parse_letter
from leaderboard.scoring.engine import Subsets, subset_numbers
from leaderboard.intake.prediction_files import FieldSpec, Issue, PredictionSchema, ValidationReport, read_rows
from leaderboard.scoring.result import Result
from benchmarks.medcmr import specialty as specialty_profile
from leaderboard.scoring.benchmark import Benchmark, MetricSpec, ScoringContext
from . import anomaly
from .judging import judge_open_items

OPEN_CRITERIA = {"Con": "Consistency", "Coh": "Coherence", "VA": "Visual accuracy", "GT": "Ground-truth correctness"}
OPEN_WEIGHTS = {"Con": 1, "Coh": 1, "VA": 4, "GT": 4}
JUDGE = "DeepSeek-V3.2-Exp"
JUDGE_MODEL_ID = "deepseek-v3.2-exp"  # the model id a comparable judge run must use (case-insensitive)
STRATA = ("task", "medical_intelligence", "complexity_group", "modality", "organ_system")
LETTER_CHOICES = tuple("ABCDE") + tuple("abcde")
SHOWN_IDS = 10


def _metrics() -> tuple[MetricSpec, ...]:
    # group = the name's suffix, so `<stem>_<group>` rendering (leaderboard.publishing.report) finds every cell.
    specs = [MetricSpec("mcq_all", "MCQ accuracy (all)", group="all", proportion=True, published_n=16_655)]
    specs += [MetricSpec(f"mcq_{abbr}", f"MCQ accuracy, {name}", group=abbr, proportion=True)
              for abbr, (name, _) in TASKS.items()]
    specs.append(MetricSpec("mcq_macro", "MCQ accuracy, mean over the 7 tasks (non-paper)", group="macro"))
    specs += [MetricSpec(f"mcq_{abbr}", f"MCQ accuracy, {name}", group=abbr, proportion=True)
              for abbr, name in MEDICAL_INTELLIGENCE.items()]
    specs += [MetricSpec(f"open_{abbr}", f"Open-ended {name} (judge, 0-100)", group=abbr) for abbr, name in OPEN_CRITERIA.items()]
    specs.append(MetricSpec("open_all", "Open-ended score (Con+Coh+4VA+4GT)/10", group="all"))
    return tuple(replace(s, decimals=2) for s in specs)  # the paper prints two decimals


class MedCMR(Benchmark):
    name = "medcmr"
    pretty_name = "Med-CMR"
    configs = ("mcq", "open_ended")
    id_column = "id"
    answer_columns = ("answer",)
    strata_columns = STRATA
    # what the open-ended judge sees besides the answer; `options` lets the letter rule read option-text answers
    context_columns = ("question", "visual_description", "options")
    schema = PredictionSchema(
        fields=(FieldSpec("response", "string"), FieldSpec("answer", "choice", choices=LETTER_CHOICES)),
        one_of=("response", "answer"),
        optional_metadata=("model", "notes", "metadata"),
    )
    metrics = _metrics()
    primary_metric = "mcq_all"
    release_items = 20_653  # 16,655 MCQs + 3,998 open-ended questions (the paper's count)
    stratum_labels = {"task": "Task", "medical_intelligence": "Medical-intelligence category",
                      "complexity_group": "Complexity group", "modality": "Imaging modality",
                      "organ_system": "Organ system"}
    value_labels = {"task": {abbr: name for abbr, (name, _) in TASKS.items()},
                    "medical_intelligence": {abbr: name[0].upper() + name[1:] for abbr, name in MEDICAL_INTELLIGENCE.items()},
                    "complexity_group": {"visual": "Visual complexity", "reasoning": "Reasoning complexity"},
                    "modality": {m: m for m in MODALITIES}, "organ_system": {o: o for o in ORGAN_SYSTEMS}}
    needs = ("judge", "letter_reader")  # scoring services it uses; front doors configure only these
    decisions = (
        "Primary metric: MCQ accuracy over all MCQs (`mcq_all`), the paper's MCQ 'All Score'. The paper reports "
        "the open-ended score separately and never combines the two; neither do we.",
        "MCQ accuracy is item-weighted (micro) over every MCQ of the split: the only aggregation that reproduces "
        "all 18 Table 2 'All' values. `mcq_macro` (mean of the 7 task accuracies) is an extra, non-paper column.",
        "MCQ letter: an `answer` field (A-E, any case) is used as given; otherwise the letter is parsed from "
        f"`response` with the project rule ({RULE_SUMMARY}; the README's precedence list). Unparseable = wrong, "
        "counted as a parse failure. The authors' regex is unpublished.",
        READER_DECISION,
        "Missing predictions count as wrong; the denominator is every MCQ in the split.",
        "Per medical-intelligence category (mcq_CDS ... mcq_TRE, the paper's Table 3): MCQ accuracy over the "
        "MCQs the dataset labels with that category; pending when the dataset has no such labels (the "
        "task-to-category mapping of the paper's Figure 2 is not published).",
        "Strata (task, medical intelligence, complexity group, modality, organ system) are computed over MCQs, "
        "with n and 95% CIs; modality is multi-label, so an item counts in each of its modalities. The paper "
        "reports no per-modality or per-organ-system scores: these are non-paper views.",
        "CIs: 95% percentile bootstrap over MCQ items (5,000 resamples, fixed seed); subset accuracies use the "
        "same resamples (ratio of resampled correct to resampled items in the subset).",
        f"Open-ended: the paper's judge ({JUDGE}) scores Consistency, Coherence, Visual accuracy and Ground-truth "
        "correctness, each 0-10; every criterion is reported x10 (0-100) and the item score is "
        "(Con + Coh + 4 VA + 4 GT)/10 x10, also on 0-100. Until a judge is configured these "
        "metrics are reported as pending, never estimated. An open-ended item needs a `response`; a letter-only "
        "`answer` leaves it unanswered.",
    )
    citation = "Gong, Ji, Liu et al. Med-CMR, arXiv:2512.00818."


    specialty_stratum, specialty_map = specialty_profile.SPECIALTY_STRATUM, specialty_profile.SPECIALTY_MAP
    def anomalies(self, metrics: dict, protocol: dict) -> list[str]:
        return anomaly.anomalies(metrics, protocol)
    def extra_issues(self, path, key: AnswerKey, report: ValidationReport) -> list[Issue]:
        return format_issues(path, key, report)

    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        table = key.table
        is_mcq = _is_mcq(table)
        mcq = table.filter(pa.array(is_mcq))
        mcq_ids = mcq.column(self.id_column)
        given_answer, response, answered = aligned_predictions(mcq_ids, report)
        options = mcq.column("options").to_pylist() if "options" in mcq.column_names else None
        letters, parse_failed = choose_letters(given_answer, response, answered, options)
        tail = read_tail(context, letters, parse_failed, response, options)
        if tail is not None:
            parse_failed = answered & np.asarray([x is None for x in letters], dtype=bool)
        gold = np.asarray(mcq.column("answer").to_pylist(), dtype=object)
        correct = (letters == gold) & answered
        open_table = table.filter(pa.array(~is_mcq))
        open_answered, letter_only = open_items_answered(open_table.column(self.id_column), report)

        subsets = subset_numbers(correct, *subset_masks(mcq), context.resamples, context.seed)
        metrics, ci, pending = self._headline(subsets)
        held = withhold(tail, metrics, ci, [m.name for m in self.metrics if m.name.startswith("mcq_")])
        pending.update(held)
        open_outcome = self._open_scores(open_table, report, context)
        if open_outcome is None:
            pending.update(self._open_pending(context, len(open_table)))
        elif open_outcome["failures"]:
            reason = (f"{len(open_outcome['failures'])} open-ended judge failure(s); rerun to retry (cached verdicts "
                      "are reused, nothing is guessed)")
            pending.update({f"open_{a}": reason for a in (*OPEN_CRITERIA, "all")})
        else:
            open_metrics, open_ci = overall(open_outcome["values"], context.resamples, context.seed)
            metrics.update(open_metrics)
            ci.update(open_ci)
        strata = {} if held else subsets.strata("mcq_all")

        protocol = self.base_protocol(key, context)
        protocol.update({
            "mcq_items": int(len(mcq)), "open_items": int(len(open_table)),
            "mcq_parse_failures": int(parse_failed.sum()),
            "letter_rule": RULE_SUMMARY, "letter_rule_version": RULE_VERSION,
            "letter_reader": None if tail is None else tail.protocol(context.service("letter_reader")),
            "judge": None if context.service("judge") is None else context.service("judge").identity,
            "judge_stats": None if context.service("judge") is None else context.service("judge").stats.as_dict(),
            "comparable_to_paper": True,
            "not_comparable_because": [],
            "scope": ("MCQ and open-ended metrics scored" if open_outcome and not open_outcome["failures"]
                      else "MCQ metrics scored; open-ended metrics pending"),
        })
        if tail is not None and tail.not_comparable_because(context.service("letter_reader")):
            protocol["comparable_to_paper"] = False
            protocol["not_comparable_because"] += tail.not_comparable_because(context.service("letter_reader"))
        if open_outcome is not None:
            protocol["open_ended_judged"] = open_outcome["judged"]
            protocol["open_ended_injection_flags"] = len(open_outcome["flagged"])
            protocol["judge_failures"] = {"items": len(open_outcome["failures"]), "kinds": open_outcome["failure_kinds"]}
            if JUDGE_MODEL_ID not in context.service("judge").config.model.lower():
                protocol["comparable_to_paper"] = False
                protocol["not_comparable_because"].append(
                    f"open-ended judge {context.service('judge').config.model} instead of the paper's {JUDGE} (prompt is ours)")
        notes = []
        if open_outcome and open_outcome["flagged"]:
            notes.append(f"{len(open_outcome['flagged'])} open-ended response(s) addressed the grader; those "
                         "sentences were removed before judging")
        if letter_only:
            shown = ", ".join(letter_only[:SHOWN_IDS]) + (" ..." if len(letter_only) > SHOWN_IDS else "")
            notes.append(f"{len(letter_only)} open-ended item(s) were submitted with only a letter `answer` and no "
                         f"`response`; they count as unanswered: {shown}")
        open_n = {f"open_{a}": len(open_table)
                  for a in (*OPEN_CRITERIA, "all")}
        return self.result(
            context, metrics=metrics, ci=ci, n_items=len(table), n_answered=int(answered.sum()) + open_answered,
            parse_failures=int(parse_failed.sum()), pending=pending, strata=strata, protocol=protocol, notes=notes,
            metric_n=open_n, cells=[] if held else [subsets.cells(_metric_name)],
            derived={"mcq_macro": [f"mcq_{t}" for t in TASKS]}, chance={"mcq_all": constant_answer_accuracy(gold)},
            per_item=({i: {"mcq_all": float(c), "parse_failure": float(p)}
                       for i, c, p in zip(mcq_ids.to_pylist(), correct, parse_failed)}
                      if context.keep_per_item else None))

    def _headline(self, subsets: Subsets) -> tuple[dict, dict, dict]:
        """Metric values, CIs and pending reasons for mcq_all, the 7 tasks, the macro mean and the 6 categories."""
        metrics, ci, pending = {}, {}, {}
        names = subsets.names
        mi_labelled = any(stratum == "medical_intelligence" and value != "(missing)" and subsets.value(j) is not None
                          for j, (stratum, value) in enumerate(names))
        for j, (stratum, value) in enumerate(names):
            metric = _metric_name(stratum, value)
            if metric is None:
                continue
            if subsets.value(j) is None:
                pending[metric] = ("the dataset has no medical-intelligence labels" if stratum == "medical_intelligence"
                                   and not mi_labelled else f"no MCQ in the dataset has {stratum} {value}")
                continue
            metrics[metric] = subsets.value(j)
            if subsets.interval(j) is not None:
                ci[metric] = subsets.interval(j)
        macro, interval = subsets.macro([j for j, (s, _) in enumerate(names) if s == "task"])
        if macro is None:
            pending["mcq_macro"] = "no MCQ in the dataset has a task label"
        else:
            metrics["mcq_macro"] = macro
            if interval is not None:
                ci["mcq_macro"] = interval
        return metrics, ci, pending

    def _open_scores(self, open_table: pa.Table, report: ValidationReport, context: ScoringContext) -> dict | None:
        """Judge the answered open-ended items; None when there is nothing to judge or no judge."""
        if context.service("judge") is None or open_table.num_rows == 0:
            return None
        ids = open_table.column(self.id_column).to_pylist()
        _, responses, answered = aligned_predictions(open_table.column(self.id_column), report)
        responses = [r if ok else None for r, ok in zip(responses, answered)]
        column = lambda name: (open_table.column(name).to_pylist() if name in open_table.column_names
                               else [None] * len(ids))
        return judge_open_items(context.service("judge"), ids, column("question"), column("answer"),
                                column("visual_description"), responses, progress=context.progress)

    def _open_pending(self, context: ScoringContext, open_items: int) -> dict[str, str]:
        if open_items == 0:
            reason = "the dataset has no open-ended items"
        elif context.service("judge") is None:
            reason = context.why_missing("judge")
        else:
            reason = "open-ended judge scoring is not implemented yet for Med-CMR"
        return {f"open_{abbr}": reason for abbr in (*OPEN_CRITERIA, "all")}


def _metric_name(stratum: str, value: str) -> str | None:
    if stratum == "all":
        return "mcq_all"
    if stratum in ("task", "medical_intelligence") and value in (*TASKS, *MEDICAL_INTELLIGENCE):
        return f"mcq_{value}"
    return None


def constant_answer_accuracy(gold: np.ndarray) -> float:
    """What answering every MCQ with the key's most common letter scores (x100): private, used only to
    withhold breakdowns of results near it (a constant-letter probe's breakdowns are letter shares)."""
    letters = [g for g in gold if g is not None]
    return 100.0 * max(np.unique(np.asarray(letters, dtype=str), return_counts=True)[1]) / len(gold) if letters else 0.0


def _is_mcq(table: pa.Table) -> np.ndarray:
    """Which key rows are MCQs: the `config` column when the key joins both configs."""
    if "config" in table.column_names:
        return np.asarray(pc.equal(table.column("config"), "mcq").to_numpy(zero_copy_only=False), dtype=bool)
    return np.ones(table.num_rows, dtype=bool)


def aligned_predictions(ids: pa.ChunkedArray, report: ValidationReport) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(answer letters, responses, answered) aligned with `ids`; object arrays hold None where absent.
    Uses the report's columnar table when it has one, else its `valid` dict."""
    predictions = getattr(report, "table", None)
    n = len(ids)
    if predictions is not None:
        positions = pc.index_in(ids, value_set=predictions.column("id").combine_chunks())
        answered = positions.is_valid().to_numpy(zero_copy_only=False)
        out = []
        for name in ("answer", "response"):
            if name in predictions.column_names:
                out.append(np.asarray(predictions.column(name).take(positions).to_pylist(), dtype=object))
            else:
                out.append(np.full(n, None, dtype=object))
        return out[0], out[1], np.asarray(answered, dtype=bool)
    given, response = np.full(n, None, dtype=object), np.full(n, None, dtype=object)
    answered = np.zeros(n, dtype=bool)
    for k, item_id in enumerate(ids.to_pylist()):
        row = report.valid.get(item_id)
        if row is not None:
            answered[k] = True
            given[k], response[k] = row.get("answer"), row.get("response")
    return given, response, answered


def choose_letters(given: np.ndarray, response: np.ndarray, answered: np.ndarray,
                   options: list | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The chosen letter per MCQ (None if none) and which answered items failed to parse.
    A given `answer` wins over `response`; each distinct response is parsed once, and again with its item's
    option texts only where they can change the letter (letters.needs_options)."""
    letters = np.full(len(given), None, dtype=object)
    parsed: dict[str, str | None] = {}
    with_options: dict[tuple, str | None] = {}
    for k in np.flatnonzero(answered):
        if given[k] is not None:
            letters[k] = given[k].upper()
        elif response[k] is not None:
            text = response[k]
            if text not in parsed:
                parsed[text] = parse_letter(text)
            letters[k] = parsed[text]
            item_options = tuple(options[k] or ()) if options is not None else ()
            if needs_options(letters[k], item_options, text):  # option texts change it only here
                pair = (text, item_options)
                if pair not in with_options:
                    with_options[pair] = parse_letter(text, options=item_options)
                letters[k] = with_options[pair]
    parse_failed = answered & np.asarray([x is None for x in letters], dtype=bool)
    return letters, parse_failed


def read_tail(context: ScoringContext, letters: np.ndarray, parse_failed: np.ndarray, response: np.ndarray,
              options: list | None):
    """With a letter reader configured, the rule's unparseable responses are read by it (letter_reader.py) and
    `letters` updated in place; None without a reader."""
    if context.service("letter_reader") is None:
        return None
    rows = [k for k in np.flatnonzero(parse_failed) if response[k] is not None]
    item_options = [tuple(options[k] or ()) if options is not None else () for k in rows]
    outcome = read_unparsed(context, rows, [response[k] for k in rows], item_options,
                            ["ABCDE"[:len(o)] if o else "ABCDE" for o in item_options])
    if outcome is not None:
        for row, letter in outcome.letters.items():
            letters[row] = letter
    return outcome


def open_items_answered(ids: pa.ChunkedArray, report: ValidationReport) -> tuple[int, list[str]]:
    """How many open-ended items have a `response`, and the ids that came with a letter `answer` only."""
    given, response, answered = aligned_predictions(ids, report)
    has_response = np.asarray([r is not None for r in response], dtype=bool) & answered
    letter_only = answered & ~has_response & np.asarray([g is not None for g in given], dtype=bool)
    id_list = ids.to_pylist()
    return int(has_response.sum()), [id_list[k] for k in np.flatnonzero(letter_only)]


def format_issues(path, key: AnswerKey, report: ValidationReport) -> list[Issue]:
    """Line-level problems the generic validator cannot see because they depend on an item's format:
    an open-ended item sent with a letter `answer` and no `response`. The file is re-read (for line
    numbers) only when there is such an item. Messages name ids and fields, never answers."""
    table = key.table
    open_ids = table.filter(pa.array(~_is_mcq(table))).column(key.id_column)
    _, letter_only = open_items_answered(open_ids, report)
    if not letter_only:
        return []
    wanted, issues = set(letter_only), []
    for line, row in read_rows(path):
        item_id = row.get("id") if isinstance(row, dict) else None
        item_id = str(item_id).strip() if item_id is not None else None
        if item_id in wanted:
            wanted.discard(item_id)
            issues.append(Issue(line, "answer", f"id {item_id!r} is an open-ended item: a letter `answer` is not "
                                                "scored (the item counts as unanswered); put the model's text in "
                                                "`response`", severity="warning"))
    return issues


def subset_masks(mcq: pa.Table) -> tuple[np.ndarray, list[tuple[str, str]]]:
    """(items, subsets) boolean matrix and each column's (stratum, value): all, then the fixed task and
    category sets (so empty ones show as pending), then every value present in the other strata."""
    n = mcq.num_rows
    columns: list[np.ndarray] = [np.ones(n, dtype=bool)]
    names: list[tuple[str, str]] = [("all", "all")]
    fixed = {"task": list(TASKS), "medical_intelligence": list(MEDICAL_INTELLIGENCE),
             "complexity_group": ["visual", "reasoning"], "modality": list(MODALITIES),
             "organ_system": list(ORGAN_SYSTEMS)}
    for stratum in STRATA:
        if stratum not in mcq.column_names:
            continue
        masks = label_masks(mcq.column(stratum))
        for value in fixed[stratum] + sorted(v for v in masks if v not in fixed[stratum]):
            if stratum in ("task", "medical_intelligence") or value in masks:
                columns.append(masks.get(value, np.zeros(n, dtype=bool)))
                names.append((stratum, value))
    return np.column_stack(columns), names


def label_masks(column: pa.ChunkedArray) -> dict[str, np.ndarray]:
    """value -> items holding it. A list column counts an item under each of its values; null or an
    empty list is '(missing)'."""
    column = column.combine_chunks()
    n = len(column)
    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
        flat = pc.list_flatten(column).to_numpy(zero_copy_only=False)
        parents = pc.list_parent_indices(column).to_numpy(zero_copy_only=False)
        empty = pc.fill_null(pc.equal(pc.list_value_length(column), 0), True).to_numpy(zero_copy_only=False)
        out = {}
        for value in np.unique(flat[flat != None]):  # noqa: E711 (elementwise on an object array)
            mask = np.zeros(n, dtype=bool)
            mask[parents[flat == value]] = True
            out[str(value)] = mask
        if empty.any():
            out["(missing)"] = np.asarray(empty, dtype=bool)
        return out
    labels = np.asarray(pc.fill_null(pc.cast(column, pa.string()), "(missing)").to_numpy(zero_copy_only=False), dtype=object)
    return {str(v): labels == v for v in np.unique(labels)}
