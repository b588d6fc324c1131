"""The prediction-file contract: field specs, the schema, issues, the validation report, limits.

Shared by the row readers (prediction_rows), the validators (prediction_files, prediction_files_columnar), the
Parquet guard and the authors' formats, so none of them imports another to get a type or a limit."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

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
    formats: tuple = ()  # the authors' own prediction shapes also read (leaderboard/intake/author_formats.py)


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



@dataclass(frozen=True)
class ParseFailure:
    message: str


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
