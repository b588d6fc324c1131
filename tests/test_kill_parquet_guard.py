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
    wide = pa.struct([("a_rather_long_field_name_number_one", pa.int8()), ("another_long_field_name_two", pa.string())])
    assert _type_problem("s", wide) == ("column 's' has type struct<a_rather_long_field_name_number_one: int8, "
                                        "another_lo (nested); prediction columns hold text, numbers or lists of text")


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


LONG = "n" * 50  # a column name past the 40 characters a message shows


def test_the_declared_size_limit_holds_at_its_bound_and_the_page_headers_at_theirs(tmp_path):
    """50 rows of ids "q0".."q49" and one repeated answer, dictionary-encoded (pyarrow's default). The footer
    declares 437 + 57 = 494 bytes. The page headers say: id's dictionary page 340 bytes (4-byte length + 140
    characters) for 50 values, its data page 50 bytes for 50 values; the answer's dictionary page 5 bytes for
    1 value, its data page 9 bytes for 50 values. Counted with 8 bytes a value: 740 + 450 + 13 + 409 = 1612."""
    import pyarrow.parquet as pq
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked

    path = tmp_path / "bound.parquet"
    pq.write_table(pa.table({"id": [f"q{i}" for i in range(50)], LONG: ["A"] * 50}), path)
    meta = pq.ParquetFile(path).metadata
    assert [meta.row_group(0).column(c).total_uncompressed_size for c in range(2)] == [437, 57]
    with pytest.raises(ParquetRefused, match=r"^the file decompresses to more than the 493 bytes limit \(by row group 1 of 1\)$"):
        open_checked(path, max_bytes=493)
    # at the footer's bound the footer check passes and the page headers refuse, at the first column (1190 > 494)
    with pytest.raises(ParquetRefused, match=r"^the file decompresses to more than the 494 bytes limit \(by the page "
                                             r"headers of row group 1, column 'id'\)$"):
        open_checked(path, max_bytes=494)
    with pytest.raises(ParquetRefused, match=r"^the file decompresses to more than the 1.6 kB limit \(by the page "
                                             rf"headers of row group 1, column '{'n' * 40}'\)$"):
        open_checked(path, max_bytes=1611)
    assert open_checked(path, max_bytes=1612).metadata.num_rows == 50


def test_each_page_of_a_column_counts_and_one_page_a_row_plus_a_dictionary_is_allowed(tmp_path):
    """Three rows written one page each: a dictionary page and three data pages, the most a 3-row column may
    have (max_rows + 1 pages)."""
    import pyarrow.parquet as pq
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked
    from leaderboard.intake.parquet_pages import pages

    path = tmp_path / "paged.parquet"
    pq.write_table(pa.table({"a": ["x", "y", "z"]}), path, data_page_size=1, write_batch_size=1, compression="none")
    column = pq.ParquetFile(path).metadata.row_group(0).column(0)
    found = list(pages(path.read_bytes(), column.dictionary_page_offset, column.total_compressed_size, max_pages=10))
    assert [(p.uncompressed, p.values) for p in found] == [(15, 3), (9, 1), (9, 1), (9, 1)]  # 3 x (4 + 1): the dictionary
    assert open_checked(path, max_rows=3).metadata.num_rows == 3
    with pytest.raises(ParquetRefused, match=r"^the file has 3 rows; the limit is 2$"):
        open_checked(path, max_rows=2)


def _deeply_nested_footer(src, dst, depth: int) -> None:
    """`src` with one unknown field (id 100) appended to its footer: `depth` structs nested in each other.
    pyarrow skips it (Thrift allows 64 levels); the footer reader stops at 16."""
    data = src.read_bytes()
    size = int.from_bytes(data[-8:-4], "little")
    footer = data[-8 - size:-8]
    assert footer[-1] == 0  # the FileMetaData's stop byte
    extra = b"\x0c" + bytes([200, 1]) + b"\x1c" * depth + b"\x00" * (depth + 1)  # field 100 (zigzag varint 200)
    footer = footer[:-1] + extra + b"\x00"
    dst.write_bytes(data[:-8 - size] + footer + len(footer).to_bytes(4, "little") + b"PAR1")


def test_a_footer_the_reader_refuses_is_refused_with_its_reason(tmp_path):
    import pyarrow.parquet as pq
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, read_guarded

    path = _write(tmp_path, 2)
    shallow, deep = tmp_path / "shallow.parquet", tmp_path / "deep.parquet"
    _deeply_nested_footer(path, shallow, 10)
    _deeply_nested_footer(path, deep, 17)
    assert pq.ParquetFile(deep).metadata.num_rows == 2  # pyarrow reads it
    assert read_guarded(shallow).column("id").to_pylist() == ["q0", "q1"]
    with pytest.raises(ParquetRefused, match=r"^not a readable Parquet file \(metadata: nested too deeply\)$"):
        read_guarded(deep)


