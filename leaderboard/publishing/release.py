"""Is a built dataset the paper's full release or a sample? Read from what the build wrote: the card's SAMPLE
banner (`python -m dataset_builders samples` / `build --sample`) and the item count in the Parquet footers
against the benchmark's declared `release_items`."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..scoring.benchmark import Benchmark

SAMPLE_MARK = "> **SAMPLE.**"  # the first line of the banner dataset_builders puts on a sample build's card


@dataclass
class BuildStatus:
    items: int | None
    sample: bool
    reason: str = ""


def build_status(bench: Benchmark, folder: Path) -> BuildStatus:
    folder = Path(folder)
    items = _items(folder)
    card = folder / "README.md"
    marked = card.is_file() and SAMPLE_MARK in card.read_text(encoding="utf-8", errors="replace")
    if marked:
        return BuildStatus(items, True, "its data card says it was built from the shipped sample release")
    if bench.release_items and items is not None and items < bench.release_items:
        return BuildStatus(items, True, f"{items:,} items; the paper's release has {bench.release_items:,}")
    return BuildStatus(items, False)


def _items(folder: Path) -> int | None:
    """Rows in the public Parquet shards (footers only, no data read; every config counts)."""
    import pyarrow.parquet as pq

    shards = sorted(folder.rglob("*.parquet"))  # data/ for one config, <config>/ for several
    if not shards:
        return None
    return sum(pq.read_metadata(path).num_rows for path in shards)
