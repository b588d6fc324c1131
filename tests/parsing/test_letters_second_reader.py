"""bench/letters_second_reader.py: readers' agreement and the rule with a second reader on its unparseable rows,
counted by hand on a five-row set."""
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("letters_second_reader", ROOT / "bench" / "letters_second_reader.py")
second_reader = importlib.util.module_from_spec(_spec)
sys.modules["letters_second_reader"] = second_reader  # a dataclass looks its module up while it is defined
_spec.loader.exec_module(second_reader)

CXR = {"A": "Pneumothorax", "B": "Pleural effusion", "C": "Lobar pneumonia", "D": "Pulmonary edema"}
ROWS = [  # (response, first reader's label); the rule's reading in the comment
    ("Answer: B", "B"),                                                    # rule B: agrees
    ("There is blood layering in the pleural space; that is the diagnosis.", "B"),  # rule None: routed
    ("I can't tell from this image.", None),                               # rule None: routed
    ("Answer: A", "C"),                                                    # rule A: a rule miss, not routed
    ("Mostly water in the lung fields, I think.", "D"),                    # rule None: routed, unlabelled
]


def _write(tmp_path: Path, name: str, rows) -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_combined_reading_and_the_readers_agreement(tmp_path, capsys):
    blind = _write(tmp_path, "blind_letters7.jsonl", [
        {"text": t, "options": CXR, "letters": "ABCD", "expected": e} for t, e in ROWS])
    # the second reader: agrees on rows 1 and 2, says C on row 3 (the first reader: none), skips rows 4-5;
    # a row of another set ("8-2") is ignored
    labels = _write(tmp_path, "labels.jsonl", [{"id": 1, "label": "B"}, {"id": "7-2", "label": "B"},
                                               {"id": "7-3", "label": "C"}, {"id": "8-2", "label": "A"}])
    tally = second_reader.Tally()
    second_reader.measure(blind, [labels], tally)
    assert (tally.rows, tally.rule, tally.routed) == (5, 2, 3)  # the rule reads rows 1 and 3 right (3 as none)
    assert (tally.both_labelled, tally.readers_agree) == (3, 2)
    # combined: row 1 (rule B), row 2 (reader B) right; row 3 (reader C, meant none), row 4 (rule A), row 5 (no label) wrong
    assert tally.combined == 2
    assert tally.misses == {"fallback: a letter where none was meant": 1, "rule: the wrong letter": 1,
                            "fallback: no letter where one was meant": 1}
    assert second_reader.main([str(blind), str(labels)]) == 0
    out = capsys.readouterr().out
    assert "agrees with the first reader on 2/5 = 40.0 %" in out and "the readers agree on 2/3" in out
    assert "on the 3 rows it leaves unparseable: 2/5 = 40.0 %" in out
