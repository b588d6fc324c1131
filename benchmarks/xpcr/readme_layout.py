"""The layout the authors' README recommends (github.com/CVI-SZU/X-PCR, "Recommended Data Structure"):

    images/{CFP,OCT,FFA,ICGA,EP,RetCam}/...   image files; a record's `image_path` ("CFP/12 ODIR-5K/x.jpg")
                                              is relative to `images/`
    annotations/{train,val,test}.json         records with the Hub rows' fields (`id`, `modality`,
                                              `image_path`, `qa_pairs`, ...): a JSON array or JSON Lines
    multimodal_cases/case_NNN/                one hospital case per folder: `case.json` (the fields of a
                                              `cross_modal/cases.jsonl` line, image paths relative to the
                                              folder; the case id defaults to the folder name) and its images

The README names the files but not their contents; this reading is documented in the X-PCR README.
Every annotation file is read (sorted by name), as every Parquet file of the Hub layout is. A case
folder whose JSON has no `images` list takes its image files in name order, the modality from the file
name ("CFP.jpg", "L-FFA.png": label L-FFA, modality FFA)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from dataset_builders.adapter import resolve_inside
from dataset_builders.errors import ProblemLog
from dataset_builders.records import iter_records
from .case_rows import CaseShaper
from .chain_rows import KNOWN_NAMES, ChainShaper, canonical_record
from .taxonomy import modality_code

ANNOTATIONS_DIR = "annotations"
IMAGES_DIR = "images"
CASES_DIR = "multimodal_cases"
CASE_FILES = ("case.json", "annotation.json", "annotations.json")
IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".gif", ".webp"}


def is_readme_layout(source: Path) -> bool:
    return source.is_dir() and (source / ANNOTATIONS_DIR).is_dir()


def annotation_files(source: Path) -> list[Path]:
    folder = source / ANNOTATIONS_DIR
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in {".json", ".jsonl"}
                  and not p.name.startswith("."))


def case_files(source: Path) -> list[Path]:
    """One JSON per `multimodal_cases/<case>/` folder (the first of CASE_FILES, else its only JSON)."""
    folder = source / CASES_DIR
    if not folder.is_dir():
        return []
    out = []
    for case in sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
        named = [case / name for name in CASE_FILES if (case / name).is_file()]
        found = named or sorted(p for p in case.iterdir() if p.suffix.lower() == ".json" and p.is_file())
        out.append(found[0] if len(found) >= 1 and (named or len(found) == 1) else case)
    return out


def chain_rows(source: Path, log: ProblemLog, seen: dict[str, str]) -> Iterator[tuple[str, dict]]:
    files = annotation_files(source)
    if not files:
        log.add(f"{ANNOTATIONS_DIR}/", "folder has no .json or .jsonl annotation file")
        return
    shaper = ChainShaper(log, seen, lambda rel: _image_bytes(source, rel))
    for path in files:
        rel_file = str(path.relative_to(source))
        for line, record_no, raw in iter_records(path, rel_file, log):
            if log.full:
                return
            if not isinstance(raw, dict):
                log.add(rel_file, f"each record must be a JSON object, got {type(raw).__name__}", line=line)
                continue
            yield from shaper.rows(canonical_record(raw), rel_file, line, f"{rel_file}:{line}",
                                   (raw, set(raw) - KNOWN_NAMES))


def _image_bytes(source: Path, rel: str) -> bytes | None:
    """`images/<rel>` (the README's folders), else `<rel>` from the release root."""
    for candidate in (f"{IMAGES_DIR}/{rel}", rel):
        resolved = resolve_inside(source, candidate)
        if resolved is not None and resolved.is_file():
            return resolved.read_bytes()
    return None


def case_rows(source: Path, log: ProblemLog, seen: dict[str, str]) -> Iterator[tuple[str, dict]]:
    shaper = CaseShaper(log, seen)
    for path in case_files(source):
        if log.full:
            return
        folder = path if path.is_dir() else path.parent
        prefix = str(folder.relative_to(source))
        if path.is_dir():
            log.add(f"{prefix}/", f"case folder has no {' or '.join(CASE_FILES)} (and not exactly one .json file)")
            continue
        rel = str(path.relative_to(source))
        try:
            record = json.loads(path.read_text(encoding="utf-8-sig"))
        except UnicodeDecodeError as exc:
            log.add(rel, f"file is not valid UTF-8 ({exc.reason} at byte {exc.start})")
            continue
        except json.JSONDecodeError as exc:
            log.add(rel, f"malformed JSON ({exc.msg} at column {exc.colno})", line=exc.lineno)
            continue
        if not isinstance(record, dict):
            log.add(rel, f"a case file must hold one JSON object, got {type(record).__name__}")
            continue
        if "images" not in record:
            record = {**record, "images": folder_images(folder)}
        yield from shaper.rows(record, rel, None, folder, prefix, default_id=folder.name)


def folder_images(folder: Path) -> list[dict]:
    """The folder's image files in name order; modality from the file name, which is also the label."""
    out = []
    for path in sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file()):
        label = path.stem
        modality = modality_code(label) or next(
            (code for part in label.replace("_", "-").split("-") if (code := modality_code(part))), label)
        out.append({"path": path.name, "modality": modality, "label": label})
    return out
