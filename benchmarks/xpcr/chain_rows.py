"""One image record of X-PCR (a Hub Parquet row or an annotation-JSON record: the same fields) -> its
`chains` row and one `items` row per question. Where the record comes from is the caller's business:
it hands over the record and a function that finds an image file the record only points to."""
from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any, Callable, Iterator

from PIL import Image as PILImage

from dataset_builders.adapter import EXTRA_FIELDS
from dataset_builders.errors import ProblemLog
from dataset_builders.fields import FieldReader
from dataset_builders.parquet_writer import ArrowBinary
from .qa_items import claim, dd_disease, parse_item
from .taxonomy import (CATEGORIES, MODALITIES, STAGES, category_code, category_for_disease, default_tier,
                       modality_code, source_dataset, stage_code)

# canonical field -> the names a release may give it (Parquet columns or JSON keys)
ROW_ALIASES = {
    "id": ("id", "image_id"),
    "modality": ("modality",),
    "image": ("image",),
    "image_path": ("image_path", "file_name"),
    "qa_pairs": ("qa_pairs", "qas", "qa"),
    "disease": ("disease", "disease_name", "diagnosis"),
    "disease_category": ("disease_category", "disease_type", "disease_group"),
}
KNOWN_NAMES = {name for aliases in ROW_ALIASES.values() for name in aliases}

ImageFinder = Callable[[str], "bytes | None"]  # a release-relative path -> the file's bytes, or None


def canonical_record(raw: dict) -> dict:
    """Canonical field -> value, taking the first alias present."""
    out = {}
    for canonical, aliases in ROW_ALIASES.items():
        name = next((a for a in aliases if a in raw), None)
        out[canonical] = raw.get(name) if name is not None else None
    return out


class ChainShaper:
    """Shapes image records into rows, claiming image and item ids in `seen` (id -> where first seen)."""

    def __init__(self, log: ProblemLog, seen: dict[str, str], find_image: ImageFinder):
        self.log, self.seen, self.find_image = log, seen, find_image
        self._unique = True

    def rows(self, record: dict, file: str, line: int | None, where: str,
             extras: tuple[dict, set] = ({}, set())) -> Iterator[tuple[str, dict]]:
        """`record`: canonical fields; `where`: how a duplicate's first place is named; `extras`: the raw
        record and its unknown keys (kept in the sidecar)."""
        f = FieldReader(self.log, file, line)
        image_id = f.string(record.get("id"), "id", required=True)
        if image_id is None:
            return
        f.case = image_id
        self._unique = claim(self.seen, image_id, where, f, "image id")
        kept = f.extras(extras[0], extras[1], KNOWN_NAMES)
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
            EXTRA_FIELDS: kept,
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
        if raw is not None:  # a spelling no alias knows is kept verbatim (listed in the build report)
            code = modality_code(raw)
            return f.vocab_found(raw, "modality", code, MODALITIES, documented=code is not None)
        code = modality_code(image_path.replace("\\", "/").split("/")[0]) if image_path else None
        if code is None:
            f.problem("field 'modality' is missing and the image_path does not start with a modality folder "
                      "(known: CFP, OCT, FFA, ICGA, RetCam, EP and their aliases)")
        return code

    def _image(self, f: FieldReader, value: Any, image_path: str | None) -> dict | None:
        data, path = None, None
        if isinstance(value, dict):
            data, path = value.get("bytes"), value.get("path")
        elif isinstance(value, str):  # an annotation record may name the file instead
            path = value
        elif isinstance(value, (bytes, bytearray, ArrowBinary)):
            data = value if isinstance(value, ArrowBinary) else bytes(value)
        elif value is not None:
            f.problem(f"field 'image' must be an {{bytes, path}} struct, got {type(value).__name__}")
            return None
        if not data:
            data = self._file(path, image_path)
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

    def _file(self, path: str | None, image_path: str | None) -> bytes | None:
        for rel in (path, image_path):
            if rel:
                data = self.find_image(rel)
                if data is not None:
                    return data
        return None

    def _item(self, f: FieldReader, qa: Any, where: str, item_id: str, row_where: str) -> tuple[dict, str] | None:
        stage, category = None, None
        if isinstance(qa, dict):
            category = f.string(f.first(qa, "category", "stage"), f"{where}.category", required=True)
            if category is not None:
                stage = stage_code(category)
                if stage is None:  # stages order the chain: an unknown one cannot be placed, so it is refused
                    f.problem(f"{where}: unknown stage category {category!r} (known: {', '.join(STAGES)} and the "
                              "names Image Quality, Anatomical Localization, Lesion Characterization, Disease "
                              "Diagnosis, Severity Grading, Clinical Decision-Making and their aliases)")
        parsed = parse_item(f, qa, where)
        if parsed is None or stage is None:
            return None
        if self._unique:
            claim(self.seen, item_id, row_where, f, "item id")
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
        category = disease_category(f, record.get("disease_category"))
        if disease is not None:
            return disease, category or category_for_disease(disease), "release"
        derived = dd_disease(items, answers)
        if derived is None:
            return None, category, "release" if category else None
        return derived, category or category_for_disease(derived), "dd_answer"


def disease_category(f: FieldReader, value: Any) -> str | None:
    """The release's category code; a spelling no alias knows is kept verbatim (listed in the report)."""
    raw = f.string(value, "disease_category")
    if raw is None:
        return None
    code = category_code(raw)
    return f.vocab_found(raw, "disease_category", code, CATEGORIES, documented=code is not None)
