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

from dataclasses import replace

import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from benchmarks.xpcr.taxonomy import (ABLATION_SEP, CASE_GROUPS, CATEGORIES, CATEGORY_NAMES, LETTERS, MODALITIES,
                                      MODALITY_NAMES, STAGE_NAMES, STAGES, TIER_NAMES, TIER_WEIGHTS, TIERS)

from leaderboard.answer_key import AnswerKey
from leaderboard.disclosure import Cells, cell_key, metric_key
from leaderboard.engine import coded_cells
from leaderboard.letters import DIGITS, RULE_SUMMARY, RULE_VERSION, needs_options, parse_letter
from leaderboard.metrics.calibration import (BASE_SCORES, CONFIDENT_AT, ECE_BINS,
                                   base_score_vector, expected_calibration_error, uncertainty_aware_score,
                                   uncertainty_codes)
from leaderboard.metrics.cell_bootstrap import cell_bootstrap, group_accuracy, multinomial_draws, percentile_interval
from leaderboard.metrics.chains import chain_completion, chain_completion_rate, modality_contribution
from leaderboard.prediction_files import FieldSpec, Issue, PredictionSchema, ValidationReport, read_rows, table_from_valid
from leaderboard.result import Result
from leaderboard.benchmark import Benchmark, MetricSpec, ScoringContext

ABLATIONS = "ablations"
NO_CASES = "no cross-modal case of this group in the dataset build"
NO_ABLATION = "no ablated predictions submitted for this group and modality"


def _metric_specs() -> tuple[MetricSpec, ...]:
    specs = [MetricSpec(s, f"{s} accuracy (stage {i})", group="stage") for i, s in enumerate(STAGES, 1)]
    specs.append(MetricSpec("SWA_Avg", "Stage-wise accuracy, mean of the six stages", group="stage"))
    specs += [MetricSpec(f"{t}_level", f"{t}-level accuracy", group="tier") for t in TIERS]
    specs.append(MetricSpec("ESA_Avg", "Expertise-stratified accuracy, mean of R/A/S", group="tier"))
    specs.append(MetricSpec("CCR", "Chain completion rate", group="chain"))
    specs.append(MetricSpec("ECE", "Expected calibration error (fraction, 10 bins)", higher_is_better=False,
                            group="calibration", item_span=1.0, value_range=(0.0, 1.0), decimals=3))
    specs.append(MetricSpec("UAS", "Uncertainty-aware score", group="calibration"))
    specs.append(MetricSpec("conf_coverage", "Chain items with a confidence (%)", group="calibration"))
    specs += [MetricSpec(f"modality_{m}", f"{m} accuracy", group="modality") for m in MODALITIES]
    specs.append(MetricSpec("modality_Avg", "Modality accuracy, mean of the six", group="modality"))
    specs += [MetricSpec(f"category_{c}", f"{c} accuracy", group="category") for c in CATEGORIES]
    specs.append(MetricSpec("XM_All", "Cross-modal accuracy, all cases, all modalities", group="cross_modal"))
    for g, mods in CASE_GROUPS.items():
        specs.append(MetricSpec(f"All_G{g}", f"Group {g} ({'/'.join(mods)}) accuracy, all modalities", group="cross_modal"))
        specs += [MetricSpec(f"MCS_{m}_G{g}", f"Group {g} MCS, {m} removed (pp)", group="cross_modal",
                             value_range=(-100.0, 100.0)) for m in mods]
    return tuple(s if s.decimals != 1 else replace(s, decimals=2) for s in specs)  # the paper prints two decimals


