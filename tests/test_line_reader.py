"""Never trust a declared size, text edition (issue 25): a JSONL/CSV upload stays bytes; lines are split at
\\n, \\r\\n or \\r on bytes and each is decoded alone once its decoded size (length x widest character) is known."""
from __future__ import annotations

import json
import tracemalloc

import pytest

from leaderboard.intake import line_reader
from leaderboard.intake.line_reader import Line, NotUtf8, check_utf8, lines
from leaderboard.intake.prediction_files import PredictionSchema, FieldSpec, validate

SCHEMA = PredictionSchema(fields=(FieldSpec("response", "string", required=True),))
IDS = ["a", "b", "c", "d"]


def messages(report):
    return [str(i) for i in report.issues if i.severity == "error"]


def test_lines_split_on_bytes_at_lf_crlf_and_cr_only():
    raw = "x\r\ny\u2028z\rw\n\nlast".encode("utf-8")
    found = [raw[l.start:l.end].decode("utf-8") for l in lines(raw)]
    assert found == ["x", "y\u2028z", "w", "", "last"]
    assert list(lines(b"")) == [Line(1, 0, 0, 0)] and [l.number for l in lines(b"a\n")] == [1, 2]


def test_utf8_is_checked_in_steps_naming_line_and_byte():
    raw = b"\xef\xbb\xbf" + b"a" * ((1 << 20) - 2) + "\u20ac".encode("utf-8") + b"\nok\n\xc3("  # the euro cut by a step
    with pytest.raises(NotUtf8, match=r"^line 3: file is not valid UTF-8 \(byte 1048581\)"):  # counted after the BOM
        check_utf8(raw, 3)
    check_utf8(raw[:-2], 3)  # the cut character alone is fine


def test_a_wide_line_is_refused_before_decoding_and_named(tmp_path, monkeypatch):
    monkeypatch.setattr(line_reader, "MAX_LINE_DECODED", 4_000_000)
    wide = json.dumps({"id": "b", "response": "\U0001F600" + "x" * 1_500_000}, ensure_ascii=False)  # 4 bytes a char: 6 MB
    ascii_ = json.dumps({"id": "c", "response": "x" * 3_000_000})  # 3 MB at 1 byte a character: decoded, then checked
    path = tmp_path / "p.jsonl"
    path.write_bytes("\r".join([json.dumps({"id": "a", "response": "ok"}), wide, ascii_, ""]).encode("utf-8"))
    report = validate(path, SCHEMA, IDS, columnar=False)
    assert messages(report) == [
        "error: line 2: the line is 1,500,031 bytes (its widest character takes 4 bytes per character once decoded); "
        "a line may take at most 4 MB once decoded: put one prediction per line",
        "error: line 3, field 'response': is 3,000,000 characters; the limit is 100,000"]
    assert report.rows_read == 3 and list(report.valid) == ["a"]


def test_a_long_csv_line_is_refused_naming_it(tmp_path, monkeypatch):
    monkeypatch.setattr(line_reader, "MAX_LINE_DECODED", 1_000_000)
    path = tmp_path / "p.csv"
    path.write_bytes(b"id,response\r\na,ok\r\nb," + "\u4e2d".encode("utf-8") * 200_000 + b"\r\n")  # 600 kB x 2
    assert messages(validate(path, SCHEMA, IDS, columnar=False)) == [
        "error: file: line 3: the line is 600,002 bytes (its widest character takes 2 bytes per character once "
        "decoded); a line may take at most 1 MB once decoded: put one prediction per line"]


def test_memory_follows_the_lines_not_the_widest_character_of_the_file(tmp_path):
    """One 4-byte character and CR line ends used to make the whole decoded file 4 bytes a character, twice
    (the CR -> LF copies): ~12x the file. Now the file's bytes plus one line at a time."""
    rows = [json.dumps({"id": "a", "response": "\U0001F600"})]
    rows += [json.dumps({"id": "b", "response": "x" * 90_000})] * 200  # 18 MB of lines, duplicates of b after one
    path = tmp_path / "p.jsonl"
    path.write_bytes("\r".join(rows).encode("utf-8"))
    size = path.stat().st_size
    tracemalloc.start()
    try:
        report = validate(path, SCHEMA, IDS, columnar=False)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report.rows_read == 201 and "duplicate id 'b' (first on line 2)" in report.render()
    assert peak < 1.5 * size, f"peak {peak / 1e6:.1f} MB for a {size / 1e6:.1f} MB file"
