"""Prediction files in the shape a benchmark's authors' own scripts write (issue 27).

Each benchmark declares the shapes it knows in `benchmarks/<name>/prediction_formats.py` (`FORMATS`, most
specific first) and passes them to its `PredictionSchema(formats=...)`. A file whose first readable row
lacks the schema's id field but holds every key of a format's `signature` is read in that format: each
row is converted to the native fields, written to a temporary JSONL file at the same line numbers, and
validated as usual. The report names the format it recognised (`ValidationReport.format`), so a submitter
sees how the file was read; values are never changed beyond renaming and unwrapping.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .prediction_rows import read_rows
from .prediction_schema import Issue, ParseFailure, PredictionFileError

NATIVE = "native"


@dataclass(frozen=True)
class AuthorFormat:
    name: str  # shown in the validation report
    signature: tuple[str, ...]  # keys every row of this shape has
    convert: Callable[[dict], dict]  # one row -> the native fields (unknown keys it keeps are warned about)
    source: str = ""  # where the shape comes from (the authors' script)
    notes: tuple[str, ...] = field(default=())  # what a submitter should know (shown in the report)


def recognise(path: Path, schema, max_bytes: int) -> AuthorFormat | None:
    """The declared format of the file's first readable row, or None (native, or unreadable: the
    native validation names the problem)."""
    if not getattr(schema, "formats", ()):
        return None
    try:
        for _, row in read_rows(path, max_bytes):
            if isinstance(row, ParseFailure):
                continue
            if not isinstance(row, dict) or schema.id_field in row:
                return None
            return next((f for f in schema.formats if all(k in row for k in f.signature)), None)
    except (PredictionFileError, OSError, ValueError, csv.Error):
        return None  # the native validation names the problem
    return None


def convert_to_native(fmt: AuthorFormat, path: Path, native: Path, max_bytes: int, failures: list) -> None:
    """Write each row of `path` converted to the native fields into `native`, at its own line number."""
    with native.open("w", encoding="utf-8") as out:
        written = 0
        for line, row in read_rows(path, max_bytes):
            out.write("\n" * (line - 1 - written))  # blank lines keep the submitted file's line numbers
            written = max(written, line - 1)
            if isinstance(row, ParseFailure):
                failures.append(Issue(line, None, row.message))
                out.write("\n")
            elif isinstance(row, dict):
                out.write(json.dumps(fmt.convert(row), ensure_ascii=False) + "\n")
            else:
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
            written += 1


def formats_of(benchmark_name: str) -> tuple[AuthorFormat, ...]:
    """The `FORMATS` a benchmark declares (none when it has no declaration module)."""
    import importlib

    try:
        module = importlib.import_module(f"benchmarks.{benchmark_name}.prediction_formats")
    except ModuleNotFoundError:
        return ()
    return tuple(getattr(module, "FORMATS", ()))
