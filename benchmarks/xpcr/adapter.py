"""X-PCR: the authors' Hugging Face release (Parquet, one row per image with `qa_pairs`) plus the 58
hospital cross-modal cases in this project's documented JSONL layout (the authors' is unpublished).

Raw layout read (see `benchmarks/xpcr/sample/README.md`):
- `**/*.parquet` at any depth: columns `id`, `modality`, `image` ({bytes, path}), `image_path`,
  `qa_pairs` (list of {`category`, `question` with options appended, `answer` as option text,
  `sub_label`, `question_type`}, optionally a tier field); optional row-level `disease`,
  `disease_category`. Other columns are ignored. Read with `iter_batches`, so memory stays bounded.
- `cross_modal/cases.jsonl` (optional): one hospital case per line, images under `cross_modal/`.

Configs written: `chains` (one row per image, the image once, its items and an aligned `answers`
list), `cross_modal` (one row per case), `items` (one text-free row per scored item: ids, strata and
the answer letter; the leaderboard's answer key) and `ablations` (one row per cross-modal item and
removed modality: the modality-ablation runs the leaderboard accepts).
"""
from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any, Iterator

import pyarrow as pa
import pyarrow.parquet as pq
from datasets import Features, Image, List, Value
from PIL import Image as PILImage

from dataset_builders.errors import ProblemLog
from dataset_builders.fields import FieldReader
from dataset_builders.parquet_writer import ArrowBinary
from dataset_builders.adapter import Adapter, CardFacts, ConfigSpec, release_image, resolve_inside
from .taxonomy import (ABLATION_SEP, CASE_GROUPS, LETTERS, NON_DIAGNOSES, STAGES, OptionError, answer_letter, case_group_of,
                            category_code, category_for_disease, default_tier, modality_code, source_dataset,
                            split_options, stage_code, task_family_code, tier_code)

BATCH_ROWS = 32  # rows per Parquet batch: bounded memory even with multi-MB images
CROSS_MODAL_DIR = "cross_modal"
CASES_FILE = "cases.jsonl"

ROW_ALIASES = {
    "id": ("id", "image_id"),
    "modality": ("modality",),
    "image": ("image",),
    "image_path": ("image_path", "file_name"),
    "qa_pairs": ("qa_pairs", "qas", "qa"),
    "disease": ("disease", "disease_name", "diagnosis"),
    "disease_category": ("disease_category", "disease_type", "disease_group"),
}
QA_TIER_FIELDS = ("tier", "difficulty", "level", "expertise", "expertise_level")
QA_OPTION_FIELDS = ("options", "choices")
YES_NO_TYPES = ("yes", "judg", "bool", "true", "binary")

_ITEM_TEXT = {  # what every question carries, in chains and cross-modal cases alike
    "question": Value("string"),
    "options": List(Value("string")),
    "tier": Value("string"),
    "tier_source": Value("string"),
    "sub_label": Value("string"),
    "question_type": Value("string"),
}
CHAIN_ITEM = {"item_id": Value("string"), "stage": Value("string"), "stage_idx": Value("int8"), **_ITEM_TEXT,
              "source_category": Value("string")}
CROSS_ITEM = {"item_id": Value("string"), "task_family": Value("string"), "stage": Value("string"), **_ITEM_TEXT}
CHAINS = Features({
    "id": Value("string"),
    "image": Image(),
    "modality": Value("string"),
    "image_path": Value("string"),
    "sha256": Value("string"),
    "source_dataset": Value("string"),
    "disease": Value("string"),
    "disease_category": Value("string"),
    "disease_source": Value("string"),
    "stages": List(Value("string")),
    "has_all_stages": Value("bool"),
    "num_items": Value("int32"),
    "items": List(CHAIN_ITEM),
    "answers": List(Value("string")),
})
CROSS_MODAL = Features({
    "id": Value("string"),
    "case_group": Value("int8"),
    "group_modalities": Value("string"),
    "vignette": Value("string"),
    "images": List(Image()),
    "image_modalities": List(Value("string")),
    "image_labels": List(Value("string")),
    "image_paths": List(Value("string")),
    "image_sha256": List(Value("string")),
    "disease": Value("string"),
    "disease_category": Value("string"),
    "num_items": Value("int32"),
    "items": List(CROSS_ITEM),
    "answers": List(Value("string")),
})
ITEMS = Features({
    "id": Value("string"),
    "task": Value("string"),
    "parent_id": Value("string"),
    "position": Value("int32"),
    "stage": Value("string"),
    "tier": Value("string"),
    "modality": Value("string"),
    "case_group": Value("int8"),
    "task_family": Value("string"),
    "source_dataset": Value("string"),
    "disease": Value("string"),
    "disease_category": Value("string"),
    "n_options": Value("int8"),
    "options": List(Value("string")),  # the option texts: the letter rule reads answers that restate one
    "answer": Value("string"),
})
ABLATIONS = Features({
    "id": Value("string"),
    "item_id": Value("string"),
    "parent_id": Value("string"),
    "case_group": Value("int8"),
    "removed_modality": Value("string"),
    "task_family": Value("string"),
    "tier": Value("string"),
    "n_options": Value("int8"),
    "options": List(Value("string")),  # the option texts: the letter rule reads answers that restate one
    "answer": Value("string"),
})

