"""The columnar fast path and the line-by-line path give the same report for the same file.

Every file below is validated twice, `validate(..., columnar=False)` being the reference: the reports
(counts, coverage, issues, valid predictions) must be identical, and the fast path must have run exactly
where it should: clean JSONL/Parquet files of every shape are read column-wise (CRLF, blank lines, upper-case
suffixes, Parquet without its suffix, large_string columns, lines over 1 MB, values exactly at each limit),
and every file with a defect (wrong type, value over a limit, NaN, nulls in a list, a line that is not an
object, a bare CR, invalid UTF-8, JSON lines in a .json/.csv/.parquet file) goes line by line, where the
message names the line and the field. The schema is the test's own, asymmetric on purpose (a non-`id` id
field, limits -2..5, 3 scored items of 4 allowed), so a swapped bound or a wrong default is visible.
"""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from timing import assert_within, cpu_seconds

from leaderboard.intake.prediction_files import MAX_STRING_CHARS, FieldSpec, PredictionSchema, validate
from leaderboard.intake.prediction_files_columnar import _every_line_is_an_object, _field_ok

SCHEMA = PredictionSchema(
    fields=(FieldSpec("answer", "string"), FieldSpec("reasoning", "string"),
            FieldSpec("codes", "string_list", max_items=4, scored_items=3),
            FieldSpec("score", "number", minimum=-2.0, maximum=5.0),
            FieldSpec("grade", "choice", choices=("low", "high"))),
    one_of=("answer", "codes"), id_field="case", optional_metadata=("notes",))
IDS = ["c1", "c2", "c3", "c4", "c5"]


def field_of(name):
    return next(f for f in SCHEMA.fields if f.name == name)

# one clean row of each shape; rows 1-3 of 5 ids: a partial file (coverage 0.6, 2 missing)
CLEAN = [
    {"case": "c3", "answer": "é" * MAX_STRING_CHARS, "codes": ["K" * 1000, "J45", "E66"], "score": -2.0,
     "grade": "high"},
    {"case": "c1", "codes": [], "score": 5},
    {"case": "c4", "answer": "Asthma ✓ 喘息", "grade": "low", "score": None},
]
PARTIAL = "warning: file: 2 of 5 items have no prediction; they count as wrong"


def jsonl(rows, sep="\n", lead=""):
    return (lead + sep.join(json.dumps(r, ensure_ascii=False) for r in rows) + sep).encode("utf-8")


def both(path, ids=IDS, **options):
    """Both reports, checked equal in everything a user or the scorer sees; the fast one first."""
    fast, slow = validate(path, SCHEMA, ids, **options), validate(path, SCHEMA, ids, columnar=False, **options)
    assert slow.path == "line-by-line"
    assert fast.to_dict() == slow.to_dict()
    assert fast.render() == slow.render()
    assert fast.valid == slow.valid
    assert fast.table.equals(slow.table)
    return fast, slow


def parquet(path, columns: dict, types: dict):
    pq.write_table(pa.table({k: pa.array(v, types[k]) for k, v in columns.items()}), path)
    return path


STRINGS = {"case": pa.string(), "answer": pa.string(), "reasoning": pa.string(), "codes": pa.list_(pa.string()),
           "score": pa.float64(), "grade": pa.string()}


