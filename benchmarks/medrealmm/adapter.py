"""MedRealMM: Chinese online consultations with patient images, one case-specific rubric per case.

The authors' file layout is NOT published (the paper only says the data will appear on the Hub as
`jdh-algo/MedRealMM`). This builder reads a layout defined by this project, documented here, in
`benchmarks/medrealmm/sample/README.md` and in every card; map the real release onto it
(or extend ALIASES) when it appears.

Raw input: JSONL (UTF-8), one case per line, image paths relative to the release folder:

    {"id": "MR0001",
     "department": "皮肤科",                         # one of the paper's 64 departments
     "department_group": "皮肤性病科",                # optional: major specialty group (Fig. 6a)
     "intent": "症状咨询", "stage": "诊断与解释",       # patient intent (7 classes), consultation stage
     "patient_metadata": {"年龄": "32岁", ...},       # optional: object or string
     "dialogue": [                                    # the context C_<=t*, in order
        {"role": "patient", "text": "...", "images": ["images/MR0001/1.jpg"]},
        {"role": "physician", "text": "...", "images": []}],
     "rubric": [{"criterion": "...", "points": 5}, {"criterion": "...", "points": -3}],
     "original_response": "..."}                      # optional: the treating physician's reply (Online)

`role`: patient | physician (also 患者/医生, user/assistant, doctor). `points`: a non-zero number;
its sign is the polarity (negative = penalty criterion). Every case needs at least one
patient-uploaded image, at most 10 patient images, and at least one positive criterion.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from datasets import Features, Image, List, Value

from dataset_builders.errors import ProblemLog
from dataset_builders.fields import FieldReader
from dataset_builders.adapter import EXTRA_FIELDS, CardFacts, ConfigSpec, JsonlCaseAdapter, release_image
from .taxonomy import BIBTEX, ROLES, image_count_bin, turn_count_bin

KNOWN_KEYS = {"id", "case_id", "department", "department_group", "intent", "stage", "patient_metadata",
              "dialogue", "context", "rubric", "original_response"}
MAX_PATIENT_IMAGES = 10

TURN = {"role": Value("string"), "text": Value("string"), "images": List(Image()),
        "image_paths": List(Value("string"))}
CRITERION = {"criterion": Value("string"), "points": Value("float64"), "polarity": Value("string")}
FEATURES = Features(
    {
        "id": Value("string"),
        "department": Value("string"),
        "department_group": Value("string"),
        "intent": Value("string"),
        "stage": Value("string"),
        "patient_metadata": Value("string"),
        "dialogue": List(TURN),
        "image_paths": List(Value("string")),
        "image_sha256": List(Value("string")),
        "num_images": Value("int32"),
        "num_patient_images": Value("int32"),
        "num_turns": Value("int32"),
        "rubric": List(CRITERION),
        "num_criteria": Value("int32"),
        "num_positive_criteria": Value("int32"),
        "num_negative_criteria": Value("int32"),
        "max_points": Value("float64"),
        "original_response": Value("string"),
    }
)

FIELD_DOCS = {
    "id": "Case identifier.",
    "department": "Clinical department (one of 64 in the full release). Stratum.",
    "department_group": "Major specialty group (null when not released). Stratum.",
    "intent": "Patient intent (7 classes in the paper). Stratum.",
    "stage": "Consultation stage at the challenge point. Stratum.",
    "patient_metadata": "Patient metadata (age, sex, chief complaint, duration) as released; objects are stored as JSON text. Model input.",
    "dialogue": "The consultation up to the challenge point, in order: `role` (patient/physician), `text`, `images` (original bytes), `image_paths`. Model input; the model writes the physician's next reply.",
    "image_paths": "Original relative path of every image, in dialogue order (provenance).",
    "image_sha256": "SHA-256 of every image's bytes, in dialogue order.",
    "num_images": "Images in the context (patient and physician). Stratum (binned 1, 2, 3, 4-5, 6-10).",
    "num_patient_images": "Images uploaded by the patient (1-10).",
    "num_turns": "Messages in the context up to the challenge point. Stratum (binned 1-3, 4-6, 7-9, 10-14, 15+).",
    "rubric": "Case-specific criteria: `criterion` (Chinese), signed `points` (negative = penalty), `polarity` (positive/negative, from the sign). Answer.",
    "num_criteria": "Number of rubric criteria. Answer-derived.",
    "num_positive_criteria": "Positive (reward) criteria. Answer-derived.",
    "num_negative_criteria": "Negative (penalty) criteria. Answer-derived.",
    "max_points": "Sum of positive points (the score's denominator). Answer-derived.",
    "original_response": "The treating physician's original reply (the paper's Online baseline; null when not released). Answer: the rubric was initialised from it.",
}

LAYOUT_NOTE = (
    "The authors' raw file layout is not published. This build reads a JSONL layout defined by the "
    "project (one case per line: `id`, `department`, optional `department_group`, `intent`, `stage`, "
    "optional `patient_metadata`, `dialogue[]` of {`role`, `text`, `images`: relative paths}, `rubric[]` of "
    "{`criterion`, `points` (signed)}, optional `original_response`); see "
    "`dataset_builders/adapters/medrealmm.py`. Field names are the project's, not necessarily the authors'."
)


class MedRealMMAdapter(JsonlCaseAdapter):
    name = "medrealmm"
    id_column = "id"
    answer_columns = ("rubric", "num_criteria", "num_positive_criteria", "num_negative_criteria", "max_points",
                      "original_response")
    facts = CardFacts(
        pretty_name="MedRealMM",
        summary=(
            "5,620 de-identified real-world Chinese online consultations (JD Health Internet Hospital, 2025-2026) "
            "over 64 clinical departments. Each case is the dialogue up to a Multimodal Clinical Challenge Point "
            "(text plus 1-10 patient-uploaded images); the model writes the physician's next reply, which an LLM "
            "grader checks against a physician-refined, case-specific rubric of signed criteria. "
            "Case score S = clip(sum of met points / sum of positive points, 0, 1). " + LAYOUT_NOTE
        ),
        license="other",
        license_name="medrealmm-unverified",
        license_link="https://huggingface.co/datasets/jdh-algo/MedRealMM",
        license_note=(
            "The paper states no license or data-use terms. An archived copy of the authors' Hub page shows "
            "apache-2.0; this is unverified, so check the live card before redistributing. The data are "
            "de-identified patient consultations: this re-publication is gated and for research evaluation only."
        ),
        paper_title="MedRealMM: A Real-World Multimodal Benchmark for Chinese Online Medical Consultation",
        paper_url="https://arxiv.org/abs/2607.09142",
        code_url="https://huggingface.co/datasets/jdh-algo/MedRealMM",
        bibtex=BIBTEX,
        provenance=(
            "One-on-one consultations at JD Health Internet Hospital (2025-2026) in which the patient uploaded at "
            "least one medical image; filtered (5-30 turns, <= 4,000 characters, balanced speakers), stratified by "
            "department, de-identified (text spans -> typed placeholders such as [NAME]; image regions blacked "
            "out; EXIF removed) and human-reviewed. One challenge point per consultation, chosen by a two-agent "
            "pipeline; rubrics initialised by Claude-Opus-4.7 from the original reply and refined by physicians "
            "for three iterations. Grader in the paper: Gemini-3-Pro-Preview, one call per criterion."
        ),
        task_categories=("image-text-to-text", "visual-question-answering"),
        language=("zh",),
        tags=("medical", "benchmark", "multimodal", "evaluation", "dialogue", "rubric", "chinese"),
        field_docs=FIELD_DOCS,
        gated_prompt=(
            "This dataset contains de-identified real patient consultations and patient-uploaded images. By "
            "requesting access you agree to use it for research evaluation only, not to attempt to re-identify "
            "any patient, and to respect the original data provider's terms."
        ),
    )

    def configs(self) -> list[ConfigSpec]:
        return [ConfigSpec(name="default", data_dir="data", features=FEATURES, default=True,
                           description="All cases, one row per consultation.")]

    def strata(self, config: str, row: dict) -> dict[str, Any]:
        return {
            "department": row["department"],
            "department_group": row["department_group"],
            "intent": row["intent"],
            "stage": row["stage"],
            "image_count": image_count_bin(row["num_images"]),
            "turn_count": turn_count_bin(row["num_turns"]),
        }

    def usage_example(self, repo_id: str, config: str) -> str:
        return (
            "from datasets import load_dataset\n\n"
            f'ds = load_dataset("{repo_id}", split="test")\n'
            "case = ds[0]\n"
            'for turn in case["dialogue"]:\n'
            '    print(turn["role"], turn["text"], len(turn["images"]), "images")'
        )

    # ------------------------------------------------------------------ reading

    def _parse_record(self, record: dict, file: str, line_no: int, root: Path, log: ProblemLog,
                      seen: dict[str, str]) -> dict | None:
        f = FieldReader(log, file, line_no)
        case_id = f.string(f.first(record, "id", "case_id"), "id", required=True)
        f.case = case_id
        if case_id is not None:
            if case_id in seen:
                f.problem(f"duplicate id (first seen at {seen[case_id]})")
            seen[case_id] = f"{file}:{line_no}"
        extras = f.extras(record, set(record) - KNOWN_KEYS, KNOWN_KEYS)
        dialogue = self._dialogue(f, f.first(record, "dialogue", "context"), root)
        rubric = self._rubric(f, record.get("rubric"))
        positives = [c for c in rubric if c["points"] > 0]
        row = {
            "id": case_id,
            "department": f.string(record.get("department"), "department", required=True),
            "department_group": f.string(record.get("department_group"), "department_group"),
            "intent": f.string(record.get("intent"), "intent", required=True),
            "stage": f.string(record.get("stage"), "stage", required=True),
            "patient_metadata": self._metadata(f, record.get("patient_metadata")),
            **dialogue,
            "rubric": rubric,
            "num_criteria": len(rubric),
            "num_positive_criteria": len(positives),
            "num_negative_criteria": len(rubric) - len(positives),
            "max_points": float(sum(c["points"] for c in positives)),
            "original_response": f.string(record.get("original_response"), "original_response"),
            EXTRA_FIELDS: extras,
        }
        return row if f.ok else None

    def _metadata(self, f: FieldReader, value: Any) -> str | None:
        if value is None or isinstance(value, str):
            return f.string(value, "patient_metadata")
        if isinstance(value, dict):
            return json.dumps(value, ensure_ascii=False, sort_keys=False)
        f.problem(f"field 'patient_metadata' must be an object or a string, got {type(value).__name__}")
        return None

    def _dialogue(self, f: FieldReader, value: Any, root: Path) -> dict:
        turns_in = f.array(value, "dialogue")
        if not turns_in and f.ok:
            f.problem("field 'dialogue' is empty; a case needs the consultation up to the challenge point")
        turns, paths, hashes, patient_images = [], [], [], 0
        for t, entry in enumerate(turns_in):
            where = f"dialogue[{t}]"
            entry = f.obj(entry, where)
            role_raw = f.string(entry.get("role"), f"{where}.role", required=True)
            role = ROLES.get(role_raw.lower() if role_raw else "")
            if role_raw is not None and role is None:
                f.problem(f"field '{where}.role' must be patient or physician, got {role_raw!r}")
            text = entry.get("text", "")
            if text is None:
                text = ""
            if not isinstance(text, str):
                f.problem(f"field '{where}.text' must be a string, got {type(text).__name__}")
                text = ""
            images, image_paths = [], []
            for k, rel in enumerate(f.array(entry.get("images"), f"{where}.images", required=False)):
                image = self._image(f, rel, f"{where}.images[{k}]", root)
                if image is None:
                    continue
                images.append({"bytes": image["bytes"], "path": f"{f.case}/{Path(rel).name}"})
                image_paths.append(rel)
                hashes.append(image["sha256"])
            if not text.strip() and not images and f.ok:
                f.problem(f"{where} has neither text nor images")
            if role == "patient":
                patient_images += len(images)
            paths.extend(image_paths)
            turns.append({"role": role, "text": text, "images": images, "image_paths": image_paths})
        if turns_in and f.ok and patient_images == 0:
            f.problem("no patient-uploaded image in the dialogue; every MedRealMM case has 1-10")
        if patient_images > MAX_PATIENT_IMAGES:
            f.irregular(f"{patient_images} patient-uploaded images; MedRealMM cases have 1-10",
                        "more than 10 patient-uploaded images (MedRealMM cases have 1-10)")
        return {"dialogue": turns, "image_paths": paths, "image_sha256": hashes, "num_images": len(paths),
                "num_patient_images": patient_images, "num_turns": len(turns)}

    def _image(self, f: FieldReader, rel: Any, where: str, root: Path) -> dict | None:
        if not isinstance(rel, str) or not rel.strip():
            f.problem(f"field '{where}' must be a relative image path (a string)")
            return None
        return release_image(f, root, rel, where)

    def _rubric(self, f: FieldReader, value: Any) -> list[dict]:
        entries = f.array(value, "rubric")
        rubric = []
        for j, entry in enumerate(entries):
            where = f"rubric[{j}]"
            entry = f.obj(entry, where)
            text = f.string(entry.get("criterion"), f"{where}.criterion", required=True)
            points = entry.get("points")
            if isinstance(points, bool) or not isinstance(points, (int, float)) or points != points:
                f.problem(f"field '{where}.points' must be a non-zero number (negative for a penalty), "
                          f"got {type(points).__name__}")
                continue
            if points == 0:
                f.problem(f"field '{where}.points' is 0; a criterion needs a non-zero signed weight")
                continue
            rubric.append({"criterion": text, "points": float(points),
                           "polarity": "positive" if points > 0 else "negative"})
        if f.ok and not rubric:
            f.problem("field 'rubric' is empty")
        elif f.ok and not any(c["points"] > 0 for c in rubric):
            # S divides by the sum of positive points: a rubric of penalties only has no score.
            f.problem("rubric has no positive criterion; the score's denominator (sum of positive points) would be 0")
        return rubric
