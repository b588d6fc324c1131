"""Writes tiny X-PCR releases in the authors' layout (Parquet rows with `qa_pairs`) plus our
cross-modal JSONL, for the X-PCR tests. Every item's gold answer is the option text at GOLD_INDEX."""
from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from conftest import png_bytes

OPTIONS = ["alpha", "beta", "gamma", "delta"]
NAMES = {"IQA": "Image Quality", "AL": "Anatomical Localization", "LC": "Lesion Characterization",
         "DD": "Disease Diagnosis", "SG": "Severity Grading", "CD": "Clinical Decision-Making"}
QA_TYPE = pa.struct([("category", pa.string()), ("question", pa.string()), ("answer", pa.string()),
                     ("sub_label", pa.string()), ("question_type", pa.string()), ("tier", pa.string())])
SCHEMA = pa.schema([("id", pa.string()), ("modality", pa.string()),
                    ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
                    ("image_path", pa.string()), ("disease", pa.string()), ("qa_pairs", pa.list_(QA_TYPE))])


def qa(stage: str, tier: str | None, gold: int = 1, options=OPTIONS, category: str | None = None, **extra) -> dict:
    question = f"{NAMES[stage]} question?\nOptions: {list(options)!r}"
    return {"category": category or NAMES[stage], "question": question, "answer": options[gold],
            "sub_label": extra.get("sub_label", "Label"), "question_type": "single_choice", "tier": tier}


def image_row(image_id: str, modality: str, items: list[dict], disease: str | None = None,
              source: str = "12 ODIR-5K", image: bytes | None = b"png") -> dict:
    data = png_bytes() if image == b"png" else image
    return {"id": image_id, "modality": modality, "image": {"bytes": data, "path": f"{image_id}.png"},
            "image_path": f"{modality.upper()}/{source}/{image_id}.png", "disease": disease, "qa_pairs": items}


def case(case_id: str, group: int, modalities: list[str], items: list[dict], **extra) -> dict:
    images = [{"path": f"images/{case_id}/{k}.png", "modality": m} for k, m in enumerate(modalities, start=1)]
    return {"case_id": case_id, "case_group": group, "images": images, "items": items, **extra}


def case_item(family: str, tier: str = "A", gold: int = 1) -> dict:
    return {"task_family": family, "question": f"Cross-modal question?\nOptions: {OPTIONS!r}", "answer": OPTIONS[gold],
            "tier": tier}


def write_release(folder: Path, rows: list[dict], cases: list[dict] | None = None, name: str = "data/test-00000.parquet") -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA), path)
    if cases is not None:
        cm = folder / "cross_modal"
        for c in cases:
            for entry in c["images"]:
                (cm / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
                (cm / entry["path"]).write_bytes(png_bytes())
        (cm / "cases.jsonl").write_text("\n".join(json.dumps(c) for c in cases) + "\n", encoding="utf-8")
    return folder


# The scoring fixture: three images (two full chains, one partial) and two hospital cases.
# Gold is always option B except where noted.
SCORING_ROWS = [
    image_row("img1", "cfp", [qa("IQA", "R"), qa("AL", "R"), qa("LC", "A"), qa("DD", "A"), qa("SG", "S"), qa("CD", "S")],
              disease="diabetic retinopathy"),
    image_row("img2", "OCT", [qa("IQA", "R"), qa("AL", "R"), qa("AL", "A"), qa("LC", "A"), qa("DD", "A"), qa("SG", "S"),
                              qa("CD", "S")], disease="neovascular age-related macular degeneration", source="7 OCT2017"),
    image_row("img3", "FFA", [qa("IQA", "R"), qa("AL", "R"), qa("DD", "A")], disease="Vogt-Koyanagi-Harada disease",
              source="44 Retinal"),
]
SCORING_CASES = [
    case("C1", 1, ["CFP", "OCT"], [case_item("Correspondence Identification"), case_item("Diagnostic Integration")]),
    case("C2", 2, ["CFP", "OCT", "FFA"], [case_item("Diagnostic Integration"), case_item("Modality Selection", tier="S")]),
]
