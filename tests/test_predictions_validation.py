"""Line-level validation of prediction files: every problem names line and field, nothing leaks."""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leaderboard.scoring import registry
from benchmarks.medreamm.parsing import parse_response, ranked_list
from leaderboard.intake.prediction_files import validate
from leaderboard.scoring.score_file import validate_file
from validation_helpers import messages, validate_text

SCHEMA = registry.scorer("medreamm").schema
IDS = ["100", "200", "300"]


def check(tmp_path, text, name="p.jsonl", ids=IDS, **kw):
    return validate_text(tmp_path, text, SCHEMA, ids, name, **kw)


def test_clean_file_is_valid(tmp_path):
    r = check(tmp_path, '{"id": "100", "diagnoses": ["A", "B"]}\n{"id": "200", "response": "x"}\n{"id": 300, "diagnoses": []}\n')
    assert r.ok and r.coverage == 1.0 and set(r.valid) == {"100", "200", "300"}
    assert r.valid["100"] == {"diagnoses": ["A", "B"]}


def test_each_problem_names_line_and_field(tmp_path):
    lines = [
        '{"id": "100", "diagnoses": "Pneumonia"}',        # 1: string instead of list
        '{"id": "999", "diagnoses": []}',                 # 2: unknown id
        '{"id": "200", "diagnoses": ["A", 3]}',           # 3: item of wrong type
        '{"id": "200", "diagnoses": ["A"]}',              # 4: fine (first valid 200 after a bad one is a duplicate of line 3)
        '{"diagnoses": ["A"]}',                           # 5: no id
        '{"id": "300"}',                                  # 6: neither diagnoses nor response
        'not json',                                       # 7
        '{"id": "300", "diagnoses": ["A"], "confidence": NaN}',  # 8: NaN
    ]
    r = check(tmp_path, "\n".join(lines) + "\n")
    assert messages(r)[:8] == [
        "error: line 1, field 'diagnoses': must be a JSON list of strings, got a single string",
        "error: line 2, field 'id': unknown id '999'",
        "error: line 3, field 'diagnoses': item 2 must be a string, got int",
        "error: line 4, field 'id': duplicate id '200' (first on line 3)",
        "error: line 5, field 'id': is missing or not a string",
        "error: line 6: needs one of the fields diagnoses, response",
        "error: line 7: not valid JSON (Expecting value at column 1)",
        "error: line 8: not valid JSON (NaN is not allowed)",
    ]
    assert not r.ok and set(r.valid) == set()


def test_long_lists_warn_then_fail(tmp_path):
    eleven = json.dumps({"id": "100", "diagnoses": [f"d{i}" for i in range(11)]})
    huge = json.dumps({"id": "200", "diagnoses": [f"d{i}" for i in range(101)]})
    r = check(tmp_path, eleven + "\n" + huge + "\n")
    assert "warning: line 1, field 'diagnoses': has 11 items; only the first 10 are scored" in messages(r)
    assert "error: line 2, field 'diagnoses': has 101 items; the limit is 100" in messages(r)
    assert "100" in r.valid and "200" not in r.valid


def test_bom_crlf_csv_and_parquet_are_read(tmp_path):
    r = check(tmp_path, b'\xef\xbb\xbf{"id": "100", "diagnoses": ["A"]}\r\n{"id": "200", "diagnoses": ["B"]}\r\n')
    assert r.ok and len(r.valid) == 2
    r = check(tmp_path, 'id,diagnoses\r\n100,"[""A"", ""B""]"\r\n200,\r\n', name="p.csv")
    assert r.valid["100"] == {"diagnoses": ["A", "B"]}
    assert "error: line 3: needs one of the fields diagnoses, response" in messages(r)
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": ["100", "300"], "diagnoses": [["A"], ["C", "D"]]}), path)
    r = validate(path, SCHEMA, IDS)
    assert r.ok and r.valid["300"] == {"diagnoses": ["C", "D"]} and r.missing_ids == 1


def test_file_level_problems(tmp_path):
    assert messages(check(tmp_path, b"\xff\xfe\x00bad"))[0].startswith("error: file: line 1: file is not valid UTF-8")
    assert messages(check(tmp_path, ""))[0] == "error: file: file is empty"
    big = check(tmp_path, '{"id": "100", "diagnoses": ["A"]}\n' * 100, max_bytes=1000)
    assert messages(big)[0] == "error: file: file is 3.4 kB; the limit is 1.0 kB"
    assert messages(check(tmp_path, b"PAR1garbage", name="p.parquet"))[0] == "error: file: not a readable Parquet file (ArrowInvalid)"
    deep = '{"id": "100", "diagnoses": ' + "[" * 100000 + "]" * 100000 + "}"
    assert "nested too deeply" in messages(check(tmp_path, deep))[0] or "not valid JSON" in messages(check(tmp_path, deep))[0]


