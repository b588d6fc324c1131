"""Reads an uploaded Parquet file only after its metadata says it is small, and never decodes more than
a bounded number of bytes.

A Parquet file's size says nothing about what it decodes to: compressed pages (zstd of repeated text)
and dictionary encoding (one long string, referenced by every row) turned a 666-byte upload into 2.9 GB.
So, before any data page is read: rows, the uncompressed size of every column chunk and the column
types are checked against limits, and then what the page headers say the decoder will allocate (the footer's
sizes are only declarations: a forged footer claimed 100 bytes for a 500 MB page, parquet_pages.py); then batches are read with string columns kept dictionary-encoded,
and each batch's decoded size is computed from the dictionary (value lengths x references) before it is
expanded. Anything over a limit is refused with a message naming the limit.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .parquet_pages import PageHeaderError, footer_problem, pages
from .prediction_schema import MAX_DECODED_BYTES, MAX_ROWS, human_bytes

BATCH_ROWS = 10_000


class ParquetRefused(Exception):
    """The file is unreadable, too large once decoded, or holds a column type no prediction uses."""


def _type_problem(name: str, t: pa.DataType) -> str | None:
    """Predictions are text, numbers or lists of text; anything else (dates, structs, maps, nested lists)
    is refused before it is decoded (an out-of-range date32 crashed the conversion to Python)."""
    def plain(x: pa.DataType) -> bool:
        return (pa.types.is_string(x) or pa.types.is_large_string(x) or pa.types.is_integer(x)
                or pa.types.is_floating(x) or pa.types.is_boolean(x) or pa.types.is_null(x)
                or pa.types.is_binary(x) or pa.types.is_large_binary(x))

    if pa.types.is_dictionary(t):
        t = t.value_type
    if plain(t):
        return None
    if (pa.types.is_list(t) or pa.types.is_large_list(t)) and pa.types.is_dictionary(t.value_type):
        t = pa.list_(t.value_type.value_type)
    if (pa.types.is_list(t) or pa.types.is_large_list(t)) and plain(t.value_type):
        return None
    kind = " (nested)" if pa.types.is_nested(t) else ""
    return (f"column '{name[:40]}' has type {str(t)[:60]}{kind}; prediction columns hold text, numbers or "
            "lists of text")


def open_checked(path: Path, max_rows: int = MAX_ROWS, max_bytes: int = MAX_DECODED_BYTES) -> pq.ParquetFile:
    try:
        parquet = pq.ParquetFile(path)
        meta = parquet.metadata
        schema = parquet.schema_arrow
    except Exception as exc:  # pyarrow raises ArrowInvalid/OSError variants
        raise ParquetRefused(f"not a readable Parquet file ({type(exc).__name__})") from None
    if meta.num_rows > max_rows:
        raise ParquetRefused(f"the file has {meta.num_rows:,} rows; the limit is {max_rows:,}")
    _check_footer(path, parquet)
    for field in schema:
        problem = _type_problem(field.name, field.type)
        if problem:
            raise ParquetRefused(problem)
    total = 0
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for c in range(group.num_columns):
            total += max(group.column(c).total_uncompressed_size, 0)
        if total > max_bytes:
            raise ParquetRefused(f"the file decompresses to more than the {human_bytes(max_bytes)} limit (by row "
                                 f"group {g + 1} of {meta.num_row_groups})")
    _check_pages(path, meta, max_rows, max_bytes)
    return parquet


def _check_footer(path: Path, parquet: pq.ParquetFile) -> None:
    """Before pyarrow builds any column chunk's metadata (some malformed fields abort the process there)."""
    import mmap

    leaves = [(leaf.max_definition_level, leaf.max_repetition_level, leaf.physical_type)
              for leaf in (parquet.schema.column(i) for i in range(len(parquet.schema)))]
    try:
        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            problem = footer_problem(buf, leaves)
    except (PageHeaderError, OSError, ValueError, IndexError) as exc:
        problem = str(exc) or type(exc).__name__
    if problem:
        raise ParquetRefused(f"not a readable Parquet file (metadata: {problem})")


VALUE_BYTES = 8  # what one value costs in Arrow beyond its data (an offset and validity), counted per page value


