"""Image bytes that stay in Arrow (ArrowBinary) are written exactly like the same bytes given as Python
bytes: the ShardedParquetWriter assembles the column from slices of the source arrays."""
import pyarrow as pa
import pyarrow.parquet as pq
from datasets import Features, Image, Value

from dataset_builders.parquet_writer import ArrowBinary, ShardedParquetWriter, image_bytes, plain_bytes

FEATURES = Features({"id": Value("string"), "image": Image(), "n": Value("int32")})


def _write(folder, rows, **kwargs):
    writer = ShardedParquetWriter(folder, "test", FEATURES, **kwargs)
    for row in rows:
        writer.write(row)
    return writer.close()


def test_arrow_binary_rows_write_the_same_parquet_as_bytes(tmp_path):
    blobs = [bytes([k]) * (100 + k) for k in range(7)]
    source = pa.array(blobs, type=pa.binary())
    other = pa.array([b"zz", b"yyy"], type=pa.large_binary())  # a second source array, another binary type
    arrow_rows, byte_rows = [], []
    for k in range(7):  # runs of neighbours, a jump, a Python-bytes row and a null image mixed in
        data = ArrowBinary(source, k) if k != 4 else blobs[k]
        arrow_rows.append({"id": f"r{k}", "image": {"bytes": data, "path": f"{k}.png"}, "n": k})
        byte_rows.append({"id": f"r{k}", "image": {"bytes": blobs[k], "path": f"{k}.png"}, "n": k})
    arrow_rows.append({"id": "o", "image": {"bytes": ArrowBinary(other, 1), "path": None}, "n": 9})
    byte_rows.append({"id": "o", "image": {"bytes": b"yyy", "path": None}, "n": 9})
    arrow_rows.append({"id": "none", "image": None, "n": 10})
    byte_rows.append({"id": "none", "image": None, "n": 10})
    got = _write(tmp_path / "a", arrow_rows, row_group_rows=4)
    want = _write(tmp_path / "b", byte_rows, row_group_rows=4)
    assert [f.read_bytes() for f in got.files] == [f.read_bytes() for f in want.files]
    assert got.num_examples == want.num_examples == 9
    # the card's num_bytes (Arrow bytes) may differ by the chunks' validity bitmaps when an image or its
    # path is missing; with none missing it is the same
    assert abs(got.num_bytes - want.num_bytes) <= 8
    complete = _write(tmp_path / "c", arrow_rows[:-2], row_group_rows=4)
    assert complete.num_bytes == _write(tmp_path / "d", byte_rows[:-2], row_group_rows=4).num_bytes
    table = pq.read_table(got.files[0])
    assert table.column("image").to_pylist()[2] == {"bytes": blobs[2], "path": "2.png"}
    assert table.column("image").to_pylist()[8] is None
    assert pq.ParquetFile(got.files[0]).metadata.num_row_groups == 3  # 4 + 4 + 1 rows


def test_arrow_binary_views_lengths_and_plain_bytes():
    source = pa.array([b"abc", b"", None, b"\x00\x01"], type=pa.binary()).slice(1)  # an offset array
    empty, null, pair = ArrowBinary(source, 0), ArrowBinary(source, 1), ArrowBinary(source, 2)
    assert (len(empty), len(null), len(pair)) == (0, 0, 2)
    assert bytes(pair) == b"\x00\x01" and pair.view().tobytes() == b"\x00\x01" and pair == b"\x00\x01"
    assert not empty and pair != b"\x00"
    row = {"image": {"bytes": pair, "path": "p"}, "images": [{"bytes": pair, "path": None}], "x": 1}
    assert plain_bytes(row) == {"image": {"bytes": b"\x00\x01", "path": "p"},
                                "images": [{"bytes": b"\x00\x01", "path": None}], "x": 1}
    assert image_bytes(row, {"image": "one", "images": "many"}) == 4


def test_arrow_binary_is_a_view_into_the_source_buffer():
    """No copy per image: the view lies inside the source array's data buffer (a scalar's as_buffer()
    copied every image outside Arrow's pool, doubling a pending row group's memory)."""
    for kind in (pa.binary(), pa.large_binary()):
        source = pa.array([b"a" * 1000, None, b"b" * 2000], type=kind).slice(1)
        data = source.buffers()[2]
        null, value = ArrowBinary(source, 0), ArrowBinary(source, 1)
        assert len(null) == 0 and bytes(value) == b"b" * 2000
        assert data.address <= value.view().obj.address < data.address + data.size


def test_arrow_binary_of_another_layout_reads_the_same_bytes():
    source = pa.array([b"x" * 10, None, b"yz"], type=pa.binary_view())
    assert bytes(ArrowBinary(source, 2)) == b"yz" and len(ArrowBinary(source, 1)) == 0