def test_report_never_contains_gold_answers(tmp_path, tiny_built):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "100", "diagnoses": "Cholera"}\n{"id": "nope"}\n{"id": "200", "diagnoses": ["x"]}\n')
    report, _ = validate_file("medreamm", path, tiny_built)
    text = report.render() + json.dumps(report.to_dict())
    for gold in ("Dehydration", "Pneumonia", "Asthma", "Essential hypertension", "1A00", "CA40"):
        assert gold not in text
    assert "2 of 3 items have no prediction" in text  # 100 (invalid line) and 300 (no line)


@pytest.mark.parametrize("text, expected", [
    ('Thinking...\n### Output ###\n["Pneumonia", "Lung abscess"]', ["Pneumonia", "Lung abscess"]),
    ("### Output ###\n```json\n['Pneumonia', 'Empyema']\n```", ["Pneumonia", "Empyema"]),
    ('1. Wrong list before\n### Output ###\nThe answer: "Gout" and "Pseudogout"', ["Gout", "Pseudogout"]),
    ("### Output ###\n1. **Sarcoidosis**\n2) Tuberculosis\n- Lymphoma", ["Sarcoidosis", "Tuberculosis", "Lymphoma"]),
    ('["Migraine"]', ["Migraine"]),
    ("I am not sure.", []),
    ("### Output ###\n[]", []),
])
def test_response_parsing_follows_the_authors(text, expected):
    assert parse_response(text) == expected


def test_ranked_list_truncates_then_drops_duplicates():
    items = ["Pneumonia", "pneumonia.", " ", "Empyema"] + [f"d{i}" for i in range(6)] + ["late"]
    assert ranked_list(items) == ["Pneumonia", "Empyema", "d0", "d1", "d2", "d3", "d4", "d5"]


@pytest.mark.parametrize("name", ["p.jsonl", "p.parquet"])
def test_columnar_path_agrees_with_line_by_line(tmp_path, name):
    rows = [{"id": "100", "diagnoses": ["A", "B"]}, {"id": "300", "response": "### Output ###\n[\"C\"]"}]
    path = tmp_path / name
    if name.endswith(".parquet"):
        schema = pa.schema([("id", pa.string()), ("diagnoses", pa.list_(pa.string())), ("response", pa.string())])
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)
    else:
        path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    fast = validate(path, SCHEMA, IDS)
    slow = validate(path, SCHEMA, IDS, columnar=False)
    assert fast.path == "columnar" and slow.path == "line-by-line"
    assert fast.valid == slow.valid == {"100": {"diagnoses": ["A", "B"]}, "300": {"response": "### Output ###\n[\"C\"]"}}
    assert fast.table.equals(slow.table)
    assert messages(fast) == messages(slow) == ["warning: file: 1 of 3 items have no prediction; they count as wrong"]


@pytest.mark.parametrize("line", [
    '{"id": "100", "diagnoses": ["A"]}\n{"id": "100", "diagnoses": ["B"]}',   # duplicate
    '{"id": "100", "diagnoses": ["A"]}\n{"id": "zzz", "diagnoses": ["B"]}',   # unknown id
    '{"id": "100", "diagnoses": ["A"], "extra": 1}',                          # unknown field
    '{"id": "100", "diagnoses": [' + ", ".join(f'"d{i}"' for i in range(11)) + "]}",  # > 10 items: warning per line
    '{"id": " 100", "diagnoses": ["A"]}',                                     # padded id
    '{"id": "100"}',                                                          # neither field
])
def test_doubtful_files_take_the_line_by_line_path(tmp_path, line):
    report = check(tmp_path, line + "\n")
    assert report.path == "line-by-line" and report.issues


def test_duplicates_differing_only_in_inner_whitespace_are_dropped():
    from benchmarks.medreamm.parsing import normalise

    assert normalise(" Acute  kidney\tinjury. ") == "acute kidney injury"
    assert ranked_list(["Acute kidney injury", "acute  kidney\tinjury", "Sepsis"]) == ["Acute kidney injury", "Sepsis"]


@pytest.mark.parametrize("text, expected", [
    ('Draft: ["Asthma"]\n### Output ###\n["Pneumonia"]', ["Pneumonia"]),  # only the text after the heading
    ('### Output ###\n["Asthma"]\n### Output ###\n["Pneumonia", "Empyema"]', ["Pneumonia", "Empyema"]),  # the last one
    ("### Output ###\n[]\n1. Gout", ["Gout"]),  # an empty list is no answer: the numbered list is read
    ("### Output ###\n[1, 2]\n1. Gout", ["Gout"]),  # a list of numbers is not a list of diagnoses
])
def test_response_parsing_reads_after_the_last_heading_and_skips_non_answers(text, expected):
    assert parse_response(text) == expected
