"""Never trust a declared size (issue 25): a Parquet footer that lies about its sizes is refused from the page
headers, before any page is decompressed; malformed page headers are refused, never a crash."""
from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from forged_parquet import write_forged
from leaderboard.intake.parquet_guard import ParquetRefused, guarded_batches, open_checked, read_guarded
from leaderboard.intake.parquet_pages import PageHeaderError, pages, read_struct

CHARS = 3_000_000  # the bench (bench/hostile_inputs.py) uses 300,000,000


def test_a_forged_footer_is_refused_from_the_page_headers_before_decoding(tmp_path):
    path = write_forged(tmp_path / "forged.parquet", CHARS)
    meta = pq.ParquetFile(path).metadata
    column = meta.row_group(0).column(1)
    assert column.total_uncompressed_size == 100 and meta.row_group(0).total_byte_size == 100  # the lie
    assert path.stat().st_size < 2_000 and len(pq.read_table(path).column("response")[0].as_py()) == CHARS  # readable
    with pytest.raises(ParquetRefused, match=r"more than the 1.0 MB limit \(by the page headers of row group 1, "
                                             r"column 'response'\)"):
        open_checked(path, max_bytes=1_000_000)  # reads the footer and the page headers only
    with pytest.raises(ParquetRefused, match="page headers"):
        next(guarded_batches(path, max_bytes=1_000_000))
    assert read_guarded(path, max_bytes=CHARS + 1_000).column("response")[0].as_py() == "a" * CHARS  # within budget


def test_page_values_count_against_the_budget(tmp_path):
    """10^5 empty strings, PLAIN: 400 kB of pages (a 4-byte length each) but 8 more bytes per value once decoded,
    1.2 MB in all (+ a few bytes of definition levels)."""
    path = tmp_path / "empty_strings.parquet"
    pq.write_table(pa.table({"response": [""] * 100_000}), path, use_dictionary=False, write_statistics=False)
    open_checked(path, max_bytes=1_250_000)
    with pytest.raises(ParquetRefused, match="page headers"):
        open_checked(path, max_bytes=1_190_000)


def test_a_corrupt_page_header_is_refused_not_a_crash(tmp_path):
    path = tmp_path / "corrupt.parquet"
    pq.write_table(pa.table({"id": ["a", "b"], "response": ["x", "y"]}), path, compression="none")
    offset = pq.ParquetFile(path).metadata.row_group(0).column(1).data_page_offset
    data = bytearray(path.read_bytes())
    data[offset:offset + 4] = b"\x0f\xff\xff\xff"  # an unknown Thrift type
    path.write_bytes(bytes(data))
    with pytest.raises(ParquetRefused, match="not a readable Parquet file"):
        read_guarded(path)


@pytest.mark.parametrize("data, says", [(b"\x1c" * 40 + b"\x00" * 40, "nested too deeply"),
                                        (b"\x19\xf5\xff\xff\x7f", "list too long"),
                                        (b"\x15" + b"\xff" * 11, "overlong varint"),
                                        (b"\x18\x10ab", "truncated binary"), (b"", "truncated struct")])
def test_the_thrift_reader_is_bounded(data, says):
    with pytest.raises(PageHeaderError, match=says):
        read_struct(data, 0, {})


def test_pages_follow_the_compressed_sizes(tmp_path):
    path = tmp_path / "two_pages.parquet"
    schema = pa.schema([pa.field("response", pa.string(), nullable=False)])  # no definition levels
    pq.write_table(pa.table({"response": ["x" * 1000] * 3000}, schema=schema), path, compression="none", use_dictionary=False,
                   data_page_size=1_000_000, write_statistics=False)
    column = pq.ParquetFile(path).metadata.row_group(0).column(0)
    found = list(pages(path.read_bytes(), column.data_page_offset, column.total_compressed_size, max_pages=10))
    assert len(found) >= 2 and sum(p.values for p in found) == 3000
    assert sum(p.uncompressed for p in found) == 3000 * 1004  # PLAIN: a 4-byte length before each value
    assert found[-1].end == column.data_page_offset + column.total_compressed_size


def test_a_level_histogram_that_aborts_pyarrow_is_refused_first(tmp_path):
    """Found by bench/fuzz_parquet_guard.py: one flipped bit in a column chunk's size statistics made
    pyarrow's `RowGroupMetaData.column()` call std::terminate (the Space process died with it before the check
    child existed). Run in a child: a regression shows as an abort, not as a dead test run."""
    import subprocess
    import sys

    from conftest import ROOT

    found = ROOT / "tests" / "fuzz" / "parquet_guard" / "found-level-histogram-abort.parquet"
    code = ("import sys\nfrom leaderboard.intake.parquet_guard import ParquetRefused, open_checked\n"
            "try:\n    open_checked(sys.argv[1])\nexcept ParquetRefused as exc:\n    print(exc)\n")
    done = subprocess.run([sys.executable, "-c", code, str(found)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.strip() == ("not a readable Parquet file (metadata: row group 1, column 2: a definition-level "
                                   "histogram of 2 entries)")
