"""Reads a prediction file (JSONL, JSON array, CSV or Parquet) and validates it line by line.

Every problem names the line (row for CSV/Parquet, counting the header as line 1 in CSV) and field.
Messages never quote gold answers: validation sees only the submitted file and the set of ids.
"""
from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

from . import line_reader

MAX_FILE_BYTES = 200 * 10**6  # MB = 10^6 bytes in every limit and message
MAX_STRING_CHARS = 100_000
MAX_ISSUES_SHOWN = 200
# Bounds checked before (or while) decoding, so a small file cannot decode into gigabytes: rows of any
# format, and the decoded size of a Parquet file (its compressed size says nothing: a 666-byte file of
# dictionary-encoded zstd pages decoded to 2.9 GB).
MAX_ROWS = 1_000_000
MAX_DECODED_BYTES = MAX_FILE_BYTES


@dataclass(frozen=True)
class FieldSpec:
    """One prediction field: its kind ('string', 'string_list', 'number', 'letter'), limits and aliases."""

    name: str
    kind: str
    required: bool = False
    max_items: int | None = None  # lists: longer lists are an error
    scored_items: int | None = None  # lists: items beyond this are ignored, with a warning
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True)
class PredictionSchema:
    fields: tuple[FieldSpec, ...]
    one_of: tuple[str, ...] = ()  # at least one of these must be present on each line
    id_field: str = "id"
    optional_metadata: tuple[str, ...] = ()  # accepted and ignored (e.g. model notes)
    formats: tuple = ()  # the authors' own prediction shapes also read (leaderboard/author_formats.py)


@dataclass(frozen=True)
class Issue:
    line: int | None
    field: str | None
    message: str
    severity: str = "error"  # or "warning"

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else "file"
        if self.field:
            where += f", field '{self.field}'"
        return f"{self.severity}: {where}: {self.message}"


@dataclass
class ValidationReport:
    rows_read: int = 0
    issues: list[Issue] = field(default_factory=list)
    missing_ids: int = 0
    expected_ids: int = 0
    # valid predictions, one row per id: `id` plus the schema's fields (null = absent); built by either path
    table: Any = None
    _valid: dict[str, dict] | None = None
    path: str = "line-by-line"  # or "columnar" when the whole file passed the vectorised checks
    optional_valid: int = 0  # valid predictions for optional items (e.g. modality-ablation runs), not in coverage
    # columnar path only: each row's row number in the answer key's ids (the `expected` it was validated
    # against), so a scorer aligns predictions with the key without hashing the ids again
    key_rows: Any = None
    format: str = "native"  # or the name of the authors' format the file was read in (author_formats.py)

    @property
    def valid(self) -> dict[str, dict]:
        """id -> cleaned prediction (absent fields left out); materialised from `table` on first use."""
        if self._valid is None:
            self._valid = {}
            if self.table is not None:
                for row in self.table.to_pylist():
                    item_id = row.pop("id")
                    self._valid[item_id] = {k: v for k, v in row.items() if v is not None}
        return self._valid

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "warning"]

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def coverage(self) -> float:
        return (self.n_valid - self.optional_valid) / self.expected_ids if self.expected_ids else 0.0

    @property
    def n_valid(self) -> int:
        return self.table.num_rows if self.table is not None else len(self.valid)

    def summary(self) -> str:
        optional = f" (+{self.optional_valid} for optional items)" if self.optional_valid else ""
        read_as = "" if self.format == "native" else f" (read as {self.format})"
        return (f"{self.rows_read} rows read{read_as}, {self.n_valid - self.optional_valid} valid predictions{optional} for "
                f"{self.expected_ids} items (coverage {100 * self.coverage:.1f}%), {len(self.errors)} errors, "
                f"{len(self.warnings)} warnings")

    def render(self, limit: int = MAX_ISSUES_SHOWN) -> str:
        lines = [self.summary()]
        ordered = sorted(self.issues, key=lambda i: (i.line is None, i.line or 0))
        lines += [str(i) for i in ordered[:limit]]
        if len(self.issues) > limit:
            lines.append(f"... {len(self.issues) - limit} more issues not shown")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "ok": self.ok, "format": self.format, "rows_read": self.rows_read, "valid": self.n_valid, "expected": self.expected_ids,
            "missing": self.missing_ids, "coverage": self.coverage,
            "issues": [{"line": i.line, "field": i.field, "message": i.message, "severity": i.severity}
                       for i in self.issues[:MAX_ISSUES_SHOWN]],
            "issues_total": len(self.issues),
        }


