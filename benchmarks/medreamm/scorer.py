"""MedReaMM: ranked top-10 diagnoses vs ICD-11-coded ground truth, in ICD and semantic matching."""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from leaderboard.scoring.engine import mean_metrics
from leaderboard.intake.answer_key import AnswerKey
from leaderboard.scoring.metrics.ranked_lists import ranked_metrics
from leaderboard.intake.prediction_files import FieldSpec, PredictionSchema, ValidationReport
from leaderboard.scoring.result import Result
from benchmarks.medreamm import specialty as specialty_profile
from leaderboard.scoring.benchmark import Benchmark, MetricSpec, ScoringContext
from .prediction_formats import FORMATS
from .parsing import MAX_DIAGNOSES, RankedLists, parse_response, ranked_matrix
from benchmarks.medreamm.taxonomy import BIBTEX, image_count_bin

STEMS = {
    "top5_primary": "Top-5 Primary Recall",
    "top5_complete": "Top-5 Complete Recall",
    "top10_primary": "Top-10 Primary Recall",
    "top10_complete": "Top-10 Complete Recall",
    "top1": "Top-1 Accuracy",
    "mrr": "MRR",
    "ndcg10": "NDCG@10",
}
MODES = {"icd": "ICD-11", "sem": "Semantic", "avg": "Avg(ICD, Sem)"}
SEM_CHUNK = 4096  # cases per einsum block: bounds memory at chunk x 10 x entities x dim
# Semantic matching compares every distinct prediction with every distinct ground-truth term in one matrix
# product when that table is small next to the cases' own (case, rank, entity) cells: BLAS does ~30x more
# multiply-adds per second than gathering vectors per case. Past these bounds (free text: distinct
# predictions grow with the cases) it compares case by case.
DENSE_FACTOR = 16
DENSE_MAX_PAIRS = 64_000_000  # 64 MB of booleans
DENSE_ROWS = 1024  # predictions per float32 product block: 1024 x terms x 4 bytes
# float32 products differ from the exact float64 cosine by < dim x 2^-24 (5e-5 at 768 dims) for unit vectors:
# pairs this close to the threshold are decided by the float64 computation the per-case path does
RECHECK_BAND = 1e-3


