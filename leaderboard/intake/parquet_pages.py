"""The page headers of a Parquet column chunk, read without decoding a page: what the decoder will allocate.

The footer's sizes are only declarations (a forged `total_uncompressed_size` of 100 let a 16 KB file holding
one 500 MB zstd string through the metadata check, issue 25). The reader allocates what each page header says
(`uncompressed_page_size`; a zstd frame cannot decompress past it), so `parquet_guard` sums these before any
page is read. Page headers are Thrift compact-protocol structs; this is a small reader of that protocol,
bounded in depth, length and count, that raises PageHeaderError on anything malformed.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

MAX_DEPTH = 16
MAX_ITEMS = 1 << 16  # elements of one list/map inside a header (statistics, encodings...)

# compact-protocol type ids
STOP, TRUE, FALSE, BYTE, I16, I32, I64, DOUBLE, BINARY, LIST, SET, MAP, STRUCT = range(13)


class PageHeaderError(ValueError):
    """Malformed, truncated or oversized Thrift data."""


def _varint(buf, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(buf) or shift > 63:
            raise PageHeaderError("truncated or overlong varint")
        byte = buf[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def _zigzag(n: int) -> int:
    return (n >> 1) ^ -(n & 1)


def _list_header(buf, pos: int) -> tuple[int, int, int]:
    """(size, element type, position after the header) of a list or set."""
    if pos >= len(buf):
        raise PageHeaderError("truncated")
    head = buf[pos]
    pos += 1
    size, element = head >> 4, head & 0x0F
    if size == 15:
        size, pos = _varint(buf, pos)
    if size > MAX_ITEMS:
        raise PageHeaderError("list too long")
    return size, element, pos


def _skip(buf, pos: int, kind: int, depth: int) -> tuple[object, int]:
    """(value for integers / structs, else None; the position after the value)."""
    if depth > MAX_DEPTH:
        raise PageHeaderError("nested too deeply")
    if kind in (TRUE, FALSE):
        return kind == TRUE, pos
    if kind == BYTE:
        if pos >= len(buf):
            raise PageHeaderError("truncated")
        return None, pos + 1
    if kind in (I16, I32, I64):
        raw, pos = _varint(buf, pos)
        return _zigzag(raw), pos
    if kind == DOUBLE:
        if pos + 8 > len(buf):
            raise PageHeaderError("truncated")
        return None, pos + 8
    if kind == BINARY:
        size, pos = _varint(buf, pos)
        if pos + size > len(buf):
            raise PageHeaderError("truncated binary")
        return None, pos + size
    if kind in (LIST, SET):
        size, element, pos = _list_header(buf, pos)
        items = []
        for _ in range(size):
            if element in (TRUE, FALSE):  # booleans in a list take one byte each
                item, pos = None, pos + 1
            else:
                item, pos = _skip(buf, pos, element, depth + 1)
            items.append(item)
        return items, pos
    if kind == MAP:
        size, pos = _varint(buf, pos)
        if size > MAX_ITEMS:
            raise PageHeaderError("map too long")
        if size:
            if pos >= len(buf):
                raise PageHeaderError("truncated")
            key, value = buf[pos] >> 4, buf[pos] & 0x0F
            pos += 1
            for _ in range(size):
                _, pos = _skip(buf, pos, key, depth + 1)
                _, pos = _skip(buf, pos, value, depth + 1)
        return None, pos
    if kind == STRUCT:
        return read_struct(buf, pos, {}, depth + 1)
    raise PageHeaderError(f"unknown Thrift type {kind}")


# PageHeader: sizes (2, 3) and the num_values (field 1) of a data page (5), dictionary page (7) or data page v2 (8)
_PAGE_HEADER = {2: I32, 3: I32, 5: (STRUCT, {1: I32}), 7: (STRUCT, {1: I32}), 8: (STRUCT, {1: I32})}


@dataclass(frozen=True)
class Page:
    uncompressed: int
    compressed: int
    values: int  # num_values of a data page or of a dictionary page
    end: int  # offset just past the page's data


def _int(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def pages(buf, start: int, length: int, max_pages: int) -> Iterator[Page]:
    """The pages of the column chunk at buf[start:start + length] (the footer's offsets), in order."""
    if start < 0 or length < 0:
        raise PageHeaderError("a negative offset or length")
    end = min(len(buf), start + length)
    pos, count = start, 0
    while pos < end:
        count += 1
        if count > max_pages:
            raise PageHeaderError(f"more than {max_pages:,} pages in one column chunk")
        header, pos = read_struct(buf, pos, _PAGE_HEADER)
        uncompressed, compressed = _int(header.get(2)), _int(header.get(3))
        if uncompressed < 0 or compressed < 0:
            raise PageHeaderError("negative page size")
        values = 0
        for field_id in (5, 7, 8):  # data page, dictionary page, data page v2: num_values is field 1 of each
            inner = header.get(field_id)
            if isinstance(inner, dict):
                values = max(values, _int(inner.get(1)))
        pos += compressed
        yield Page(uncompressed, compressed, values, pos)


MAX_FOOTER_BYTES = 16 * 10**6
BYTE_ARRAY = 6  # parquet.thrift Type

# The footer fields read here, as pyarrow's generated Thrift code reads them: a field of the expected wire type
# is read as its declared type (a list's elements as the declared element type, whatever the list header says),
# any other field is skipped by its wire type. (Read by wire types alone, a mutated list header made this
# reader and pyarrow see different structures.)
# Every list-valued field of parquet.thrift's FileMetaData, at any depth (the rest are skipped alike by both).
_SIZE_STATISTICS = {1: I64, 2: (LIST, I64), 3: (LIST, I64)}
_GEOSPATIAL = {2: (LIST, I32)}
_COLUMN_CRYPTO = {2: (STRUCT, {1: (LIST, BINARY)})}
_COLUMN_META = {1: I32, 2: (LIST, I32), 3: (LIST, BINARY), 8: (LIST, (STRUCT, {})), 13: (LIST, (STRUCT, {})),
                16: (STRUCT, _SIZE_STATISTICS), 17: (STRUCT, _GEOSPATIAL)}
_COLUMN_CHUNK = {3: (STRUCT, _COLUMN_META), 8: (STRUCT, _COLUMN_CRYPTO)}
_ROW_GROUP = {1: (LIST, (STRUCT, _COLUMN_CHUNK)), 4: (LIST, (STRUCT, {}))}
_FILE_META = {2: (LIST, (STRUCT, {})), 4: (LIST, (STRUCT, _ROW_GROUP)), 5: (LIST, (STRUCT, {})),
              7: (LIST, (STRUCT, {}))}


def _read_as(buf, pos: int, declared, depth: int):
    kind, inner = declared if isinstance(declared, tuple) else (declared, None)
    if kind == STRUCT:
        return read_struct(buf, pos, inner, depth + 1)
    if kind == LIST:
        size, _, pos = _list_header(buf, pos)  # the declared element type is read, whatever the header says
        items = []
        for _ in range(size):
            item, pos = _read_as(buf, pos, inner, depth + 1)
            items.append(item)
        return items, pos
    return _skip(buf, pos, kind, depth)


def read_struct(buf, pos: int, fields: dict, depth: int = 0) -> tuple[dict, int]:
    """{field id: value} of the `fields` (id -> declared type) present with their declared wire type, and the
    end; every other field is skipped by its wire type. Integers and booleans are values, lists are lists,
    structs are dicts, anything else None."""
    if depth > MAX_DEPTH:
        raise PageHeaderError("nested too deeply")
    found: dict[int, object] = {}
    last = 0
    while True:
        if pos >= len(buf):
            raise PageHeaderError("truncated struct")
        head = buf[pos]
        pos += 1
        kind = head & 0x0F
        if kind == STOP:
            return found, pos
        if head >> 4:
            last += head >> 4
        else:
            raw, pos = _varint(buf, pos)
            last = _zigzag(raw)
        declared = fields.get(last)
        declared_kind = declared[0] if isinstance(declared, tuple) else declared
        if declared is not None and kind == declared_kind:
            found[last], pos = _read_as(buf, pos, declared, depth)
        else:
            _, pos = _skip(buf, pos, kind, depth)


def footer_problem(buf, leaves: list[tuple[int, int, str]]) -> str | None:
    """What pyarrow would abort the process on (not raise) when it builds a column chunk's metadata: a level
    histogram of the wrong length, or byte-array sizes on another type (found by bench/fuzz_parquet_guard.py:
    `RowGroupMetaData.column()` called std::terminate). `leaves`: (max definition level, max repetition level,
    physical type) of each schema leaf."""
    if len(buf) < 12 or bytes(buf[-4:]) != b"PAR1":
        return "no Parquet footer"
    size = int.from_bytes(buf[-8:-4], "little")
    if size > MAX_FOOTER_BYTES or size > len(buf) - 12:
        return f"a footer of {size:,} bytes"
    metadata, _ = read_struct(buf, len(buf) - 8 - size, _FILE_META)
    for g, group in enumerate(metadata.get(4) or [], start=1):
        for c, chunk in enumerate(group.get(1) or []):
            column = chunk.get(3) or {}
            sizes = column.get(16) or {}
            definition, repetition, physical = leaves[c] if c < len(leaves) else (0, 0, "")
            for field_id, level, kind in ((3, definition, "definition"), (2, repetition, "repetition")):
                histogram = sizes.get(field_id)
                if histogram is not None and len(histogram) not in (0, level + 1):
                    return f"row group {g}, column {c + 1}: a {kind}-level histogram of {len(histogram)} entries"
            if sizes.get(1) is not None and (column.get(1) != BYTE_ARRAY or physical != "BYTE_ARRAY"
                                             or _int(sizes.get(1)) < 0):
                return f"row group {g}, column {c + 1}: byte-array sizes on a column of another type"
    return None
