"""Reads a prediction file (JSONL, JSON array, CSV or Parquet) and validates it line by line.

Every problem names the line (row for CSV/Parquet, counting the header as line 1 in CSV) and field.
Messages never quote gold answers: validation sees only the submitted file and the set of ids.
"""
from __future__ import annotations

import csv
import math
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Iterable

from .author_formats import AuthorFormat, convert_to_native, recognise
from .prediction_rows import read_rows
from .prediction_schema import (MAX_DECODED_BYTES, MAX_FILE_BYTES, MAX_ISSUES_SHOWN, MAX_ROWS, MAX_STRING_CHARS, MISSING_WARNING, FieldSpec, Issue, ParseFailure, PredictionFileError, PredictionSchema, ValidationReport, _show, add_missing_warning, arrow_schema, human_bytes, size_refusal, table_from_valid)

__all__ = ["MAX_DECODED_BYTES", "MAX_FILE_BYTES", "MAX_ISSUES_SHOWN", "MAX_ROWS", "MAX_STRING_CHARS",
           "MISSING_WARNING", "UNPAIRED_SURROGATE", "FieldSpec", "Issue", "ParseFailure", "PredictionFileError",
           "PredictionSchema", "ValidationReport", "add_missing_warning", "arrow_schema", "human_bytes",
           "read_rows", "size_refusal", "table_from_valid", "validate"]  # the contract benchmarks import


