"""Column-wise validation of a clean prediction file with pyarrow.

Returns a report only when every check passes for every row; on any doubt (a parse error, an
unexpected type, a duplicate, an unknown id, a value out of range...) it returns None and the caller
runs the line-by-line path, which locates each problem. So clean large files validate at Arrow speed
and bad files still get line-and-field messages.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pa_json

from .prediction_schema import MAX_STRING_CHARS, PredictionSchema, ValidationReport, add_missing_warning, arrow_schema


def _read(path: Path, schema: PredictionSchema) -> pa.Table | None:
    suffix = path.suffix.lower()
    with path.open("rb") as handle:
        head = handle.read(4)
    try:
        return _checked(_read_unchecked(path, schema, suffix, head))
    except (pa.ArrowException, OSError, ValueError):
        return None


def _checked(table: pa.Table | None) -> pa.Table | None:
    """Neither pyarrow's JSON nor its Parquet reader checks UTF-8: a full validation does (else None)."""
    if table is not None:
        table.validate(full=True)
    return table


def _read_unchecked(path: Path, schema: PredictionSchema, suffix: str, head: bytes) -> pa.Table | None:
    if suffix == ".parquet" or head == b"PAR1":
        from .parquet_guard import ParquetRefused, read_guarded

        try:
            return read_guarded(path)  # metadata checked, decoded size bounded (a refusal: the slow path says why)
        except ParquetRefused:
            return None
    if suffix in (".jsonl", ".ndjson") or (suffix != ".csv" and suffix != ".json" and head[:1] == b"{"):
        if head[:3] == b"\xef\xbb\xbf" or not _every_line_is_an_object(path):
            return None
        # The explicit schema makes pyarrow reject a wrong type at once instead of inferring it (a
        # value nested 10^5 deep would otherwise take minutes); any rejection means "slow path".
        target = arrow_schema(schema).remove(0).insert(0, pa.field(schema.id_field, pa.string()))
        # Optional metadata ("model": "name") is ignored by both paths; as text it must not send a clean file
        # down the slow path. Any other type (an object of notes) is rejected here and read line by line.
        for name in schema.optional_metadata:
            if target.get_field_index(name) < 0:
                target = target.append(pa.field(name, pa.string()))
        options = pa_json.ParseOptions(explicit_schema=target, unexpected_field_behavior="error")
        return pa_json.read_json(path, read_options=pa_json.ReadOptions(block_size=8 << 20), parse_options=options)
    return None


OPEN_BRACE, LF, CR = 0x7B, 0x0A, 0x0D


def _every_line_is_an_object(path: Path, chunk_bytes: int = 1 << 24) -> bool:
    """True when every non-blank line starts with "{" (and no bare CR makes a line pyarrow would see).

    pyarrow 26's JSON reader crashes the whole process (SIGSEGV) when a block starts with a bare `null`;
    files with any line not starting an object take the line-by-line path, which never calls it."""
    with path.open("rb") as handle:
        previous = b"\n"  # so the file's first byte is checked like any line start
        while chunk := handle.read(chunk_bytes):
            data = np.frombuffer(previous + chunk, dtype=np.uint8)
            before, after = data[:-1], data[1:]
            starts = after[before == LF]
            if not np.all((starts == OPEN_BRACE) | (starts == LF) | (starts == CR)):
                return False
            if np.any(after[before == CR] != LF):
                return False
            previous = chunk[-1:]
    return True


def _is_string(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t)


