"""Browsing a built dataset's public items page by page, without loading the dataset.

A built dataset folder (dataset_builders' layout: `<config>/*.parquet`, or `data/*.parquet` for one config)
is read with pyarrow: the filter column alone to find the matching rows, then only the row groups that hold
the page. Columns in `hidden` (held-out answers) are never read.
"""
from __future__ import annotations

import base64
import io
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ALL = "(all)"
MAX_FILTER_VALUES = 200  # a column with more distinct values (ids, free text) is no filter
NOISE_SUFFIXES = ("sha256", "_paths", "image_path")  # provenance columns, in the dataset but not worth reading here
# bookkeeping fields of the builders (how a label was mapped, positions, counts): not what a reader studies
INTERNAL_FIELDS = frozenset({"tier_source", "stage_idx", "disease_source", "has_all_stages", "num_items",
                             "source_category", "question_type", "item_id"})
OPTION_FIELDS = frozenset({"options", "choices"})  # answer options: shown with the letters answers are given in
LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def is_internal(path: str) -> bool:
    """A builder's bookkeeping field, at any depth (`items[2].tier_source`)."""
    return path.rsplit(".", 1)[-1].split("[", 1)[0] in INTERNAL_FIELDS
THUMBNAIL = 360  # px, longest side of an image as shown


@dataclass
class Page:
    rows: list[dict[str, Any]]  # public columns only, images as {"bytes", "path"}
    total: int  # matching rows
    page: int  # 0-based, clamped
    pages: int


def _is_filterable(kind: pa.DataType) -> bool:
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        kind = kind.value_type
    return pa.types.is_string(kind) or pa.types.is_integer(kind) or pa.types.is_boolean(kind)


