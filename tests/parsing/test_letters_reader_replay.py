"""bench/letters_reader_replay.py: the prompts exported are the product's, and the measure replays a reader's
answers through the real client (refused answers count as none), counted by hand on a five-row set."""
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("letters_reader_replay", ROOT / "bench" / "letters_reader_replay.py")
replay = importlib.util.module_from_spec(_spec)
sys.modules["letters_reader_replay"] = replay
_spec.loader.exec_module(replay)

CXR = {"A": "Pneumothorax", "B": "Pleural effusion", "C": "Lobar pneumonia", "D": "Pulmonary edema"}
ROWS = [  # (response, the writer's label); the rule's reading in the comment
    ("Answer: B", "B"),                                                              # rule B: not routed
    ("There is blood layering in the pleural space; that is the diagnosis.", "B"),  # rule None: the reader B
    ("I can't tell from this image.", None),                                        # rule None: the reader none
    ("Answer: A", "C"),                                                              # rule A: a rule miss
    ("Mostly water in the lung fields, I think.", "D"),                              # rule None: the reader "E"
]


def test_export_then_measure(tmp_path, capsys):
    blind = tmp_path / "blind_letters7.jsonl"
    blind.write_text("".join(json.dumps({"text": t, "options": CXR, "letters": "ABCD", "expected": e}) + "\n"
                             for t, e in ROWS), encoding="utf-8")
    prompts = tmp_path / "prompts.jsonl"
    assert replay.main(["export", str(blind), "--out", str(prompts)]) == 0
    exported = [json.loads(line) for line in prompts.read_text(encoding="utf-8").splitlines()]
    assert [p["id"] for p in exported] == ["7-2", "7-3", "7-5"]  # only the rows the rule leaves unparseable
    assert "A. Pneumothorax\nB. Pleural effusion" in exported[0]["user"] and "blood layering" in exported[0]["user"]
    assert "Answer: B" not in "".join(p["user"] for p in exported) and '"letter"' in exported[0]["system"]
    assert all(set(p) == {"id", "system", "user"} for p in exported)  # no label goes to the reader
    answers = tmp_path / "answers.jsonl"
    answers.write_text("\n".join(json.dumps(a) for a in [{"id": "7-2", "letter": "B"}, {"id": "7-3", "letter": None},
                                                         {"id": "7-5", "letter": "E"}]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert replay.main(["measure", str(blind), "--answers", str(answers)]) == 0
    out = capsys.readouterr().out
    # the rule alone: rows 1 and 3 right (2 of 5); with the reader: row 2 too (3 of 5); row 5's "E" is beyond the
    # options: refused on both attempts, a failure counted as none
    assert "set 7: letters-v13 alone 2/5; with the reader on its 3 unparseable rows 3/5" in out
    assert "reader failures 1 {'malformed verdict': 1}, HTTP requests 4" in out
    assert "reader: no letter where one was meant: 1" in out and "rule: the wrong letter: 1" in out


def test_round_12_sets_with_their_readers_answers_read_as_measured(capsys):
    # six sets written after letters-v13 was final and their reader's answers to the exported prompts
    # (tests/parsing/heldout/README.md, round 12), replayed through the real client as measured at 973d3a7
    heldout = ROOT / "tests" / "parsing" / "heldout"
    sets = [str(heldout / f"blind_letters{n}.jsonl") for n in range(51, 57)]
    answers = [str(heldout / f"reader_answers{n}.jsonl") for n in range(51, 57)]
    capsys.readouterr()
    assert replay.main(["measure", *sets, "--answers", *answers]) == 0
    out = capsys.readouterr().out
    assert ("all: letters-v13 alone 1181/1200 = 98.4 % (Wilson 97.5-99.0); with the reader 1194/1200 = 99.5 % "
            "(Wilson 98.9-99.8); routed 198 (16.5 %), reader failures 0 {}, HTTP requests 198") in out