def test_an_unreadable_file_is_refused_with_the_error_kind_only(tmp_path):
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked

    path = tmp_path / "x.parquet"
    path.write_bytes(b"PAR1 not really")
    with pytest.raises(ParquetRefused, match=r"^not a readable Parquet file \(ArrowInvalid\)$"):
        open_checked(path)


def test_decoded_bytes_count_each_reference_of_a_dictionary_value():
    """Text dictionaries: the referenced values' lengths, plus the indices' buffers (4 bytes each, and a validity
    bitmap byte when there is one); lists add their offsets; anything else counts its buffers."""
    from leaderboard.intake.parquet_guard import _decoded_bytes

    refs = pa.DictionaryArray.from_arrays(pa.array([0, 1, 1], pa.int32()), pa.array(["ab", "cde"]))  # 2 + 3 + 3, 12
    assert _decoded_bytes(refs) == 20
    with_null = pa.DictionaryArray.from_arrays(pa.array([0, 1, 1, None], pa.int32()), pa.array(["ab", "cde"]))
    assert _decoded_bytes(with_null) == 8 + 16 + 1
    assert _decoded_bytes(pa.chunked_array([refs, with_null])) == 20 + 25  # every chunk, summed
    empty_text = pa.DictionaryArray.from_arrays(pa.array([0, 0, 0], pa.int32()), pa.array([""]))
    assert _decoded_bytes(empty_text) == 12  # no characters: the indices only
    numbers = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int8()), pa.array([7], pa.int64()))
    assert _decoded_bytes(numbers) == 2  # numbers are fixed width: the indices are the cost
    none_referenced = pa.DictionaryArray.from_arrays(pa.array([None, None], pa.int32()), pa.array(["long text"]))
    assert _decoded_bytes(none_referenced) == 8 + 1
    for text in (pa.large_string(), pa.binary(), pa.large_binary()):
        as_text = pa.DictionaryArray.from_arrays(pa.array([0, 0], pa.int32()), pa.array(["xyz"], text))
        assert _decoded_bytes(as_text) == 3 + 3 + 8, text
    listed = pa.ListArray.from_arrays(pa.array([0, 2, 3], pa.int32()), refs)  # [[ab, cde], [cde]]: offsets 12
    assert _decoded_bytes(listed) == 12 + 20
    large = pa.LargeListArray.from_arrays(pa.array([0, 1, 3], pa.int64()), refs)  # offsets 24
    assert _decoded_bytes(large) == 24 + 20
    assert _decoded_bytes(pa.chunked_array([listed, listed])) == 64
    plain = pa.array(["xyz", "q"])  # pyarrow's nbytes: 4 bytes an offset for each value (8) + 4 characters
    assert _decoded_bytes(pa.chunked_array([plain, pa.array(["ab"])])) == 12 + 6
    assert _decoded_bytes(pa.array([1, 2], pa.int64())) == 16


def test_only_text_types_count_as_text():
    from leaderboard.intake.parquet_guard import _is_text

    assert [_is_text(t) for t in (pa.string(), pa.large_string(), pa.binary(), pa.large_binary())] == [True] * 4
    assert [_is_text(t) for t in (pa.int64(), pa.binary(4), pa.list_(pa.string()), pa.bool_())] == [False] * 4


def test_expanded_batches_hold_plain_text_and_keep_list_kinds_and_nulls():
    from leaderboard.intake.parquet_guard import _expanded

    refs = pa.DictionaryArray.from_arrays(pa.array([0, 1, 1], pa.int32()), pa.array(["ab", "cde"]))
    listed = pa.ListArray.from_arrays(pa.array([0, 2, 2, 3], pa.int32()), refs, mask=pa.array([False, False, True]))
    large = pa.LargeListArray.from_arrays(pa.array([0, 2, 3, 3], pa.int64()), refs)
    batch = pa.RecordBatch.from_arrays([refs, listed, large, pa.array(["xyz", None, "q"]), pa.array([1, 2, 3])],
                                       names=["d", "l", "ll", "s", "n"])
    out = _expanded(batch)
    assert out.schema == pa.schema([("d", pa.string()), ("l", pa.list_(pa.string())), ("ll", pa.large_list(pa.string())),
                                    ("s", pa.string()), ("n", pa.int64())])
    assert out.to_pydict() == {"d": ["ab", "cde", "cde"], "l": [["ab", "cde"], [], None], "ll": [["ab", "cde"], ["cde"], []],
                               "s": ["xyz", None, "q"], "n": [1, 2, 3]}


