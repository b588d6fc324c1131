"""MedReaMM: ranked top-10 diagnoses vs ICD-11-coded ground truth, in ICD and semantic matching."""
from __future__ import annotations

import numpy as np

from leaderboard.aggregate import by_stratum, overall
from leaderboard.answer_key import AnswerKey
from leaderboard.metrics.ranked_lists import ranked_metrics
from leaderboard.prediction_files import FieldSpec, PredictionSchema, ValidationReport
from leaderboard.result import Result
from leaderboard.benchmark import Benchmark, MetricSpec, ScoringContext
from .parsing import MAX_DIAGNOSES, parse_response, ranked_lists
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

    def score(self, key: AnswerKey, report: ValidationReport, context: ScoringContext) -> Result:
        rows = key.table.select([self.id_column, "diagnoses"]).to_pylist()
        ids = [r[self.id_column] for r in rows]
        gts = [sorted(r["diagnoses"], key=lambda d: not d["is_primary"]) for r in rows]  # primary first
        submitted, unparsed = self._submitted_lists(report)
        answered = sum(1 for case_id in ids if case_id in submitted)
        preds = ranked_lists([submitted.get(case_id, []) for case_id in ids])
        parse_failures = sum(1 for case_id in ids if case_id in unparsed)
        depth = MAX_DIAGNOSES
        entities = max((len(g) for g in gts), default=1)
        valid_gt = np.zeros((len(ids), entities), dtype=bool)
        for c, gt in enumerate(gts):
            valid_gt[c, : len(gt)] = True

        per_item: dict[str, np.ndarray] = {}
        pending: dict[str, str] = {}
        protocol = self.base_protocol(key, context)
        comparable, reasons = True, []

        if context.service("icd_coder") is not None:
            icd_matches, codable = self._icd_matches(preds, gts, depth, entities, context)
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
            sem_matches = self._semantic_matches(preds, gts, depth, entities, context)
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

        metrics, ci = overall(per_item, context.resamples, context.seed)
        metrics.update({name: None for name in pending})
        strata_labels = self._strata_labels(key)
        protocol["comparable_to_paper"] = comparable
        protocol["not_comparable_because"] = reasons
        return self.result(
            context, metrics=metrics, ci=ci, n_items=len(ids), n_answered=answered, parse_failures=parse_failures,
            pending=pending, strata=by_stratum(per_item, strata_labels), protocol=protocol,
            per_item=_per_item_rows(ids, per_item) if context.keep_per_item else None)

    @staticmethod
    def _submitted_lists(report: ValidationReport) -> tuple[dict[str, list[str]], set[str]]:
        """id -> submitted items (a `diagnoses` list as given, else the parsed `response`), read column-wise
        from the validated table; each distinct response text is parsed once. Also the ids whose response
        parsed to nothing."""
        table = report.table
        if table is None or table.num_rows == 0:
            return {}, set()
        ids = table.column("id").to_pylist()
        lists = table.column("diagnoses").to_pylist() if "diagnoses" in table.column_names else [None] * len(ids)
        texts = table.column("response").to_pylist() if "response" in table.column_names else [None] * len(ids)
        parsed: dict[str, list[str]] = {}
        out, failures = {}, set()
        for case_id, items, text in zip(ids, lists, texts):
            if items is None and text is not None:
                items = parsed.get(text)
                if items is None:
                    items = parsed[text] = parse_response(text)
                if not items:
                    failures.add(case_id)
            out[case_id] = items if items is not None else []
        return out, failures

    def _icd_matches(self, preds, gts, depth, entities, context) -> tuple[np.ndarray, int]:
        """Each distinct term is coded once; the match tensor is one comparison of code numbers."""
        from leaderboard.matching.icd import code_terms

        unique = sorted({p for case in preds for p in case})
        codes = code_terms(context.service("icd_coder"), unique, progress=context.progress)
        number: dict[str, int] = {}  # ICD code -> small int; uncoded predictions -1, uncoded/padding truth -2
        term_number = {t: (number.setdefault(c, len(number)) if c is not None else -1) for t, c in codes.items()}
        pred_codes = np.full((len(preds), depth), -1, dtype=np.int64)
        for c, case in enumerate(preds):
            if case:
                pred_codes[c, : len(case)] = [term_number[p] for p in case]
        gt_codes = np.full((len(gts), entities), -2, dtype=np.int64)
        for c, gt in enumerate(gts):
            gt_codes[c, : len(gt)] = [number.get(g["icd11_code"], -2) if g["icd11_code"] is not None else -2
                                      for g in gt]
        matches = pred_codes[:, :, None] == gt_codes[:, None, :]
        codable = int((pred_codes >= 0).sum())
        return matches, codable

    def _semantic_matches(self, preds, gts, depth, entities, context) -> np.ndarray:
        from leaderboard.matching.embedder import PAPER_THRESHOLD

        pred_terms = sorted({p for case in preds for p in case})
        gt_terms = sorted({g["term"] for gt in gts for g in gt})
        pred_vecs = context.service("embedder").embed(pred_terms) if pred_terms else None
        gt_vecs = context.service("embedder").embed(gt_terms)
        dim = gt_vecs.shape[1]
        pred_vecs = pred_vecs if pred_vecs is not None else np.zeros((0, dim), dtype=np.float32)
        pred_vecs = np.vstack([pred_vecs, np.zeros((1, dim), dtype=pred_vecs.dtype)])  # row -1: padding
        gt_vecs = np.vstack([gt_vecs, np.zeros((1, dim), dtype=gt_vecs.dtype)])
        p_index = {t: i for i, t in enumerate(pred_terms)}
        g_index = {t: i for i, t in enumerate(gt_terms)}
        pred_idx = np.full((len(preds), depth), -1, dtype=np.int64)
        gt_idx = np.full((len(gts), entities), -1, dtype=np.int64)
        for c, case in enumerate(preds):
            if case:
                pred_idx[c, : len(case)] = [p_index[p] for p in case]
        for c, gt in enumerate(gts):
            gt_idx[c, : len(gt)] = [g_index[g["term"]] for g in gt]
        matches = np.zeros((len(preds), depth, entities), dtype=bool)
        for start in range(0, len(preds), SEM_CHUNK):
            block = slice(start, start + SEM_CHUNK)
            sims = np.einsum("nid,ngd->nig", pred_vecs[pred_idx[block]].astype(np.float64),
                             gt_vecs[gt_idx[block]].astype(np.float64))
            ok = (pred_idx[block] >= 0)[:, :, None] & (gt_idx[block] >= 0)[:, None, :]
            matches[block] = ok & (sims >= PAPER_THRESHOLD)
        return matches

    def _strata_labels(self, key: AnswerKey) -> dict[str, list]:
        cols = {c: key.table.column(c).to_pylist() for c in self.strata_columns if c in key.table.column_names}
        labels = {}
        if "disease_category" in cols:
            labels["disease_category"] = cols["disease_category"]
        if "num_images" in cols:
            labels["image_count"] = [image_count_bin(n) if n is not None else None for n in cols["num_images"]]
        if "num_diagnoses" in cols:
            labels["diagnosis_count"] = cols["num_diagnoses"]
        if "publication_year" in cols:
            labels["publication_year"] = cols["publication_year"]
        if "is_rare_disease" in cols:
            labels["rare_disease"] = cols["is_rare_disease"]
        if "source_type" in cols:
            labels["source_type"] = cols["source_type"]
        return labels


def _per_item_rows(ids: list[str], per_item: dict[str, np.ndarray]) -> dict[str, dict[str, float]]:
    """id -> {metric: value}, built from one list conversion instead of a float() per cell."""
    names = list(per_item)
    if not names:
        return {i: {} for i in ids}
    rows = np.column_stack([per_item[n] for n in names]).astype(np.float64).tolist()
    return {i: dict(zip(names, row)) for i, row in zip(ids, rows)}
