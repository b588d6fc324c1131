"""The line-by-line reader and checker of prediction files at its edges: exact limits (a limit is allowed,
one past it is not), every reader (JSONL line endings, JSON arrays, CSV, Parquet) numbering its lines the
way the user counts them, and the messages and report fields a submitter reads, checked word for word.

Written against surviving mutants of `leaderboard/intake/prediction_files.py` (issue 17): each test pins a
behaviour a plausible one-line slip would change. Files that are clean take the columnar path, so most
fixtures hold one problem (or pass `columnar=False`) to reach the line-by-line checks they are about.
"""
import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leaderboard.intake import prediction_files
from leaderboard.scoring import registry
from validation_helpers import messages, validate_text
from leaderboard.intake.prediction_files import (MAX_ISSUES_SHOWN, MAX_ROWS, MAX_STRING_CHARS, UNPAIRED_SURROGATE, FieldSpec, Issue, PredictionSchema, ValidationReport, human_bytes, validate)

MEDREAMM = registry.scorer("medreamm").schema  # diagnoses: string_list (max 100, scored 10); response: string
XPCR = registry.scorer("xpcr").schema  # answer: choice; confidence: number in [0, 1]; response: string
IDS = ["100", "200", "300"]


def check(tmp_path, text, name="p.jsonl", schema=MEDREAMM, ids=IDS, **kw):
    return validate_text(tmp_path, text, schema, ids, name, **kw)


def errors(report):
    return [str(i) for i in report.errors]


