"""An upload is validated once per submission (issue 30): the check child keeps the table it validated beside
the stored upload, and the scoring child scores that table instead of reading the file again. A kept table
that does not match its hash is never used: the upload is then validated as before."""
import json

import pytest

from leaderboard.intake import validated_upload
from leaderboard.scoring.score_file import validate_file
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore
from test_medreamm_scoring import PREDICTIONS
from test_service import context

KEPT = ["validated.parquet", "validation.json"]


def _upload(tmp_path, lines, name="preds.jsonl"):
    path = tmp_path / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def _form():
    return SubmissionForm(benchmark="medreamm", model_name="Model A")


def test_a_kept_report_reads_back_as_the_report_validation_gave(tmp_path, tiny_built):
    # an unknown id, a wrong type and a duplicate: issues, counts and the table must all come back
    lines = [*PREDICTIONS, {"id": "nope", "diagnoses": ["x"]}, {"id": "100", "diagnoses": ["again"]},
             {"id": "200", "diagnoses": 7}]
    report, _ = validate_file("medreamm", _upload(tmp_path, lines), tiny_built)
    validated_upload.keep(report, tmp_path / "kept")
    back = validated_upload.load(tmp_path / "kept")
    assert back is not None and back.table.equals(report.table)
    assert [str(i) for i in back.issues] == [str(i) for i in report.issues] and len(back.issues) >= 3
    assert (back.rows_read, back.missing_ids, back.expected_ids, back.optional_valid, back.format, back.path) == \
           (report.rows_read, report.missing_ids, report.expected_ids, report.optional_valid, report.format, report.path)
    assert back.render() == report.render()


def test_a_kept_table_that_does_not_match_its_hash_is_not_used(tmp_path, tiny_built):
    report, _ = validate_file("medreamm", _upload(tmp_path, PREDICTIONS), tiny_built)
    folder = tmp_path / "kept"
    validated_upload.keep(report, folder)
    data = bytearray((folder / "validated.parquet").read_bytes())
    data[len(data) // 2] ^= 0x01
    (folder / "validated.parquet").write_bytes(bytes(data))
    assert validated_upload.load(folder) is None
    assert validated_upload.load(tmp_path / "nowhere") is None


@pytest.fixture
def service(tmp_path, tiny_built):
    svc = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": tiny_built}, context_factory=context)
    yield svc
    svc.stop()


def _score(service, sub_id):
    service.score_one(sub_id)
    record = service.store.read_json(service.queue_path(sub_id))
    assert record["state"] == "finished", record
    return next(e.result for e in service.entries("medreamm") if e.result.source == "submission")


def test_scoring_uses_the_table_the_check_validated_not_the_file_again(tmp_path, service):
    outcome = service.submit("alice", _form(), _upload(tmp_path, PREDICTIONS))
    assert outcome.accepted, outcome.message
    folder = service.store.private("uploads", outcome.submission_id)
    assert sorted(p.name for p in folder.iterdir()) == ["predictions.jsonl", *KEPT]
    # the stored upload now holds only an unknown id: were it read again, nothing would be scored
    (folder / "predictions.jsonl").write_text('{"id": "nope", "diagnoses": ["Cholera"]}\n', encoding="utf-8")
    result = _score(service, outcome.submission_id)
    assert result.metrics["ndcg10_icd"] == pytest.approx(63.3517, abs=1e-3)  # as in test_medreamm_scoring
    assert result.n_answered == 3


def test_without_a_usable_kept_table_the_upload_is_validated_again(tmp_path, service):
    outcome = service.submit("alice", _form(), _upload(tmp_path, PREDICTIONS))
    folder = service.store.private("uploads", outcome.submission_id)
    (folder / "validated.parquet").write_bytes(b"PAR1 not the kept table")
    (folder / "predictions.jsonl").write_text('{"id": "nope", "diagnoses": ["Cholera"]}\n', encoding="utf-8")
    result = _score(service, outcome.submission_id)
    assert result.n_answered == 0 and result.metrics["ndcg10_icd"] == 0.0  # the file as it now is