def _repeated(tmp_path):
    """50 rows of one 100-character answer: 5,200 bytes decoded as counted (100 characters + a 4-byte index a
    row), 2,080 a batch of 20 rows; the pages say 521 and the footer 355, so only the decoded count can refuse."""
    import pyarrow.parquet as pq

    path = tmp_path / "repeated.parquet"
    pq.write_table(pa.table({"answer": ["x" * 100] * 50}), path)
    return path


def test_decoded_text_is_counted_from_the_dictionary_at_its_bound(tmp_path):
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, guarded_batches

    path = _repeated(tmp_path)
    batches = list(guarded_batches(path, max_bytes=5200, batch_rows=20))
    assert [b.num_rows for b in batches] == [20, 20, 10] and batches[2].column(0).type == pa.string()
    assert batches[0].column(0).to_pylist() == ["x" * 100] * 20

    def refused(max_bytes: int) -> str:
        with pytest.raises(ParquetRefused) as caught:
            list(guarded_batches(path, max_bytes=max_bytes, batch_rows=20))
        return str(caught.value)

    tail = "; dictionary-encoded text repeated row after row)"
    assert refused(5199) == "the file decodes to more than the 5.2 kB limit (by row 50" + tail  # third batch: 40 + 10
    assert refused(4159) == "the file decodes to more than the 4.2 kB limit (by row 40" + tail  # second batch
    assert refused(2079) == "the file decodes to more than the 2.1 kB limit (by row 20" + tail


def test_read_guarded_passes_both_limits_on(tmp_path):
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, read_guarded

    path = _repeated(tmp_path)
    assert read_guarded(path, max_rows=50, max_bytes=5200).num_rows == 50
    with pytest.raises(ParquetRefused, match=r"^the file has 50 rows; the limit is 49$"):
        read_guarded(path, max_rows=49)
    with pytest.raises(ParquetRefused, match=r"^the file decodes to more than the 5.2 kB limit \(by row 50;"):
        read_guarded(path, max_bytes=5199)


def test_an_empty_file_reads_as_an_empty_table_with_its_columns(tmp_path):
    import pyarrow.parquet as pq

    from leaderboard.intake.parquet_guard import read_guarded

    path = tmp_path / "empty.parquet"
    pq.write_table(pa.table({"id": pa.array([], pa.string()), "n": pa.array([], pa.int64())}), path)
    table = read_guarded(path)
    assert table.num_rows == 0 and table.schema == pa.schema([("id", pa.string()), ("n", pa.int64())])


def test_a_page_that_does_not_decompress_is_refused_with_the_error_kind(tmp_path):
    """The headers are intact (the page check passes); the zstd frame after the first 10 bytes is zeroed."""
    import pyarrow.parquet as pq
    import pytest

    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked, read_guarded
    from leaderboard.intake.parquet_pages import pages

    path = tmp_path / "zeroed.parquet"
    pq.write_table(pa.table({"answer": [f"row {i} " * 20 for i in range(200)]}), path, compression="zstd",
                   use_dictionary=False)
    column = pq.ParquetFile(path).metadata.row_group(0).column(0)
    data = bytearray(path.read_bytes())
    [page] = pages(bytes(data), column.data_page_offset, column.total_compressed_size, max_pages=10)
    start = page.end - page.compressed
    data[start + 10:page.end - 2] = bytes(page.end - 2 - start - 10)
    path.write_bytes(bytes(data))
    open_checked(path)
    with pytest.raises(ParquetRefused, match=r"^not a readable Parquet file \(OSError\)$"):
        read_guarded(path)


def test_text_reaches_the_count_still_dictionary_encoded(tmp_path, monkeypatch):
    """The count is only a bound if it runs before the expansion: every text leaf (a string column, the
    elements of a list of strings) is read dictionary-encoded; numbers are read as they are."""
    import pyarrow.parquet as pq

    from leaderboard.intake import parquet_guard

    seen = []
    count = parquet_guard._decoded_bytes

    def spy(column):
        seen.append(column.type)
        return count(column)

    monkeypatch.setattr(parquet_guard, "_decoded_bytes", spy)
    path = tmp_path / "mixed.parquet"
    pq.write_table(pa.table({"answer": ["x" * 10] * 3, "codes": [["a", "b"], [], ["a"]], "n": [1, 2, 3]}), path)
    [batch] = parquet_guard.guarded_batches(path)
    text = pa.dictionary(pa.int32(), pa.string())
    assert seen == [text, pa.list_(text), text, pa.int64()]  # the list's elements are counted by a second call
    assert batch.to_pydict() == {"answer": ["x" * 10] * 3, "codes": [["a", "b"], [], ["a"]], "n": [1, 2, 3]}