class XPCR(Benchmark):
    name = "xpcr"
    pretty_name = "X-PCR"
    configs = ("items", ABLATIONS)
    id_column = "id"
    answer_columns = ("answer",)
    strata_columns = ("task", "parent_id", "stage", "tier", "modality", "case_group", "task_family", "source_dataset",
                      "disease", "disease_category", "n_options", "item_id", "removed_modality")
    context_columns = ("options",)  # the option texts: the letter rule reads option-text answers (letters-v4)
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
    metrics = _metric_specs()
    primary_metric = "SWA_Avg"  # a mean of six stage accuracies, not one proportion: paper rows get no CI
    release_items = 177_868  # items in the paper's release
    needs = ()  # scoring services it uses; front doors configure only these
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
        metrics: dict[str, float | None] = {}
        ci: dict[str, list[float]] = {}
        pending: dict[str, str] = {}
        metric_n: dict[str, int] = {}
        rng_seed = context.seed
        resamples = context.resamples
        _chain_metrics(s, metrics, ci, metric_n, resamples, rng_seed)
        _cross_modal_metrics(s, metrics, ci, pending, metric_n, resamples, rng_seed)
        if s.chain.any() and not (s.has_conf & s.chain).any():
            pending["ECE"] = pending["UAS"] = "no chain item was submitted with a confidence"
        for name in list(metrics):
            if metrics[name] is None and name not in pending:
                pending[name] = "no item of this stratum in the dataset build"
        protocol = self.base_protocol(key, context)
        protocol["letter_rule"], protocol["letter_rule_version"] = RULE_SUMMARY, RULE_VERSION
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
        scored = s.chain | s.cross
        return self.result(
            context, metrics=metrics, ci=ci, n_items=int(scored.sum()), n_answered=int((s.answered & scored).sum()),
            parse_failures=int(s.parse_failures.sum()), pending=pending, strata=_strata(s), protocol=protocol,
            notes=_notes(s), per_item=_per_item(s) if context.keep_per_item else None, metric_n=metric_n,
            cells=_disclosure_cells(s), derived=DERIVED, sources={f"category_{c}": "disease_category" for c in CATEGORIES})


# ------------------------------------------------------------------ aligning predictions with the key
class _KeyIndex:
    """Everything the scorer reads from the answer key, as numpy codes. The same for every submission,
    so it is built once per loaded key (see `key_index`) and shared by validation and scoring."""

    def __init__(self, key: pa.Table):
        self.key = key
        n = key.num_rows
        self.ids = key.column("id")
        self.ablation = _np_bool(pc.equal(self.column("config"), ABLATIONS))
        task = _codes(self.column("task"), ("chain", "cross_modal"))
        self.chain = (task == 0) & ~self.ablation
        self.cross = (task == 1) & ~self.ablation
        self.stage = _codes(self.column("stage"), STAGES)
        self.tier = _codes(self.column("tier"), TIERS)
        self.modality = _codes(self.column("modality"), MODALITIES)
        self.category = _codes(self.column("disease_category"), CATEGORIES)
        self.removed = _codes(self.column("removed_modality"), MODALITIES)
        self.group = _ints(self.column("case_group", pa.int8()), -1)
        self.n_options = _ints(self.column("n_options", pa.int8()), 0)
        self.gold = _codes(key.column("answer"), tuple(LETTERS))
        chain_rows = pa.array(self.chain)
        self.parent, self.parents = _factorize(self.column("parent_id").filter(chain_rows))
        self.free_strata = {c: _factorize(self.column(c).filter(chain_rows)) for c in ("source_dataset", "disease")}
        self.task_family = _factorize(self.column("task_family").filter(pa.array(self.cross)))
        self.ablation_rows = np.flatnonzero(self.ablation)
        item_id = self.column("item_id").take(pa.array(self.ablation_rows, pa.int64()))
        self.ablation_item = _ints(pc.index_in(item_id, value_set=self.ids), 0)  # full-input row of each ablation row
        self.size = n

    def column(self, name: str, kind: pa.DataType = pa.string()) -> pa.ChunkedArray:
        """A key column, or nulls when the build has none (e.g. no hospital cases: no ablations config)."""
        if name in self.key.column_names:
            return self.key.column(name)
        return pa.chunked_array([pa.nulls(self.key.num_rows, kind)])


_LAST_KEY: list[tuple[pa.Table, _KeyIndex]] = []