BIBTEX = """@inproceedings{wang2026xpcr,
  title     = {X-PCR: A Benchmark for Cross-modality Progressive Clinical Reasoning in Ophthalmic Diagnosis},
  author    = {Wang and others},
  booktitle = {Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)},
  year      = {2026},
  note      = {arXiv:2604.20350}
}"""

TIER_RULE = (
    "Tier (R/A/S) comes from the release when an item has a tier field (`tier`, `difficulty`, `level`, `expertise`); "
    "otherwise (`tier_source` = `mapped`) from this project's mapping: a sub-label keyword decides first (S: "
    "differential, subtype, etiology, prognosis, surgery, referral; A: artifact, gradability, distribution, pattern, "
    "morphology, severity, grade, staging; R: clarity, focus, illumination, exposure, laterality, presence, "
    "visibility), else the stage's majority tier in the paper's Figure 2(f): IQA R, AL R, LC R, DD A, SG A, CD S."
)
DISEASE_RULE = (
    "Disease and disease category come from the row when the release has them (`disease_source` = `release`); "
    "otherwise the disease is the answer text of the image's first Disease Diagnosis item that names a disease "
    "(not yes/no; a sub-label with 'diagnos'/'disease' preferred; `disease_source` = `dd_answer`) and the category "
    "follows keywords (diabetic -> DR, vein occlusion -> RVO, hypertensive -> HTR, glaucoma -> GLA, cataract -> CAT, "
    "macular degeneration/drusen/CNV -> AMD, myopia -> PM, 'normal' -> none, anything else -> Rare)."
)
CROSS_MODAL_LAYOUT = (
    "Hospital cases are read from `cross_modal/cases.jsonl` (this project's layout; the authors' is unpublished): one "
    "JSON object per line with `case_id`, optional `case_group` (1 CFP/OCT, 2 CFP/OCT/FFA, 3 CFP/OCT/FFA/ICGA, "
    "4 CFP/OCT/FFA/EP; derived from the image modalities when absent, and checked against them when present), "
    "optional `vignette`, `disease`, `disease_category`, `task_family` (case default), `images` = [{`path` relative "
    "to `cross_modal/`, `modality`, optional `label` such as 'L-FFA'}] and `items` = [{`question` (options appended "
    "as in the public release, or an `options` list), `answer` (option text or letter), optional `task_family` "
    "(Correspondence Identification, Diagnostic Integration, Modality Selection), `tier`, `stage`, `sub_label`, "
    "`question_type`}]. Item ids are `<case_id>-<k>`; each item also gets one ablation id per modality of its group, "
    "`<item id>/without-<MODALITY>`."
)
FIELD_DOCS = {
    "id": "Row id: the image id (`chains`), case id (`cross_modal`), item id (`items`) or ablation id (`ablations`).",
    "image": "The image, original bytes, stored once per image (not per question). Model input.",
    "modality": "CFP, OCT, FFA, ICGA, RetCam or EP (aliases such as 'cfp', 'Ext-Eye', 'Retcam' normalised).",
    "image_path": "The authors' `image_path` (provenance; encodes the source dataset).",
    "sha256": "SHA-256 of the image bytes.",
    "source_dataset": "Public source dataset, from the image path ('CFP/12 ODIR-5K/...' -> 'ODIR-5K').",
    "disease": "Disease of the image. May reveal Disease Diagnosis answers; held out with the answers. " + DISEASE_RULE,
    "disease_category": "DR, GLA, CAT, AMD, HTR, PM, RVO or Rare (null for normal images). Held out with the answers.",
    "disease_source": "`release` or `dd_answer` (derived, see `disease`).",
    "stages": "Stages present among the image's items, in progressive order.",
    "has_all_stages": "True when the image has items of all six stages: its chain counts in the chain completion rate.",
    "num_items": "Number of items.",
    "items": "The questions, in release order: `item_id` (`<image id>-<k>`, k = 1-based position in `qa_pairs`), "
             "`stage` (IQA, AL, LC, DD, SG, CD) and `stage_idx` (1-6), `question` (options removed), `options` "
             "(letters A, B, ... in list order), `tier` and `tier_source` (`release`/`mapped`), `sub_label`, "
             "`question_type`, `source_category` (the release's category string). " + TIER_RULE,
    "answers": "Gold option letter of each item, aligned with `items` (the option text is `options[ord(letter) - 65]`).",
}