class MedReaMM(Benchmark):
    name = "medreamm"
    pretty_name = "MedReaMM"
    id_column = "case_id"
    answer_columns = ("diagnoses",)
    strata_columns = ("disease_category", "num_images", "num_diagnoses", "publication_year", "is_rare_disease",
                      "source_type")
    schema = PredictionSchema(
        fields=(
            FieldSpec("diagnoses", "string_list", max_items=100, scored_items=MAX_DIAGNOSES),
            FieldSpec("response", "string"),
        ),
        one_of=("diagnoses", "response"),
        optional_metadata=("model", "notes", "metadata"),
        formats=FORMATS,  # the authors' run.py / ICD-stage files (pmid + pred_diagnoses)
    )
    # topK_primary_* and top1 are hit rates (0/1 per case); recall, MRR, NDCG and the ICD/semantic average are not
    metrics = tuple(MetricSpec(f"{stem}_{mode}", f"{label} ({mode_label})", group=mode,
                               proportion=(stem.endswith("_primary") or stem == "top1") and mode != "avg")
                    for mode, mode_label in MODES.items() for stem, label in STEMS.items())
    release_items = 625  # cases in the paper's release (Table 2's denominator)
    primary_metric = "top5_primary_icd"  # Table 2's first column; ICD code matching is the paper's main method
    stratum_labels = {"disease_category": "Disease category", "image_count": "Images per case",
                      "diagnosis_count": "Diagnoses per case", "publication_year": "Publication year",
                      "rare_disease": "Rare disease", "source_type": "Source type"}
    value_labels = {"rare_disease": {"True": "Rare disease", "False": "Not rare"},
                    "image_count": {v: v for v in ("1", "2", "3", "4", "5-10")},
                    "source_type": {"journal": "Journal case report", "web": "Web case collection"}}
    needs = ("icd_coder", "embedder")  # scoring services it uses; front doors configure only these
    citation = BIBTEX
    decisions = (
        "Predictions: a `diagnoses` list is used as given; a raw `response` is parsed like the authors' code (the "
        "list after the LAST '### Output ###' heading, then quoted strings, then a numbered list; blank items "
        "dropped). Differences from their code: it crashes when no bracketed list follows the heading (we fall "
        "back) and takes the FIRST of two headings (we take the last: echoed instructions and drafts come "
        "first). An unparseable response scores 0 and counts as a parse failure.",
        "At most the first 10 predictions are scored; exact duplicates after normalisation (NFKC, casefold, "
        "whitespace, edge punctuation) are dropped and later items move up.",
        "Each ground-truth entity is credited once, at its first matching rank.",
        "NDCG@10 = DCG/IDCG with linear gain rel/log2(i+1); rel 2 for the primary, 1 for a secondary, 2 when one "
        "prediction is the first match of both; IDCG from the ideal list [2, 1, 1, ...] truncated to 10.",
        "MRR = 1/rank of the first primary match within the top 10, else 0.",
        "A missing code never matches a missing code; ICD codes are compared as full strings (postcoordinated "
        "codes not split).",
        "Semantic match: cosine of SapBERT [CLS] embeddings (max_length 25) >= 0.85 against the corrected term "
        "(else the original term).",
        "Avg = per-case mean of the ICD and semantic scores, averaged over cases (the authors' `avg`).",
        "Denominator: every case in the split; missing predictions score 0.",
    )

    specialty_stratum, specialty_map = specialty_profile.SPECIALTY_STRATUM, specialty_profile.SPECIALTY_MAP
    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        ids = key.table.column(self.id_column).to_pylist()
        truth = _truth(key.table.column("diagnoses"))  # primary first
        lists, answered, parse_failures = self._submitted_lists(key.table.column(self.id_column), report)
        preds = ranked_matrix(lists)
        depth = MAX_DIAGNOSES
        valid_gt = truth.valid

        per_item: dict[str, np.ndarray] = {}
        pending: dict[str, str] = {}
        protocol = self.base_protocol(key, context)
        comparable, reasons = True, []

        if context.service("icd_coder") is not None:
            icd_matches, codable = self._icd_matches(preds, truth, context)
            for stem, values in ranked_metrics(icd_matches, valid_gt).items():
                per_item[f"{stem}_icd"] = values
            protocol["icd_coder"] = dict(context.service("icd_coder").identity)
            protocol["codable_predictions"] = codable
            if context.service("icd_coder").identity.get("approximate"):
                comparable = False
                reasons.append("ICD codes from an approximate offline coder, not the WHO ICD-API")
        else:
            pending.update({f"{s}_icd": context.why_missing("icd_coder") for s in STEMS})
            comparable = False
            reasons.append(context.why_missing("icd_coder"))
        if context.service("embedder") is not None:
            sem_matches = self._semantic_matches(preds, truth, context)
            for stem, values in ranked_metrics(sem_matches, valid_gt).items():
                per_item[f"{stem}_sem"] = values
            protocol["embedder"] = dict(context.service("embedder").identity)
            if not context.service("embedder").identity.get("comparable_to_paper"):
                comparable = False
                reasons.append(context.service("embedder").identity.get("reason") or "stand-in embedder")
        else:
            pending.update({f"{s}_sem": context.why_missing("embedder") for s in STEMS})
            comparable = False
            reasons.append(context.why_missing("embedder"))
        for stem in STEMS:
            if f"{stem}_icd" in per_item and f"{stem}_sem" in per_item:
                per_item[f"{stem}_avg"] = (per_item[f"{stem}_icd"] + per_item[f"{stem}_sem"]) / 2.0
            else:
                pending[f"{stem}_avg"] = "needs both ICD and semantic matching"

        numbers = mean_metrics(per_item, self._strata_labels(key), len(ids), context.resamples, context.seed)
        metrics = dict(numbers.metrics, **{name: None for name in pending})
        protocol["comparable_to_paper"] = comparable
        protocol["not_comparable_because"] = reasons
        return self.result(
            context, metrics=metrics, ci=numbers.ci, n_items=len(ids), n_answered=answered,
            parse_failures=parse_failures, pending=pending, strata=numbers.strata, cells=numbers.cells,
            protocol=protocol,
            per_item=_per_item_rows(ids, per_item) if context.keep_per_item else None)

    @staticmethod
    def _submitted_lists(key_ids: pa.ChunkedArray, report: ValidationReport) -> tuple[pa.Array, int, int]:
        """The submitted list of every case of the key, in key order (null when absent): a `diagnoses`
        list as given, else the parsed `response` (each distinct text parsed once). Also the answered
        count and how many responses parsed to nothing."""
        table = report.table
        string_lists = pa.list_(pa.string())
        if table is None or table.num_rows == 0:
            return pa.nulls(len(key_ids), string_lists), 0, 0
        rows = pc.index_in(key_ids, value_set=table.column("id"))
        answered = len(rows) - rows.null_count
        lists = (table.column("diagnoses").take(rows) if "diagnoses" in table.column_names
                 else pa.nulls(len(key_ids), string_lists))
        lists = lists.combine_chunks() if isinstance(lists, pa.ChunkedArray) else lists
        if "response" not in table.column_names:
            return lists.cast(string_lists), answered, 0
        texts = table.column("response").take(rows)
        to_parse = pc.and_(lists.is_null(), texts.is_valid())
        if not pc.any(to_parse).as_py():
            return lists.cast(string_lists), answered, 0
        values, parsed = lists.to_pylist(), {}
        failures = 0
        for c in np.flatnonzero(np.asarray(to_parse)):
            text = texts[int(c)].as_py()
            items = parsed.get(text)
            if items is None:
                items = parsed[text] = parse_response(text)
            failures += not items
            values[c] = items
        return pa.array(values, type=string_lists), answered, failures

    def _icd_matches(self, preds: "RankedLists", truth: "Truth", context) -> tuple[np.ndarray, int]:
        """Each distinct term is coded once; the match tensor is one comparison of code numbers."""
        from leaderboard.scoring.matching.icd import code_terms

        used = _used_terms(preds)
        terms = sorted(preds.terms[i] for i in used)
        codes = code_terms(context.service("icd_coder"), terms, progress=context.progress)
        number: dict[str, int] = {}  # ICD code -> small int; uncoded predictions -1, uncoded/padding truth -2
        term_code = np.full(len(preds.terms) + 1, -1, dtype=np.int64)  # last slot: padding
        for i in used:
            code = codes.get(preds.terms[i])
            term_code[i] = number.setdefault(code, len(number)) if code is not None else -1
        pred_codes = term_code[preds.ids]  # -1 ids pick the padding slot
        truth_code = np.array([number.get(c, -2) if c is not None else -2 for c in truth.code_values] + [-2],
                              dtype=np.int64)
        gt_codes = truth_code[truth.codes]
        return pred_codes[:, :, None] == gt_codes[:, None, :], int((pred_codes >= 0).sum())

    def _semantic_matches(self, preds: "RankedLists", truth: "Truth", context) -> np.ndarray:
        from leaderboard.scoring.matching.embedder import PAPER_THRESHOLD

        used = _used_terms(preds)
        order = sorted(used, key=lambda i: preds.terms[i])  # embedded in sorted order, as always
        pred_terms = [preds.terms[i] for i in order]
        gt_order = sorted(range(len(truth.term_values)), key=lambda i: truth.term_values[i])
        gt_terms = [truth.term_values[i] for i in gt_order]
        pred_vecs = context.service("embedder").embed(pred_terms) if pred_terms else None
        gt_vecs = context.service("embedder").embed(gt_terms)
        dim = gt_vecs.shape[1]
        pred_vecs = pred_vecs if pred_vecs is not None else np.zeros((0, dim), dtype=np.float32)
        p_pos = np.full(len(preds.terms) + 1, -1, dtype=np.int64)
        p_pos[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
        g_pos = np.full(len(truth.term_values) + 1, -1, dtype=np.int64)
        g_pos[np.asarray(gt_order, dtype=np.int64)] = np.arange(len(gt_order))
        pred_idx = p_pos[preds.ids]  # -1: empty slot
        gt_idx = g_pos[truth.terms]  # -1: padding
        if len(pred_vecs) * len(gt_vecs) <= min(DENSE_MAX_PAIRS, DENSE_FACTOR * pred_idx.size * gt_idx.shape[1]):
            similar = similar_pairs(pred_vecs, gt_vecs, PAPER_THRESHOLD)  # last row and column: padding, False
            return similar[pred_idx[:, :, None], gt_idx[:, None, :]]
        return per_case_matches(pred_vecs, gt_vecs, pred_idx, gt_idx, PAPER_THRESHOLD)

    def _strata_labels(self, key: AnswerKey) -> dict[str, list]:
        cols = {c: key.table.column(c).to_pylist() for c in self.strata_columns if c in key.table.column_names}
        labels = {}
        if "disease_category" in cols:
            labels["disease_category"] = cols["disease_category"]
        if "num_images" in cols:
            bins = {n: image_count_bin(n) for n in set(cols["num_images"]) if n is not None}  # once per count
            labels["image_count"] = [bins.get(n) for n in cols["num_images"]]
        if "num_diagnoses" in cols:
            labels["diagnosis_count"] = cols["num_diagnoses"]
        if "publication_year" in cols:
            labels["publication_year"] = cols["publication_year"]
        if "is_rare_disease" in cols:
            labels["rare_disease"] = cols["is_rare_disease"]
        if "source_type" in cols:
            labels["source_type"] = cols["source_type"]
        return labels


def _used_terms(preds: "RankedLists") -> np.ndarray:
    """The term numbers some case ranks, ascending: np.unique of the ids, by counting instead of sorting."""
    ids = preds.ids[preds.ids >= 0]
    return np.flatnonzero(np.bincount(ids, minlength=len(preds.terms))).astype(ids.dtype, copy=False)


def _exact_cosines(pred_vecs: np.ndarray, gt_vecs: np.ndarray, p: np.ndarray, g: np.ndarray) -> np.ndarray:
    """float64 cosines of the pairs (p[k], g[k]), by the same einsum as `per_case_matches`: same bits."""
    a = pred_vecs[p].astype(np.float64)[:, None, :]
    b = gt_vecs[g].astype(np.float64)[:, None, :]
    return np.einsum("nid,ngd->nig", a, b)[:, 0, 0]


def similar_pairs(pred_vecs: np.ndarray, gt_vecs: np.ndarray, threshold: float) -> np.ndarray:
    """(predictions + 1, terms + 1) booleans: cosine >= threshold, as `per_case_matches` decides it. One
    float32 product per block of predictions; pairs within RECHECK_BAND of the threshold are recomputed
    exactly. The extra last row and column (index -1) stand for empty slots and padding: never similar."""
    out = np.zeros((len(pred_vecs) + 1, len(gt_vecs) + 1), dtype=bool)
    gt32 = np.ascontiguousarray(gt_vecs, dtype=np.float32)
    # one comparison pass per block: similar pairs are rare, so only the candidates at or above the band's
    # lower edge are looked at again (those under its upper edge recomputed exactly, the rest similar)
    lower, upper = np.float32(threshold - RECHECK_BAND), np.float32(threshold + RECHECK_BAND)
    for start in range(0, len(pred_vecs), DENSE_ROWS):
        sims = np.ascontiguousarray(pred_vecs[start:start + DENSE_ROWS], dtype=np.float32) @ gt32.T
        rows, cols = np.nonzero(sims >= lower)
        near = sims[rows, cols] < upper
        out[start + rows[~near], cols[~near]] = True
        if near.any():
            rows, cols = rows[near], cols[near]
            out[start + rows, cols] = _exact_cosines(pred_vecs, gt_vecs, start + rows, cols) >= threshold
    return out


def per_case_matches(pred_vecs: np.ndarray, gt_vecs: np.ndarray, pred_idx: np.ndarray, gt_idx: np.ndarray,
                     threshold: float) -> np.ndarray:
    """(cases, 10, entities) booleans: each case's predictions against its own terms, float64 einsum per
    block of cases (index -1: empty slot / padding, never similar)."""
    dim = gt_vecs.shape[1]
    # float64 once per distinct term (exact), not once per gathered case row; row -1: padding
    pred64 = np.vstack([pred_vecs, np.zeros((1, dim), dtype=pred_vecs.dtype)]).astype(np.float64)
    gt64 = np.vstack([gt_vecs, np.zeros((1, dim), dtype=gt_vecs.dtype)]).astype(np.float64)
    matches = np.zeros((len(pred_idx), pred_idx.shape[1], gt_idx.shape[1]), dtype=bool)
    for start in range(0, len(pred_idx), SEM_CHUNK):
        block = slice(start, start + SEM_CHUNK)
        sims = np.einsum("nid,ngd->nig", pred64[pred_idx[block]], gt64[gt_idx[block]])
        ok = (pred_idx[block] >= 0)[:, :, None] & (gt_idx[block] >= 0)[:, None, :]
        matches[block] = ok & (sims >= threshold)
    return matches


class Truth:
    """The key's ground truth as (cases, entities) matrices, primary first within each case: `terms` and
    `codes` index `term_values` / `code_values` (the last index, -1, is padding), `valid` marks entities."""

    def __init__(self, terms: np.ndarray, term_values: list, codes: np.ndarray, code_values: list, valid: np.ndarray):
        self.terms, self.term_values, self.codes, self.code_values, self.valid = terms, term_values, codes, code_values, valid


def _truth(column: pa.ChunkedArray) -> Truth:
    lists = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    n = len(lists)
    lengths = np.asarray(pc.fill_null(pc.list_value_length(lists), 0), dtype=np.int64)
    entities = int(lengths.max()) if n else 1
    flat = pc.list_flatten(lists)
    parent = np.asarray(pc.list_parent_indices(lists), dtype=np.int64)
    primary = np.asarray(pc.fill_null(flat.field("is_primary"), False), dtype=bool)
    order = np.lexsort((np.arange(len(parent)), ~primary, parent))  # per case: primaries first, else as listed
    starts = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    parent_sorted = parent[order]
    position = np.arange(len(order)) - starts[parent_sorted]
    term_values = pc.unique(flat.field("term")).to_pylist()
    code_values = pc.unique(flat.field("icd11_code")).to_pylist()
    term_ids = np.asarray(pc.index_in(flat.field("term"), value_set=pa.array(term_values, pa.string())).fill_null(-1),
                          dtype=np.int64)
    code_ids = np.asarray(pc.index_in(flat.field("icd11_code"), value_set=pa.array(code_values, pa.string()),
                                      skip_nulls=False).fill_null(-1), dtype=np.int64)
    terms = np.full((n, entities), -1, dtype=np.int64)
    codes = np.full((n, entities), -1, dtype=np.int64)
    terms[parent_sorted, position] = term_ids[order]
    codes[parent_sorted, position] = code_ids[order]
    valid = np.arange(entities)[None, :] < lengths[:, None]
    return Truth(terms, term_values, codes, code_values, valid)


def _per_item_rows(ids: list[str], per_item: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """id -> {metric: value}. Cases share a few hundred distinct rows (hits, reciprocal ranks): each distinct
    row is made into a dict once and copied per case (a dict copy is a memcpy, building one is 21 inserts)."""
    from leaderboard.scoring.metrics.bootstrap import distinct_rows

    names = list(per_item)
    if not names:
        return {i: {} for i in ids}
    matrix = np.column_stack([per_item[n] for n in names]).astype(np.float64)
    if np.isnan(matrix).any() or np.signbit(matrix).any():  # distinct_rows wants no NaN and folds -0.0 into 0.0
        return {i: dict(zip(names, row)) for i, row in zip(ids, matrix.tolist())}
    patterns, inverse = distinct_rows(matrix)
    templates = [dict(zip(names, row)) for row in patterns.tolist()]
    return {i: templates[k].copy() for i, k in zip(ids, inverse.tolist())}