# The alignment of the last prediction table with the key: the key-aware validation checks and the score
# that follows read the same (key, table) pair, so the ids are matched once per submission.
_LAST_ALIGNED: list[tuple[_KeyIndex, pa.Table, tuple]] = []


def key_index(table: pa.Table) -> _KeyIndex:
    """The index of this key table, reused while the same table object is scored against."""
    if not (_LAST_KEY and _LAST_KEY[0][0] is table):
        _LAST_KEY[:] = [(table, _KeyIndex(table))]
        _LAST_ALIGNED.clear()
    return _LAST_KEY[0][1]


def _factorize(values) -> tuple[np.ndarray, list]:
    """(codes, names) of a string column; null -> -1."""
    encoded = pc.cast(values, pa.string()).combine_chunks().dictionary_encode()
    return _ints(encoded.indices, -1), encoded.dictionary.to_pylist()


class _Scored:
    """One submission aligned with the key: its letters, confidences and correctness as numpy arrays.
    Key codes (stage, tier, ...) are read through to the shared `_KeyIndex`."""

    def __init__(self, key: pa.Table, preds: pa.Table, parse: bool = True, key_rows: np.ndarray | None = None):
        self.k = key_index(key)
        aligned = next(iter(_LAST_ALIGNED), None)  # a snapshot: another thread may replace it
        if aligned is not None and aligned[0] is self.k and aligned[1] is preds:
            self.given, self.conflict, self.answered, self._taken = aligned[2]  # validation aligned this table
        else:
            self._align(preds, self.k.size, key_rows)
            _LAST_ALIGNED[:] = [(self.k, preds, (self.given, self.conflict, self.answered, self._taken))]
        if parse:  # the key-aware validation checks need only the alignment
            self._letters()
            self.correct = self.answered & (self.pred >= 0) & (self.pred == self.k.gold)
            self.has_conf = self.answered & ~np.isnan(self.confidence)

    def __getattr__(self, name: str):
        return getattr(self.k, name)

    def _align(self, preds: pa.Table, n: int, key_rows: np.ndarray | None) -> None:
        position = self._positions(preds, n, key_rows)
        found = _np_bool(pc.is_valid(position))
        self._taken = preds.take(position) if preds.num_rows else None  # a null position gives a null row
        claimed = _codes(self._column("removed_modality"), MODALITIES)
        self.given = _codes(pc.utf8_upper(self._column("answer")), tuple(LETTERS))
        # A row that names a removed modality must be that ablation row; otherwise it is ignored.
        self.conflict = found & (claimed >= 0) & (claimed != self.removed)
        self.answered = found & ~self.conflict

    def _positions(self, preds: pa.Table, n: int, key_rows: np.ndarray | None) -> pa.Array:
        """Each key row's row in `preds`, null where none. From the validation's `key_rows` (each prediction's
        row in the key) when they hold for these tables, checked by one string comparison; otherwise by
        hashing the ids again."""
        if not preds.num_rows:
            return pa.nulls(n, pa.int32())
        if (key_rows is not None and len(key_rows) == preds.num_rows and 0 <= key_rows.min() and key_rows.max() < n
                and pc.all(pc.equal(self.ids.take(key_rows), preds.column("id"))).as_py()
                and np.bincount(key_rows, minlength=n).max() <= 1):
            inverse = np.full(n, -1, dtype=np.int64)
            inverse[key_rows] = np.arange(len(key_rows))
            return pa.array(inverse, mask=inverse < 0)
        return pc.index_in(self.ids, value_set=preds.column("id"))

    def _column(self, name: str, kind: pa.DataType = pa.string()):
        return pa.nulls(self.k.size, kind) if self._taken is None else self._taken.column(name).combine_chunks()

    def _letters(self) -> None:
        letters = np.where(self.answered, self.given, -1)
        responses = self._column("response")
        need = self.answered & (letters < 0) & _np_bool(pc.is_valid(responses))
        options = self.column("options", pa.list_(pa.string())) if "options" in self.key.column_names else None
        letters = np.where(need, _parse_responses(responses, self.n_options, need, options), letters)
        in_range = (letters >= 0) & (letters < self.n_options)
        self.pred = np.where(self.answered & in_range, letters, -1)
        self.parse_failures = self.answered & (self.pred < 0)
        confidence = self._column("confidence", pa.float64()).to_numpy(zero_copy_only=False).astype(np.float64)
        self.confidence = np.where(self.answered, confidence, np.nan)