class XPCRAdapter(Adapter):
    name = "xpcr"
    id_column = "id"
    answer_columns = ("answers", "answer", "disease", "disease_category")
    facts = CardFacts(
        pretty_name="X-PCR",
        summary=(
            "X-PCR (Cross-Modality Progressive Clinical Reasoning): ophthalmic multiple-choice VQA over six imaging "
            "modalities (CFP, OCT, FFA, ICGA, RetCam, EP). Each image carries a progressive chain of questions over six "
            "stages (image quality -> anatomical localisation -> lesion characterisation -> disease diagnosis -> "
            "severity grading -> clinical decision), each question graded Resident/Attending/Specialist; hospital "
            "cross-modal cases (groups CFP/OCT, +FFA, +ICGA, +EP) test multi-image integration and modality ablation. "
            "The paper reports 26,415 images and 177,868 VQA pairs (Figure 2's panels sum to 176,188; the HF viewer "
            "shows 32-77 questions per image, more than 177,868/26,415): the counts below are what this build read."
        ),
        license="other",
        license_name="xpcr-academic-research-only",
        license_link="https://huggingface.co/datasets/Fantasy666/X-PCR",
        license_note=(
            "The authors release X-PCR 'for academic research purposes only'. Images come from 51 public ophthalmic "
            "datasets, each under its own license; the hospital cases were collected under IRB approval. This "
            "re-publication is gated and for research evaluation only."
        ),
        paper_title="X-PCR: A Benchmark for Cross-modality Progressive Clinical Reasoning in Ophthalmic Diagnosis",
        paper_url="https://arxiv.org/abs/2604.20350",
        code_url="https://github.com/CVI-SZU/X-PCR (README only); data: https://huggingface.co/datasets/Fantasy666/X-PCR",
        bibtex=BIBTEX,
        provenance=(
            "Public images from 51 datasets (e.g. ODIR-5K, APTOS-2019, OCT2017, RFMiD2.0); questions for stages 1-5 "
            "generated by GPT-5 with Gemini-2.5-pro auditing, stage 6 written by ophthalmologists; 58 hospital "
            "multi-modal cases. Rebuilt from the authors' Hugging Face Parquet (one row per image with `qa_pairs`): "
            "category -> stage, options parsed from the question text, answer text -> letter. " + TIER_RULE + " "
            + DISEASE_RULE + " The authors' cross-modal case format is unpublished: cases are read from this "
            "project's layout. " + CROSS_MODAL_LAYOUT
        ),
        task_categories=("visual-question-answering", "image-text-to-text"),
        tags=("medical", "ophthalmology", "benchmark", "multimodal", "evaluation", "multiple-choice"),
        field_docs=FIELD_DOCS,
        gated_prompt=(
            "X-PCR contains ophthalmic images from public datasets and hospital cases. By requesting access you agree "
            "to use it for academic research evaluation only, not to attempt to re-identify any patient, and to "
            "respect the licenses of the original sources."
        ),
    )

    def configs(self) -> list[ConfigSpec]:
        return [
            ConfigSpec("chains", "chains", CHAINS, default=True,
                       description="One row per image: the image once and its progressive six-stage items."),
            ConfigSpec("cross_modal", "cross_modal", CROSS_MODAL,
                       description="One row per hospital case: `id`, `case_group`, `group_modalities`, `vignette`, `images` "
                                   "(List(Image)) with `image_modalities`/`image_labels`/`image_paths`/`image_sha256`, "
                                   "`disease`, `disease_category`, `items` (`item_id`, `task_family`, `stage`, "
                                   "`question`, `options`, `tier`, ...) and aligned `answers`."),
            ConfigSpec("items", "items", ITEMS,
                       description="One row per scored item (no question text), chain and cross-modal (the leaderboard's answer "
                                   "key): `id`, `task` (chain/cross_modal), `parent_id` (image or case), `position`, "
                                   "`stage`, `tier`, `modality`, `case_group`, `task_family`, `source_dataset`, "
                                   "`disease`, `disease_category`, `n_options`, `options` (the option texts), `answer` (letter)."),
            ConfigSpec("ablations", "ablations", ABLATIONS,
                       description="One row per cross-modal item and removed modality (the modality-ablation runs): "
                                   "`id` = `<item id>/without-<MODALITY>`, `item_id`, `parent_id`, `case_group`, "
                                   "`removed_modality`, `task_family`, `tier`, `n_options`, `options`, `answer`."),
        ]

    def source_files(self, source: Path) -> list[Path]:
        files = parquet_files(source)
        cases = source / CROSS_MODAL_DIR / CASES_FILE if source.is_dir() else None
        return files + ([cases] if cases is not None and cases.is_file() else [])

    def strata(self, config: str, row: dict) -> dict[str, Any]:
        if config == "chains":
            return {"modality": row["modality"], "disease_category": row["disease_category"],
                    "source_dataset": row["source_dataset"], "has_all_stages": row["has_all_stages"]}
        if config == "cross_modal":
            return {"case_group": row["case_group"], "image_modality": row["image_modalities"]}
        if config == "items":
            out = {"task": row["task"], "tier": row["tier"]}
            if row["task"] == "chain":
                out.update(stage=row["stage"], modality=row["modality"])
            else:
                out.update(case_group=row["case_group"], task_family=row["task_family"])
            return out
        return {"case_group": row["case_group"], "removed_modality": row["removed_modality"]}

    def usage_example(self, repo_id: str, config: str) -> str:
        return (
            "from datasets import load_dataset\n\n"
            f'chains = load_dataset("{repo_id}", "chains", split="test")\n'
            "row = chains[0]  # row['image'] is a PIL image; row['items'][k] and row['answers'][k] align\n"
            f'cases = load_dataset("{repo_id}", "cross_modal", split="test")\n'
            f'items = load_dataset("{repo_id}", "items", split="test")  # flat ids + strata, no images'
        )

    def read(self, source: Path, log: ProblemLog) -> Iterator[tuple[str, dict]]:
        seen: dict[str, str] = {}
        files = parquet_files(source)
        root = source if source.is_dir() else source.parent
        cases = root / CROSS_MODAL_DIR / CASES_FILE
        if not files and not cases.is_file():
            log.add(str(source), "no .parquet file (and no cross_modal/cases.jsonl) found in the source folder")
            return
        for path in files:
            yield from ChainReader(root, path, log, seen).rows()
            if log.full:
                return
        yield from self._cases(root, log, seen)

    def _cases(self, root: Path, log: ProblemLog, seen: dict[str, str]) -> Iterator[tuple[str, dict]]:
        cases = root / CROSS_MODAL_DIR / CASES_FILE
        if (root / CROSS_MODAL_DIR).is_dir():
            if not cases.is_file():
                log.add(f"{CROSS_MODAL_DIR}/", f"folder has no {CASES_FILE}; see the sample README for the layout")
                return
            yield from CaseReader(root, cases, log, seen).rows()

    # Optional parallel-build protocol (see `dataset_builders/stage.py`): contiguous work units whose
    # rows, concatenated in order, are exactly `read()`'s rows.
    def partitions(self, source: Path, count: int) -> list[dict]:
        """At most `count` parts, each {"segments": [(parquet file relative to the release, first row
        group, end row group)], "cases": bool}, balanced by row-group bytes; the last part also reads the
        cross-modal cases. [] when there is nothing to split: the serial read then reports why."""
        root = source if source.is_dir() else source.parent
        units = []  # (relative file, row group, uncompressed bytes)
        for path in parquet_files(source):
            try:
                meta = pq.ParquetFile(path).metadata
            except Exception:  # damaged file: the serial read reports it, located
                return []
            rel = str(path.relative_to(root))
            units += [(rel, rg, max(1, meta.row_group(rg).total_byte_size)) for rg in range(meta.num_row_groups)]
        if not units:
            return []
        by_index: dict[int, dict] = {}
        total, done = sum(u[2] for u in units), 0
        for rel, rg, size in units:
            # the part whose byte share holds this row group's midpoint: contiguous and balanced
            index = min(count - 1, int((done + size / 2) * count / total))
            segments = by_index.setdefault(index, {"segments": [], "cases": False})["segments"]
            if segments and segments[-1][0] == rel and segments[-1][2] == rg:
                segments[-1] = (rel, segments[-1][1], rg + 1)
            else:
                segments.append((rel, rg, rg + 1))
            done += size
        parts = [by_index[k] for k in sorted(by_index)]
        parts[-1]["cases"] = True
        return parts

    def read_partition(self, source: Path, part: dict, log: ProblemLog, seen: dict[str, str]) -> Iterator[tuple[str, dict]]:
        """The rows of one part; ids are claimed in `seen` (id -> where) so the stage can find duplicates
        across parts."""
        root = source if source.is_dir() else source.parent
        for rel, first, end in part["segments"]:
            yield from ChainReader(root, root / rel, log, seen).rows(range(first, end))
            if log.full:
                return
        if part["cases"]:
            yield from self._cases(root, log, seen)


