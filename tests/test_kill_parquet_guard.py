"""Mutation-gate tests of leaderboard.intake.parquet_guard (issue 29 item 1): each limit at and one past its
bound, each refused type with its message."""
from __future__ import annotations

import pyarrow as pa

from leaderboard.intake.parquet_guard import _type_problem


def test_prediction_column_types():
    for t in (pa.string(), pa.large_string(), pa.int8(), pa.float32(), pa.bool_(), pa.null(), pa.binary(),
              pa.large_binary(), pa.dictionary(pa.int32(), pa.string()), pa.list_(pa.string()),
              pa.large_list(pa.int64()), pa.list_(pa.dictionary(pa.int32(), pa.string()))):
        assert _type_problem("c", t) is None, t
    assert _type_problem("when", pa.date32()) == ("column 'when' has type date32[day]; prediction columns hold "
                                                  "text, numbers or lists of text")
    assert _type_problem("x" * 50, pa.struct([("a", pa.int8())])) == (
        f"column '{'x' * 40}' has type struct<a: int8> (nested); prediction columns hold text, numbers or lists "
        "of text")
    assert _type_problem("n", pa.list_(pa.list_(pa.string()))) == (
        "column 'n' has type list<item: list<item: string>> (nested); prediction columns hold text, numbers or "
        "lists of text")


def _write(tmp_path, rows: int):
    import pyarrow.parquet as pq

    path = tmp_path / f"p{rows}.parquet"
    pq.write_table(pa.table({"id": [f"q{i}" for i in range(rows)], "answer": ["A"] * rows}), path)
    return path


def test_the_row_limit_holds_at_its_bound_and_refuses_one_past_it(tmp_path):
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked, read_guarded

    path = _write(tmp_path, 3)
    assert open_checked(path, max_rows=3).metadata.num_rows == 3
    assert read_guarded(path, max_rows=3).column("id").to_pylist() == ["q0", "q1", "q2"]
    with pytest.raises(ParquetRefused, match=r"^the file has 3 rows; the limit is 2$"):
        open_checked(path, max_rows=2)


def test_the_declared_size_limit_holds_at_its_bound(tmp_path):
    import pyarrow.parquet as pq
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked

    path = _write(tmp_path, 50)
    meta = pq.ParquetFile(path).metadata
    declared = sum(meta.row_group(0).column(c).total_uncompressed_size for c in range(meta.num_columns))
    with pytest.raises(ParquetRefused, match=r"^the file decompresses to more than the .* limit \(by row group 1 of 1\)$"):
        open_checked(path, max_bytes=declared - 1)
    try:  # at the bound the footer check passes (the page headers may still refuse, with their own message)
        open_checked(path, max_bytes=declared)
    except ParquetRefused as refused:
        assert "by the page headers" in str(refused)


def test_an_unreadable_file_is_refused_with_the_error_kind_only(tmp_path):
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked

    path = tmp_path / "x.parquet"
    path.write_bytes(b"PAR1 not really")
    with pytest.raises(ParquetRefused, match=r"^not a readable Parquet file \(\w+\)$"):
        open_checked(path)
