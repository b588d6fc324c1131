"""Reads a prediction file (JSONL, JSON array, CSV or Parquet) as (line number, row) pairs, without checking
the rows: a line that does not parse is yielded as a ParseFailure naming its line."""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any, Iterable

from . import line_reader
from .prediction_schema import MAX_FILE_BYTES, ParseFailure, PredictionFileError, size_refusal


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
    from .parquet_guard import ParquetRefused, guarded_batches  # pyarrow only for a Parquet upload

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