def arrow_images(column: pa.Array) -> list | None:
    """A source image column as one value per row with the bytes left in Arrow (ArrowBinary): a
    {bytes, path} struct -> {"bytes": ArrowBinary or None, "path": str or None} (None for a null row), a
    plain binary column -> ArrowBinary or None. None for any other type (read as Python values; the
    row check then names the problem)."""
    if pa.types.is_struct(column.type):
        names = [column.type.field(i).name for i in range(column.type.num_fields)]
        if "bytes" not in names or not _is_binary(column.type.field("bytes").type):
            return None
        data = column.field("bytes")
        paths = column.field("path").to_pylist() if "path" in names else [None] * len(column)
        valid = column.is_valid().to_pylist()
        data_valid = data.is_valid().to_pylist()
        return [({"bytes": ArrowBinary(data, i) if data_valid[i] else None, "path": paths[i]} if valid[i] else None)
                for i in range(len(column))]
    if _is_binary(column.type):
        valid = column.is_valid().to_pylist()
        return [ArrowBinary(column, i) if valid[i] else None for i in range(len(column))]
    return None


def _is_binary(t: pa.DataType) -> bool:
    return pa.types.is_binary(t) or pa.types.is_large_binary(t)


def parquet_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source] if source.suffix == ".parquet" else []
    return sorted(p for p in source.rglob("*.parquet")
                  if not any(part.startswith(".") for part in p.relative_to(source).parts))


