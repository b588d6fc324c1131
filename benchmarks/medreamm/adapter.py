"""MedReaMM: the authors' JSONL (one case per line, keyed by `pmid`) plus image files.

Raw record (authors' GitHub release): `pmid`; `patient_info.basic_info` (medical record R);
`patient_info.supplementary_info[]` = {`caption`, `path`: [one path], optional `detailed_caption`,
`image_type` (alias `modality`, or `modalities`: a string or a list, joined with "; ")};
`patient_info.standardized_diagnosis[]` = {`original_term`, optional `corrected_term`,
`code`, `primary`}; `classification`; optional `diagnosis`, `reasoning_path`, `year`, `rare_disease`,
`source_type`, `source_name` (aliases accepted, see KNOWN_KEYS). Other top-level keys are kept in the
`extra_fields` sidecar and listed in the build report (`--strict` refuses them).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from datasets import Features, Image, List, Value

from dataset_builders.errors import ProblemLog
from dataset_builders.fields import FieldReader
from dataset_builders.adapter import EXTRA_FIELDS, CardFacts, ConfigSpec, JsonlCaseAdapter, release_image
from dataset_builders.vocabulary import Vocabulary
from .taxonomy import BIBTEX, image_count_bin

KNOWN_KEYS = {
    "pmid", "patient_info", "classification", "diagnosis", "final_diagnosis", "reasoning_path", "reasoning",
    "year", "publication_year", "rare_disease", "is_rare_disease", "rare", "source_type", "source_name", "source",
}
SOURCE_TYPES = Vocabulary(("journal", "web"), {"website": "web", "case database": "web", "database": "web"})

DIAGNOSIS = {
    "term": Value("string"),
    "original_term": Value("string"),
    "corrected_term": Value("string"),
    "icd11_code": Value("string"),
    "is_primary": Value("bool"),
}
FEATURES = Features(
    {
        "case_id": Value("string"),
        "medical_records": Value("string"),
        "images": List(Image()),
        "image_ids": List(Value("string")),
        "captions": List(Value("string")),
        "detailed_captions": List(Value("string")),
        "image_types": List(Value("string")),
        "image_paths": List(Value("string")),
        "image_sha256": List(Value("string")),
        "num_images": Value("int32"),
        "disease_category": Value("string"),
        "publication_year": Value("int32"),
        "is_rare_disease": Value("bool"),
        "source_type": Value("string"),
        "source_name": Value("string"),
        "diagnosis_text": Value("string"),
        "diagnoses": List(DIAGNOSIS),
        "num_diagnoses": Value("int32"),
        "reasoning_path": Value("string"),
    }
)



FIELD_DOCS = {
    "case_id": "Case identifier (the authors' `pmid`).",
    "medical_records": "Medical record R: history, symptoms and test results. Model input.",
    "images": "The case's 1-10 images, original bytes, in figure order. Model input.",
    "image_ids": "Figure identifiers, `<case_id>-<k>` in figure order.",
    "captions": "Purified caption C_j per image (modality, region, stain, magnification). Model input.",
    "detailed_captions": "Original interpretive caption per image (null when not released). Not a main-protocol input.",
    "image_types": "Image type per image (GPT-4.1 label in the paper).",
    "image_paths": "Original relative path of each image in the authors' release (provenance).",
    "image_sha256": "SHA-256 of each image's bytes.",
    "num_images": "Number of images.",
    "disease_category": "Case-level disease category (authors' `classification`).",
    "publication_year": "Publication year of the source case (null when not released).",
    "is_rare_disease": "Case belongs to the rare-disease subset (null when not released).",
    "source_type": "`journal` or `web` (case database / teaching archive).",
    "source_name": "Source, e.g. NEJM, The Lancet, Eurorad.",
    "diagnosis_text": "Final diagnosis as reported (answer).",
    "diagnoses": "Diagnosis entities: `term` (corrected term if any, else original; the string used for semantic matching), `original_term`, `corrected_term`, `icd11_code` (ICD-11 MMS), `is_primary` (exactly one per case). Answer.",
    "num_diagnoses": "Number of diagnosis entities (1-5). Answer-derived.",
    "reasoning_path": "Expert reasoning path P for a subset of cases (null otherwise). Answer-derived.",
}


class MedReaMMAdapter(JsonlCaseAdapter):
    name = "medreamm"
    id_column = "case_id"
    answer_columns = ("diagnosis_text", "diagnoses", "num_diagnoses", "reasoning_path")
    facts = CardFacts(
        pretty_name="MedReaMM",
        summary=(
            "625 expert-validated clinical cases from top medical journals and case databases. Each case "
            "pairs a medical record with 1-10 images and their purified captions; models return a ranked "
            "list of ten diagnoses, scored against ICD-11-coded ground truth (primary + secondary)."
        ),
        license="other",
        license_name="medreamm-unspecified",
        license_link="https://github.com/thomaswei-cn/MedReaMM",
        license_note=(
            "The paper states no license. Records and figures are derived from copyrighted journal articles "
            "and case-report websites; redistribution rights are unverified. This re-publication is gated "
            "and for research evaluation only; the original sources keep their copyright."
        ),
        paper_title="MedReaMM: Evaluating Large Multimodal Models on Expert-Level Clinical Diagnostic Synthesis",
        paper_url="https://arxiv.org/abs/2608.22323",
        code_url="https://github.com/thomaswei-cn/MedReaMM",
        bibtex=BIBTEX,
        provenance=(
            "Cases collected from journals with impact factor above 40 (e.g. NEJM, The Lancet; 70.7%) and "
            "curated case-report websites (e.g. Eurorad; 29.3%); screened for label leakage by three "
            "annotators and reviewed by two senior physicians. Diagnoses decomposed by GPT-5 and coded with "
            "the WHO ICD-API (release 2025-01) with manual correction."
        ),
        task_categories=("image-text-to-text", "visual-question-answering"),
        field_docs=FIELD_DOCS,
    )

    def configs(self) -> list[ConfigSpec]:
        return [ConfigSpec(name="default", data_dir="data", features=FEATURES, default=True,
                           description="All cases, one row per case.")]

    def strata(self, config: str, row: dict) -> dict[str, Any]:
        return {
            "disease_category": row["disease_category"],
            "image_count": image_count_bin(row["num_images"]),
            "diagnosis_count": row["num_diagnoses"],
            "publication_year": row["publication_year"],
            "is_rare_disease": row["is_rare_disease"],
            "source_type": row["source_type"],
            "image_type": row["image_types"],
        }


    def _parse_record(self, record: dict, file: str, line_no: int, root: Path, log: ProblemLog,
                      seen: dict[str, str]) -> dict | None:
        f = FieldReader(log, file, line_no)
        case_id = f.string(record.get("pmid"), "pmid", required=True)
        f.case = case_id
        if case_id is not None:
            if case_id in seen:
                f.problem(f"duplicate pmid (first seen at {seen[case_id]})")
            seen[case_id] = f"{file}:{line_no}"
        info = f.obj(record.get("patient_info"), "patient_info")
        records_text = f.string(info.get("basic_info"), "patient_info.basic_info", required=True)
        images = self._images(f, info, root)
        diagnoses = self._diagnoses(f, info)
        extras = f.extras(record, set(record) - KNOWN_KEYS, KNOWN_KEYS)
        source_type = f.vocab(record.get("source_type"), "source_type", SOURCE_TYPES)
        row = {
            "case_id": case_id,
            "medical_records": records_text,
            **images,
            "disease_category": f.string(record.get("classification"), "classification"),
            "publication_year": f.integer(f.first(record, "year", "publication_year"), "year"),
            "is_rare_disease": f.boolean(f.first(record, "rare_disease", "is_rare_disease", "rare"), "rare_disease"),
            "source_type": source_type,
            "source_name": f.string(f.first(record, "source_name", "source"), "source_name"),
            "diagnosis_text": f.string(f.first(record, "diagnosis", "final_diagnosis") or info.get("diagnosis"), "diagnosis"),
            "diagnoses": diagnoses,
            "num_diagnoses": len(diagnoses),
            "reasoning_path": f.string(f.first(record, "reasoning_path", "reasoning"), "reasoning_path"),
            EXTRA_FIELDS: extras,
        }
        if row["diagnosis_text"] is None and diagnoses:
            row["diagnosis_text"] = "; ".join(d["term"] for d in diagnoses)
        return row if f.ok else None

    def _images(self, f: FieldReader, info: dict, root: Path) -> dict:
        entries = f.array(info.get("supplementary_info"), "patient_info.supplementary_info")
        if not entries and f.ok:
            f.problem("case has no image (patient_info.supplementary_info is empty); every case needs 1-10 images")
        out: dict[str, list] = {k: [] for k in ("images", "image_ids", "captions", "detailed_captions",
                                                 "image_types", "image_paths", "image_sha256")}
        for k, entry in enumerate(entries, start=1):
            where = f"patient_info.supplementary_info[{k - 1}]"
            entry = f.obj(entry, where)
            paths = entry.get("path")
            if isinstance(paths, str):
                paths = [paths]
            if not isinstance(paths, list) or len(paths) != 1 or not isinstance(paths[0], str):
                f.problem(f"field '{where}.path' must be a list holding one relative image path")
                continue
            rel = paths[0]
            image = release_image(f, root, rel, f"{where}.path")
            if image is None:
                continue
            out["images"].append({"bytes": image["bytes"], "path": f"{f.case}/{Path(rel).name}"})
            out["image_sha256"].append(image["sha256"])
            out["image_paths"].append(rel)
            out["image_ids"].append(f"{f.case}-{k}")
            out["captions"].append(f.string(entry.get("caption"), f"{where}.caption", required=True))
            out["detailed_captions"].append(f.string(f.first(entry, "detailed_caption", "original_caption"), f"{where}.detailed_caption"))
            out["image_types"].append(_image_type(f, entry, where))
        if len(entries) > 10:
            f.irregular(f"case has {len(entries)} images; MedReaMM cases have 1-10",
                        "case has more than 10 images (MedReaMM cases have 1-10)")
        out["num_images"] = len(out["images"])
        return out

    def _diagnoses(self, f: FieldReader, info: dict) -> list[dict]:
        entries = f.array(info.get("standardized_diagnosis"), "patient_info.standardized_diagnosis")
        diagnoses = []
        for k, entry in enumerate(entries):
            where = f"patient_info.standardized_diagnosis[{k}]"
            entry = f.obj(entry, where)
            original = f.string(entry.get("original_term"), f"{where}.original_term", required=True)
            corrected = f.string(entry.get("corrected_term"), f"{where}.corrected_term")
            primary = f.boolean(entry.get("primary"), f"{where}.primary")
            diagnoses.append({
                "term": corrected or original,
                "original_term": original,
                "corrected_term": corrected,
                "icd11_code": f.string(entry.get("code"), f"{where}.code"),
                "is_primary": bool(primary),
            })
        primaries = sum(d["is_primary"] for d in diagnoses)
        if entries and primaries == 0:
            f.problem("case has no primary diagnosis (set \"primary\": true on exactly one standardized_diagnosis)")
        elif primaries > 1:
            f.problem(f"case has {primaries} primary diagnoses; exactly one is allowed")
        elif not entries and f.ok:
            f.problem("case has no diagnosis (patient_info.standardized_diagnosis is empty)")
        return diagnoses


def _image_type(f: FieldReader, entry: dict, where: str) -> str | None:
    """`image_type`, `modality` or `modalities` (a third-party loader of the release reads the last; a list
    of several is joined with '; ')."""
    value = f.first(entry, "image_type", "modality", "modalities")
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        value = "; ".join(v.strip() for v in value if v.strip()) or None
    return f.string(value, f"{where}.image_type")
