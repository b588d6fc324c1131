"""An upload is validated once: the check child keeps what it validated (the table of valid predictions and
the report's counts and issues) beside the stored upload, and the scoring child scores that instead of
reading and validating the file a second time.

    <folder>/validated.parquet   the valid predictions, one row per id (ValidationReport.table)
    <folder>/validation.json     rows read, coverage counts, issues, the format read, the table's sha256

A kept report is used only when its table's bytes hash to what validation.json says; anything else (a folder
without one, a truncated or edited file) returns None and the caller validates the upload as before.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from .prediction_schema import Issue, ValidationReport

TABLE = "validated.parquet"
REPORT = "validation.json"
FORMAT = 1


def keep(report: ValidationReport, folder: Path) -> None:
    """Write the report's table and counts into `folder` (created); called in the check child."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    sink = pa.BufferOutputStream()
    pq.write_table(report.table, sink)
    data = sink.getvalue().to_pybytes()
    (folder / TABLE).write_bytes(data)
    counts = {"format_version": FORMAT, "table_sha256": hashlib.sha256(data).hexdigest(),
              "rows_read": report.rows_read, "missing_ids": report.missing_ids, "expected_ids": report.expected_ids,
              "optional_valid": report.optional_valid, "path": report.path, "format": report.format,
              "issues": [[i.line, i.field, i.message, i.severity] for i in report.issues]}
    (folder / REPORT).write_text(json.dumps(counts, ensure_ascii=False), encoding="utf-8")


def files(folder: Path) -> dict[str, Path]:
    """The kept files by name (for copying them into the store beside the upload)."""
    return {name: Path(folder) / name for name in (TABLE, REPORT) if (Path(folder) / name).is_file()}


def load(folder: Path) -> ValidationReport | None:
    """The report kept in `folder`, or None when there is none or it does not match its hash."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = Path(folder)
    try:
        counts = json.loads((folder / REPORT).read_text(encoding="utf-8"))
        data = (folder / TABLE).read_bytes()
    except (OSError, ValueError):
        return None
    if counts.get("format_version") != FORMAT or hashlib.sha256(data).hexdigest() != counts.get("table_sha256"):
        return None
    table = pq.read_table(pa.BufferReader(data))
    return ValidationReport(rows_read=counts["rows_read"], missing_ids=counts["missing_ids"],
                            expected_ids=counts["expected_ids"], optional_valid=counts["optional_valid"],
                            path=counts["path"], format=counts["format"], table=table,
                            issues=[Issue(*issue) for issue in counts["issues"]])
