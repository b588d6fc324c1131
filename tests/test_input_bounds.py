"""Inputs are bounded before they are decoded (issue 13): Parquet metadata and decoded size, run-settings
files. The corpus cases (tests/hostile/) run through every front door in test_hostile_inputs.py; these are
the limits themselves, at sizes small enough to build in a test."""
import io
import json
import resource

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leaderboard.intake.parquet_guard import ParquetRefused, guarded_batches, read_guarded
from leaderboard.intake.prediction_files import size_refusal
from leaderboard.intake.run_settings import RunSettingsError, read_run_settings


def write(path, table, **kw):
    pq.write_table(table, path, **kw)
    return path


def test_compressed_pages_are_refused_from_the_metadata_before_decoding(tmp_path):
    """Plain-encoded, zstd: 2,000 rows x 10,000 characters = 20 MB decoded from a file of a few kB."""
    text = pa.array(["x" * 10_000] * 2_000)
    path = write(tmp_path / "zstd.parquet", pa.table({"id": [f"S{k}" for k in range(2_000)], "response": text}),
                 compression="zstd", use_dictionary=False)
    assert path.stat().st_size < 50_000
    with pytest.raises(ParquetRefused, match=r"decompresses to more than the 1.0 MB limit \(by row group 1 of 1\)"):
        next(guarded_batches(path, max_bytes=1_000_000))


def test_dictionary_expansion_is_computed_before_it_happens(tmp_path):
    indices = pa.array(np.zeros(50_000, dtype=np.int32))
    table = pa.table({"id": pa.array([f"S{k}" for k in range(50_000)]),
                      "response": pa.DictionaryArray.from_arrays(indices, pa.array(["y" * 1_000]))})
    path = write(tmp_path / "dict.parquet", table, compression="zstd")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ParquetRefused, match="decodes to more than the 20.0 MB limit"):
        list(guarded_batches(path, max_bytes=20_000_000, batch_rows=10_000))  # 10 MB per batch decoded
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) < 200_000  # kB: never all 50 MB at once
    small = read_guarded(path, max_bytes=60_000_000)  # under the limit: the same rows as pyarrow's own reader
    assert small.column("response").type == pa.string() and small.equals(pq.read_table(path).cast(small.schema))


def test_lists_of_text_are_read_and_exact(tmp_path):
    rows = {"id": ["S1", "S2", "S3"], "diagnoses": [["a", "b"], None, ["c"]], "response": ["r", None, "t"]}
    path = write(tmp_path / "lists.parquet", pa.table(rows))
    assert read_guarded(path).to_pydict() == rows


@pytest.mark.parametrize("column, says", [
    (pa.array([2**31 - 1], pa.date32()), "has type date32"),
    (pa.array([2**62], pa.timestamp("ns")), "has type timestamp[ns]"),
    (pa.array([[["a"]]], pa.list_(pa.list_(pa.string()))), "has type list<element: list<element: string>> (nested)"),
    (pa.array([{"k": "v"}]), "(nested)"),
])
def test_column_types_no_prediction_uses_are_named(tmp_path, column, says):
    path = write(tmp_path / "t.parquet", pa.table({"id": ["S1"], "odd": column}))
    with pytest.raises(ParquetRefused, match=r"column 'odd' has type") as caught:
        next(guarded_batches(path))
    assert says in str(caught.value)


def test_sizes_are_in_one_unit():
    assert size_refusal(250_300_000, 200_000_000) == "file is 250.3 MB; the limit is 200.0 MB"
    assert size_refusal(200_000_001, 200_000_000) == "file is 200,000,001 bytes; the limit is 200,000,000 bytes"


def test_run_settings_nested_deeply_or_disguised(tmp_path):
    deep = tmp_path / "deep.meta.json"
    deep.write_text('{"protocol": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(RunSettingsError, match=r"not valid JSON \(nested too deeply\)"):
        read_run_settings(deep)
    tricky = tmp_path / "tricky.meta.json"
    tricky.write_text(json.dumps({"protocol": {"name": "medcmr\u202ecod.exe", "version": "1\u200b.0"},
                                  "model": "Model\u200b\u2066X\u2069"}), encoding="utf-8")
    settings = read_run_settings(tricky)
    assert settings["protocol"] == "medcmr cod.exe" and settings["protocol_version"] == "1 .0"
    assert settings["model"] == "Model X"
    big = tmp_path / "big.meta.json"
    big.write_bytes(b" " * 256_001)
    with pytest.raises(RunSettingsError, match="over 256 kB"):
        read_run_settings(big)
