"""X-PCR's Hub release: Parquet files (one row per image, `qa_pairs`) at any depth, read in batches
so memory stays bounded, with image bytes left in Arrow; plus the row-group work units of a parallel
build."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from dataset_builders.errors import ProblemLog
from dataset_builders.parquet_writer import ArrowBinary
from dataset_builders.adapter import resolve_inside
from .chain_rows import KNOWN_NAMES, ROW_ALIASES, ChainShaper

BATCH_ROWS = 32  # rows per Parquet batch: bounded memory even with multi-MB images


class ChainReader:
    """Rows of one Parquet file of the authors' release -> `chains` + `items` rows."""

    def __init__(self, root: Path, path: Path, log: ProblemLog, seen: dict[str, str]):
        self.root, self.path, self.log = root, path, log
        self.rel = str(path.relative_to(root)) if path.is_relative_to(root) else path.name
        self.shaper = ChainShaper(log, seen, self._image_from_file)

    def _columns(self, names: list[str]) -> dict[str, str] | None:
        found = {}
        for canonical, aliases in ROW_ALIASES.items():
            name = next((a for a in aliases if a in names), None)
            if name is not None:
                found[canonical] = name
        missing = [c for c in ("id", "image", "qa_pairs") if c not in found]
        if missing:
            self.log.add(self.rel, f"missing column(s) {', '.join(missing)} (found: {', '.join(names) or 'none'})")
            return None
        return found

    def rows(self, row_groups: range | None = None) -> Iterator[tuple[str, dict]]:
        """All rows, or those of `row_groups` (row numbers in problems stay file-wide)."""
        try:
            # pre_buffer=False: pyarrow's default pre-buffers every selected row group of the file up front
            # (all its images, before the first batch); read one row group at a time instead.
            parquet = pq.ParquetFile(self.path, pre_buffer=False)
        except Exception as exc:  # pyarrow raises ArrowInvalid/OSError variants for damaged files
            self.log.add(self.rel, f"not a readable Parquet file ({type(exc).__name__}: {str(exc)[:120]})")
            return
        columns = self._columns(parquet.schema_arrow.names)
        if columns is None:
            return
        unknown = [n for n in parquet.schema_arrow.names if n not in KNOWN_NAMES]  # kept in the sidecar
        number = 0 if row_groups is None else sum(parquet.metadata.row_group(i).num_rows for i in range(row_groups.start))
        groups = None if row_groups is None else list(row_groups)
        try:
            for batch in parquet.iter_batches(batch_size=BATCH_ROWS, columns=[*columns.values(), *unknown],
                                              row_groups=groups):
                images = arrow_images(batch.column(columns["image"]))
                if images is not None:  # image bytes stay in Arrow: viewed to check and hash, sliced to write
                    batch = batch.drop_columns([columns["image"]])
                for index, raw in enumerate(batch.to_pylist()):
                    number += 1
                    record = {canonical: raw.get(name) for canonical, name in columns.items()}
                    if images is not None:
                        record["image"] = images[index]
                    where = f"{self.rel} row {number}"
                    present = {n for n in unknown if raw[n] is not None}  # a null cell holds nothing to keep
                    yield from self.shaper.rows(record, where, None, where, (raw, present))
                    if self.log.full:
                        return
        except Exception as exc:  # a damaged page mid-file
            self.log.add(f"{self.rel} row {number + 1}", f"cannot read the Parquet data ({type(exc).__name__}: {str(exc)[:120]})")

    def _image_from_file(self, rel: str) -> bytes | None:
        """Bytes of an image the row only points to: relative to its Parquet file's folder, else the release root."""
        here = self.path.parent.relative_to(self.root) if self.path.parent.is_relative_to(self.root) else Path()
        for candidate in (str(here / rel), rel):
            resolved = resolve_inside(self.root, candidate)
            if resolved is not None and resolved.is_file():
                return resolved.read_bytes()
        return None


def arrow_images(column: pa.Array) -> list | None:
    """A source image column as one value per row with the bytes left in Arrow (ArrowBinary): a
    {bytes, path} struct -> {"bytes": ArrowBinary or None, "path": str or None} (None for a null row), a
    plain binary column -> ArrowBinary or None. None for any other type (read as Python values; the
    row check then names the problem)."""
    if pa.types.is_struct(column.type):
        names = [column.type.field(i).name for i in range(column.type.num_fields)]
        if "bytes" not in names or not _is_binary(column.type.field("bytes").type):
            return None
        data = column.field("bytes")
        paths = column.field("path").to_pylist() if "path" in names else [None] * len(column)
        valid = column.is_valid().to_pylist()
        data_valid = data.is_valid().to_pylist()
        return [({"bytes": ArrowBinary(data, i) if data_valid[i] else None, "path": paths[i]} if valid[i] else None)
                for i in range(len(column))]
    if _is_binary(column.type):
        valid = column.is_valid().to_pylist()
        return [ArrowBinary(column, i) if valid[i] else None for i in range(len(column))]
    return None


def _is_binary(t: pa.DataType) -> bool:
    return pa.types.is_binary(t) or pa.types.is_large_binary(t)


def parquet_files(source: Path) -> list[Path]:
    if source.is_file():
        return [source] if source.suffix == ".parquet" else []
    return sorted(p for p in source.rglob("*.parquet")
                  if not any(part.startswith(".") for part in p.relative_to(source).parts))


def partitions(source: Path, count: int) -> list[dict]:
    """At most `count` parts, each {"segments": [(parquet file relative to the release, first row
    group, end row group)], "cases": bool}, balanced by row-group bytes; the last part also reads the
    cross-modal cases. [] when there is nothing to split: the serial read then reports why."""
    root = source if source.is_dir() else source.parent
    units = []  # (relative file, row group, uncompressed bytes)
    for path in parquet_files(source):
        try:
            meta = pq.ParquetFile(path).metadata
        except Exception:  # damaged file: the serial read reports it, located
            return []
        rel = str(path.relative_to(root))
        units += [(rel, rg, max(1, meta.row_group(rg).total_byte_size)) for rg in range(meta.num_row_groups)]
    if not units:
        return []
    by_index: dict[int, dict] = {}
    total, done = sum(u[2] for u in units), 0
    for rel, rg, size in units:
        # the part whose byte share holds this row group's midpoint: contiguous and balanced
        index = min(count - 1, int((done + size / 2) * count / total))
        segments = by_index.setdefault(index, {"segments": [], "cases": False})["segments"]
        if segments and segments[-1][0] == rel and segments[-1][2] == rg:
            segments[-1] = (rel, segments[-1][1], rg + 1)
        else:
            segments.append((rel, rg, rg + 1))
        done += size
    parts = [by_index[k] for k in sorted(by_index)]
    parts[-1]["cases"] = True
    return parts

