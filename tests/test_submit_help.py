"""Submitting helps: validation whatever the quota, did-you-mean, wrong-benchmark and format hints."""
import json

import pytest

from conftest import ROOT
from leaderboard.scoring import registry
from leaderboard.operations.examples import example_line
from leaderboard.scoring.score_file import validate_file
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore

MEDCMR_EXAMPLE = ROOT / "submissions" / "medcmr" / "example_predictions.jsonl"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    from dataset_builders.stage import build

    root = tmp_path_factory.mktemp("hub")
    for name in ("medreamm", "medcmr"):
        build(registry.adapter(name), ROOT / "benchmarks" / name / "sample", root, progress=False, sample=True)
    return root


def service(tmp_path, hub, quota=5):
    return Service(store=LocalStore(tmp_path / "store"), data_dirs={n: hub / n for n in ("medreamm", "medcmr")},
                   quota_per_day=quota)


def test_did_you_mean_for_near_ids(tmp_path, hub):
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "S001", "diagnoses": ["x"]}\n{"id": "s0002", "diagnoses": ["x"]}\n'
                    '{"id": "zzzzzz-unrelated", "diagnoses": ["x"]}\n')
    report, _ = validate_file("medreamm", path, hub / "medreamm")
    text = report.render()
    assert "line 1, field 'id': unknown id 'S001' (did you mean 'S0001'?)" in text
    assert "line 2, field 'id': unknown id 's0002' (did you mean 'S0002'?)" in text
    assert "unknown id 'zzzzzz-unrelated'\n" in text + "\n"  # nothing close: no guess


def test_a_file_for_another_benchmark_is_named(tmp_path, hub):
    svc = service(tmp_path, hub)
    outcome = svc.submit("alice", SubmissionForm("medreamm", "M"), MEDCMR_EXAMPLE)
    assert not outcome.accepted
    rows = sum(1 for line in MEDCMR_EXAMPLE.read_text().splitlines() if line.strip())
    assert f"This looks like a Med-CMR file: {rows} of {rows} ids are Med-CMR ids." in outcome.message
    assert "unknown id 'mcq-0' (a Med-CMR id)" in outcome.report


def test_csv_list_cells_and_single_quoted_json_get_a_fix(tmp_path, hub):
    csv_file = tmp_path / "p.csv"
    csv_file.write_text("id,diagnoses\nS0001,Coeliac disease\nS0002,\"['Cholera', 'Typhoid']\"\n")
    text = validate_file("medreamm", csv_file, hub / "medreamm")[0].render()
    assert ("line 2, field 'diagnoses': must be a JSON list of strings, got a single string (in CSV a list goes in one "
            "cell as a JSON array with double quotes") in text
    assert "line 3, field 'diagnoses': must be a JSON list of strings, got a single string (a Python list with " \
           "single quotes?" in text
    jsonl = tmp_path / "q.jsonl"
    jsonl.write_text("{'id': 'S0001', 'diagnoses': ['Cholera']}\n" + json.dumps({"id": "S0002", "diagnoses": ["x"]}) + "\n")
    text = validate_file("medreamm", jsonl, hub / "medreamm")[0].render()
    assert "line 1: not valid JSON" in text and "(single quotes? JSON needs double quotes" in text


def test_over_the_quota_no_check_is_spent_and_the_offline_check_is_named(tmp_path, hub):
    """Issue 25: the quota is checked before the check child spends time on a file (an account over its quota
    could otherwise keep the checkers busy); `python -m leaderboard validate` gives the same report offline."""
    svc = service(tmp_path, hub, quota=0)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "S0001", "diagnoses": "Coeliac disease"}\n')
    outcome = svc.submit("alice", SubmissionForm("medreamm", "M"), bad)
    assert not outcome.accepted and outcome.report == "" and "Daily quota reached (0/0" in outcome.message
    assert "python -m leaderboard validate" in outcome.message and svc.queue_records() == []


def test_example_line_per_benchmark_is_a_valid_prediction(tmp_path, hub):
    for name in ("medreamm", "medcmr"):
        line = example_line(registry.scorer(name))
        path = tmp_path / f"{name}.jsonl"
        path.write_text(line + "\n")
        report, _ = validate_file(name, path, hub / name)
        assert report.ok and report.n_valid == 1, report.render()