def _encodable(text: str) -> bool:
    """False for text that cannot be stored as UTF-8 (an unpaired surrogate from a JSON \\ud800 escape)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


UNPAIRED_SURROGATE = "contains an unpaired surrogate (a \\ud800-\\udfff escape without its pair); send valid Unicode"


def _check_value(spec: FieldSpec, value: Any, line: int, issues: list[Issue]) -> Any:
    """The cleaned value, or None after recording an issue."""
    def bad(message: str) -> None:
        issues.append(Issue(line, spec.name, message))

    if spec.kind == "string":
        if not isinstance(value, str):
            bad(f"must be a string, got {type(value).__name__}")
            return None
        if not _encodable(value):
            bad(UNPAIRED_SURROGATE)
            return None
        if len(value) > MAX_STRING_CHARS:
            bad(f"is {len(value):,} characters; the limit is {MAX_STRING_CHARS:,}")
            return None
        return value
    if spec.kind == "string_list":
        if isinstance(value, str):
            bad("must be a JSON list of strings, got a single string")
            return None
        if not isinstance(value, list):
            bad(f"must be a list of strings, got {type(value).__name__}")
            return None
        for position, item in enumerate(value, start=1):
            if not isinstance(item, str):
                bad(f"item {position} must be a string, got {type(item).__name__}")
                return None
            if len(item) > 1000:
                bad(f"item {position} is {len(item):,} characters; one diagnosis per item, at most 1,000")
                return None
            if not _encodable(item):
                bad(f"item {position} {UNPAIRED_SURROGATE}")
                return None
        if spec.max_items is not None and len(value) > spec.max_items:
            bad(f"has {len(value)} items; the limit is {spec.max_items}")
            return None
        if spec.scored_items is not None and len(value) > spec.scored_items:
            issues.append(Issue(line, spec.name, f"has {len(value)} items; only the first {spec.scored_items} are scored",
                                severity="warning"))
        return value
    if spec.kind == "number":
        if isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                bad(f"must be a number, got {_show(value)}")
                return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            bad(f"must be a number, got {type(value).__name__}")
            return None
        if not math.isfinite(value):
            bad("must be a finite number")
            return None
        if (spec.minimum is not None and value < spec.minimum) or (spec.maximum is not None and value > spec.maximum):
            bad(f"must be between {spec.minimum} and {spec.maximum}, got {value}")
            return None
        return float(value)
    if spec.kind == "choice":
        if not isinstance(value, str) or value not in (spec.choices or ()):
            bad(f"must be one of {', '.join(spec.choices or ())}, got {_show(value)}")
            return None
        return value
    raise ValueError(f"unknown field kind {spec.kind}")


def validate(path: Path, schema: PredictionSchema, expected_ids: Iterable[str],
             max_bytes: int = MAX_FILE_BYTES, foreign_id_hint: Callable[[str], str | None] | None = None,
             columnar: bool = True) -> ValidationReport:
    """Check every line; collect valid predictions by id. Never raises for content problems.

    A clean JSONL or Parquet file is checked column-wise with pyarrow (fast at 10^5-10^6 rows); any
    doubt sends the file through the line-by-line path, which names the line and field of each problem."""
    import pyarrow as pa

    from .prediction_files_columnar import validate_columnar

    if schema.formats:  # the shapes a benchmark's authors' own scripts write are read too
        if (fmt := recognise(Path(path), schema, max_bytes)) is not None:
            return _validate_in_format(fmt, Path(path), schema, expected_ids, max_bytes,
                                       foreign_id_hint=foreign_id_hint, columnar=columnar)

    # The columnar path wants the ids as an Arrow array (an answer key column is passed as is); the
    # line-by-line path wants a set. Build each only when that path runs.
    if isinstance(expected_ids, (pa.Array, pa.ChunkedArray)):
        expected_arrow = expected_ids
    else:
        expected_ids = list(expected_ids)
        expected_arrow = pa.array(expected_ids, pa.string())
    fast = validate_columnar(Path(path), schema, expected_arrow, max_bytes) if columnar else None
    if fast is not None:
        return fast
    expected = set(expected_ids.to_pylist() if isinstance(expected_ids, (pa.Array, pa.ChunkedArray)) else expected_ids)
    report = ValidationReport(expected_ids=len(expected), _valid={})
    known = {f.name for f in schema.fields} | {schema.id_field} | set(schema.optional_metadata)
    first_line: dict[str, int] = {}
    try:
        rows = read_rows(path, max_bytes)
        for line, row in rows:
            if report.rows_read == MAX_ROWS:
                report.issues.append(Issue(None, None, f"the file has more than {MAX_ROWS:,} rows; no benchmark has "
                                                       "that many items (rows after that were not read)"))
                break
            report.rows_read += 1
            if isinstance(row, ParseFailure):
                report.issues.append(Issue(line, None, row.message))
                continue
            if not isinstance(row, dict):
                report.issues.append(Issue(line, None, f"must be a JSON object, got {type(row).__name__}"))
                continue
            item_id = row.get(schema.id_field)
            if isinstance(item_id, (int,)) and not isinstance(item_id, bool):
                item_id = str(item_id)
            if not isinstance(item_id, str) or not item_id.strip():
                report.issues.append(Issue(line, schema.id_field, "is missing or not a string"))
                continue
            item_id = item_id.strip()
            if item_id not in expected:
                hint = foreign_id_hint(item_id) if foreign_id_hint else None
                report.issues.append(Issue(line, schema.id_field, f"unknown id {_show(item_id)}" + (f" ({hint})" if hint else "")))
                continue
            if item_id in first_line:
                report.issues.append(Issue(line, schema.id_field, f"duplicate id {_show(item_id)} (first on line {first_line[item_id]})"))
                continue
            first_line[item_id] = line
            unknown = sorted(k for k in row if k not in known)
            if unknown:
                report.issues.append(Issue(line, None, f"unknown field(s) {', '.join(_show(k, 30) for k in unknown[:5])} ignored",
                                           severity="warning"))
            issues_before = len(report.issues)  # not len(report.errors): that rescans every issue, per line
            cleaned: dict[str, Any] = {}
            for spec in schema.fields:
                if row.get(spec.name) is not None:  # JSON null means "not given", like an empty CSV cell
                    value = _check_value(spec, row[spec.name], line, report.issues)
                    if value is not None:
                        cleaned[spec.name] = value
                elif spec.required:
                    report.issues.append(Issue(line, spec.name, "is required"))
            if schema.one_of and not any(row.get(k) is not None for k in schema.one_of):
                report.issues.append(Issue(line, None, f"needs one of the fields {', '.join(schema.one_of)}"))
            if not any(i.severity == "error" for i in report.issues[issues_before:]):
                report.valid[item_id] = cleaned
    except PredictionFileError as exc:
        report.issues.append(Issue(None, None, str(exc)))
    except (csv.Error, OSError) as exc:
        report.issues.append(Issue(None, None, f"cannot read the file ({type(exc).__name__}: {str(exc)[:120]})"))
    if report.rows_read == 0 and not report.errors:  # only blank lines, `[]`, or a CSV header alone
        report.issues.append(Issue(None, None, "the file holds no predictions (only blank lines or an empty list)"))
    report.missing_ids = len(expected - set(report.valid))  # an id whose only line was invalid is missing too
    add_missing_warning(report, len(expected))
    report.table = table_from_valid(report.valid, schema)
    return report




def _validate_in_format(fmt: AuthorFormat, path: Path, schema: PredictionSchema, expected_ids, max_bytes: int,
                        **kwargs) -> ValidationReport:
    """A file of an authors' format: converted row by row, then checked as a native file."""
    failures: list[Any] = []
    native_schema = replace(schema, formats=())
    with tempfile.TemporaryDirectory(prefix="authors-format-") as folder:
        native = Path(folder) / "predictions.jsonl"
        try:
            convert_to_native(fmt, path, native, max_bytes, failures)
        except (PredictionFileError, OSError, ValueError, csv.Error):  # unreadable further on: say so natively
            return validate(path, native_schema, expected_ids, max_bytes=max_bytes, **kwargs)
        report = validate(native, native_schema, expected_ids, max_bytes=max_bytes * 2, **kwargs)
    report.rows_read += len(failures)
    report.issues[:0] = failures
    report.format = fmt.name
    report.issues.insert(0, Issue(None, None, f"read as {fmt.name}" + "".join(f"; {n}" for n in fmt.notes),
                                  severity="warning"))
    return report
