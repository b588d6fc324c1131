"""Med-CMR: the authors' JSON/JSONL records (MCQs with options A-E, and open-ended items) plus images.

Raw record (third-party note on the authors' release, unverified; see the spec, section 4): `index`,
`image_path` (relative to the release folder; a list is accepted for multi-image items), `question`,
`A`-`E` (MCQ only), `answer` (MCQ: a letter; open-ended: reference text), `visual_description`,
`subtype`, `question type`, `organ system`, `modality`, `task`. Key names are matched without regard
to case, spaces, hyphens or underscores ("Organ System" == "organ_system"); see FIELD_ALIASES. Other keys
are kept in the `extra_fields` sidecar. Taxonomy values are mapped by `dataset_builders.vocabulary`
(case, hyphens, a 'System' suffix, the synonyms in `taxonomy.py`); a value it does not know is kept
verbatim and listed in the build report (`--strict` refuses both).

Where the item format comes from: an explicit format key, else a `question type` naming a format,
else the presence of options. Task and medical-intelligence labels come from their own keys, else
from a `question type` whose value is a task or a medical-intelligence category.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from datasets import Features, Image, List, Value

from dataset_builders.errors import ProblemLog
from dataset_builders.fields import FieldReader
from dataset_builders.adapter import EXTRA_FIELDS, Adapter, CardFacts, ConfigSpec, read_image, resolve_inside
from dataset_builders.records import iter_records
from dataset_builders.vocabulary import Vocabulary
from .taxonomy import MEDICAL_INTELLIGENCE, MODALITIES, MODALITY_SYNONYMS, ORGAN_SYNONYMS, ORGAN_SYSTEMS, TASKS

LETTERS = "ABCDE"
FORMATS = {"mcq": "mcq", "multiplechoice": "mcq", "multiplechoicequestion": "mcq", "closed": "mcq",
           "closeended": "mcq", "closedended": "mcq", "open": "open_ended", "openended": "open_ended",
           "openendedquestion": "open_ended", "freetext": "open_ended"}
ID_PREFIX = {"mcq": "mcq", "open_ended": "open"}

# normalised raw key -> canonical field
FIELD_ALIASES = {
    "index": "index", "idx": "index", "id": "index",
    "imagepath": "image_path", "imagepaths": "image_path", "image": "image_path", "images": "image_path",
    "img": "image_path", "imgpath": "image_path",
    "question": "question",
    **{letter.lower(): letter for letter in LETTERS},
    "options": "options", "choices": "options",
    "answer": "answer", "correctanswer": "answer",
    "visualdescription": "visual_description",
    "subtype": "subtype",
    "questiontype": "question_type",
    "organsystem": "organ_system", "bodysystem": "organ_system",
    "modality": "modality", "modalities": "modality", "imagingmodality": "modality",
    "task": "task", "taskcategory": "task",
    "medicalintelligence": "medical_intelligence",
    "questionformat": "question_format", "format": "question_format", "qatype": "question_format",
    "sourcejournal": "source_journal", "journal": "source_journal", "source": "source_journal",
}

_COMMON = {
    "id": Value("string"),
    "source_index": Value("string"),
    "question_format": Value("string"),
    "question": Value("string"),
    "images": List(Image()),
    "image_paths": List(Value("string")),
    "image_sha256": List(Value("string")),
    "num_images": Value("int32"),
}
_LABELS = {
    "answer": Value("string"),
    "visual_description": Value("string"),
    "task": Value("string"),
    "complexity_group": Value("string"),
    "subtype": Value("string"),
    "question_type": Value("string"),
    "medical_intelligence": Value("string"),
    "modality": List(Value("string")),
    "organ_system": Value("string"),
    "source_journal": Value("string"),
}
MCQ_FEATURES = Features({**_COMMON, "options": List(Value("string")), **_LABELS})
OPEN_FEATURES = Features({**_COMMON, **_LABELS})

BIBTEX = """@article{gong2025medcmr,
  title   = {Med-CMR: A Fine-Grained Benchmark Integrating Visual Evidence and Clinical Logic for Medical Complex Multimodal Reasoning},
  author  = {Gong and Ji and Liu and others},
  journal = {arXiv preprint arXiv:2512.00818},
  year    = {2025}
}"""

FIELD_DOCS = {
    "id": "Stable item id: `mcq-<index>` or `open-<index>` from the authors' `index`.",
    "source_index": "The authors' `index`, as text.",
    "question_format": "`mcq` or `open_ended` (equals the config).",
    "question": "Question text. Model input.",
    "images": "The item's image(s), original bytes. Model input.",
    "image_paths": "Original relative path of each image in the authors' release (provenance).",
    "image_sha256": "SHA-256 of each image's bytes.",
    "num_images": "Number of images.",
    "options": "MCQ only: the five options in letter order A-E. Model input.",
    "answer": "MCQ: the correct letter A-E. Open-ended: the reference answer. Answer.",
    "visual_description": "Caption-derived description of the image (the source the answer was extracted "
                          "from); never shown to the evaluated model. Treated as answer-revealing.",
    "task": "Task abbreviation: SOD, FDD, SU (visual complexity); TP, CR, LTG, MSI (reasoning complexity).",
    "complexity_group": "`visual` or `reasoning`, derived from the task.",
    "subtype": "The authors' subtype within the task (five per task; names not in the paper).",
    "question_type": "The authors' `question type` value as released (semantics unverified).",
    "medical_intelligence": "CDS, DX, PA, PRA, SEE or TRE where the release labels it, else null.",
    "modality": "Imaging modalities (Table 6 strings); a list, since the paper's counts imply multi-label.",
    "organ_system": "Body system (Table 7 strings, including `Other / NA`).",
    "source_journal": "Source journal where released, else null.",
}


def normalise(text: str) -> str:
    """Lookup form for keys and taxonomy values: lower case without spaces, hyphens or underscores."""
    return re.sub(r"[\s_\-]+", "", text.lower())


def _abbreviations(pairs: dict[str, str]) -> Vocabulary:
    """Abbreviations as canonical values; their names and 'Name (ABBR)' as synonyms."""
    names = {}
    for abbr, name in pairs.items():
        names[name] = names[f"{name} ({abbr})"] = abbr
    return Vocabulary(pairs, names=names)


TASK_VOCAB = _abbreviations({abbr: name for abbr, (name, _) in TASKS.items()})
MI_VOCAB = _abbreviations(MEDICAL_INTELLIGENCE)
MODALITY_VOCAB = Vocabulary(MODALITIES, MODALITY_SYNONYMS)
ORGAN_VOCAB = Vocabulary(ORGAN_SYSTEMS, ORGAN_SYNONYMS)
_LETTER = re.compile(r"^\(?\s*([A-Ea-e])\s*\)?\.?$")


class MedCMRAdapter(Adapter):
    name = "medcmr"
    id_column = "id"
    # visual_description is the caption the answer was extracted from: it gives answers away.
    answer_columns = ("answer", "visual_description")
    facts = CardFacts(
        pretty_name="Med-CMR",
        summary=(
            "Medical Complex Multimodal Reasoning: 20,653 image-question items from journal case reports "
            "(JMCR, NEJM, ...): 16,655 five-option multiple-choice questions (config `mcq`) and 3,998 "
            "open-ended questions (config `open_ended`; the authors' release reportedly holds 3,999). Seven "
            "tasks (SOD, FDD, SU, TP, CR, LTG, MSI), 11 organ systems, 12 imaging modalities. MCQs are "
            "scored by accuracy; open-ended answers by an LLM judge (consistency, coherence, visual "
            "accuracy, ground-truth correctness, weights 1/1/4/4)."
        ),
        license="other",
        license_name="medcmr-unverified",
        license_link="https://github.com/LsmnBmnc/Med-CMR",
        license_note=(
            "The paper states no license; a third-party note says the authors' repository declares "
            "Apache-2.0 (unverified). Images come from published journal articles whose copyright stays "
            "with the publishers; this re-publication is gated and for research evaluation only."
        ),
        paper_title=("Med-CMR: A Fine-Grained Benchmark Integrating Visual Evidence and Clinical Logic for "
                     "Medical Complex Multimodal Reasoning"),
        paper_url="https://arxiv.org/abs/2512.00818",
        code_url="https://github.com/LsmnBmnc/Med-CMR",
        bibtex=BIBTEX,
        provenance=(
            "Images and human-annotated captions from clinical case reports and research articles (e.g. JMCR, "
            "NEJM). Questions from clinician-written templates filled by GPT-5-mini; distractors proposed by "
            "GPT-5-mini, Qwen3-VL-Plus and Claude-Sonnet-4 and selected by annotators; items answered "
            "correctly by all of Lingshu-7B, Qwen2.5-VL-7B and LLaVA-Med-v1.5-Mistral-7B removed; reviewed by "
            "general practitioners and licensed physicians. Paper counts disagree slightly: modality counts "
            "sum to 21,422 (multi-label), body-system counts to 20,654."
        ),
        task_categories=("visual-question-answering", "image-text-to-text", "multiple-choice"),
        field_docs=FIELD_DOCS,
    )

    def configs(self) -> list[ConfigSpec]:
        return [
            ConfigSpec(name="mcq", data_dir="mcq", features=MCQ_FEATURES, default=True,
                       description="Five-option multiple-choice questions (answer: a letter A-E)."),
            ConfigSpec(name="open_ended", data_dir="open_ended", features=OPEN_FEATURES,
                       description="Open-ended questions (answer: reference text; scored by an LLM judge)."),
        ]

    def source_files(self, source: Path) -> list[Path]:
        if not source.is_dir():
            return [source]
        return sorted(p for p in source.rglob("*") if p.suffix.lower() in {".json", ".jsonl"} and p.is_file()
                      and not any(part.startswith(".") for part in p.relative_to(source).parts))

    def strata(self, config: str, row: dict) -> dict[str, Any]:
        return {name: row[name] for name in ("task", "complexity_group", "medical_intelligence", "modality",
                                             "organ_system", "subtype")}

    def usage_example(self, repo_id: str, config: str) -> str:
        return (
            "from datasets import load_dataset\n\n"
            f'mcq = load_dataset("{repo_id}", "mcq", split="test")\n'
            f'open_ended = load_dataset("{repo_id}", "open_ended", split="test")\n'
            "print(mcq[0][\"question\"], mcq[0][\"options\"])"
        )

    def read(self, source: Path, log: ProblemLog) -> Iterator[tuple[str, dict]]:
        files = self.source_files(source)
        if not files:
            log.add(str(source), "no .json or .jsonl file found in the source folder")
            return
        root = source if source.is_dir() else source.parent
        seen: dict[str, str] = {}
        for path in files:
            rel_file = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
            for line, record_no, record in iter_records(path, rel_file, log):
                if log.full:
                    return
                parsed = self._parse(record, rel_file, line, record_no, root, path.parent, log, seen)
                if parsed is not None:
                    yield parsed

    def _parse(self, record: Any, file: str, line: int, record_no: int | None, root: Path, file_dir: Path,
               log: ProblemLog, seen: dict[str, str]) -> tuple[str, dict] | None:
        where = f"record {record_no}" if record_no is not None else None
        if not isinstance(record, dict):
            log.add(file, f"each record must be a JSON object, got {type(record).__name__}", line=line, case=where)
            return None
        f = FieldReader(log, file, line, where)
        fields, unknown, problems = canonical_fields(record)
        fmt = item_format(f, fields)
        index = source_index(f, fields.get("index"))
        item_id = f"{ID_PREFIX[fmt]}-{index}" if index is not None else None
        if item_id is not None:
            f.case = item_id if record_no is None else f"{item_id} (record {record_no})"
            if item_id in seen:
                f.problem(f"duplicate index (item {item_id} first seen at {seen[item_id]})")
            seen.setdefault(item_id, f"{file}:{line}")
        for problem in problems:
            f.problem(problem)
        extras = f.extras(record, unknown, sorted(set(FIELD_ALIASES.values())))
        question_type = f.string(fields.get("question_type"), "question type")
        row = {
            "id": item_id,
            "source_index": index,
            "question_format": fmt,
            "question": f.string(fields.get("question"), "question", required=True),
            **read_images(f, fields.get("image_path"), root, file_dir, item_id),
            "answer": answer(f, fields.get("answer"), fmt),
            "visual_description": f.string(fields.get("visual_description"), "visual_description"),
            "subtype": f.string(fields.get("subtype"), "subtype"),
            "question_type": question_type,
            "modality": modalities(f, fields.get("modality")),
            "organ_system": organ_system(f, fields.get("organ_system")),
            "source_journal": f.string(fields.get("source_journal"), "source_journal"),
            EXTRA_FIELDS: extras,
        }
        row["task"] = task(f, fields.get("task"), question_type, required=fmt == "mcq")
        row["complexity_group"] = TASKS[row["task"]][1] if row["task"] in TASKS else None
        row["medical_intelligence"] = medical_intelligence(f, fields.get("medical_intelligence"), question_type)
        if fmt == "mcq":
            row["options"] = options(f, fields)
        elif any(k in fields for k in (*LETTERS, "options")):
            f.problem("open-ended item carries options; an item with options A-E must be a multiple-choice question")
        return (fmt, row) if f.ok else None


def canonical_fields(record: dict) -> tuple[dict[str, Any], list[str], list[str]]:
    """Raw keys -> canonical field names, the unknown raw keys, and problems (two keys for one field)."""
    out: dict[str, Any] = {}
    raw_of: dict[str, str] = {}
    unknown, problems = [], []
    for key, value in record.items():
        canonical = FIELD_ALIASES.get(normalise(str(key)))
        if canonical is None:
            unknown.append(key)
            continue
        if canonical in out:
            problems.append(f"fields {raw_of[canonical]!r} and {key!r} both mean '{canonical}'; keep one")
            continue
        out[canonical], raw_of[canonical] = value, str(key)
    return out, unknown, problems


def item_format(f: FieldReader, fields: dict) -> str:
    """'mcq' or 'open_ended': an explicit format key, else a format-valued question type, else options."""
    explicit = fields.get("question_format")
    if explicit is not None:
        fmt = FORMATS.get(normalise(str(explicit)))
        if fmt is None:
            f.problem(f"field 'question_format' must name MCQ or open-ended, got {str(explicit)[:40]!r}")
        else:
            return fmt
    qtype = fields.get("question_type")
    if isinstance(qtype, str) and normalise(qtype) in FORMATS:
        return FORMATS[normalise(qtype)]
    return "mcq" if any(k in fields for k in (*LETTERS, "options")) else "open_ended"


def source_index(f: FieldReader, value: Any) -> str | None:
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        f.problem("field 'index' is required (an integer or a non-empty string)")
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not isinstance(value, (int, str)):
        f.problem(f"field 'index' must be an integer or a string, got {type(value).__name__}")
        return None
    return str(value).strip()


def read_images(f: FieldReader, value: Any, root: Path, file_dir: Path, item_id: str | None) -> dict:
    """Every image of the item, original bytes; paths are relative to the release (or the JSON's) folder."""
    out: dict[str, Any] = {"images": [], "image_paths": [], "image_sha256": []}
    paths = [value] if isinstance(value, str) else value
    if not isinstance(paths, list) or not paths or not all(isinstance(p, str) and p.strip() for p in paths):
        f.problem("field 'image_path' is required: a relative path, or a list of them")
        paths = []
    for rel in paths:
        resolved = resolve_inside(root, rel)
        if resolved is None:
            f.problem(f"field 'image_path' points outside the release folder: {rel!r}")
            continue
        if not resolved.is_file():  # some releases give paths relative to the JSON file instead
            beside = _inside(root, file_dir / rel)
            resolved = beside if beside is not None and beside.is_file() else resolved
        image = read_image(resolved, rel, f.log, f.file, f.line, f.case)
        if image is None:
            f.ok = False
            continue
        out["images"].append({"bytes": image["bytes"], "path": f"{item_id}/{Path(rel).name}"})
        out["image_paths"].append(rel)
        out["image_sha256"].append(image["sha256"])
    out["num_images"] = len(out["images"])
    return out


def _inside(root: Path, path: Path) -> Path | None:
    root, candidate = root.resolve(), path.resolve()
    return candidate if root in candidate.parents else None


def answer(f: FieldReader, value: Any, fmt: str) -> str | None:
    if fmt == "mcq":
        match = _LETTER.match(value.strip()) if isinstance(value, str) else None
        if match is None:
            f.problem("field 'answer' of a multiple-choice question must be one letter A-E"
                      + ("" if value is not None else " (it is missing)"))
            return None
        return match.group(1).upper()
    text = f.string(value, "answer", required=True)
    if text is not None and _LETTER.match(text):
        f.problem("open-ended item has a single-letter answer; it looks like a multiple-choice question "
                  "whose options A-E are missing")
    return text


def options(f: FieldReader, fields: dict) -> list[str] | None:
    """The five options in letter order, from keys A-E or an `options` list/object."""
    given = fields.get("options")
    if isinstance(given, list):
        given = dict(zip(LETTERS, given)) if len(given) == 5 else None
        if given is None:
            f.problem("field 'options' must list exactly five options (A-E)")
            return None
    elif isinstance(given, dict):
        given = {str(k).strip().upper(): v for k, v in given.items()}
    elif given is not None:
        f.problem(f"field 'options' must be a list or an object, got {type(given).__name__}")
        return None
    else:
        given = {letter: fields.get(letter) for letter in LETTERS}
    out, missing = [], []
    for letter in LETTERS:
        value = given.get(letter)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)
        if not isinstance(value, str) or not value.strip():
            missing.append(letter)
        else:
            out.append(value.strip())
    if missing:
        f.problem(f"multiple-choice question is missing option(s) {', '.join(missing)}; every MCQ has five options A-E")
        return None
    return out