def _claim(seen: dict[str, str], key: str, where: str, f: FieldReader, what: str) -> bool:
    """Register an id; a duplicate is reported (once, for the row or case, not again for its items)."""
    if key in seen:
        f.problem(f"duplicate {what} {key!r} (first seen at {seen[key]})")
        return False
    seen[key] = where
    return True


def parse_item(f: FieldReader, qa: Any, where: str) -> dict | None:
    """One multiple-choice item -> {question (stem), options, letter, tier, sub_label, question_type};
    None (problems logged, located by `where`) when it cannot be used."""
    if not isinstance(qa, dict):
        f.problem(f"{where} must be an object, got {type(qa).__name__}")
        return None
    row_ok, f.ok = f.ok, True
    question = f.string(qa.get("question"), f"{where}.question", required=True)
    stem, options = _options(f, qa, question, where) if question is not None else (None, None)
    letter = _letter(f, qa.get("answer"), options, where)
    sub_label = f.string(qa.get("sub_label"), f"{where}.sub_label")
    tier = _tier(f, f.first(qa, *QA_TIER_FIELDS), where)
    question_type = f.string(f.first(qa, "question_type", "type"), f"{where}.question_type")
    item_ok, f.ok = f.ok, row_ok and f.ok
    if not item_ok:
        return None
    return {"question": stem, "options": options, "letter": letter, "sub_label": sub_label, "tier": tier,
            "question_type": question_type}


def _options(f: FieldReader, qa: dict, question: str, where: str) -> tuple[str, list[str] | None]:
    try:
        split = split_options(question)
    except OptionError as exc:
        f.problem(f"{where}.question: {exc}")
        return question, None
    stem, options = split if split is not None else (question, None)
    given = f.first(qa, *QA_OPTION_FIELDS)
    if given is not None:  # an explicit options field wins over options parsed from the text
        if isinstance(given, dict):
            given = [given[k] for k in sorted(given)]
        if not isinstance(given, list) or not all(isinstance(o, (str, int, float)) for o in given):
            f.problem(f"{where}.options must be a list of strings")
            return stem, None
        options = [str(o).strip() for o in given]
    if options is None:
        kind = str(qa.get("question_type") or "").casefold()
        if not any(word in kind for word in YES_NO_TYPES):
            f.problem(f"{where}.question holds no options (expected \"\\nOptions: ['a', 'b', ...]\" or lettered "
                      "lines 'A. ...') and the item has no options field")
            return stem, None
        options = ["Yes", "No"]
    if not 2 <= len(options) <= len(LETTERS):
        f.problem(f"{where} has {len(options)} options; 2-26 are supported")
        return stem, None
    if any(not o for o in options):
        f.problem(f"{where} has an empty option")
        return stem, None
    return stem, options


def _letter(f: FieldReader, answer: Any, options: list[str] | None, where: str) -> str | None:
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        answer = str(answer)
    if isinstance(answer, list):
        f.problem(f"{where}.answer is a list; multi-answer items are not supported")
        return None
    if not isinstance(answer, str) or not answer.strip():
        f.problem(f"field '{where}.answer' is required and must be a non-empty string")
        return None
    if options is None:
        return None
    try:
        return answer_letter(answer, options)
    except OptionError as exc:
        f.problem(f"{where}.answer: {exc}")
        return None


def _tier(f: FieldReader, raw: Any, where: str) -> str | None:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return None
    if not isinstance(raw, str):
        f.problem(f"{where}: tier must be a string, got {type(raw).__name__}")
        return None
    tier = tier_code(raw)
    if tier is None:
        f.problem(f"{where}: unknown tier {raw!r} (use R/A/S or Resident/Attending/Specialist)")
    return tier