@pytest.mark.parametrize("name, data", [
    ("p.jsonl", jsonl(CLEAN)),
    ("crlf.jsonl", jsonl(CLEAN, sep="\r\n")),
    ("blank-lines.jsonl", jsonl(CLEAN, sep="\n\n", lead="\n")),
    ("blank-first.ndjson", jsonl(CLEAN, lead="\n")),
    ("UPPER.JSONL", jsonl(CLEAN, lead="\n")),
    ("no-known-suffix.txt", jsonl(CLEAN)),
], ids=["jsonl", "crlf", "blank-lines", "ndjson-blank-first", "upper-suffix-blank-first", "txt"])
def test_clean_json_lines_take_the_columnar_path_with_the_same_report(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    fast, _ = both(path)
    assert fast.path == "columnar"
    assert [str(i) for i in fast.issues] == [PARTIAL]
    assert (fast.rows_read, fast.n_valid, fast.missing_ids, fast.coverage) == (3, 3, 2, pytest.approx(0.6))
    assert fast.valid["c1"] == {"codes": [], "score": 5.0}
    assert fast.valid["c3"]["score"] == -2.0 and fast.valid["c3"]["codes"][1:] == ["J45", "E66"]
    assert fast.valid["c4"] == {"answer": "Asthma ✓ 喘息", "grade": "low"}


def test_a_line_over_two_megabytes_stays_on_the_columnar_path(tmp_path):
    # pyarrow's default 1 MB block refuses a line of 2 MB and more ("straddling object"); the reader asks
    # for 8 MB blocks. Two fields of 100,000 characters (the limit) written as 12-byte surrogate-pair
    # escapes make a valid 2.4 MB line.
    path = tmp_path / "long.jsonl"
    path.write_bytes(jsonl([{"case": "c5", "codes": ["J45"]},
                            {"case": "c2", "answer": "LONG", "reasoning": "LONG", "grade": "low"}])
                     .replace(b"LONG", b"\\ud834\\udd1e" * MAX_STRING_CHARS))
    assert len(path.read_bytes().split(b"\n")[1]) > 2.2 * (1 << 20)
    fast, _ = both(path)
    clef = "\U0001d11e" * MAX_STRING_CHARS
    assert fast.path == "columnar" and fast.valid["c2"] == {"answer": clef, "reasoning": clef, "grade": "low"}


@pytest.mark.parametrize("name", ["p.parquet", "p.data", "p.jsonl"])
@pytest.mark.parametrize("large", [False, True], ids=["string", "large_string"])
def test_clean_parquet_takes_the_columnar_path_whatever_its_suffix(tmp_path, name, large):
    types = dict(STRINGS)
    if large:
        types.update(case=pa.large_string(), answer=pa.large_string(), codes=pa.large_list(pa.large_string()),
                     grade=pa.large_string())
    columns = {k: [row.get(k) for row in CLEAN] for k in STRINGS}
    columns["score"] = [-2.0, 5.0, None]
    columns["notes"], types["notes"] = ["greedy", None, "beam 4"], pa.string()  # optional metadata, ignored
    if large:  # and a field the file does not carry at all: null for every row, of the field's type
        del columns["grade"]
    fast, _ = both(parquet(tmp_path / name, columns, types))
    assert fast.path == "columnar" and [str(i) for i in fast.issues] == [PARTIAL]
    assert fast.valid["c1"] == {"codes": [], "score": 5.0}


def test_files_where_every_list_is_empty_or_no_value_is_given_stay_columnar(tmp_path):
    path = tmp_path / "empty-lists.jsonl"
    path.write_bytes(jsonl([{"case": i, "codes": [], "answer": None, "score": None} for i in IDS]))
    fast, _ = both(path)
    assert fast.path == "columnar" and fast.issues == [] and fast.valid["c5"] == {"codes": []}


def bad_jsonl(*rows):
    return jsonl([{"case": "c1", "answer": "fine"}, *rows])


# (file name, content, the issues the line-by-line path reports: hand-written)
DEFECTS = [
    ("over-max.jsonl", bad_jsonl({"case": "c2", "answer": "x", "score": 5.5}),
     ["error: line 2, field 'score': must be between -2.0 and 5.0, got 5.5"]),
    ("under-min.jsonl", bad_jsonl({"case": "c2", "answer": "x", "score": -2.25}),
     ["error: line 2, field 'score': must be between -2.0 and 5.0, got -2.25"]),
    ("too-long.jsonl", bad_jsonl({"case": "c2", "answer": "é" * (MAX_STRING_CHARS + 1)}),
     ["error: line 2, field 'answer': is 100,001 characters; the limit is 100,000"]),
    ("long-item.jsonl", jsonl([{"case": "c2", "codes": ["K" * 1001]}, {"case": "c1", "answer": "x"}]),
     ["error: line 1, field 'codes': item 1 is 1,001 characters; one diagnosis per item, at most 1,000"]),
    ("five-items.jsonl", bad_jsonl({"case": "c2", "codes": ["a", "b", "c", "d", "e"]}),
     ["error: line 2, field 'codes': has 5 items; the limit is 4"]),
    ("four-items.jsonl", bad_jsonl({"case": "c2", "codes": ["a", "b", "c", "d"]}),
     ["warning: line 2, field 'codes': has 4 items; only the first 3 are scored"]),
    ("null-item.jsonl", bad_jsonl({"case": "c2", "codes": ["J45", None]}),
     ["error: line 2, field 'codes': item 2 must be a string, got NoneType"]),
    ("not-a-choice.jsonl", bad_jsonl({"case": "c2", "answer": "x", "grade": "High"}),
     ["error: line 2, field 'grade': must be one of low, high, got 'High'"]),
    ("indented.jsonl", bad_jsonl({"case": "c2", "answer": "x"}).replace(b'\n{"case": "c2"', b'\n  {"case": "c2"'), []),
    ("bare-cr.jsonl", bad_jsonl({"case": "c2", "answer": "x"}).replace(b"}\n{", b"}\r{"), []),
    ("null-line.jsonl", bad_jsonl().replace(b"\n", b"\nnull\n"),
     ["error: line 2: must be a JSON object, got NoneType"]),
    ("bad-utf8.jsonl", bad_jsonl({"case": "c2", "answer": "x"}).replace(b'"x"', b'"\xffx"'),
     ["error: file: line 2: file is not valid UTF-8 (byte 59); save it as UTF-8"]),
    ("duplicate-id.jsonl", bad_jsonl({"case": "c2", "answer": "x"}, {"case": "c1", "answer": "y"}),
     ["error: line 3, field 'case': duplicate id 'c1' (first on line 1)"]),
    ("unknown-id.jsonl", bad_jsonl({"case": "c2", "answer": "x"}, {"case": "c9", "answer": "y"}),
     ["error: line 3, field 'case': unknown id 'c9'"]),
    ("lines.json", bad_jsonl({"case": "c2", "answer": "x"}), []),
    ("lines.parquet", bad_jsonl({"case": "c2", "answer": "x"}), None),
    ("lines.csv", bad_jsonl({"case": "c2", "answer": "x"}), None),
]


@pytest.mark.parametrize("name, data, expected", DEFECTS, ids=[d[0] for d in DEFECTS])
def test_each_defect_goes_line_by_line_and_is_named(tmp_path, name, data, expected):
    path = tmp_path / name
    path.write_bytes(data)
    fast, _ = both(path)
    assert fast.path == "line-by-line"
    shown = [str(i) for i in fast.issues if "have no prediction" not in i.message]
    if expected is not None:
        assert shown == expected
    else:  # a JSON-lines file under a .parquet or .csv name is refused as a whole, never read as JSON
        assert fast.errors and fast.n_valid == 0


def test_an_unknown_field_nested_deep_is_refused_at_once(tmp_path):
    # the explicit schema refuses an unexpected field before pyarrow infers its type (5,000 levels deep
    # take ~20 s to infer); the line-by-line path then names the line
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b'{"case": "c1", "answer": "x", "extra": ' + b"[" * 5000 + b"]" * 5000 + b"}\n")
    shallow = tmp_path / "shallow.jsonl"
    shallow.write_bytes(b'{"case": "c1", "answer": "x", "extra": [[]]}\n')
    both(shallow)  # imports and first-call costs out of the way
    _, floor = cpu_seconds(lambda: both(shallow))
    (fast, _), deep = cpu_seconds(lambda: both(path))
    assert_within(deep, max(floor, 0.01), 50, "5,000 levels against 2")  # inferring its type would be ~1,000x
    assert fast.path == "line-by-line" and [str(i) for i in fast.errors] == ["error: line 1: JSON nested too deeply"]


