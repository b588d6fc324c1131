"""What every benchmark adapter declares: its configs, its card facts and how to read the raw release."""
from __future__ import annotations

import hashlib
import io
import json
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from datasets import Features
from PIL import Image as PILImage

from .errors import ProblemLog


# A canonical row may carry this key: the raw record's unknown top-level keys ({key: value}, from
# `FieldReader.extras`). The stage writes them to the `extra_fields.jsonl` sidecar, never to a column.
EXTRA_FIELDS = "__extra_fields__"


class PreparationError(Exception):
    """The preparation step cannot run (not configured, no such step); nothing was changed."""


@dataclass(frozen=True)
class Preparation:
    summary: str  # one line for the user
    failed: str | None = None  # set when part of the step failed (the build should not go on)


@dataclass(frozen=True)
class ConfigSpec:
    """One Hub config: its name, folder and schema. Config and split names are public API: freeze them."""

    name: str
    data_dir: str
    features: Features
    default: bool = False
    split: str = "test"
    description: str = ""


@dataclass(frozen=True)
class CardFacts:
    """Everything the dataset card says that does not come from the data itself."""

    pretty_name: str
    summary: str
    license: str
    license_note: str
    paper_title: str
    paper_url: str
    code_url: str
    bibtex: str
    provenance: str
    task_categories: tuple[str, ...]
    language: tuple[str, ...] = ("en",)
    tags: tuple[str, ...] = ("medical", "benchmark", "multimodal", "evaluation")
    license_name: str | None = None
    license_link: str | None = None
    field_docs: dict[str, str] = field(default_factory=dict)
    gated_prompt: str = (
        "This dataset contains clinical case material derived from published patient reports. "
        "By requesting access you agree to use it for research evaluation only, not to attempt to "
        "re-identify any patient, and to respect the licenses of the original sources."
    )


class Adapter(ABC):
    """Turns one benchmark's raw release into canonical rows, one config at a time."""

    name: str
    facts: CardFacts
    id_column: str
    answer_columns: tuple[str, ...] = ()

    @abstractmethod
    def configs(self) -> list[ConfigSpec]:
        ...

    @abstractmethod
    def read(self, source: Path, log: ProblemLog) -> Iterator[tuple[str, dict]]:
        """Yield (config name, canonical row); report problems to `log` instead of raising."""

    @abstractmethod
    def source_files(self, source: Path) -> list[Path]:
        """The text files of the release, checksummed in the card (images are hashed per row)."""

    def prepare(self, source: Path, progress: bool = True) -> "Preparation":
        """A one-off step on the raw release before building (`build --prepare`), e.g. freezing reference
        facts extracted by an LLM judge into the release. Raises PreparationError when it cannot run."""
        raise PreparationError(f"{self.name} has no preparation step")

    def strata(self, config: str, row: dict) -> dict[str, Any]:
        """Stratum name -> value (or list of values) for the card's count tables."""
        return {}

    def usage_example(self, repo_id: str, config: str) -> str:
        return (
            "from datasets import load_dataset\n\n"
            f'ds = load_dataset("{repo_id}", "{config}", split="test")\n'
            "print(ds[0])"
        )


class JsonlCaseAdapter(Adapter):
    """An adapter whose release is JSONL files of cases in one `default` config: it only parses a record."""

    def source_files(self, source: Path) -> list[Path]:
        return sorted(source.rglob("*.jsonl")) if source.is_dir() else [source]

    def read(self, source: Path, log: ProblemLog) -> Iterator[tuple[str, dict]]:
        root = source if source.is_dir() else source.parent
        seen: dict[str, str] = {}  # case id -> where it was first seen, for duplicate reports
        for file, line_no, record in iter_jsonl(source, self.source_files(source), log):
            row = self._parse_record(record, file, line_no, root, log, seen)
            if row is not None:
                yield "default", row

    @abstractmethod
    def _parse_record(self, record: dict, file: str, line_no: int, root: Path, log: ProblemLog,
                      seen: dict[str, str]) -> dict | None:
        """The canonical row, or None after logging located problems."""


def iter_jsonl(source: Path, files: list[Path], log: ProblemLog) -> Iterator[tuple[str, int, dict]]:
    """(file relative to the release, line number, JSON object) for every non-blank line of the release's
    JSONL files; malformed lines, non-objects and invalid UTF-8 become located problems instead."""
    if not files:
        log.add(str(source), "no .jsonl file found in the source folder")
        return
    root = source if source.is_dir() else source.parent
    for path in files:
        rel_file = str(path.relative_to(root)) if path.is_relative_to(root) else str(path)
        with path.open("r", encoding="utf-8-sig", errors="strict") as handle:  # a leading BOM is tolerated
            try:
                for line_no, line in enumerate(handle, start=1):
                    if log.full:
                        return
                    if not line.strip():
                        continue
                    try:
                        record = json.loads(line.rstrip("\r\n"))
                    except json.JSONDecodeError as exc:
                        log.add(rel_file, f"malformed JSON ({exc.msg} at column {exc.colno})", line=line_no)
                        continue
                    if not isinstance(record, dict):
                        log.add(rel_file, f"each line must be a JSON object, got {type(record).__name__}", line=line_no)
                        continue
                    yield rel_file, line_no, record
            except UnicodeDecodeError as exc:
                log.add(rel_file, f"file is not valid UTF-8 ({exc.reason} at byte {exc.start})")


def read_image(path: Path, rel: str, log: ProblemLog, file: str, line: int, case: str) -> dict | None:
    """Original bytes plus a hash; None (and a logged problem) when missing or not an image."""
    if not path.is_file():
        log.add(file, f"image not found: {rel}", line=line, case=case)
        return None
    data = path.read_bytes()
    try:
        with PILImage.open(io.BytesIO(data)) as img:
            img.verify()
    except Exception as exc:  # PIL raises many types for corrupt files
        log.add(file, f"image cannot be decoded ({type(exc).__name__}): {rel}", line=line, case=case)
        return None
    return {"bytes": data, "sha256": hashlib.sha256(data).hexdigest()}


def release_image(f, root: Path, rel: str, where: str, folder_name: str = "release") -> dict | None:
    """An image referenced from field `where` of a record: refused if its path leaves `root`, located
    problem if missing or undecodable (the record is then marked bad), else {bytes, sha256}."""
    resolved = resolve_inside(root, rel)
    if resolved is None:
        f.problem(f"field '{where}' points outside the {folder_name} folder: {rel!r}")
        return None
    image = read_image(resolved, rel, f.log, f.file, f.line, f.case)
    if image is None:
        f.ok = False
    return image


def resolve_inside(root: Path, rel: str) -> Path | None:
    """Resolve a release-relative path, refusing anything that escapes the release folder."""
    root = root.resolve()
    candidate = (root / rel).resolve()
    if candidate != root and root not in candidate.parents:
        return None
    return candidate