def task(f: FieldReader, value: Any, question_type: str | None, required: bool) -> str | None:
    if value is None and question_type is not None:
        value = question_type if TASK_VOCAB.lookup(question_type) else None
    found = f.vocab(value, "task", TASK_VOCAB)
    if found is None and value is None and required:
        f.problem(f"multiple-choice question has no task; set 'task' to one of {', '.join(TASKS)}")
    return found


def medical_intelligence(f: FieldReader, value: Any, question_type: str | None) -> str | None:
    if value is None and question_type is not None:
        value = question_type if MI_VOCAB.lookup(question_type) else None
    return f.vocab(value, "medical_intelligence", MI_VOCAB)


def modalities(f: FieldReader, value: Any) -> list[str]:
    """A list (the paper's counts imply multi-label); a string may hold several joined by ';' or '|'."""
    if value is None:
        return []
    items = re.split(r"[;|]", value) if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
        f.problem("field 'modality' must be a string or a list of strings")
        return []
    out: list[str] = []
    for item in items:
        found = f.vocab(item, "modality", MODALITY_VOCAB)
        if found is not None and found not in out:
            out.append(found)
    return out


def organ_system(f: FieldReader, value: Any) -> str | None:
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if value is not None and not isinstance(value, str):
        f.problem("field 'organ system' must be one string (one of the 11 body systems)")
        return None
    return f.vocab(value, "organ system", ORGAN_VOCAB)