PARQUET_DEFECTS = [
    ("answer", pa.int64(), [7, None], "error: line 1, field 'answer': must be a string, got int"),
    ("score", pa.bool_(), [True, None], "error: line 1, field 'score': must be a number, got bool"),
    ("score", pa.string(), ["abc", None], "error: line 1, field 'score': must be a number, got 'abc'"),
    ("score", pa.float64(), [float("nan"), 1.0], "error: line 1, field 'score': must be a finite number"),
    ("score", pa.float64(), [1.0, float("inf")], "error: line 2, field 'score': must be a finite number"),
    ("score", pa.float64(), [1.0, -float("inf")], "error: line 2, field 'score': must be a finite number"),
    ("codes", pa.string(), ["J45", None], "error: line 1, field 'codes': must be a JSON list of strings, got a single string"),
    ("codes", pa.list_(pa.int64()), [[4, 5], None], "error: line 1, field 'codes': item 1 must be a string, got int"),
]


@pytest.mark.parametrize("column, arrow_type, values, expected", PARQUET_DEFECTS,
                         ids=[f"{c}-{t}-{v[0]}" for c, t, v, _ in PARQUET_DEFECTS])
def test_parquet_columns_of_the_wrong_type_go_line_by_line(tmp_path, column, arrow_type, values, expected):
    columns = {"case": ["c1", "c2"], "answer": ["a", "b"], "codes": [["J45"], ["E66"]], column: values}
    types = {**STRINGS, column: arrow_type}
    fast, _ = both(parquet(tmp_path / "p.parquet", columns, types))
    assert fast.path == "line-by-line"
    assert [str(i) for i in fast.errors] == [expected]