def _ints(column, null: int) -> np.ndarray:
    return np.asarray(pc.fill_null(column, null).to_numpy(zero_copy_only=False), dtype=np.int64)


def _np_bool(values) -> np.ndarray:
    return np.asarray(pc.fill_null(values, False).to_numpy(zero_copy_only=False), dtype=bool)


def _codes(column, values: tuple) -> np.ndarray:
    """Position of each value in `values`; -1 for null or unknown."""
    index = pc.index_in(column, value_set=pa.array(values, pa.string()))
    return np.asarray(pc.fill_null(index, -1).to_numpy(zero_copy_only=False), dtype=np.int64)


def _parse_responses(responses: pa.Array, n_options: np.ndarray, need: np.ndarray, options=None) -> np.ndarray:
    """Letter codes of free-text responses (rows in `need`): a bare capital letter directly, anything else
    through parse_letter once per distinct (text with its digits zeroed, option count); then, when the key
    carries the items' option texts, again with them where they can change the letter (letters.needs_options)."""
    out = np.full(len(need), -1, dtype=np.int64)
    rows = np.flatnonzero(need)
    if len(rows) == 0:
        return out
    texts = pc.utf8_trim_whitespace(responses.take(pa.array(rows)))
    bare = _codes(texts, tuple(LETTERS))  # exactly "B" etc.: parse_letter's answer when in range, None beyond
    out[rows] = np.where(bare < n_options[rows], bare, -1)
    rest = rows[bare < 0]
    if len(rest):
        # one parse per distinct (text up to its digits, option count): digits never decide (letters.DIGITS)
        encoded = pc.replace_substring_regex(responses.take(pa.array(rest)), DIGITS, "0").dictionary_encode()
        text_index = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
        pairs, inverse = np.unique(text_index * 64 + n_options[rest], return_inverse=True)
        dictionary = encoded.dictionary.to_pylist()
        parsed = np.array([_letter_code(parse_letter(dictionary[p // 64], LETTERS[: p % 64])) for p in pairs],
                          dtype=np.int64)
        out[rest] = parsed[inverse.ravel()]
        if options is not None:  # the option texts (digits kept: "T2-weighted") only where they can change it
            _reparse_with_options(responses, n_options, options, rest, out)
    return out


_LONE_LETTER = r"(?:^|[^\p{L}\p{N}])[A-Za-z](?:[^\p{L}\p{N}]|$)"  # "Hepatitis B", "Type A fracture"


def _reparse_with_options(responses, n_options: np.ndarray, options, rows: np.ndarray, out: np.ndarray) -> None:
    """Parse again, with the item's option texts, the rows where they can change the letter (no letter found,
    or an option holding a one-letter word): once per distinct (text, options, option count)."""
    taken = options.take(pa.array(rows)).combine_chunks() if isinstance(options, pa.ChunkedArray) \
        else options.take(pa.array(rows))
    # vectorised first cut (rows with no letter, or an option with a lone letter: a superset of needs_options)
    letter_word = pc.match_substring_regex(pc.list_flatten(taken), _LONE_LETTER)
    parents = np.asarray(pc.list_parent_indices(taken), dtype=np.int64)
    flags = np.asarray(pc.fill_null(letter_word, False).to_numpy(zero_copy_only=False), dtype=bool)
    has_letter_word = np.bincount(parents[flags], minlength=len(rows)) > 0
    has_options = _np_bool(pc.greater(pc.fill_null(pc.list_value_length(taken), 0), 0))
    first_cut = np.flatnonzero(has_options & ((out[rows] < 0) | has_letter_word))
    if not len(first_cut):
        return
    item_options = taken.take(pa.array(first_cut)).to_pylist()
    texts = responses.take(pa.array(rows[first_cut])).to_pylist()
    parsed: dict[tuple, int] = {}
    for k, text, opts in zip(first_cut, texts, item_options):
        row = rows[k]
        if not needs_options(None if out[row] < 0 else LETTERS[out[row]], opts):
            continue
        pair = (text, tuple(opts), int(n_options[row]))
        if pair not in parsed:
            parsed[pair] = _letter_code(parse_letter(text, LETTERS[:pair[2]], pair[1]))
        out[row] = parsed[pair]


def _letter_code(letter: str | None) -> int:
    return -1 if letter is None else LETTERS.index(letter)


# ------------------------------------------------------------------ Tables 2-3: chain items
def _accuracy_family(codes: np.ndarray, correct: np.ndarray, names: list[str], average: str | None,
                     metrics: dict, ci: dict, metric_n: dict, resamples: int, seed: list[int]) -> None:
    """Accuracy per code value (and their unweighted mean) with cell-bootstrap CIs over all `codes` items."""
    k = len(names)
    known = codes >= 0
    cells = np.bincount(codes[known] * 2 + correct[known], minlength=2 * k)
    counts = np.append(cells, (~known).sum())  # last cell: items outside the family (keeps N = all items)
    size = cells.reshape(k, 2).sum(axis=1)
    acc = np.where(size > 0, cells.reshape(k, 2)[:, 1] / np.maximum(size, 1), np.nan)
    for name, value, n in zip(names, acc, size):
        metrics[name] = None if n == 0 else round(100.0 * float(value), 4)
        metric_n[name] = int(n)
    if average:
        metrics[average] = None if not (size > 0).any() else round(100.0 * float(np.nanmean(acc)), 4)
        metric_n[average] = int(size.sum())
    if resamples <= 0 or size.sum() == 0:
        return

    def statistic(draws: np.ndarray) -> np.ndarray:
        per_group = group_accuracy(draws[:, :-1], k)
        if not average:
            return per_group
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a resample with no item of any group: NaN
            mean = np.nanmean(np.where(size > 0, per_group, np.nan), axis=1)
        return np.column_stack([per_group, mean])

    lo, hi = cell_bootstrap(counts, statistic, resamples, seed)
    for name, a, b in zip(names + ([average] if average else []), lo, hi):
        if metrics.get(name) is not None:
            ci[name] = [round(100.0 * float(a), 4), round(100.0 * float(b), 4)]


def _chain_metrics(s: _Scored, metrics: dict, ci: dict, metric_n: dict, resamples: int, seed: int) -> None:
    ch = s.chain
    correct = s.correct[ch].astype(np.int64)
    _accuracy_family(s.stage[ch], correct, list(STAGES), "SWA_Avg", metrics, ci, metric_n, resamples, [seed, 1])
    _accuracy_family(s.tier[ch], correct, [f"{t}_level" for t in TIERS], "ESA_Avg", metrics, ci, metric_n,
                     resamples, [seed, 2])
    _accuracy_family(s.modality[ch], correct, [f"modality_{m}" for m in MODALITIES], "modality_Avg", metrics, ci,
                     metric_n, resamples, [seed, 3])
    _accuracy_family(s.category[ch], correct, [f"category_{c}" for c in CATEGORIES], None, metrics, ci, metric_n,
                     resamples, [seed, 4])
    _ccr(s, metrics, ci, metric_n, resamples, seed)
    _calibration(s, metrics, ci, metric_n, resamples, seed)


def _ccr(s: _Scored, metrics: dict, ci: dict, metric_n: dict, resamples: int, seed: int) -> None:
    ch = s.chain
    eligible, complete = chain_completion(s.parent, s.stage[ch], s.correct[ch], len(s.parents), len(STAGES))
    n = int(eligible.sum())
    metric_n["CCR"] = n
    metrics["CCR"] = None if n == 0 else round(chain_completion_rate(eligible, complete), 4)
    if n and resamples > 0:  # chains resampled: the complete count is Binomial(n, rate)
        draws = np.random.default_rng([seed, 5]).binomial(n, complete.sum() / n, size=resamples) / n
        lo, hi = percentile_interval(draws[:, None])
        ci["CCR"] = [round(100.0 * float(lo[0]), 4), round(100.0 * float(hi[0]), 4)]


def _calibration(s: _Scored, metrics: dict, ci: dict, metric_n: dict, resamples: int, seed: int) -> None:
    ch = s.chain
    has = s.has_conf & ch
    metric_n["ECE"] = metric_n["UAS"] = int(has.sum())
    metric_n["conf_coverage"] = int(ch.sum())
    metrics["conf_coverage"] = None if not ch.any() else round(100.0 * has.sum() / ch.sum(), 4)
    if not has.any():
        metrics["ECE"] = metrics["UAS"] = None
        return
    weights = np.array([TIER_WEIGHTS[t] for t in TIERS])
    known_tier = has & (s.tier >= 0)
    metrics["ECE"] = round(expected_calibration_error(s.confidence[has], s.correct[has]), 6)
    metrics["UAS"] = round(uncertainty_aware_score(s.confidence[known_tier], s.correct[known_tier],
                                                   weights[s.tier[known_tier]]), 4)
    if resamples <= 0:
        return
    # Cells: tier x (no confidence, CC, CU, IU, IC), plus one for chain items of unknown tier.
    category = np.where(has, uncertainty_codes(np.nan_to_num(s.confidence), s.correct) + 1, 0)
    rows = ch & (s.tier >= 0)
    cells = np.bincount(s.tier[rows] * 5 + category[rows], minlength=len(TIERS) * 5)
    counts = np.append(cells, (ch & (s.tier < 0)).sum())
    value = np.concatenate([[0.0], base_score_vector()])  # per category code 0..4
    w_cell = np.repeat(weights, 5) * np.tile(np.r_[0.0, np.ones(4)], len(TIERS))
    wb_cell = np.repeat(weights, 5) * np.tile(value, len(TIERS))

    def statistic(draws: np.ndarray) -> np.ndarray:
        d = draws[:, :-1].astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (d @ wb_cell) / (d @ w_cell)

    lo, hi = cell_bootstrap(counts, statistic, resamples, [seed, 6])
    ci["UAS"] = [round(100.0 * float(lo[0]), 4), round(100.0 * float(hi[0]), 4)]


# ------------------------------------------------------------------ Table 4: cross-modal items
def _cross_modal_metrics(s: _Scored, metrics: dict, ci: dict, pending: dict, metric_n: dict,
                         resamples: int, seed: int) -> None:
    _binomial_accuracy("XM_All", s.correct[s.cross], metrics, ci, metric_n, resamples, [seed, 10])
    if not s.cross.any():
        pending["XM_All"] = NO_CASES.replace(" of this group", "")
    full_correct = np.zeros(len(s.correct), dtype=bool)  # for ablation rows: the same item's full-input outcome
    full_correct[s.ablation_rows] = s.correct[s.ablation_item]
    paired: dict[str, np.ndarray] = {}  # MCS name -> counts of (full, ablated) outcomes 00, 01, 10, 11
    for g, mods in CASE_GROUPS.items():
        members = s.cross & (s.group == g)
        name = f"All_G{g}"
        _binomial_accuracy(name, s.correct[members], metrics, ci, metric_n, resamples, [seed, 10 + g])
        if not members.any():
            pending[name] = NO_CASES
        for m in mods:
            mcs = f"MCS_{m}_G{g}"
            cell = s.ablation & (s.group == g) & (s.removed == MODALITIES.index(m))
            metric_n[mcs] = int(cell.sum())
            if not cell.any():
                metrics[mcs], pending[mcs] = None, NO_CASES
            elif not s.answered[cell].any():
                metrics[mcs], pending[mcs] = None, NO_ABLATION
            else:
                metrics[mcs] = round(modality_contribution(full_correct[cell], s.correct[cell]), 4)
                paired[mcs] = np.bincount(full_correct[cell] * 2 + s.correct[cell], minlength=4)
    if paired and resamples > 0:  # paired: each item's (full, ablated) outcome pair is resampled together
        lo, hi = _paired_intervals(np.array(list(paired.values())), resamples, [seed, 100])
        for name, a, b in zip(paired, lo, hi):
            ci[name] = [round(100.0 * float(a), 4), round(100.0 * float(b), 4)]


def _paired_intervals(counts: np.ndarray, resamples: int, seed: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Percentile CIs of full minus ablated accuracy for several (cells 00, 01, 10, 11) count rows.
    Only 10 (right with all, wrong without) and 01 move the difference: those two cells are drawn and
    00 + 11 lumped, which is the same multinomial with one binomial fewer per resample."""
    totals = counts.sum(axis=1)
    lumped = np.column_stack([counts[:, 2], counts[:, 1], counts[:, 0] + counts[:, 3]])
    draws = multinomial_draws(lumped, resamples, np.random.default_rng(seed))  # (resamples, rows, 3)
    return percentile_interval((draws[:, :, 0] - draws[:, :, 1]) / totals)


def _binomial_accuracy(name: str, correct: np.ndarray, metrics: dict, ci: dict, metric_n: dict,
                       resamples: int, seed: list[int]) -> None:
    n = len(correct)
    metric_n[name] = n
    metrics[name] = None if n == 0 else round(100.0 * float(correct.mean()), 4)
    if n and resamples > 0:
        draws = np.random.default_rng(seed).binomial(n, correct.mean(), size=resamples) / n
        lo, hi = percentile_interval(draws[:, None])
        ci[name] = [round(100.0 * float(lo[0]), 4), round(100.0 * float(hi[0]), 4)]


# ------------------------------------------------------------------ disclosure control
DERIVED = {"SWA_Avg": list(STAGES), "ESA_Avg": [f"{t}_level" for t in TIERS],
           "modality_Avg": [f"modality_{m}" for m in MODALITIES]}


def _disclosure_cells(s: _Scored) -> list[Cells]:
    """The item sets behind the chain-item numbers (stage/tier/modality/category metrics and their
    strata) and the cross-modal numbers (groups, task families), for complementary suppression."""
    out = []
    for universe, parts in (
        (s.chain, [
            (s.stage, list(STAGES), lambda v: metric_key(v) if v in STAGES else None, "stage", False),
            (s.tier, list(TIERS), lambda v: metric_key(f"{v}_level") if v in TIERS else None, "tier", False),
            (s.modality, list(MODALITIES), lambda v: metric_key(f"modality_{v}") if v in MODALITIES else None,
             "modality", False),
            (s.category, list(CATEGORIES), lambda v: metric_key(f"category_{v}") if v in CATEGORIES else None,
             "disease_category", False),
            (s.stage, list(STAGES), lambda v: cell_key("stage", v), "stage", True),
            (s.tier, list(TIERS), lambda v: cell_key("tier", v), "tier", True),
            (s.modality, list(MODALITIES), lambda v: cell_key("modality", v), "modality", True),
            (s.category, list(CATEGORIES), lambda v: cell_key("disease_category", v), "disease_category", True),
            (np.where((s.stage >= 0) & (s.tier >= 0), s.stage * len(TIERS) + s.tier, -1),
             [f"{a}/{b}" for a in STAGES for b in TIERS], lambda v: cell_key("stage_tier", v), "stage", True),
        ]),
        (s.cross, [
            (np.where(s.group > 0, s.group - 1, -1), [str(g) for g in CASE_GROUPS],
             lambda v: metric_key(f"All_G{v}"), "case_group", False),
            (np.where(s.group > 0, s.group - 1, -1), [str(g) for g in CASE_GROUPS],
             lambda v: cell_key("case_group", v), "case_group", True),
            (s.tier, list(TIERS), lambda v: cell_key("cross_modal_tier", v), "tier", True),
        ]),
    ):
        if not universe.any():
            continue
        parts = [(codes[universe], labels, key, source, missing) for codes, labels, key, source, missing in parts]
        free = [("source_dataset", s.free_strata["source_dataset"]), ("disease", s.free_strata["disease"])] \
            if universe is s.chain else [("task_family", s.task_family)]
        # free-text strata are already restricted to the universe's rows
        parts += [(codes, labels, lambda v, c=column: cell_key(c, v), column, True) for column, (codes, labels) in free]
        fixed = [(np.ones(int(universe.sum()), dtype=bool), metric_key("XM_All"))] if universe is s.cross else []
        out.append(coded_cells(parts, fixed))
    return out


# ------------------------------------------------------------------ strata, notes, per-item
def _coded_stratum(codes: np.ndarray, names, correct: np.ndarray) -> dict[str, dict]:
    """Cells of a stratum whose values are codes into `names` (-1 = missing), in `names` order."""
    size = np.bincount(codes + 1, minlength=len(names) + 1)
    right = np.bincount(codes + 1, weights=correct, minlength=len(names) + 1)
    labels = ["(missing)", *names]
    order = [*range(1, len(labels)), 0]
    return {str(labels[i]): {"n": int(size[i]), "metrics": {"accuracy": round(100.0 * float(right[i]) / size[i], 4)}}
            for i in order if size[i]}


def _stratum(factorized: tuple[np.ndarray, list], correct: np.ndarray) -> dict[str, dict]:
    """Cells of a free-text stratum (disease, source dataset...), sorted by value."""
    cells = _coded_stratum(*factorized, correct)
    return dict(sorted(cells.items(), key=lambda kv: (kv[0] == "(missing)", kv[0])))


def _strata(s: _Scored) -> dict[str, dict]:
    out = {}
    ch, xm = s.chain, s.cross
    if ch.any():
        right = s.correct[ch]
        out["stage"] = _coded_stratum(s.stage[ch], STAGES, right)
        out["tier"] = _coded_stratum(s.tier[ch], TIERS, right)
        out["modality"] = _coded_stratum(s.modality[ch], MODALITIES, right)
        out["disease_category"] = _coded_stratum(s.category[ch], CATEGORIES, right)
        both = np.where((s.stage[ch] >= 0) & (s.tier[ch] >= 0), s.stage[ch] * len(TIERS) + s.tier[ch], -1)
        out["stage_tier"] = _coded_stratum(both, [f"{a}/{b}" for a in STAGES for b in TIERS], right)
        for column in ("source_dataset", "disease"):
            out[column] = _stratum(s.free_strata[column], right)
    if xm.any():
        right = s.correct[xm]
        out["case_group"] = _coded_stratum(np.where(s.group[xm] > 0, s.group[xm] - 1, -1),
                                           [str(g) for g in CASE_GROUPS], right)
        out["task_family"] = _stratum(s.task_family, right)
        out["cross_modal_tier"] = _coded_stratum(s.tier[xm], TIERS, right)
    return out


def _notes(s: _Scored) -> list[str]:
    notes = []
    if s.conflict.any():
        notes.append(f"{int(s.conflict.sum())} prediction row(s) name a removed_modality that contradicts their id "
                     "(or name one on a full-input item); they were ignored and count as wrong.")
    answered_ablation = int((s.answered & s.ablation).sum())
    if answered_ablation and answered_ablation < int(s.ablation.sum()):
        notes.append(f"Ablated runs: {answered_ablation} of {int(s.ablation.sum())} ablation rows answered; within a "
                     "group and modality with any answer, missing rows count as wrong.")
    out_of_range = int((s.parse_failures & ~s.ablation).sum())
    if out_of_range:
        notes.append(f"{out_of_range} answered item(s) gave no usable letter (unparseable response or a letter beyond "
                     "the item's options) and count as wrong.")
    return notes


def _per_item(s: _Scored) -> dict[str, dict[str, float]]:
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

