"""A clean but partial prediction file on the columnar fast path reports the same counts and coverage as
the line-by-line path: 2 of 5 items answered is coverage 0.4 and 3 missing, whichever path ran."""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leaderboard.scoring import registry
from leaderboard.intake.prediction_files import validate

SCHEMA = registry.scorer("medreamm").schema
IDS = ["100", "200", "300", "400", "500"]
ROWS = [{"id": "400", "diagnoses": ["Asthma", "Obesity"]}, {"id": "100", "response": "### Output ###\n[\"Cholera\"]"}]


def write(tmp_path, name):
    path = tmp_path / name
    if name.endswith(".parquet"):
        schema = pa.schema([("id", pa.string()), ("diagnoses", pa.list_(pa.string())), ("response", pa.string())])
        pq.write_table(pa.Table.from_pylist(ROWS, schema=schema), path)
    else:
        path.write_text("\n".join(json.dumps(r) for r in ROWS) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["p.jsonl", "p.parquet"])
@pytest.mark.parametrize("expected", [IDS, pa.chunked_array([IDS[:2], IDS[2:]])], ids=["list", "key-column"])
def test_clean_partial_file_counts_on_the_columnar_path(tmp_path, name, expected):
    path = write(tmp_path, name)
    fast = validate(path, SCHEMA, expected)
    slow = validate(path, SCHEMA, IDS, columnar=False)
    assert fast.path == "columnar" and slow.path == "line-by-line"
    for report in (fast, slow):
        assert (report.rows_read, report.n_valid, report.expected_ids, report.missing_ids) == (2, 2, 5, 3)
        assert report.coverage == pytest.approx(0.4)
        assert report.ok and [str(i) for i in report.issues] == [
            "warning: file: 3 of 5 items have no prediction; they count as wrong"]
    assert fast.key_rows.tolist() == [3, 0] and slow.key_rows is None  # each row's row in `expected`: 400, 100
    assert fast.summary() == slow.summary()
    assert "2 valid predictions for 5 items (coverage 40.0%)" in fast.summary()
    assert fast.to_dict() == slow.to_dict()
    assert (fast.to_dict()["missing"], fast.to_dict()["coverage"]) == (3, pytest.approx(0.4))


def test_a_complete_file_on_the_columnar_path_has_full_coverage_and_no_warning(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps({"id": i, "diagnoses": [f"d{i}"]}) for i in reversed(IDS)) + "\n")
    report = validate(path, SCHEMA, IDS)
    assert report.path == "columnar" and report.coverage == 1.0 and report.missing_ids == 0 and report.issues == []


def test_row_numbers_read_from_sliced_and_empty_chunks():
    from leaderboard.intake.prediction_files_columnar import _row_numbers

    rows = pa.chunked_array([pa.array([7, 8, 9, 4], pa.int32()).slice(1, 2), pa.array([], pa.int32()),
                             pa.array([5], pa.int32())])
    assert _row_numbers(rows).tolist() == [8, 9, 5]
    assert _row_numbers(pa.chunked_array([], pa.int32())).tolist() == []