def test_a_numeric_text_column_is_read_line_by_line_as_a_number(tmp_path):
    # a number sent as text is accepted (CSV has no other way), but only by the path that converts it
    fast, _ = both(parquet(tmp_path / "p.parquet", {"case": ["c1"], "answer": ["a"], "score": ["0.5"]},
                           {**STRINGS, "score": pa.string()}))
    assert fast.path == "line-by-line" and fast.valid["c1"] == {"answer": "a", "score": 0.5}


def test_a_zero_item_limit_accepts_empty_lists_on_both_paths(tmp_path):
    schema = PredictionSchema(fields=(FieldSpec("codes", "string_list", max_items=0, scored_items=0),))
    column = pa.chunked_array([pa.array([[], []], pa.list_(pa.string()))])
    assert _field_ok(schema.fields[0], column)
    assert not _field_ok(schema.fields[0], pa.chunked_array([pa.array([[], ["a"]], pa.list_(pa.string()))]))


def test_field_checks_hold_exactly_at_each_limit():
    spec = field_of("codes")
    lists = pa.list_(pa.string())
    assert _field_ok(spec, pa.chunked_array([pa.array([["a", "b", "c"], ["K" * 1000]], lists)]))
    assert not _field_ok(spec, pa.chunked_array([pa.array([["K" * 1001]], lists)]))
    assert not _field_ok(spec, pa.chunked_array([pa.array([["a", "b", "c", "d"]], lists)]))  # warned line by line
    number = field_of("score")
    assert _field_ok(number, pa.chunked_array([pa.array([-2.0, 5.0])]))
    assert not _field_ok(number, pa.chunked_array([pa.array([-2.0, 5.000001])]))
    assert not _field_ok(number, pa.chunked_array([pa.array([-2.000001, 5.0])]))
    assert _field_ok(number, pa.chunked_array([pa.array([3, 4], pa.int8())]))
    unbounded = FieldSpec("t", "number")  # no range to catch an infinity: the finiteness check must
    assert not _field_ok(unbounded, pa.chunked_array([pa.array([1.0, float("inf")])]))
    assert not _field_ok(unbounded, pa.chunked_array([pa.array([-float("inf"), 1.0])]))
    assert not _field_ok(unbounded, pa.chunked_array([pa.array([float("nan"), 1.0])]))
    assert _field_ok(unbounded, pa.chunked_array([pa.array([-1e300, 1e300])]))
    capped = FieldSpec("t", "string_list", max_items=2)  # a hard cap without a scored prefix
    assert _field_ok(capped, pa.chunked_array([pa.array([["a", "b"]], lists)]))
    assert not _field_ok(capped, pa.chunked_array([pa.array([["a", "b", "c"]], lists)]))
    text = field_of("answer")
    assert _field_ok(text, pa.chunked_array([pa.array(["é" * MAX_STRING_CHARS], pa.large_string())]))
    assert not _field_ok(text, pa.chunked_array([pa.array(["é" * (MAX_STRING_CHARS + 1)])]))
    assert _field_ok(field_of("grade"), pa.chunked_array([pa.array(["high", None, "low"])]))
    assert not _field_ok(field_of("grade"), pa.chunked_array([pa.array(["high", "medium"])]))