def _check_pages(path: Path, meta, max_rows: int, max_bytes: int) -> None:
    """Sum what every page header says the decoder will allocate, before any page is decompressed."""
    import mmap

    total = 0
    try:
        with open(path, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as buf:
            for g in range(meta.num_row_groups):
                group = meta.row_group(g)
                for c in range(group.num_columns):
                    column = group.column(c)
                    starts = [column.data_page_offset]
                    if column.has_dictionary_page and 0 < (column.dictionary_page_offset or 0) < column.data_page_offset:
                        starts.append(column.dictionary_page_offset)
                    for page in pages(buf, min(starts), column.total_compressed_size, max_pages=max_rows + 1):
                        total += page.uncompressed + VALUE_BYTES * page.values
                        if total > max_bytes:
                            raise ParquetRefused(
                                f"the file decompresses to more than the {human_bytes(max_bytes)} limit (by the page "
                                f"headers of row group {g + 1}, column '{str(column.path_in_schema)[:40]}')")
    except PageHeaderError as exc:
        raise ParquetRefused(f"not a readable Parquet file (page header: {exc})") from None
    except (OSError, ValueError, IndexError) as exc:  # an empty map, an offset past the end...
        raise ParquetRefused(f"not a readable Parquet file ({type(exc).__name__})") from None


def _decoded_bytes(column: pa.ChunkedArray | pa.Array) -> int:
    """Bytes the column takes once dictionary references are expanded (without expanding them)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    total = 0
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            lengths = pc.binary_length(chunk.dictionary) if _is_text(chunk.dictionary.type) else None
            if lengths is not None and len(chunk.indices) - chunk.indices.null_count:
                total += int(pc.sum(pc.take(lengths, pc.drop_null(chunk.indices))).as_py() or 0)
            total += chunk.indices.nbytes
        elif (pa.types.is_list(chunk.type) or pa.types.is_large_list(chunk.type)) and pa.types.is_dictionary(
                chunk.type.value_type):
            total += chunk.offsets.nbytes + _decoded_bytes(chunk.flatten())
        else:
            total += chunk.nbytes
    return total


def _is_text(t: pa.DataType) -> bool:
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t) or pa.types.is_large_binary(t)


def _expanded(batch: pa.RecordBatch) -> pa.RecordBatch:
    columns = []
    for column in batch.columns:
        t = column.type
        if pa.types.is_dictionary(t):
            column = column.dictionary_decode()
        elif (pa.types.is_list(t) or pa.types.is_large_list(t)) and pa.types.is_dictionary(t.value_type):
            values = column.values.dictionary_decode()
            list_type = pa.list_ if pa.types.is_list(t) else pa.large_list
            column = type(column).from_arrays(column.offsets, values, type=list_type(values.type), mask=column.is_null())
        columns.append(column)
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names)


def guarded_batches(path: Path, max_rows: int = MAX_ROWS, max_bytes: int = MAX_DECODED_BYTES,
                    batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    """The file's record batches, decoded; ParquetRefused as soon as a limit would be crossed."""
    parquet = open_checked(path, max_rows, max_bytes)
    # text leaves by their column path ("diagnoses.list.element" for a list of strings)
    text_columns = [parquet.schema.column(i).path for i in range(parquet.metadata.num_columns)
                    if parquet.schema.column(i).physical_type in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY")]
    decoded = rows = 0
    try:
        reader = pq.ParquetFile(path, read_dictionary=text_columns) if text_columns else parquet
        for batch in reader.iter_batches(batch_size=batch_rows):
            decoded += sum(_decoded_bytes(column) for column in batch.columns)
            if decoded > max_bytes:
                raise ParquetRefused(f"the file decodes to more than the {human_bytes(max_bytes)} limit (by row "
                                     f"{reader.metadata.num_rows and min(rows + batch.num_rows, reader.metadata.num_rows):,}; "
                                     "dictionary-encoded text repeated row after row)")
            rows += batch.num_rows
            yield _expanded(batch)
    except ParquetRefused:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise ParquetRefused(f"not a readable Parquet file ({type(exc).__name__})") from None


def read_guarded(path: Path, max_rows: int = MAX_ROWS, max_bytes: int = MAX_DECODED_BYTES) -> pa.Table:
    batches = list(guarded_batches(path, max_rows, max_bytes))
    if not batches:
        return pa.Table.from_batches([], schema=pq.ParquetFile(path).schema_arrow)  # empty_table() imports pandas
    return pa.Table.from_batches(batches)