def jsonl(*rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


# --- field checks: types, exact limits, messages --------------------------------------------------------------

def test_a_string_field_names_the_type_it_got(tmp_path):
    r = check(tmp_path, jsonl({"id": "100", "response": 5}, {"id": "200", "response": ["a"]}))
    assert errors(r) == ["error: line 1, field 'response': must be a string, got int",
                         "error: line 2, field 'response': must be a string, got list"]


def test_a_string_at_the_character_limit_is_kept_one_more_is_refused(tmp_path):
    exact, over = "a" * MAX_STRING_CHARS, "b" * (MAX_STRING_CHARS + 1)
    r = check(tmp_path, jsonl({"id": "100", "response": exact}, {"id": "200", "response": over}))
    assert errors(r) == ["error: line 2, field 'response': is 100,001 characters; the limit is 100,000"]
    assert r.valid == {"100": {"response": exact}}


def test_unpaired_surrogates_are_refused_in_strings_and_list_items(tmp_path):
    text = ('{"id": "100", "response": "fever \\ud800"}\n'
            '{"id": "200", "diagnoses": ["Gout", "Lupus \\udc00"]}\n'
            '{"id": "300", "response": "paired \\ud83d\\ude00 is fine"}\n')
    r = check(tmp_path, text)
    assert errors(r) == [f"error: line 1, field 'response': {UNPAIRED_SURROGATE}",
                         f"error: line 2, field 'diagnoses': item 2 {UNPAIRED_SURROGATE}"]
    assert UNPAIRED_SURROGATE == ("contains an unpaired surrogate (a \\ud800-\\udfff escape without its pair); "
                                  "send valid Unicode")
    assert r.valid == {"300": {"response": "paired \U0001F600 is fine"}}


def test_a_list_field_names_what_it_got_instead_of_a_list(tmp_path):
    r = check(tmp_path, jsonl({"id": "100", "diagnoses": 3}, {"id": "200", "diagnoses": {"a": 1}},
                              {"id": "300", "diagnoses": "Gout"}))
    assert errors(r) == ["error: line 1, field 'diagnoses': must be a list of strings, got int",
                         "error: line 2, field 'diagnoses': must be a list of strings, got dict",
                         "error: line 3, field 'diagnoses': must be a JSON list of strings, got a single string"]


def test_a_diagnosis_of_exactly_1000_characters_is_kept_1001_is_refused(tmp_path):
    r = check(tmp_path, jsonl({"id": "100", "diagnoses": ["x", "a" * 1000]},
                              {"id": "200", "diagnoses": ["x", "y", "b" * 1001]}))
    assert errors(r) == ["error: line 2, field 'diagnoses': item 3 is 1,001 characters; one diagnosis per item, "
                         "at most 1,000"]
    assert r.valid == {"100": {"diagnoses": ["x", "a" * 1000]}}


def test_list_lengths_exactly_at_the_scored_and_hard_limits(tmp_path):
    ten = [f"d{i}" for i in range(10)]  # scored_items = 10: no warning
    hundred = [f"e{i}" for i in range(100)]  # max_items = 100: kept, with the "only the first 10" warning
    r = check(tmp_path, jsonl({"id": "100", "diagnoses": ten}, {"id": "200", "diagnoses": hundred}), columnar=False)
    assert messages(r) == ["warning: line 2, field 'diagnoses': has 100 items; only the first 10 are scored",
                           "warning: file: 1 of 3 items have no prediction; they count as wrong"]
    assert r.valid == {"100": {"diagnoses": ten}, "200": {"diagnoses": hundred}}


def test_numbers_from_text_cells_and_their_messages(tmp_path):
    text = "id,answer,confidence\n100,A,0.25\n200,B,abc\n300,C,inf\n"
    r = check(tmp_path, text, name="p.csv", schema=XPCR)
    assert errors(r) == ["error: line 3, field 'confidence': must be a number, got 'abc'",
                         "error: line 4, field 'confidence': must be a finite number"]
    assert r.valid == {"100": {"answer": "A", "confidence": 0.25}}


def test_numbers_of_the_wrong_type_are_named(tmp_path):
    r = check(tmp_path, jsonl({"id": "100", "answer": "A", "confidence": True},
                              {"id": "200", "answer": "A", "confidence": [0.5]},
                              {"id": "300", "answer": "A", "confidence": {"p": 0.5}}), schema=XPCR)
    assert errors(r) == ["error: line 1, field 'confidence': must be a number, got bool",
                         "error: line 2, field 'confidence': must be a number, got list",
                         "error: line 3, field 'confidence': must be a number, got dict"]


def test_an_overflowing_json_number_is_not_finite(tmp_path):
    # 1e999 is valid JSON that Python reads as inf
    r = check(tmp_path, '{"id": "100", "answer": "A", "confidence": 1e999}\n', schema=XPCR)
    assert errors(r) == ["error: line 1, field 'confidence': must be a finite number"]


def test_a_range_includes_both_ends(tmp_path):
    r = check(tmp_path, jsonl({"id": "100", "answer": "A", "confidence": 0}, {"id": "200", "answer": "B", "confidence": 1},
                              {"id": "300", "answer": "C", "confidence": 1.5}), schema=XPCR)
    assert errors(r) == ["error: line 3, field 'confidence': must be between 0.0 and 1.0, got 1.5"]
    assert r.valid == {"100": {"answer": "A", "confidence": 0.0}, "200": {"answer": "B", "confidence": 1.0}}
    below = check(tmp_path, jsonl({"id": "100", "answer": "A", "confidence": -0.01}), schema=XPCR)
    assert errors(below) == ["error: line 1, field 'confidence': must be between 0.0 and 1.0, got -0.01"]


def test_a_choice_outside_its_list_names_the_choices(tmp_path):
    r = check(tmp_path, jsonl({"id": "100", "answer": "A", "removed_modality": "MRI"},
                              {"id": "200", "answer": "B", "removed_modality": 5},
                              {"id": "300", "answer": "C", "removed_modality": "OCT"}), schema=XPCR)
    assert errors(r) == ["error: line 1, field 'removed_modality': must be one of CFP, OCT, FFA, ICGA, RetCam, EP, got 'MRI'",
                         "error: line 2, field 'removed_modality': must be one of CFP, OCT, FFA, ICGA, RetCam, EP, got 5"]
    assert r.valid == {"300": {"answer": "C", "removed_modality": "OCT"}}


def test_a_required_field_missing_or_null_is_named(tmp_path):
    clinmm = registry.scorer("clinmm").schema  # diagnosis: required string; reasoning: optional string
    r = check(tmp_path, jsonl({"id": "100", "diagnosis": "Gout"}, {"id": "200", "reasoning": "r"},
                              {"id": "300", "diagnosis": None}), schema=clinmm)
    assert errors(r) == ["error: line 2, field 'diagnosis': is required", "error: line 3, field 'diagnosis': is required"]
    assert r.valid == {"100": {"diagnosis": "Gout"}}


def test_a_schema_with_an_unknown_field_kind_is_a_programming_error(tmp_path):
    schema = PredictionSchema(fields=(FieldSpec("when", "date"),))
    with pytest.raises(ValueError, match="^unknown field kind date$"):
        check(tmp_path, '{"id": "100", "when": "2024-01-01"}\n', schema=schema, columnar=False)


def test_a_row_that_is_not_an_object_is_named(tmp_path):
    r = check(tmp_path, '["100", "Gout"]\n"100"\n{"id": "100", "response": "x"}\n')
    assert errors(r) == ["error: line 1: must be a JSON object, got list", "error: line 2: must be a JSON object, got str"]
    assert r.valid == {"100": {"response": "x"}}


def test_unknown_fields_are_a_warning_naming_five_of_them_in_order(tmp_path):
    row = {"id": "200", "response": "a", "zeta": 1, "alpha": 2, "b": 3, "c": 4, "d": 5,
           "a_very_long_field_name_that_goes_on": 6}
    r = check(tmp_path, jsonl({"id": "100", "response": "x", "notes": "kept quiet"}, row))
    assert messages(r) == [
        "warning: line 2: unknown field(s) 'a_very_long_field_name_tha..., 'alpha', 'b', 'c', 'd' ignored",
        "warning: file: 1 of 3 items have no prediction; they count as wrong"]
    assert r.ok and r.valid == {"100": {"response": "x"}, "200": {"response": "a"}}


def test_a_csv_cell_past_the_csv_module_limit_is_a_file_error_not_a_traceback(tmp_path):
    r = check(tmp_path, "id,response\n100," + "x" * 200_000 + "\n", name="p.csv")
    assert messages(r) == ["error: file: cannot read the file (Error: field larger than field limit (131072))"]


def test_a_file_that_cannot_be_opened_is_a_file_error_cut_at_120_characters(tmp_path):
    path = tmp_path / ("predictions_" + "x" * 120 + ".jsonl")  # never written
    reason = f"[Errno 2] No such file or directory: '{path}'"
    assert len(reason) > 121
    r = validate(path, MEDREAMM, IDS)
    assert messages(r) == [f"error: file: cannot read the file (FileNotFoundError: {reason[:120]})"]


def test_ids_given_as_an_arrow_column_and_a_hint_for_foreign_ids(tmp_path):
    # validate_file passes the answer key's id column as is, and a hint that names the benchmark an id belongs to
    def hint(item_id):
        return "an X-PCR id: wrong benchmark?" if item_id.startswith("XP") else None

    text = jsonl({"id": "100", "response": "a"}, {"id": "XP7", "response": "b"}, {"id": "Q9", "response": "c"})
    r = check(tmp_path, text, ids=pa.chunked_array([pa.array(["100", "200"])]), foreign_id_hint=hint)
    assert errors(r) == ["error: line 2, field 'id': unknown id 'XP7' (an X-PCR id: wrong benchmark?)",
                         "error: line 3, field 'id': unknown id 'Q9'"]
    assert r.valid == {"100": {"response": "a"}} and r.expected_ids == 2 and r.missing_ids == 1


def test_with_no_expected_ids_every_id_is_unknown(tmp_path):
    # a benchmark whose answer key is empty: the columnar path needs the id list typed as text even when empty
    r = check(tmp_path, jsonl({"id": "100", "diagnoses": ["A"]}), ids=[])
    assert messages(r) == ["error: line 1, field 'id': unknown id '100'"]
    assert r.coverage == 0.0 and r.expected_ids == 0


# --- ids shown in messages: shortened past 40 characters ------------------------------------------------------

def test_ids_in_messages_are_shown_whole_up_to_40_characters_then_cut(tmp_path):
    fits = "x" * 38  # repr with quotes: 40 characters, shown whole
    cut = "y" * 39  # repr: 41 characters, cut to 37 + "..."
    long = "z" * 60
    r = check(tmp_path, jsonl({"id": fits, "response": "a"}, {"id": cut, "response": "a"}, {"id": long, "response": "a"}))
    assert errors(r) == [f"error: line 1, field 'id': unknown id '{fits}'",
                         f"error: line 2, field 'id': unknown id '{'y' * 36}...",
                         f"error: line 3, field 'id': unknown id '{'z' * 36}..."]


def test_a_number_that_is_not_one_is_quoted_shortened(tmp_path):
    text = "id,answer,confidence\n100,A," + "q" * 50 + "\n"
    r = check(tmp_path, text, name="p.csv", schema=XPCR)
    assert errors(r) == ["error: line 2, field 'confidence': must be a number, got '" + "q" * 36 + "..."]


# --- JSONL: line endings, blank lines, decoder errors ---------------------------------------------------------

@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_each_line_ending_numbers_lines_as_an_editor_does(tmp_path, newline):
    rows = ['{"id": "100", "response": "a"}', "", '{"id": "zzz", "response": "b"}', '{"id": "300", "response": "c"}']
    r = check(tmp_path, newline.join(rows) + newline)
    assert messages(r) == ["error: line 3, field 'id': unknown id 'zzz'",
                           "warning: file: 1 of 3 items have no prediction; they count as wrong"]
    assert r.valid == {"100": {"response": "a"}, "300": {"response": "c"}}


def test_a_file_opening_with_blank_lines_counts_them(tmp_path):
    r = check(tmp_path, '\n\n{"id": "100", "response": "a"}\n{"id": "nope", "response": "b"}')
    assert errors(r) == ["error: line 4, field 'id': unknown id 'nope'"]
    assert r.rows_read == 2 and r.valid == {"100": {"response": "a"}}


def test_a_carriage_return_inside_a_crlf_file_is_a_line_break_too(tmp_path):
    # mixed endings: "\r\n" is one break, a lone "\r" another
    r = check(tmp_path, '{"id": "100", "response": "a"}\r\n{"id": "x1", "response": "b"}\r{"id": "x2", "response": "c"}\n')
    assert errors(r) == ["error: line 2, field 'id': unknown id 'x1'", "error: line 3, field 'id': unknown id 'x2'"]


def test_json_nested_too_deeply_is_one_line_error(tmp_path):
    deep = '{"id": "100", "diagnoses": ' + "[" * 100000 + "]" * 100000 + "}"
    r = check(tmp_path, deep + '\n{"id": "200", "response": "a"}\n')
    assert errors(r) == ["error: line 1: JSON nested too deeply"]
    assert r.valid == {"200": {"response": "a"}}


def test_a_decoder_message_is_cut_at_80_characters(tmp_path):
    # Python refuses integers of more than 4,300 digits with a ValueError whose text runs past 80 characters
    r = check(tmp_path, '{"id": "100", "answer": "A", "confidence": ' + "1" * 5001 + "}\n", schema=XPCR)
    reason = ("Exceeds the limit (4300 digits) for integer string conversion: value has 5001 digits; use "
              "sys.set_int_max_str_digits() to increase the limit")[:80]
    assert errors(r) == [f"error: line 1: not valid JSON ({reason})"]
    assert len(reason) == 80 and reason.endswith("value has 5001 di")


# --- JSON arrays ----------------------------------------------------------------------------------------------

def test_a_json_array_numbers_items_by_position(tmp_path):
    text = ' \n\t[ {"id": "100", "diagnoses": ["A"]} ,\r\n {"id": "999"},{"id": "300", "response": "x"}\n]\n '
    r = check(tmp_path, text, name="p.json")
    assert messages(r) == ["error: line 2, field 'id': unknown id '999'",
                           "warning: file: 1 of 3 items have no prediction; they count as wrong"]
    assert r.rows_read == 3 and r.valid == {"100": {"diagnoses": ["A"]}, "300": {"response": "x"}}


def test_a_json_array_with_one_item_and_no_whitespace(tmp_path):
    r = check(tmp_path, '[{"id":"200","response":"y"}]', name="p.json", columnar=False)
    assert r.rows_read == 1 and r.valid == {"200": {"response": "y"}}
    assert messages(r) == ["warning: file: 2 of 3 items have no prediction; they count as wrong"]


@pytest.mark.parametrize("text", ["[]", " [ \n ] \n", "[\t]"])
def test_an_empty_json_array_holds_no_predictions(tmp_path, text):
    r = check(tmp_path, text, name="p.json")
    assert messages(r) == ["error: file: the file holds no predictions (only blank lines or an empty list)"]
    assert r.rows_read == 0


@pytest.mark.parametrize("text, says, rows", [
    ('[{"id": "100", "response": "a"} {"id": "200"}]', "item 1 of the JSON array: not valid JSON (expected ',' or ']' after it)", 1),
    ('[{"id": "100", "response": "a"},\n {"id": "200", "response": "b"}', "item 2 of the JSON array: not valid JSON (expected ',' or ']' after it)", 2),
    ('[{"id": "100", "response": "a"}, {"id": "200", "response": }]', "item 2 of the JSON array: not valid JSON (Expecting value at column 60)", 1),
    ('[{"id": "100", "response": "a"}, ]', "item 2 of the JSON array: not valid JSON (Expecting value at column 34)", 1),
    ('[{"id": "100", "response": "a"}, NaN]', "item 2 of the JSON array: not valid JSON (NaN is not allowed)", 1),
    ('[{"id": "100", "response": "a"}] [', "not valid JSON (extra data after the closing ']')", 1),
    ('[{"id": "100", "response": "a"}]\n x', "not valid JSON (extra data after the closing ']')", 1),
    ('\u00a0[{"id": "100", "response": "a"}]', "not valid JSON (a JSON array must start with '[')", 0),  # no-break space
    ("[" + "[" * 100000 + "]" * 100000 + "]", "item 1 of the JSON array: not valid JSON (nested too deeply)", 0),
    ("[", "item 1 of the JSON array: not valid JSON (Expecting value at column 2)", 0),
    ("[ \n ", "item 1 of the JSON array: not valid JSON (Expecting value at column 2)", 0),  # column on line 2
    ('[{"id": "100", "response": "a"}  \n', "item 1 of the JSON array: not valid JSON (expected ',' or ']' after it)", 1),
    ("[]x", "not valid JSON (extra data after the closing ']')", 0),
    ('[{"id": "100", "response": "a"}]x', "not valid JSON (extra data after the closing ']')", 1),
    ('[{"id": "100", "response": "a"}]\x0c', "not valid JSON (extra data after the closing ']')", 1),  # not JSON whitespace
], ids=["no-comma", "unclosed", "bad-item", "trailing-comma", "nan", "second-array", "trailing-text", "nbsp-first",
        "too-deep", "bracket-only", "bracket-and-spaces", "unclosed-then-spaces", "empty-then-text", "text-after-bracket",
        "form-feed-after"])
def test_a_broken_json_array_is_refused_naming_the_item(tmp_path, text, says, rows):
    r = check(tmp_path, text, name="p.json")
    assert errors(r) == [f"error: file: {says}"]
    assert r.rows_read == rows


def test_only_a_json_file_is_read_as_an_array(tmp_path):
    # a JSONL file whose one line is a list is a line that is not an object
    r = check(tmp_path, '[{"id": "100", "response": "a"}]\n', name="p.jsonl")
    assert errors(r) == ["error: line 1: must be a JSON object, got list"]
    # a .json file holding JSON lines is read line by line
    r = check(tmp_path, '{"id": "100", "response": "a"}\n{"id": "nope", "response": "b"}\n', name="p.json")
    assert errors(r) == ["error: line 2, field 'id': unknown id 'nope'"]
    upper = check(tmp_path, '\n [{"id": "100", "response": "a"}, {"id": "nope"}]', name="P.JSON")
    assert errors(upper) == ["error: line 2, field 'id': unknown id 'nope'"]


# --- CSV --------------------------------------------------------------------------------------------------------

def test_csv_keeps_line_breaks_inside_a_quoted_cell_as_written(tmp_path):
    text = 'id,response\r\n100,"first line\r\nsecond line"\r\n200,"a\nb"\r\nzzz,c\r\n'
    r = check(tmp_path, text, name="p.csv")
    assert r.valid == {"100": {"response": "first line\r\nsecond line"}, "200": {"response": "a\nb"}}
    assert errors(r) == ["error: line 6, field 'id': unknown id 'zzz'"]  # the CSV line, counting the header


def test_csv_with_carriage_return_line_endings_is_read(tmp_path):
    # old Mac / some spreadsheet exports end lines with a lone "\r"
    r = check(tmp_path, "id,response\r100,a\rzzz,b\r", name="p.csv")
    assert errors(r) == ["error: line 3, field 'id': unknown id 'zzz'"]
    assert r.valid == {"100": {"response": "a"}}


def test_csv_without_a_header_row(tmp_path):
    assert messages(check(tmp_path, "\n\n", name="p.csv")) == ["error: file: CSV has no header row"]


def test_csv_rows_with_more_cells_than_the_header_are_named_and_reading_goes_on(tmp_path):
    r = check(tmp_path, "id,response\n100,a,b\n200,c\n", name="p.csv")
    assert messages(r) == ["error: line 2: more cells than header columns",
                           "warning: file: 2 of 3 items have no prediction; they count as wrong"]
    assert r.valid == {"200": {"response": "c"}}


# --- Parquet ------------------------------------------------------------------------------------------------

def write_parquet(path, ids, responses):
    pq.write_table(pa.table({"id": pa.array(ids, pa.string()), "response": pa.array(responses, pa.string())}), path)
    return path


def test_parquet_rows_are_numbered_from_one(tmp_path):
    path = write_parquet(tmp_path / "p.parquet", ["100", "zzz", "100"], ["a", "b", "c"])
    r = validate(path, MEDREAMM, IDS)
    assert errors(r) == ["error: line 2, field 'id': unknown id 'zzz'",
                         "error: line 3, field 'id': duplicate id '100' (first on line 1)"]


def test_a_parquet_file_is_recognised_by_its_magic_bytes_whatever_its_name(tmp_path):
    path = write_parquet(tmp_path / "predictions.jsonl", ["zzz", "200"], ["a", "b"])
    r = validate(path, MEDREAMM, IDS)
    assert errors(r) == ["error: line 1, field 'id': unknown id 'zzz'"]
    assert r.valid == {"200": {"response": "b"}}


@pytest.mark.parametrize("name", ["p.parquet", "p.PARQUET"])
def test_a_file_named_parquet_is_read_as_parquet(tmp_path, name):
    r = check(tmp_path, '{"id": "100", "response": "a"}\n', name=name)
    assert messages(r) == ["error: file: not a readable Parquet file (ArrowInvalid)"]


def test_invalid_utf8_in_a_later_parquet_batch_names_its_rows(tmp_path):
    """Batches are 10,000 rows: a bad string in row 10,002 of 10,003 refuses rows 10001-10003, after the
    first batch was read."""
    n = 10_003
    ids = [f"s{i}" for i in range(n)]
    data = bytearray(b"ok" * n)
    data[2 * 10_001: 2 * 10_001 + 2] = b"\xff\xfe"
    offsets = pa.py_buffer(b"".join((2 * i).to_bytes(4, "little") for i in range(n + 1)))
    responses = pa.Array.from_buffers(pa.string(), n, [None, offsets, pa.py_buffer(bytes(data))])
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"id": pa.array(ids), "response": responses}), path)
    r = validate(path, MEDREAMM, ids)
    assert errors(r) == ["error: file: rows 10001-10003: a text column is not valid UTF-8; save it as UTF-8"]
    assert r.rows_read == 10_000


