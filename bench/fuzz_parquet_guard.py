"""Fuzzes the Parquet guard (leaderboard/intake/parquet_guard.py, parquet_pages.py) directly, with small limits: a file is
read within its budget or refused with ParquetRefused; what it returns never decodes past the budget; see
bench/fuzz_harness.py. Seeds: tests/fuzz/parquet_guard/ (small files, a dictionary bomb, a forged footer)."""
from __future__ import annotations

import sys
from pathlib import Path

from fuzz_harness import fuzz_main, instrumented, scratch_folder

with instrumented():
    from leaderboard.intake.parquet_guard import ParquetRefused, read_guarded

PATH = scratch_folder("fuzz-parquet-") / "upload.parquet"
MAX_ROWS, MAX_BYTES = 10_000, 2_000_000


def one_input(data: bytes) -> None:
    PATH.write_bytes(data)
    try:
        table = read_guarded(PATH, max_rows=MAX_ROWS, max_bytes=MAX_BYTES)
    except ParquetRefused:
        return
    if table.num_rows > MAX_ROWS or table.nbytes > 2 * MAX_BYTES:
        raise AssertionError(f"read {table.num_rows} rows, {table.nbytes:,} bytes past the limits")


if __name__ == "__main__":
    sys.exit(fuzz_main("parquet_guard", one_input))
