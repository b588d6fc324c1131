"""A Parquet file whose footer lies about its sizes (issue 25): one long zstd-compressed string, with every
column chunk's `total_uncompressed_size` and every row group's `total_byte_size` rewritten (in place, as
padded varints of the same length) to a small number. The page header still tells the truth."""
from __future__ import annotations

from pathlib import Path

from leaderboard.intake.parquet_pages import BINARY, I32, I64, LIST, SET, STOP, STRUCT, _skip, _varint, _zigzag

# FileMetaData.row_groups(4) -> RowGroup.total_byte_size(2); RowGroup.columns(1) -> ColumnChunk.meta_data(3)
# -> ColumnMetaData.total_uncompressed_size(6)
TARGETS = {(4, 2), (4, 1, 3, 6)}


def _walk(buf, pos: int, path: tuple, hits: list) -> int:
    last = 0
    while True:
        head = buf[pos]
        pos += 1
        kind = head & 0x0F
        if kind == STOP:
            return pos
        if head >> 4:
            last += head >> 4
        else:
            raw, pos = _varint(buf, pos)
            last = _zigzag(raw)
        here = path + (last,)
        if kind == STRUCT:
            pos = _walk(buf, pos, here, hits)
        elif kind in (LIST, SET) and buf[pos] & 0x0F == STRUCT:
            size = buf[pos] >> 4
            pos += 1
            if size == 15:
                size, pos = _varint(buf, pos)
            for _ in range(size):
                pos = _walk(buf, pos, here, hits)
        elif kind in (I32, I64) and here in TARGETS:
            _, end = _varint(buf, pos)
            hits.append((pos, end))
            pos = end
        else:
            _, pos = _skip(buf, pos, kind, 0)


def _padded_varint(value: int, length: int) -> bytes:
    raw = (value << 1) ^ (value >> 63)  # zigzag
    out = []
    for k in range(length):
        group = raw & 0x7F
        raw >>= 7
        out.append(group | (0x80 if k < length - 1 else 0))
    assert raw == 0, "the new value does not fit in the old varint's length"
    return bytes(out)


def forge_footer(path: Path, claimed: int = 100) -> int:
    """Rewrite the footer's sizes in place to `claimed`; the number of fields rewritten."""
    data = bytearray(Path(path).read_bytes())
    footer_len = int.from_bytes(data[-8:-4], "little")
    start = len(data) - 8 - footer_len
    hits: list[tuple[int, int]] = []
    _walk(data, start, (), hits)
    rewritten = 0
    for begin, end in hits:
        if _zigzag(_varint(data, begin)[0]) > claimed:  # only sizes larger than the claim (the long string's)
            data[begin:end] = _padded_varint(claimed, end - begin)
            rewritten += 1
    Path(path).write_bytes(bytes(data))
    return rewritten


def write_forged(path: Path, chars: int, item_id: str = "S0001", claimed: int = 100) -> Path:
    """One row: `item_id` and a `response` of `chars` 'a's, zstd, no dictionary, no statistics; footer forged."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table({"id": [item_id], "response": ["a" * chars]})
    pq.write_table(table, path, compression="zstd", use_dictionary=False, write_statistics=False)
    del table
    assert forge_footer(path, claimed) >= 2
    return Path(path)