# --- file level ---------------------------------------------------------------------------------------------

def test_a_file_exactly_at_the_size_limit_is_read(tmp_path):
    text = jsonl({"id": "100", "response": "a"}, {"id": "nope", "response": "b"})
    size = len(text.encode())
    assert errors(check(tmp_path, text, max_bytes=size)) == ["error: line 2, field 'id': unknown id 'nope'"]
    assert errors(check(tmp_path, text, max_bytes=size - 1)) == [f"error: file: file is {size:,} bytes; the limit is "
                                                                  f"{size - 1:,} bytes"]
    # 1,040 and 1,000 bytes both round to "1.0 kB": the message gives exact bytes instead of one figure twice
    padded = jsonl({"id": "100", "response": "a" * 1010})
    assert len(padded.encode()) == 1_040
    assert errors(check(tmp_path, padded, max_bytes=1_000)) == ["error: file: file is 1,040 bytes; the limit is 1,000 bytes"]


def test_invalid_utf8_names_its_line_and_byte(tmp_path):
    text = b'{"id": "100", "response": "a"}\n\n{"id": "200", "response": "caf\xe9"}\n'
    assert messages(check(tmp_path, text)) == ["error: file: line 3: file is not valid UTF-8 (byte 62); save it as UTF-8"]


def test_the_row_limit_stops_reading(tmp_path, monkeypatch):
    # the real bound (10^6 rows) costs ~10 s of validation; the same code path with a bound of 1,002
    monkeypatch.setattr(prediction_files, "MAX_ROWS", 1_002)
    r = check(tmp_path, "1\n" * 1_003 + '{"id": "100", "response": "a"}\n')
    assert r.rows_read == 1_002 and r.valid == {}
    assert len(r.errors) == 1_003
    assert str(r.errors[-1]) == ("error: file: the file has more than 1,002 rows; no benchmark has that many items "
                                 "(rows after that were not read)")
    assert str(r.errors[-2]) == "error: line 1002: must be a JSON object, got int"
    assert MAX_ROWS == 1_000_000


