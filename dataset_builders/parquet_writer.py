"""Streams canonical rows into Hub-style Parquet shards with the settings `datasets` itself uses.

Why not `Dataset.from_generator(...).to_parquet`: that goes through an on-disk Arrow cache the size of
the dataset and a second pass. Writing with pyarrow directly keeps memory at about one row group and
needs one pass; we reuse `datasets`' own schema (`Features.arrow_schema`, which embeds the
`huggingface` metadata) and per-column options (`get_parquet_column_options`: media uncompressed and
PLAIN, everything else snappy + dictionary), plus content-defined chunking and the page index.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from datasets import Features, config as ds_config
from datasets.arrow_writer import get_parquet_column_options

MB = 1_000_000
ROW_GROUP_BYTES = 100 * MB  # the dataset viewer copies native Parquet only below this
ROW_GROUP_ROWS = 10_000  # also cut by rows: small rows would otherwise sit in Python objects up to 100 MB of payload
SHARD_BYTES = 500 * MB  # datasets.config.MAX_SHARD_SIZE


def image_columns(features: Features) -> dict[str, str]:
    """Columns holding images: name -> "one" (Image), "many" (a list of Image) or "nested" (images deeper
    inside, e.g. a dialogue's turns)."""
    from datasets import Image, LargeList, List, Sequence

    def holds_image(feature) -> bool:
        if isinstance(feature, Image):
            return True
        if isinstance(feature, (List, LargeList, Sequence)):
            return holds_image(feature.feature)
        if isinstance(feature, dict):
            return any(holds_image(f) for f in feature.values())
        if isinstance(feature, list):
            return any(holds_image(f) for f in feature)
        return False

    out = {}
    for name, feature in features.items():
        if isinstance(feature, Image):
            out[name] = "one"
        elif isinstance(feature, (List, LargeList, Sequence)) and isinstance(feature.feature, Image):
            out[name] = "many"
        elif holds_image(feature):
            out[name] = "nested"
    return out


class ArrowBinary:
    """Bytes that still live in an Arrow array (e.g. an image column of a source Parquet batch): hashed and
    checked through a zero-copy view, and written by slicing the array, never copied into a Python bytes
    object and back (two copies of every image, the bulk of a build with real image sizes).

    The view is a slice of the array's data buffer found through its offsets, not `array[index].as_buffer()`:
    a scalar copies its value into a new buffer outside Arrow's memory pool (malloc), so every image of a
    pending row group was held twice (the source batch plus that copy: ~100 MB more peak RSS per row group)."""

    __slots__ = ("array", "index", "_buffer")

    def __init__(self, array: pa.Array, index: int):
        self.array, self.index = array, index
        if not (pa.types.is_binary(array.type) or pa.types.is_large_binary(array.type)):
            self._buffer = array[index].as_buffer()  # another layout (binary_view...): the scalar's copy
            return
        validity, offsets, data = array.buffers()
        at = array.offset + index
        if validity is not None and not validity[at // 8] >> (at % 8) & 1:
            self._buffer = None  # a null value, as the scalar's as_buffer() gives
            return
        size, code = (8, "q") if pa.types.is_large_binary(array.type) else (4, "i")  # int64 / int32 offsets
        start, end = memoryview(offsets.slice(at * size, 2 * size)).cast(code)
        self._buffer = data.slice(start, end - start) if data is not None else pa.py_buffer(b"")

    def __len__(self) -> int:
        return self._buffer.size if self._buffer is not None else 0

    def view(self) -> memoryview:
        return memoryview(self._buffer) if self._buffer is not None else memoryview(b"")

    def __bytes__(self) -> bytes:
        return self._buffer.to_pybytes() if self._buffer is not None else b""

    def __eq__(self, other: object) -> bool:  # equal to the same bytes, wherever they live
        if isinstance(other, ArrowBinary):
            return self.view() == other.view()
        return isinstance(other, (bytes, bytearray)) and self.view() == other

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ArrowBinary({len(self)} bytes)"


BINARY_TYPES = (bytes, bytearray, ArrowBinary)


def plain_bytes(value: Any) -> Any:
    """`value` with every ArrowBinary turned into bytes (for consumers that want plain Python rows)."""
    if isinstance(value, ArrowBinary):
        return bytes(value)
    if isinstance(value, dict):
        return {k: plain_bytes(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain_bytes(v) for v in value]
    return value


def image_bytes(row: dict, columns: dict[str, str]) -> int:
    """Bytes of the image structs ({bytes, path}) in a row's image columns."""
    total = 0
    for name, kind in columns.items():
        value = row.get(name)
        if kind == "nested":
            total += _nested_image_bytes(value)
            continue
        for image in (value or ()) if kind == "many" else (value,):
            if isinstance(image, dict) and isinstance(image.get("bytes"), BINARY_TYPES):
                total += len(image["bytes"])
    return total


def _nested_image_bytes(value) -> int:
    if isinstance(value, dict):
        if isinstance(value.get("bytes"), BINARY_TYPES):
            return len(value["bytes"])
        return sum(_nested_image_bytes(v) for v in value.values())
    if isinstance(value, list):
        return sum(_nested_image_bytes(v) for v in value)
    return 0


def estimate_row_bytes(value: Any) -> int:
    """Cheap size estimate used to cut row groups; exact sizes come from pyarrow afterwards."""
    if value is None:
        return 1
    if isinstance(value, BINARY_TYPES):
        return len(value)
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass")) if not value.isascii() else len(value)
    if isinstance(value, dict):
        return sum(estimate_row_bytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(estimate_row_bytes(v) for v in value) + 4
    return 8


def _image_column(values: list, struct_type: pa.StructType) -> pa.ChunkedArray:
    """{bytes, path} structs (or None) -> the Image feature's struct column. ArrowBinary bytes are slices
    of their source arrays (runs of neighbours as one slice), so the column is chunked and nothing is
    copied before the Parquet writer reads it."""
    byte_type = struct_type.field("bytes").type
    chunks, run = [], []  # run: the current slice (array, first index, count)

    def close_run() -> None:
        if run:
            array, first, count = run
            piece = array.slice(first, count)
            chunks.append(piece if piece.type == byte_type else piece.cast(byte_type))
            run.clear()

    for v in values:
        data = v.get("bytes") if isinstance(v, dict) else None
        if isinstance(data, ArrowBinary):
            if run and run[0] is data.array and run[1] + run[2] == data.index:
                run[2] += 1
                continue
            close_run()
            run.extend([data.array, data.index, 1])
        else:
            close_run()
            chunks.append(pa.array([bytes(data) if data is not None else None], type=byte_type))
    close_run()
    paths = pa.array([v.get("path") if isinstance(v, dict) else None for v in values], type=struct_type.field("path").type)
    mask = [not isinstance(v, dict) for v in values]
    out, offset = [], 0
    for chunk in chunks:  # struct chunks aligned with the byte chunks
        n = len(chunk)
        nulls = mask[offset:offset + n]  # a validity bitmap only where a row has no image (as from_pylist)
        out.append(pa.StructArray.from_arrays([chunk, paths.slice(offset, n)], fields=list(struct_type),
                                              mask=pa.array(nulls, type=pa.bool_()) if any(nulls) else None))
        offset += n
    return pa.chunked_array(out, type=struct_type)


@dataclass
class SplitFiles:
    """What one split's writer produced."""

    files: list[Path] = field(default_factory=list)
    num_examples: int = 0
    num_bytes: int = 0  # uncompressed Arrow bytes, as datasets reports `num_bytes`
    download_size: int = 0  # Parquet bytes on disk


class ShardedParquetWriter:
    """Writes `{data_dir}/{split}-{i:05d}-of-{n:05d}.parquet`, cutting row groups and shards by size."""

    def __init__(
        self,
        data_dir: Path,
        split: str,
        features: Features,
        row_group_bytes: int = ROW_GROUP_BYTES,
        shard_bytes: int = SHARD_BYTES,
        row_group_rows: int = ROW_GROUP_ROWS,
    ):
        self.data_dir = Path(data_dir)
        self.split = split
        self.features = features
        self.schema = features.arrow_schema
        self.row_group_bytes = row_group_bytes
        self.row_group_rows = row_group_rows
        self.shard_bytes = shard_bytes
        self._column_options = get_parquet_column_options(features, self.schema)
        self._images = image_columns(features)
        self._rows: list[dict] = []
        self._buffered = 0
        self._writer: pq.ParquetWriter | None = None
        self._shard_written = 0
        self._tmp_files: list[Path] = []
        self.result = SplitFiles()
        self.data_dir.mkdir(parents=True, exist_ok=True)

    def write(self, row: dict) -> None:
        self._rows.append(row)
        self._buffered += self._estimate(row)
        if self._buffered >= self.row_group_bytes or len(self._rows) >= self.row_group_rows:
            self._flush()

    def _estimate(self, row: dict) -> int:
        """Image bytes exactly; other nested values by their repr's length (C speed; bytes outside image
        columns are over-counted, which only cuts row groups earlier). Walking every nested item in
        Python cost a quarter of a build with nested items. Plain values are dispatched on their exact
        type first: most rows (answer keys, item rows) hold nothing else."""
        total = 0
        images = self._images
        for name, value in row.items():
            kind = images.get(name)
            if kind is None:
                t = type(value)
                if t is str:
                    total += len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))
                elif value is None:
                    continue
                elif t is int or t is bool or t is float:
                    total += 8
                elif isinstance(value, (str, bytes, bytearray, ArrowBinary)):
                    total += estimate_row_bytes(value)
                elif isinstance(value, (dict, list, tuple)):
                    total += len(repr(value))
                else:
                    total += 8
            elif kind == "nested":
                total += estimate_row_bytes(value)  # images inside: walk it
            else:
                total += image_bytes({name: value}, {name: kind})
        return total

    def _table(self, rows: list[dict]) -> pa.Table:
        """The row group as a table. Single-image columns whose bytes are ArrowBinary are assembled from
        slices of their source arrays (one copy, in C); everything else goes through from_pylist."""
        arrow_images = [name for name, kind in self._images.items() if kind == "one"
                        and any(isinstance(r.get(name), dict) and isinstance(r[name].get("bytes"), ArrowBinary)
                                for r in rows)]
        if not arrow_images:
            return pa.Table.from_pylist(rows, schema=self.schema)
        rest = pa.schema([f for f in self.schema if f.name not in arrow_images])
        table = pa.Table.from_pylist(rows, schema=rest)
        columns = {name: _image_column([r.get(name) for r in rows], self.schema.field(name).type)
                   for name in arrow_images}
        return pa.Table.from_arrays([columns[f.name] if f.name in columns else table.column(f.name)
                                     for f in self.schema], schema=self.schema)

    def _open_shard(self) -> None:
        path = self.data_dir / f".{self.split}-{len(self._tmp_files):05d}.parquet.partial"
        self._tmp_files.append(path)
        self._writer = pq.ParquetWriter(
            path,
            self.schema,
            use_content_defined_chunking=ds_config.DEFAULT_CDC_OPTIONS,
            write_page_index=True,
            **self._column_options,
        )
        self._writer.add_key_value_metadata({"content_defined_chunking": json.dumps(ds_config.DEFAULT_CDC_OPTIONS)})
        self._shard_written = 0

    def _flush(self) -> None:
        if not self._rows:
            return
        table = self._table(self._rows)
        if self._writer is None:
            self._open_shard()
        self._writer.write_table(table, row_group_size=len(self._rows))
        self.result.num_examples += table.num_rows
        self.result.num_bytes += table.nbytes
        self._shard_written += self._buffered
        self._rows, self._buffered = [], 0
        del table  # with the rows, the last references to this row group's source batches
        # pyarrow's pool (mimalloc) keeps freed pages mapped for reuse; hand the row group's back now, or the
        # next one is read beside them (~40 MB of peak RSS with 300 KB images; one cheap call per row group).
        pa.default_memory_pool().release_unused()
        if self._shard_written >= self.shard_bytes:
            self._writer.close()
            self._writer = None

    def close(self) -> SplitFiles:
        self._flush()
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        if not self._tmp_files:  # an empty split still gets one (empty) shard so the config loads
            self._open_shard()
            self._writer.write_table(pa.Table.from_pylist([], schema=self.schema))
            self._writer.close()
            self._writer = None
        total = len(self._tmp_files)
        for i, tmp in enumerate(self._tmp_files):
            final = self.data_dir / f"{self.split}-{i:05d}-of-{total:05d}.parquet"
            os.replace(tmp, final)
            self.result.files.append(final)
            self.result.download_size += final.stat().st_size
        return self.result

    def abort(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        for tmp in self._tmp_files:
            tmp.unlink(missing_ok=True)
