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


def image_bytes(row: dict, columns: dict[str, str]) -> int:
    """Bytes of the image structs ({bytes, path}) in a row's image columns."""
    total = 0
    for name, kind in columns.items():
        value = row.get(name)
        if kind == "nested":
            total += _nested_image_bytes(value)
            continue
        for image in (value or ()) if kind == "many" else (value,):
            if isinstance(image, dict) and isinstance(image.get("bytes"), (bytes, bytearray)):
                total += len(image["bytes"])
    return total


def _nested_image_bytes(value) -> int:
    if isinstance(value, dict):
        if isinstance(value.get("bytes"), (bytes, bytearray)):
            return len(value["bytes"])
        return sum(_nested_image_bytes(v) for v in value.values())
    if isinstance(value, list):
        return sum(_nested_image_bytes(v) for v in value)
    return 0


def estimate_row_bytes(value: Any) -> int:
    """Cheap size estimate used to cut row groups; exact sizes come from pyarrow afterwards."""
    if value is None:
        return 1
    if isinstance(value, (bytes, bytearray)):
        return len(value)
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass")) if not value.isascii() else len(value)
    if isinstance(value, dict):
        return sum(estimate_row_bytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return sum(estimate_row_bytes(v) for v in value) + 4
    return 8


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
        Python cost a quarter of a build with nested items."""
        total = 0
        for name, value in row.items():
            kind = self._images.get(name)
            if kind == "nested":
                total += estimate_row_bytes(value)  # images inside: walk it
                continue
            if kind is not None:
                total += image_bytes({name: value}, {name: kind})
                continue
            if value is None:
                continue
            if isinstance(value, (str, bytes, bytearray)):
                total += estimate_row_bytes(value)
            elif isinstance(value, (dict, list, tuple)):
                total += len(repr(value))
            else:
                total += 8
        return total

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
        table = pa.Table.from_pylist(self._rows, schema=self.schema)
        if self._writer is None:
            self._open_shard()
        self._writer.write_table(table, row_group_size=len(self._rows))
        self.result.num_examples += table.num_rows
        self.result.num_bytes += table.nbytes
        self._shard_written += self._buffered
        self._rows, self._buffered = [], 0
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