class ItemSource:
    """One built dataset folder. Thread-safe; caches the row indices of recent filters (a few ints per row)."""

    def __init__(self, folder: Path, hidden: set[str] | tuple[str, ...] = (), filters: tuple[str, ...] = ()):
        self.folder = Path(folder)
        self.hidden = set(hidden)
        self.filter_candidates = tuple(filters)
        self._lock = threading.Lock()
        self._indices: OrderedDict[tuple, np.ndarray] = OrderedDict()
        self.files: dict[str, list[pq.ParquetFile]] = {}
        if self.folder.is_dir():
            for sub in sorted(p for p in self.folder.iterdir() if p.is_dir() and not p.name.startswith(".")):
                files = sorted(sub.glob("*.parquet"))
                if files:
                    self.files["default" if sub.name == "data" else sub.name] = [pq.ParquetFile(f) for f in files]

    @property
    def configs(self) -> list[str]:
        """Configs with images first (the cases a reader wants to see), then by size, largest first."""
        def has_images(config):
            return any("bytes" in str(t) for t in self.schema(config).types)
        return sorted(self.files, key=lambda c: (not has_images(c), -self.num_rows(c), c))

    def schema(self, config: str) -> pa.Schema:
        return self.files[config][0].schema_arrow

    def num_rows(self, config: str) -> int:
        return sum(f.metadata.num_rows for f in self.files[config])

    def columns(self, config: str) -> list[str]:
        """The public columns shown: everything but held-out answers and provenance noise."""
        return [c for c in self.schema(config).names if c not in self.hidden and not c.endswith(NOISE_SUFFIXES)]

    def filters(self, config: str) -> dict[str, list[tuple[str, int]]]:
        """column -> [(value, items)] for the stratum columns this config has (few distinct values only)."""
        out = {}
        schema = self.schema(config)
        for column in self.filter_candidates:
            if column in self.hidden or column not in schema.names or not _is_filterable(schema.field(column).type):
                continue
            counts: dict[str, int] = {}
            for values in self._column(config, column):
                for value, n in _value_counts(values).items():
                    counts[value] = counts.get(value, 0) + n
            if 1 < len(counts) <= MAX_FILTER_VALUES and max(counts.values()) > 1:  # all-distinct = ids, no filter
                out[column] = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        return out

    def _column(self, config: str, column: str):
        """The column, one file at a time (never the whole dataset's other columns)."""
        for f in self.files[config]:
            yield f.read(columns=[column]).column(0).combine_chunks()

    def _matching(self, config: str, column: str | None, value: str | None) -> np.ndarray | None:
        """Global row numbers holding `value` in `column` (an item with a list counts under each element);
        None = every row."""
        if not column or value in (None, ALL):
            return None
        if column in self.hidden or column not in self.schema(config).names:  # a name from the page: held out?
            raise KeyError(f"no public column {str(column)[:40]!r}")
        key = (config, column, value)
        with self._lock:
            if key in self._indices:
                self._indices.move_to_end(key)
                return self._indices[key]
        found, offset = [], 0
        for values in self._column(config, column):
            found.append(offset + _rows_with(values, value))
            offset += len(values)
        rows = np.concatenate(found) if found else np.zeros(0, dtype=np.int64)
        with self._lock:
            self._indices[key] = rows
            while len(self._indices) > 32:
                self._indices.popitem(last=False)
        return rows

    def page(self, config: str, page: int = 0, size: int = 10, column: str | None = None,
             value: str | None = None) -> Page:
        matching = self._matching(config, column, value)
        total = self.num_rows(config) if matching is None else len(matching)
        pages = max(1, -(-total // size))
        page = min(max(0, page), pages - 1)
        wanted = (np.arange(page * size, min(total, (page + 1) * size)) if matching is None
                  else matching[page * size:(page + 1) * size])
        return Page(self._rows(config, wanted), total, page, pages)

    def _rows(self, config: str, wanted: np.ndarray) -> list[dict]:
        """Rows by global number, reading only the row groups that hold them."""
        columns = self.columns(config)
        out: dict[int, dict] = {}
        start = 0
        for f in self.files[config]:
            meta = f.metadata
            for g in range(meta.num_row_groups):
                size = meta.row_group(g).num_rows
                local = wanted[(wanted >= start) & (wanted < start + size)] - start
                if len(local):
                    group = f.read_row_group(g, columns=columns).take(pa.array(local))
                    for k, row in zip(local, group.to_pylist()):
                        out[int(k) + start] = row
                start += size
        return [out[int(i)] for i in wanted if int(i) in out]


def _value_counts(values: pa.Array) -> dict[str, int]:
    if pa.types.is_list(values.type) or pa.types.is_large_list(values.type):
        values = pc.list_flatten(values)
    counts = pc.value_counts(values.drop_null())
    return {str(v["values"]): int(v["counts"]) for v in counts.to_pylist()}


def _rows_with(values: pa.Array, value: str) -> np.ndarray:
    if pa.types.is_list(values.type) or pa.types.is_large_list(values.type):
        flat = pc.list_flatten(values)
        parents = pc.list_parent_indices(values).to_numpy(zero_copy_only=False)
        hits = pc.equal(pc.cast(flat, pa.string()), value).to_numpy(zero_copy_only=False)
        return np.unique(parents[np.asarray(hits, dtype=bool)]).astype(np.int64)
    hits = pc.fill_null(pc.equal(pc.cast(values, pa.string()), value), False)
    return np.flatnonzero(hits.to_numpy(zero_copy_only=False)).astype(np.int64)


def split_row(row: dict) -> tuple[list[tuple[str, str]], list[tuple[bytes, str]]]:
    """(text fields as (path, text), images as (bytes, caption)) of one row, nested lists and structs included:
    an image is any struct holding `bytes`."""
    fields: list[tuple[str, str]] = []
    images: list[tuple[bytes, str]] = []

    def walk(value, path: str):
        if isinstance(value, dict):
            if isinstance(value.get("bytes"), (bytes, bytearray)):
                images.append((bytes(value["bytes"]), path))
                return
            for k, v in value.items():
                walk(v, f"{path}.{k}" if path else k)
        elif isinstance(value, list):
            if value and all(not isinstance(v, (dict, list)) for v in value):
                if path.rsplit(".", 1)[-1] in OPTION_FIELDS and len(value) <= len(LETTERS):
                    fields.append((path, "   ".join(f"{LETTERS[i]}. {v}" for i, v in enumerate(value))))
                else:
                    fields.append((path, "; ".join(str(v) for v in value if v is not None)))
            else:
                for i, v in enumerate(value, 1):
                    walk(v, f"{path}[{i}]")
        elif value is not None and value != "":
            fields.append((path, str(value)))

    walk(row, "")
    return fields, images


def thumbnail_data_url(data: bytes, size: int = THUMBNAIL) -> str | None:
    """A small JPEG/PNG data URL of an image (None when the bytes are not an image PIL reads)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.thumbnail((size, size))
            has_alpha = image.mode in ("RGBA", "LA", "P")
            image = image.convert("RGBA" if has_alpha else "RGB")
            buffer = io.BytesIO()
            image.save(buffer, format="PNG" if has_alpha else "JPEG", quality=85)
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    kind = "png" if has_alpha else "jpeg"
    return f"data:image/{kind};base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