class PredictionFileError(Exception):
    """The file as a whole cannot be read (too big, wrong format, not UTF-8...)."""


def human_bytes(n: int) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


def _show(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def size_refusal(size: int, max_bytes: int) -> str:
    """"file is 250.3 MB; the limit is 200.0 MB", in exact bytes when rounding would print one figure twice."""
    shown, limit = human_bytes(size), human_bytes(max_bytes)
    if shown == limit:
        shown, limit = f"{size:,} bytes", f"{max_bytes:,} bytes"
    return f"file is {shown}; the limit is {limit}"


def read_rows(path: Path, max_bytes: int = MAX_FILE_BYTES) -> Iterable[tuple[int, Any]]:
    """(line number, parsed row) pairs; a row that cannot be parsed is yielded as a ParseFailure."""
    path = Path(path)
    size = path.stat().st_size
    if size > max_bytes:
        raise PredictionFileError(size_refusal(size, max_bytes))
    if size == 0:
        raise PredictionFileError("file is empty")
    suffix = path.suffix.lower()
    if suffix == ".parquet":
        return _parquet_rows(path)
    raw = path.read_bytes()
    if raw.startswith(b"PAR1"):
        return _parquet_rows(path)
    start = line_reader.text_start(raw)
    try:  # the file stays bytes: each line is decoded alone, once its decoded size is known (line_reader.py)
        line_reader.check_utf8(raw, start)
    except line_reader.NotUtf8 as exc:
        raise PredictionFileError(str(exc)) from None
    if suffix == ".csv":
        return _csv_rows(raw, start)
    if suffix == ".json" and _starts_array(raw, start):  # decoded whole, in the check child (its memory limit)
        return _json_array_rows(str(memoryview(raw)[start:], "utf-8"))
    return _jsonl_rows(raw, start)


def _starts_array(raw: bytes, start: int) -> bool:
    """The first character after (Unicode) white space is '[' (decoding 64 kB at a time, not the file)."""
    for offset in range(start, len(raw), 1 << 16):
        rest = raw[offset:offset + (1 << 16)].decode("utf-8", "ignore").lstrip()
        if rest:
            return rest[0] == "["
    return False


@dataclass(frozen=True)
class ParseFailure:
    message: str


def _jsonl_rows(raw: bytes, start: int) -> Iterable[tuple[int, Any]]:
    for line in line_reader.lines(raw, start):
        if line.end == line.start:
            continue
        refusal = line_reader.too_long(raw, line)
        if refusal:
            yield line.number, ParseFailure(refusal)
            continue
        text = raw[line.start:line.end].decode("utf-8")
        if not text.strip():
            continue
        try:
            yield line.number, _DECODER.decode(text)
        except ValueError as exc:
            yield line.number, ParseFailure(f"not valid JSON ({_json_reason(exc)})")
        except RecursionError:
            yield line.number, ParseFailure("JSON nested too deeply")


_WHITESPACE = " \t\n\r"


def _json_array_rows(text: str) -> Iterable[tuple[int, Any]]:
    """The items of a top-level JSON array, decoded one at a time (line number = position in the array):
    a 25 MB `[{},{},...]` decoded at once peaked at 2.1 GB."""
    end = len(text)
    i = len(text) - len(text.lstrip(_WHITESPACE))
    if not text.startswith("[", i):
        raise PredictionFileError("not valid JSON (a JSON array must start with '[')")
    i += 1
    number = 0
    while True:
        while i < end and text[i] in _WHITESPACE:
            i += 1
        if number == 0 and i < end and text[i] == "]":
            i += 1
            break
        number += 1
        try:
            item, i = _DECODER.raw_decode(text, i)
        except (ValueError, RecursionError) as exc:
            raise PredictionFileError(f"item {number} of the JSON array: not valid JSON ({_json_reason(exc)})") from None
        yield number, item
        while i < end and text[i] in _WHITESPACE:
            i += 1
        if i < end and text[i] == ",":
            i += 1
            continue
        if i < end and text[i] == "]":
            i += 1
            break
        raise PredictionFileError(f"item {number} of the JSON array: not valid JSON (expected ',' or ']' after it)")
    if text[i:].strip(_WHITESPACE):
        raise PredictionFileError("not valid JSON (extra data after the closing ']')")


def _json_reason(exc: Exception) -> str:
    if isinstance(exc, RecursionError):
        return "nested too deeply"
    if isinstance(exc, json.JSONDecodeError):
        return f"{exc.msg} at column {exc.colno}"
    return str(exc)[:80]


def _reject_constant(name: str):
    raise ValueError(f"{name} is not allowed")


# one decoder for every line: json.loads(..., parse_constant=...) would build a new one per call (~3 us each)
_DECODER = json.JSONDecoder(parse_constant=_reject_constant)


def _csv_text_lines(raw: bytes, start: int) -> Iterable[str]:
    """Decoded lines with their line breaks (what csv wants from a file opened with newline="")."""
    for line in line_reader.lines(raw, start):
        refusal = line_reader.too_long(raw, line)
        if refusal:
            raise PredictionFileError(f"line {line.number}: {refusal}")
        if line.after > line.start:
            yield raw[line.start:line.after].decode("utf-8")


def _csv_rows(raw: bytes, start: int) -> Iterable[tuple[int, Any]]:
    reader = csv.DictReader(_csv_text_lines(raw, start))
    if not reader.fieldnames:
        raise PredictionFileError("CSV has no header row")
    for row in reader:
        if None in row:
            yield reader.line_num, ParseFailure("more cells than header columns")
            continue
        yield reader.line_num, {k: _csv_cell(v) for k, v in row.items() if v not in (None, "")}


def _csv_cell(value: str) -> Any:
    """Lists travel in CSV as a JSON array in the cell; everything else stays text for the field checks."""
    stripped = value.strip()
    if stripped.startswith("["):
        try:
            return json.loads(stripped)
        except (ValueError, RecursionError):  # a cell nested 10^5 deep must not crash the reader
            return value
    return value


def _parquet_rows(path: Path) -> Iterable[tuple[int, Any]]:
    from .parquet_guard import ParquetRefused, guarded_batches

    number = 0
    try:
        for batch in guarded_batches(path):
            try:
                batch.validate(full=True)  # Parquet does not check UTF-8; to_pylist would crash on a bad string
            except Exception:  # ArrowInvalid
                raise PredictionFileError(f"rows {number + 1}-{number + batch.num_rows}: a text column is not "
                                          "valid UTF-8; save it as UTF-8") from None
            for row in batch.to_pylist():
                number += 1
                yield number, {k: v for k, v in row.items() if v is not None}
    except ParquetRefused as exc:
        raise PredictionFileError(str(exc)) from None


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
    from .prediction_files_columnar import validate_columnar

    import pyarrow as pa

    if schema.formats:  # the shapes a benchmark's authors' own scripts write are read too
        from .author_formats import recognise, validate_in_format

        if (fmt := recognise(Path(path), schema, max_bytes)) is not None:
            return validate_in_format(fmt, Path(path), schema, expected_ids, max_bytes,
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


MISSING_WARNING = "items have no prediction; they count as wrong"


def add_missing_warning(report: ValidationReport, expected: int) -> None:
    report.issues = [i for i in report.issues if not i.message.endswith(MISSING_WARNING)]
    if report.missing_ids and report.rows_read:
        report.issues.append(Issue(None, None, f"{report.missing_ids} of {expected} items have no prediction; "
                                               "they count as wrong", severity="warning"))



def arrow_schema(schema: PredictionSchema):
    import pyarrow as pa

    types = {"string": pa.string(), "choice": pa.string(), "number": pa.float64(), "string_list": pa.list_(pa.string())}
    return pa.schema([pa.field("id", pa.string())] + [pa.field(f.name, types[f.kind]) for f in schema.fields])


def table_from_valid(valid: dict[str, dict], schema: PredictionSchema):
    import pyarrow as pa

    target = arrow_schema(schema)
    columns = {"id": list(valid)}
    for spec in schema.fields:
        columns[spec.name] = [row.get(spec.name) for row in valid.values()]
    return pa.table(columns, schema=target)