# --- the report -------------------------------------------------------------------------------------------------

def test_the_table_of_valid_predictions_keeps_the_schema_types_when_a_field_is_never_given(tmp_path):
    # scoring reads `report.table`: a field no line gave is a typed column of nulls, not a column of type null
    r = check(tmp_path, jsonl({"id": "100", "answer": "A"}, {"id": "nope", "answer": "B"}), schema=XPCR)
    assert r.path == "line-by-line"
    assert r.table.schema == pa.schema([("id", pa.string()), ("response", pa.string()), ("answer", pa.string()),
                                        ("confidence", pa.float64()), ("removed_modality", pa.string())])
    assert r.table.to_pylist() == [{"id": "100", "response": None, "answer": "A", "confidence": None,
                                    "removed_modality": None}]


def test_to_dict_is_what_the_cli_writes_as_json(tmp_path):
    r = check(tmp_path, jsonl({"id": "100", "response": "a"}, {"id": "zzz", "response": "b"}))
    assert r.to_dict() == {
        "ok": False, "format": "native", "rows_read": 2, "valid": 1, "expected": 3, "missing": 2, "coverage": 1 / 3,
        "issues": [{"line": 2, "field": "id", "message": "unknown id 'zzz'", "severity": "error"},
                   {"line": None, "field": None, "message": "2 of 3 items have no prediction; they count as wrong",
                    "severity": "warning"}],
        "issues_total": 2,
    }