def test_negative_or_zero_declared_sizes_count_as_zero(tmp_path):
    """A footer forged to declare -1 bytes: it passes the footer's check at a 0-byte limit (and adds nothing to
    the sum), and the page headers refuse it."""
    import pyarrow.parquet as pq
    import pytest

    from forged_parquet import forge_footer
    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked

    path = tmp_path / "negative.parquet"
    pq.write_table(pa.table({"id": ["q0", "q1"]}), path, use_dictionary=False)
    assert forge_footer(path, claimed=-1) == 2
    assert pq.ParquetFile(path).metadata.row_group(0).column(0).total_uncompressed_size == -1
    with pytest.raises(ParquetRefused, match=r"^the file decompresses to more than the 0 bytes limit \(by the page "
                                             r"headers of row group 1, column 'id'\)$"):
        open_checked(path, max_bytes=0)


class _Column:
    def __init__(self, data_page_offset, dictionary_page_offset=None, has_dictionary_page=True):
        self.data_page_offset, self.dictionary_page_offset = data_page_offset, dictionary_page_offset
        self.has_dictionary_page, self.total_compressed_size, self.path_in_schema = has_dictionary_page, 77, "c"


class _Meta:
    """The footer as _check_pages reads it: one row group of the given columns."""
    def __init__(self, *columns):
        self.num_row_groups, self._columns = 1, columns

    def row_group(self, g):
        meta = self

        class Group:
            num_columns = len(meta._columns)

            def column(self, c):
                return meta._columns[c]
        return Group()


def test_the_page_walk_starts_at_a_dictionary_page_only_when_the_footer_places_one_before_the_data(tmp_path,
                                                                                                 monkeypatch):
    from leaderboard.intake import parquet_guard

    walks = []
    monkeypatch.setattr(parquet_guard, "pages", lambda buf, start, length, max_pages: walks.append(
        (start, length, max_pages)) or [])
    path = _write(tmp_path, 1)  # any file: the walk is replaced, the file is only mapped
    columns = (_Column(40, 4), _Column(40, 0), _Column(40, 1), _Column(40, None), _Column(40, 4, has_dictionary_page=False),
               _Column(40, 41), _Column(40, 40))
    parquet_guard._check_pages(path, _Meta(*columns), max_rows=6, max_bytes=10**9)
    # 0 and "none" are writers' ways to say no dictionary page; an offset after the data page is not one either
    assert walks == [(4, 77, 7), (40, 77, 7), (1, 77, 7), (40, 77, 7), (40, 77, 7), (40, 77, 7), (40, 77, 7)]


def test_read_errors_while_walking_the_footer_or_the_pages_are_refusals_naming_the_error(tmp_path, monkeypatch):
    """The guard's last line: whatever the readers raise (and they are written to raise only PageHeaderError) is
    a refusal, never a traceback."""
    import pytest

    from leaderboard.intake import parquet_guard
    from leaderboard.intake.parquet_guard import ParquetRefused, open_checked
    from leaderboard.intake.parquet_pages import PageHeaderError

    path = _write(tmp_path, 1)

    def raising(exc):
        def read(*args, **kwargs):
            raise exc
        return read

    monkeypatch.setattr(parquet_guard, "footer_problem", raising(IndexError()))
    with pytest.raises(ParquetRefused, match=r"^not a readable Parquet file \(metadata: IndexError\)$"):
        open_checked(path)
    monkeypatch.setattr(parquet_guard, "footer_problem", raising(ValueError("bad offset")))
    with pytest.raises(ParquetRefused, match=r"^not a readable Parquet file \(metadata: bad offset\)$"):
        open_checked(path)
    monkeypatch.setattr(parquet_guard, "footer_problem", lambda buf, leaves: None)
    for exc, says in ((IndexError("mmap index out of range"), "IndexError"), (OSError("gone"), "OSError"),
                      (ValueError(), "ValueError"), (PageHeaderError("truncated struct"), "page header: truncated struct")):
        monkeypatch.setattr(parquet_guard, "pages", raising(exc))
        with pytest.raises(ParquetRefused) as refused:
            open_checked(path)
        assert str(refused.value) == f"not a readable Parquet file ({says})"
