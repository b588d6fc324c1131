"""One hospital cross-modal case of X-PCR (a `cross_modal/cases.jsonl` line or a
`multimodal_cases/case_NNN/case.json`: the same fields) -> its `cross_modal` row, one `items` row per
question and one `ablations` row per question and modality of its group."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

from dataset_builders.adapter import EXTRA_FIELDS, iter_jsonl, release_image
from dataset_builders.errors import ProblemLog
from dataset_builders.fields import FieldReader
from .chain_rows import disease_category
from .qa_items import claim, parse_item
from .taxonomy import (ABLATION_SEP, CASE_GROUPS, TASK_FAMILIES, case_group_of, category_for_disease, default_tier,
                       modality_code, stage_code, task_family_code)

CROSS_MODAL_DIR = "cross_modal"
CASES_FILE = "cases.jsonl"
KNOWN = {"case_id", "id", "case_group", "vignette", "disease", "diagnosis", "confirmed_diagnosis",
         "disease_category", "task_family", "images", "items", "qa_pairs"}


def jsonl_cases(root: Path, path: Path, log: ProblemLog, seen: dict[str, str]) -> Iterator[tuple[str, dict]]:
    """`cross_modal/cases.jsonl`: one case per line, image paths relative to its folder."""
    shaper = CaseShaper(log, seen)
    for file, line_no, record in iter_jsonl(root, [path], log):
        yield from shaper.rows(record, file, line_no, path.parent, CROSS_MODAL_DIR)


class CaseShaper:
    """Shapes case records into rows, claiming case, item and ablation ids in `seen`."""

    def __init__(self, log: ProblemLog, seen: dict[str, str]):
        self.log, self.seen = log, seen

    def rows(self, record: dict, file: str, line: int | None, folder: Path, prefix: str,
             default_id: str | None = None) -> Iterator[tuple[str, dict]]:
        """`folder`: where the case's image paths start (inside the release); `prefix`: that folder relative
        to the release, for the `image_paths` column; `default_id`: the case id when the record has none."""
        f = FieldReader(self.log, file, line)
        case_id = f.string(f.first(record, "case_id", "id"), "case_id", required=default_id is None) or default_id
        if case_id is None:
            return
        f.case = case_id
        where = f"{file}:{line}" if line is not None else file
        unique = claim(self.seen, case_id, where, f, "case id")
        kept = f.extras(record, set(record) - KNOWN, KNOWN)
        images = self._images(f, record, folder, prefix)
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
                claim(self.seen, item_id, where, f, "item id")
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
        category = disease_category(f, record.get("disease_category"))
        if category is None and record.get("disease_category") is None:
            category = category_for_disease(disease)
        if not f.ok:
            return
        yield "cross_modal", {
            "id": case_id, "case_group": group, "group_modalities": "/".join(CASE_GROUPS[group]),
            "vignette": f.string(record.get("vignette"), "vignette"), **images,
            "disease": disease, "disease_category": category, "num_items": len(items), "items": items, "answers": answers,
            EXTRA_FIELDS: kept,
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
                claim(self.seen, ablation_id, where, f, "ablation id")
                yield "ablations", {"id": ablation_id, "item_id": item["item_id"], "removed_modality": modality, **common}


    def _images(self, f: FieldReader, record: dict, folder: Path, prefix: str) -> dict:
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
            image = release_image(f, folder, rel, f"{where}.path", prefix)
            if image is None:
                continue
            out["images"].append({"bytes": image["bytes"], "path": f"{f.case}/{Path(rel).name}"})
            out["image_sha256"].append(image["sha256"])
            out["image_paths"].append(f"{prefix}/{rel}")
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
        code = task_family_code(raw)  # a family no alias knows is kept verbatim (listed in the build report)
        return f.vocab_found(raw, field, code, TASK_FAMILIES, documented=code is not None)