@pytest.mark.parametrize("data, expected", [
    (b'{"a": 1}\n{"b": 2}\n', True),
    (b'\n\n{"a": 1}\r\n\r\n{"b": 2}', True),
    (b'{"a": 1}\nnull\n', False),
    (b'{"a": 1}\n {"b": 2}\n', False),
    (b'{"a": 1}\r{"b": 2}\n', False),
    (b'{"a": 1}\n{"b": 2}\nX', False),
])
@pytest.mark.parametrize("chunk_bytes", [1, 2, 3, 1 << 24])
def test_every_line_is_an_object_across_chunk_boundaries(tmp_path, data, expected, chunk_bytes):
    path = tmp_path / "lines.jsonl"
    path.write_bytes(data)
    assert _every_line_is_an_object(path, chunk_bytes=chunk_bytes) is expected


def test_the_size_limit_is_the_same_on_both_paths(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes(jsonl([{"case": "c2", "answer": "Gout"}]))
    assert path.stat().st_size == 33
    fast, _ = both(path, max_bytes=33)  # exactly at the limit: read, column-wise
    assert fast.path == "columnar" and fast.valid == {"c2": {"answer": "Gout"}}
    fast, _ = both(path, max_bytes=32)
    assert fast.path == "line-by-line"
    assert [str(i) for i in fast.errors] == ["error: file: file is 33 bytes; the limit is 32 bytes"]


@pytest.mark.parametrize("data, expected", [
    (b"", "error: file: file is empty"),
    (b"\n\n\r\n\n", "error: file: the file holds no predictions (only blank lines or an empty list)"),
], ids=["empty", "blank-lines-only"])
def test_files_without_rows_are_refused_by_the_line_by_line_path(tmp_path, data, expected):
    path = tmp_path / "p.jsonl"
    path.write_bytes(data)
    fast, _ = both(path)
    assert fast.path == "line-by-line" and [str(i) for i in fast.errors] == [expected]


def test_a_single_row_with_a_one_character_id_is_columnar(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_bytes(jsonl([{"case": "7", "codes": ["J45"]}]))
    fast, _ = both(path, ids=["7", "c2"])
    assert fast.path == "columnar" and fast.valid == {"7": {"codes": ["J45"]}}
    assert [str(i) for i in fast.issues] == ["warning: file: 1 of 2 items have no prediction; they count as wrong"]


def test_integer_ids_in_parquet_are_read_line_by_line_as_text(tmp_path):
    path = parquet(tmp_path / "p.parquet", {"case": [2, 1], "answer": ["b", "a"]}, {**STRINGS, "case": pa.int64()})
    fast, _ = both(path, ids=["1", "2"])
    assert fast.path == "line-by-line" and fast.valid == {"2": {"answer": "b"}, "1": {"answer": "a"}}


@pytest.mark.parametrize("sent, expected", [
    (" c6", "error: line 1, field 'case': unknown id 'c6'"),
    ("", "error: line 1, field 'case': is missing or not a string"),
], ids=["padded", "empty"])
def test_ids_are_compared_stripped_on_both_paths(tmp_path, sent, expected):
    # even when the answer key itself holds the padded or empty id, the file's id is stripped first
    path = tmp_path / "p.jsonl"
    path.write_bytes(jsonl([{"case": sent, "answer": "x"}, {"case": "c1", "answer": "y"}]))
    fast, _ = both(path, ids=[sent, "c1"])
    assert fast.path == "line-by-line" and [str(i) for i in fast.errors] == [expected]


def test_text_metadata_stays_columnar_and_an_object_of_metadata_goes_line_by_line(tmp_path):
    """A clean file naming its model is read column-wise (metadata ignored); metadata that is not text is
    rejected by the fast path's explicit schema and read line by line, with the same report either way."""
    with_model = [dict(row, notes=f"run {i}") for i, row in enumerate(CLEAN)]
    path = tmp_path / "named.jsonl"
    path.write_bytes(jsonl(with_model))
    fast, _ = both(path)
    assert fast.path == "columnar"
    assert [str(i) for i in fast.issues] == [PARTIAL]
    assert "notes" not in fast.table.column_names and fast.valid["c1"] == {"codes": [], "score": 5.0}

    nested = [dict(row, notes={"temperature": 0.2}) if i == 1 else row for i, row in enumerate(CLEAN)]
    path = tmp_path / "nested-notes.jsonl"
    path.write_bytes(jsonl(nested))
    fast, slow = both(path)
    assert fast.path == "line-by-line"
    assert (fast.rows_read, fast.n_valid) == (3, 3) and fast.valid == slow.valid