def test_to_dict_lists_at_most_200_issues_and_counts_them_all(tmp_path):
    r = check(tmp_path, "".join(f'{{"id": "x{i}"}}\n' for i in range(MAX_ISSUES_SHOWN + 5)))
    d = r.to_dict()
    assert d["issues_total"] == MAX_ISSUES_SHOWN + 5 + 1  # + the missing-items warning
    assert len(d["issues"]) == MAX_ISSUES_SHOWN and d["issues"][-1]["line"] == MAX_ISSUES_SHOWN


def hand_report(issues, **kw):
    return ValidationReport(rows_read=4, expected_ids=4, issues=issues, _valid={"100": {}, "200": {}}, **kw)


def test_render_orders_issues_by_line_with_file_level_ones_last():
    # validate_file inserts a file-level hint first; benchmark checks append line issues at the end
    report = hand_report([Issue(None, None, "looks like another benchmark", "warning"), Issue(7, "id", "late"),
                          Issue(2, None, "early"), Issue(None, None, "2 of 4 items have no prediction", "warning"),
                          Issue(3, "answer", "middle", "warning")])
    assert report.render().splitlines() == [
        "4 rows read, 2 valid predictions for 4 items (coverage 50.0%), 2 errors, 3 warnings",
        "error: line 2: early",
        "warning: line 3, field 'answer': middle",
        "error: line 7, field 'id': late",
        "warning: file: looks like another benchmark",
        "warning: file: 2 of 4 items have no prediction",
    ]


