"""One door (issue 25): at request time the Space process reads no upload content. Validation, hashes, file
hints, the injection scan and the run-settings sidecar run in the check child (leaderboard/operations/upload_check.py);
the parent only copies accepted bytes into the store. A check over its time or memory limit gets a verdict."""
from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import pytest

from leaderboard.intake import file_hints, parquet_guard, prediction_files, run_settings
from leaderboard.operations import review, upload_check
from leaderboard.scoring import score_file as scoring
from leaderboard.scoring.judge import safety
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore
from test_medreamm_scoring import PREDICTIONS

# Functions that read or interpret upload content: none of them may run in the Space process during submit.
READERS = {prediction_files.read_rows, prediction_files.validate, parquet_guard.open_checked,
           parquet_guard.guarded_batches, review.suspected_injections, safety.find_injection, safety.injection_kinds,
           file_hints.add_format_hints, file_hints.IdHints.__call__, run_settings.read_run_settings,
           scoring.validate_file, upload_check.content_digest, upload_check.sha256_file, upload_check.CheckJob.run}
READER_CODES = {f.__code__: f"{f.__module__}.{f.__qualname__}" for f in READERS}


class Watch:
    """Records, in this process: every Python-level open of a watched path (with the functions on the stack)
    and every call of a READERS function, from any thread. An audit hook cannot be removed, so it is
    installed once and switched by `paths`."""

    paths: set[str] = set()
    opens: list[tuple[str, list[str]]] = []
    calls: list[str] = []
    _installed = False

    @classmethod
    def _audit(cls, event, args):
        if event != "open" or not cls.paths or not isinstance(args[0], (str, bytes, os.PathLike)):
            return
        path = os.path.realpath(os.fsdecode(args[0]))
        if path in cls.paths:
            frame, stack = sys._getframe(1), []
            while frame is not None:
                stack.append(frame.f_code.co_name)
                frame = frame.f_back
            cls.opens.append((path, stack))

    @classmethod
    def _profile(cls, frame, event, arg):
        if event == "call" and frame.f_code in READER_CODES:
            cls.calls.append(READER_CODES[frame.f_code])

    @classmethod
    def start(cls, *paths: Path) -> None:
        if not cls._installed:
            sys.addaudithook(cls._audit)
            cls._installed = True
        cls.opens, cls.calls = [], []
        cls.paths = {os.path.realpath(p) for p in paths}
        sys.setprofile(cls._profile)
        threading.setprofile(cls._profile)

    @classmethod
    def stop(cls) -> None:
        sys.setprofile(None)
        threading.setprofile(None)
        cls.paths = set()


def make_service(tmp_path, built, **kw) -> Service:
    return Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": built}, **kw)


def write_upload(tmp_path, rows, name="preds.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_meta(tmp_path) -> Path:
    meta = tmp_path / "preds.jsonl.meta.json"
    meta.write_text(json.dumps({"benchmark": "medreamm", "model": "m1", "protocol": {"name": "medreamm", "version": "1"},
                                "runs": [{"tasks_failed": 1}]}), encoding="utf-8")
    return meta


def test_the_space_process_reads_no_upload_content_at_request_time(tmp_path, tiny_built):
    service = make_service(tmp_path, tiny_built)
    good, meta = write_upload(tmp_path, PREDICTIONS), write_meta(tmp_path)
    bad = write_upload(tmp_path, [{"id": "100", "diagnoses": "Cholera"}, {"id": "nope"}], "bad.jsonl")
    try:
        Watch.start(good, meta, bad)
        accepted = service.submit("alice", SubmissionForm("medreamm", "Door A"), good, settings=meta)
        refused = service.submit("alice", SubmissionForm("medreamm", "Door B"), bad)
    finally:
        Watch.stop()
        service.stop()
    assert accepted.accepted, accepted.message
    assert "valid predictions" in accepted.report  # the report the child rendered
    assert not refused.accepted and "line 1, field 'diagnoses'" in refused.report and "unknown id 'nope'" in refused.report
    record = service.status_for("alice")[0]
    assert record["run_settings"]["tasks_failed"] == 1 and len(record["file_sha256"]) == 64  # computed in the child
    assert Watch.calls == []  # no reader ran in this process
    readers = [(path, stack[:4]) for path, stack in Watch.opens if "store_upload" not in stack]
    assert readers == []  # the upload was opened only to copy it into the store ...
    assert [path for path, _ in Watch.opens] == [os.path.realpath(good)]  # ... the accepted one, once
    stored = service.store.private("uploads", accepted.submission_id, "predictions.jsonl")
    assert stored.read_bytes() == good.read_bytes()


def test_the_watch_sees_a_reader_run_in_this_process(tmp_path, tiny_built):
    """The control: the same check run here instead of in the child is caught by both records."""
    service = make_service(tmp_path, tiny_built)
    good = write_upload(tmp_path, PREDICTIONS)
    job = service._check_job("medreamm", good, None)
    try:
        Watch.start(good)
        assert job.run().ok
    finally:
        Watch.stop()
        service.stop()
    assert "leaderboard.intake.prediction_files.validate" in Watch.calls
    assert "leaderboard.operations.upload_check.sha256_file" in Watch.calls
    assert any("store_upload" not in stack for _, stack in Watch.opens)


def test_the_quota_is_checked_before_the_child_spends_time_on_the_file(tmp_path, tiny_built):
    service = make_service(tmp_path, tiny_built, quota_per_day=0)
    try:
        outcome = service.submit("alice", SubmissionForm("medreamm", "Over"), write_upload(tmp_path, PREDICTIONS))
    finally:
        service.stop()
    assert not outcome.accepted and outcome.message.startswith("Daily quota reached (0/0")
    assert outcome.report == "" and all(p._process is None for p in service._checker._all)  # no child started


@pytest.mark.parametrize("limits, says", [({"check_seconds": 0.001}, "The file took too long to check (over the 0 s limit)"),
                                          ({"check_memory_mb": 1}, "The file took too much memory to check (over the 1 MB limit)")])
def test_a_check_over_its_limit_gets_a_verdict_and_the_next_upload_is_checked(tmp_path, tiny_built, limits, says):
    service = make_service(tmp_path, tiny_built, **limits)
    upload = write_upload(tmp_path, PREDICTIONS)
    try:
        stopped = service.submit("alice", SubmissionForm("medreamm", "Limited"), upload)
        service.check_seconds, service.check_memory_mb = 120.0, 2500
        again = service.submit("alice", SubmissionForm("medreamm", "Limited"), upload)
    finally:
        service.stop()
    assert not stopped.accepted and stopped.message.startswith(says), stopped.message
    assert "does not count against your quota" in stopped.message and service.used_today("alice") == 1
    assert again.accepted, again.message


def test_a_check_child_outlives_the_thread_that_started_it(tmp_path, tiny_built):
    """PR_SET_PDEATHSIG follows the thread that started the child: request threads come and go, the check
    children must not die with them (three concurrent submits once lost one to a SIGKILL)."""
    service = make_service(tmp_path, tiny_built)
    first = write_upload(tmp_path, PREDICTIONS)
    second = write_upload(tmp_path, PREDICTIONS[:2], "second.jsonl")
    outcomes = []
    try:
        starter = threading.Thread(target=lambda: outcomes.append(service.submit("alice", SubmissionForm("medreamm",
                                                                                                          "T1"), first)))
        starter.start()
        starter.join()  # the thread that started the check child has ended
        outcomes.append(service.submit("alice", SubmissionForm("medreamm", "T2"), second))
    finally:
        service.stop()
    assert [o.accepted for o in outcomes] == [True, True], [o.message for o in outcomes]