class ChainReader:
    """Rows of one Parquet file of the authors' release -> `chains` + `items` rows."""

    def __init__(self, root: Path, path: Path, log: ProblemLog, seen: dict[str, str]):
        self.root, self.path, self.log, self.seen = root, path, log, seen
        self.rel = str(path.relative_to(root)) if path.is_relative_to(root) else path.name

    def _columns(self, names: list[str]) -> dict[str, str] | None:
        found = {}
        for canonical, aliases in ROW_ALIASES.items():
            name = next((a for a in aliases if a in names), None)
            if name is not None:
                found[canonical] = name
        missing = [c for c in ("id", "image", "qa_pairs") if c not in found]
        if missing:
            self.log.add(self.rel, f"missing column(s) {', '.join(missing)} (found: {', '.join(names) or 'none'})")
            return None
        return found

    def rows(self, row_groups: range | None = None) -> Iterator[tuple[str, dict]]:
        """All rows, or those of `row_groups` (row numbers in problems stay file-wide)."""
        try:
            # pre_buffer=False: pyarrow's default pre-buffers every selected row group of the file up front
            # (all its images, before the first batch); read one row group at a time instead.
            parquet = pq.ParquetFile(self.path, pre_buffer=False)
        except Exception as exc:  # pyarrow raises ArrowInvalid/OSError variants for damaged files
            self.log.add(self.rel, f"not a readable Parquet file ({type(exc).__name__}: {str(exc)[:120]})")
            return
        columns = self._columns(parquet.schema_arrow.names)
        if columns is None:
            return
        number = 0 if row_groups is None else sum(parquet.metadata.row_group(i).num_rows for i in range(row_groups.start))
        groups = None if row_groups is None else list(row_groups)
        try:
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=list(columns.values()), row_groups=groups):
                images = arrow_images(batch.column(columns["image"]))
                if images is not None:  # image bytes stay in Arrow: viewed to check and hash, sliced to write
                    batch = batch.drop_columns([columns["image"]])
                for index, raw in enumerate(batch.to_pylist()):
                    number += 1
                    record = {canonical: raw.get(name) for canonical, name in columns.items()}
                    if images is not None:
                        record["image"] = images[index]
                    yield from self._row(record, number)
                    if self.log.full:
                        return
        except Exception as exc:  # a damaged page mid-file
            self.log.add(f"{self.rel} row {number + 1}", f"cannot read the Parquet data ({type(exc).__name__}: {str(exc)[:120]})")

    def _row(self, record: dict, number: int) -> Iterator[tuple[str, dict]]:
        where = f"{self.rel} row {number}"
        f = FieldReader(self.log, where, None)
        image_id = f.string(record.get("id"), "id", required=True)
        if image_id is None:
            return
        f.case = image_id
        self._unique = _claim(self.seen, image_id, where, f, "image id")
        image_path = f.string(record.get("image_path"), "image_path")
        modality = self._modality(f, record.get("modality"), image_path)
        image = self._image(f, record.get("image"), image_path)
        qa_pairs = f.array(record.get("qa_pairs"), "qa_pairs")
        if not qa_pairs and f.ok:
            f.problem("image has no qa_pairs")
        items, answers = [], []
        for k, qa in enumerate(qa_pairs, start=1):
            item = self._item(f, qa, f"qa_pairs[{k - 1}]", f"{image_id}-{k}", where)
            if item is not None:
                items.append(item[0])
                answers.append(item[1])
        disease, category, disease_source = self._disease(f, record, items, answers)
        if not f.ok:
            return
        present = {i["stage"] for i in items}
        source = source_dataset(image_path or (image or {}).get("path"))
        row = {
            "id": image_id,
            "image": {"bytes": image["bytes"], "path": image["path"]},
            "image_sha256": [image["sha256"]],  # read by the stage for the card's image summary; not a column
            "modality": modality,
            "image_path": image_path,
            "sha256": image["sha256"],
            "source_dataset": source,
            "disease": disease,
            "disease_category": category,
            "disease_source": disease_source,
            "stages": [s for s in STAGES if s in present],
            "has_all_stages": present == set(STAGES),
            "num_items": len(items),
            "items": items,
            "answers": answers,
        }
        yield "chains", row
        for position, (item, answer) in enumerate(zip(items, answers), start=1):
            yield "items", {
                "id": item["item_id"], "task": "chain", "parent_id": image_id, "position": position,
                "stage": item["stage"], "tier": item["tier"], "modality": modality, "case_group": None,
                "task_family": None, "source_dataset": source, "disease": disease, "disease_category": category,
                "n_options": len(item["options"]), "options": item["options"], "answer": answer,
            }

    def _modality(self, f: FieldReader, value: Any, image_path: str | None) -> str | None:
        raw = f.string(value, "modality")
        if raw is None and image_path:
            raw = image_path.replace("\\", "/").split("/")[0]
        code = modality_code(raw) if raw else None
        if code is None:
            f.problem(f"unknown modality {raw!r} (known: CFP, OCT, FFA, ICGA, RetCam, EP and their aliases)"
                      if raw else "field 'modality' is missing and the image_path does not start with a modality folder")
        return code

    def _image(self, f: FieldReader, value: Any, image_path: str | None) -> dict | None:
        data, path = None, None
        if isinstance(value, dict):
            data, path = value.get("bytes"), value.get("path")
        elif isinstance(value, (bytes, bytearray, ArrowBinary)):
            data = value if isinstance(value, ArrowBinary) else bytes(value)
        elif value is not None:
            f.problem(f"field 'image' must be an {{bytes, path}} struct, got {type(value).__name__}")
            return None
        if not data:
            data = self._image_from_file(path or image_path)
            if data is None:
                f.problem("missing image bytes (image.bytes is empty and image.path / image_path is not a file "
                          "inside the release)")
                return None
        view = data.view() if isinstance(data, ArrowBinary) else data
        try:
            with PILImage.open(io.BytesIO(view)) as img:
                img.verify()
        except Exception as exc:  # PIL raises many types for corrupt data
            f.problem(f"image cannot be decoded ({type(exc).__name__})")
            return None
        name = Path(path or image_path or f"{f.case}.png").name
        return {"bytes": data, "path": name, "sha256": hashlib.sha256(view).hexdigest()}

    def _image_from_file(self, rel: str | None) -> bytes | None:
        """Bytes of an image the row only points to: relative to its Parquet file's folder, else the release root."""
        if not rel:
            return None
        here = self.path.parent.relative_to(self.root) if self.path.parent.is_relative_to(self.root) else Path()
        for candidate in (str(here / rel), rel):
            resolved = resolve_inside(self.root, candidate)
            if resolved is not None and resolved.is_file():
                return resolved.read_bytes()
        return None

    def _item(self, f: FieldReader, qa: Any, where: str, item_id: str, row_where: str) -> tuple[dict, str] | None:
        stage, category = None, None
        if isinstance(qa, dict):
            category = f.string(f.first(qa, "category", "stage"), f"{where}.category", required=True)
            if category is not None:
                stage = stage_code(category)
                if stage is None:
                    f.problem(f"{where}: unknown stage category {category!r} (known: {', '.join(STAGES)} and the "
                              "names Image Quality, Anatomical Localization, Lesion Characterization, Disease "
                              "Diagnosis, Severity Grading, Clinical Decision-Making and their aliases)")
        parsed = parse_item(f, qa, where)
        if parsed is None or stage is None:
            return None
        if self._unique:
            _claim(self.seen, item_id, row_where, f, "item id")
        tier = parsed["tier"] or default_tier(stage, parsed["sub_label"])
        item = {
            "item_id": item_id, "stage": stage, "stage_idx": STAGES.index(stage) + 1,
            "question": parsed["question"], "options": parsed["options"], "tier": tier,
            "tier_source": "release" if parsed["tier"] else "mapped", "sub_label": parsed["sub_label"],
            "question_type": parsed["question_type"], "source_category": category,
        }
        return item, parsed["letter"]

    def _disease(self, f: FieldReader, record: dict, items: list[dict], answers: list[str]):
        disease = f.string(record.get("disease"), "disease")
        raw_category = f.string(record.get("disease_category"), "disease_category")
        category = None
        if raw_category is not None:
            category = category_code(raw_category)
            if category is None:
                f.problem(f"unknown disease_category {raw_category!r} (known: DR, GLA, CAT, AMD, HTR, PM, RVO, Rare)")
        if disease is not None:
            return disease, category or category_for_disease(disease), "release"
        derived = dd_disease(items, answers)
        if derived is None:
            return None, category, "release" if category else None
        return derived, category or category_for_disease(derived), "dd_answer"