def test_render_says_how_many_issues_it_left_out_only_when_it_left_some_out():
    issues = [Issue(n, None, f"problem {n}") for n in range(1, 6)]
    assert hand_report(issues).render(limit=5).splitlines()[1:] == [f"error: line {n}: problem {n}" for n in range(1, 6)]
    assert hand_report(issues).render(limit=2).splitlines()[1:] == ["error: line 1: problem 1", "error: line 2: problem 2",
                                                                    "... 3 more issues not shown"]


def test_summary_counts_optional_items_apart():
    # scoring sets optional_valid for predictions of optional items (X-PCR's modality-ablation runs)
    report = ValidationReport(rows_read=5, expected_ids=4, optional_valid=2,
                              _valid={i: {} for i in ("100", "200", "300", "o1", "o2")})
    assert report.summary() == ("5 rows read, 3 valid predictions (+2 for optional items) for 4 items "
                                "(coverage 75.0%), 0 errors, 0 warnings")
    assert hand_report([]).summary() == "4 rows read, 2 valid predictions for 4 items (coverage 50.0%), 0 errors, 0 warnings"


@pytest.mark.parametrize("n, shown", [(999, "999 bytes"), (1000, "1.0 kB"), (999_999, "1000.0 kB"), (10**6, "1.0 MB"),
                                      (999_999_999, "1000.0 MB"), (10**9, "1.0 GB"), (2_345_678_901, "2.3 GB")])
def test_human_bytes_uses_decimal_units(n, shown):
    assert human_bytes(n) == shown