def _field_ok(spec, column: pa.ChunkedArray) -> bool:
    present = pc.drop_null(column)
    if len(present) == 0:
        return True
    t = column.type
    if spec.kind in ("string", "choice"):
        if not _is_string(t):
            return False
        if pc.max(pc.utf8_length(present)).as_py() > MAX_STRING_CHARS:
            return False
        return spec.kind == "string" or pc.all(pc.is_in(present, value_set=pa.array(spec.choices or ()))).as_py()
    if spec.kind == "number":
        if not (pa.types.is_integer(t) or pa.types.is_floating(t)):
            return False
        values = pc.cast(present, pa.float64())
        if pc.any(pc.is_nan(values)).as_py() or pc.any(pc.is_inf(values)).as_py():
            return False
        low, high = pc.min_max(values).values()
        return not ((spec.minimum is not None and low.as_py() < spec.minimum) or
                    (spec.maximum is not None and high.as_py() > spec.maximum))
    if spec.kind == "string_list":
        if not (pa.types.is_list(t) or pa.types.is_large_list(t)) or not _is_string(t.value_type):
            return False
        lengths = pc.list_value_length(present)
        longest = pc.max(lengths).as_py() or 0
        if spec.max_items is not None and longest > spec.max_items:
            return False
        if spec.scored_items is not None and longest > spec.scored_items:
            return False  # the line-by-line path warns per line
        items = pc.list_flatten(present)
        return items.null_count == 0 and (len(items) == 0 or pc.max(pc.utf8_length(items)).as_py() <= 1000)
    return False


def _row_numbers(rows: pa.ChunkedArray) -> np.ndarray:
    """index_in's int32 row numbers (no nulls) as one numpy array, read from the Arrow buffers: pyarrow's
    to_numpy imports pandas (~0.25 s) on first use."""
    parts = [np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset:chunk.offset + len(chunk)]
             for chunk in rows.chunks if len(chunk)]  # an empty chunk may have no data buffer at all
    return np.concatenate(parts) if parts else np.empty(0, dtype=np.int32)


def validate_columnar(path: Path, schema: PredictionSchema, expected: pa.Array | pa.ChunkedArray,
                      max_bytes: int) -> ValidationReport | None:
    try:
        size = path.stat().st_size
    except OSError:
        return None
    if size == 0 or size > max_bytes:
        return None
    table = _read(path, schema)
    if table is None or table.num_rows == 0 or schema.id_field not in table.column_names:
        return None
    known = {schema.id_field, *(f.name for f in schema.fields), *schema.optional_metadata}
    if any(name not in known for name in table.column_names):
        return None  # unknown fields: the line-by-line path warns with line numbers
    ids = table.column(schema.id_field)
    if not _is_string(ids.type) or ids.null_count:
        return None
    # empty ids found by length, not by comparing with "": converting a Python scalar imports pandas (0.8 s)
    if pc.any(pc.not_equal(pc.utf8_trim_whitespace(ids), ids)).as_py() or pc.min(pc.utf8_length(ids)).as_py() == 0:
        return None
    if isinstance(expected, pa.ChunkedArray):
        expected = expected.combine_chunks()
    # each id's row in the key (null: an unknown id); distinct ids have distinct rows, which numpy counts
    # as integers: one hash of the strings instead of two (count_distinct, then is_in)
    rows = pc.index_in(ids, value_set=expected)
    if rows.null_count:
        return None
    key_rows = _row_numbers(rows)
    if np.bincount(key_rows, minlength=len(expected)).max(initial=0) > 1:
        return None
    for spec in schema.fields:
        if spec.name in table.column_names:
            if not _field_ok(spec, table.column(spec.name)):
                return None
        elif spec.required:
            return None
    if schema.one_of:
        present = [table.column(n).is_valid() for n in schema.one_of if n in table.column_names]
        if not present:
            return None
        any_present = present[0]
        for mask in present[1:]:
            any_present = pc.or_(any_present, mask)
        if not pc.all(any_present).as_py():
            return None
    for spec in schema.fields:
        if spec.required and table.column(spec.name).null_count:
            return None
    target = arrow_schema(schema)
    columns = []
    for f in target:
        name = schema.id_field if f.name == "id" else f.name
        if name in table.column_names:
            columns.append(pc.cast(table.column(name), f.type))
        else:
            columns.append(pa.nulls(table.num_rows, f.type))
    clean = pa.Table.from_arrays(columns, schema=target)
    report = ValidationReport(rows_read=table.num_rows, expected_ids=len(expected), table=clean, path="columnar",
                              key_rows=key_rows)
    report.missing_ids = len(expected) - table.num_rows
    add_missing_warning(report, len(expected))
    return report