def dd_disease(items: list[dict], answers: list[str]) -> str | None:
    """The answer text of the first Disease Diagnosis item that names a disease (see DISEASE_RULE)."""
    candidates = []
    for item, letter in zip(items, answers):
        if item["stage"] != "DD":
            continue
        text = item["options"][LETTERS.index(letter)]
        if text.strip().casefold() in NON_DIAGNOSES:
            continue
        label = (item.get("sub_label") or "").casefold()
        candidates.append((0 if ("diagnos" in label or "disease" in label) else 1, len(candidates), text))
    return min(candidates)[2] if candidates else None


class CaseReader:
    """`cross_modal/cases.jsonl` -> `cross_modal`, `items` and `ablations` rows."""

    KNOWN = {"case_id", "id", "case_group", "vignette", "disease", "diagnosis", "confirmed_diagnosis",
             "disease_category", "task_family", "images", "items", "qa_pairs"}

    def __init__(self, root: Path, path: Path, log: ProblemLog, seen: dict[str, str]):
        self.root, self.path, self.log, self.seen = root, path, log, seen
        self.folder = path.parent
        self.rel = str(path.relative_to(root))

    def rows(self) -> Iterator[tuple[str, dict]]:
        with self.path.open("r", encoding="utf-8", errors="strict") as handle:
            try:
                for line_no, line in enumerate(handle, start=1):
                    if self.log.full:
                        return
                    if line.strip():
                        yield from self._case(line, line_no)
            except UnicodeDecodeError as exc:
                self.log.add(self.rel, f"file is not valid UTF-8 ({exc.reason} at byte {exc.start})")

    def _case(self, line: str, line_no: int) -> Iterator[tuple[str, dict]]:
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            self.log.add(self.rel, f"malformed JSON ({exc.msg} at column {exc.colno})", line=line_no)
            return
        if not isinstance(record, dict):
            self.log.add(self.rel, f"each line must be a JSON object, got {type(record).__name__}", line=line_no)
            return
        f = FieldReader(self.log, self.rel, line_no)
        case_id = f.string(f.first(record, "case_id", "id"), "case_id", required=True)
        if case_id is None:
            return
        f.case = case_id
        unique = _claim(self.seen, case_id, f"{self.rel}:{line_no}", f, "case id")
        unknown = sorted(set(record) - self.KNOWN)
        if unknown:
            f.problem(f"unknown field(s) {', '.join(unknown)} (known: {', '.join(sorted(self.KNOWN))})")
        images = self._images(f, record)
        group = self._group(f, record, images["image_modalities"])
        family_default = self._family(f, record.get("task_family"), "task_family")
        raw_items = f.array(f.first(record, "items", "qa_pairs"), "items")
        if not raw_items and f.ok:
            f.problem("case has no items")
        items, answers = [], []
        for k, qa in enumerate(raw_items, start=1):
            where = f"items[{k - 1}]"
            parsed = parse_item(f, qa, where)
            if parsed is None:
                continue
            item_id = f"{case_id}-{k}"
            if unique:
                _claim(self.seen, item_id, f"{self.rel}:{line_no}", f, "item id")
            stage = None
            if qa.get("stage") is not None:
                stage = stage_code(str(qa["stage"]))
                if stage is None:
                    f.problem(f"{where}: unknown stage {qa['stage']!r}")
            family = self._family(f, qa.get("task_family"), f"{where}.task_family") or family_default
            items.append({"item_id": item_id, "task_family": family, "stage": stage, "question": parsed["question"],
                          "options": parsed["options"], "tier": parsed["tier"] or default_tier(stage, parsed["sub_label"]),
                          "tier_source": "release" if parsed["tier"] else "mapped", "sub_label": parsed["sub_label"],
                          "question_type": parsed["question_type"]})
            answers.append(parsed["letter"])
        disease = f.string(f.first(record, "disease", "confirmed_diagnosis", "diagnosis"), "disease")
        raw_category = f.string(record.get("disease_category"), "disease_category")
        category = category_code(raw_category) if raw_category else category_for_disease(disease)
        if raw_category and category is None:
            f.problem(f"unknown disease_category {raw_category!r} (known: DR, GLA, CAT, AMD, HTR, PM, RVO, Rare)")
        if not f.ok:
            return
        yield "cross_modal", {
            "id": case_id, "case_group": group, "group_modalities": "/".join(CASE_GROUPS[group]),
            "vignette": f.string(record.get("vignette"), "vignette"), **images,
            "disease": disease, "disease_category": category, "num_items": len(items), "items": items, "answers": answers,
        }
        for position, (item, answer) in enumerate(zip(items, answers), start=1):
            common = {"parent_id": case_id, "case_group": group, "task_family": item["task_family"],
                      "tier": item["tier"], "n_options": len(item["options"]), "options": item["options"],
                      "answer": answer}
            yield "items", {"id": item["item_id"], "task": "cross_modal", "position": position, "stage": item["stage"],
                            "modality": None, "source_dataset": "hospital", "disease": disease,
                            "disease_category": category, **common}
            for modality in CASE_GROUPS[group]:
                ablation_id = f"{item['item_id']}{ABLATION_SEP}{modality}"
                _claim(self.seen, ablation_id, f"{self.rel}:{line_no}", f, "ablation id")
                yield "ablations", {"id": ablation_id, "item_id": item["item_id"], "removed_modality": modality, **common}

    def _images(self, f: FieldReader, record: dict) -> dict:
        out: dict[str, list] = {k: [] for k in ("images", "image_modalities", "image_labels", "image_paths", "image_sha256")}
        for k, entry in enumerate(f.array(record.get("images"), "images")):
            where = f"images[{k}]"
            entry = f.obj(entry, where)
            rel = f.string(entry.get("path"), f"{where}.path", required=True)
            raw = f.string(entry.get("modality"), f"{where}.modality", required=True)
            modality = modality_code(raw) if raw else None
            if raw and modality is None:
                f.problem(f"{where}: unknown modality {raw!r}")
            if rel is None or modality is None:
                continue
            image = release_image(f, self.folder, rel, f"{where}.path", CROSS_MODAL_DIR)
            if image is None:
                continue
            out["images"].append({"bytes": image["bytes"], "path": f"{f.case}/{Path(rel).name}"})
            out["image_sha256"].append(image["sha256"])
            out["image_paths"].append(f"{CROSS_MODAL_DIR}/{rel}")
            out["image_modalities"].append(modality)
            out["image_labels"].append(f.string(entry.get("label"), f"{where}.label"))
        if not out["images"] and f.ok:
            f.problem("case has no images")
        return out

    def _group(self, f: FieldReader, record: dict, modalities: list[str]) -> int | None:
        present = set(modalities)
        derived = case_group_of(present)
        given = f.integer(record.get("case_group"), "case_group")
        shown = "/".join(m for m in ("CFP", "OCT", "FFA", "ICGA", "RetCam", "EP") if m in present)
        groups = "; ".join(f"{g}: {'/'.join(m)}" for g, m in CASE_GROUPS.items())
        if given is not None and given not in CASE_GROUPS:
            f.problem(f"case_group must be 1-4 ({groups}), got {given}")
        elif given is not None and present and derived != given:
            f.problem(f"case_group {given} needs modalities {'/'.join(CASE_GROUPS[given])}, the images have {shown}")
        elif given is None and present and derived is None:
            f.problem(f"image modalities {shown} match no case group ({groups})")
        return given if given in CASE_GROUPS else derived

    def _family(self, f: FieldReader, value: Any, field: str) -> str | None:
        raw = f.string(value, field)
        if raw is None:
            return None
        code = task_family_code(raw)
        if code is None:
            f.problem(f"field '{field}': unknown task family {raw!r} (known: Correspondence Identification, "
                      "Diagnostic Integration, Modality Selection)")
        return code
