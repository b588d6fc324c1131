"""SIGKILL the real Space while a submission is being scored, restart it on the same store: the submission
finishes, only the judge call that was in flight is made again (the verdict cache survived the kill), and
the public record, per-item scores and bootstrap resamples equal those of an uninterrupted run.

Scoring is held mid-way deterministically: the fake judge answers every criterion at once except C3
(tests/medrealmm_release.py), which it holds until the Space has been killed."""
import json
import threading
import time

import numpy as np
import pyarrow.parquet as pq
from gradio_client import Client

from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring.engine import CI_RESAMPLES
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.judge import Judge, JudgeConfig
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore
from medrealmm_release import build_release
from reliability_helpers import Space, check_store, status_rows, submit_form
from test_medrealmm_scoring import EXPECTED, PREDICTIONS, tag_of, verdict_responder, write_predictions

HELD = "C3"
JUDGED = 9  # A, B, C: three criteria each; E's reply is empty (no call), D is unanswered


def wait(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def queue_record(store):
    records = [json.loads(p.read_text()) for p in (store / "private" / "queue").glob("*.json")]
    assert len(records) == 1
    return records[0]


def comparable(record):
    """The public record without what legitimately differs between two runs."""
    record = dict(record)
    for name in ("created_at", "submission_id"):
        record.pop(name, None)
    record["protocol"] = {k: v for k, v in record["protocol"].items() if k != "judge_stats"}  # calls vs cache hits
    return record


def test_sigkill_during_scoring_then_restart_finishes_with_the_uninterrupted_result(tmp_path):
    hub = build_release(tmp_path).parent
    pred = write_predictions(tmp_path / "pred.jsonl", PREDICTIONS)
    gate, answered = threading.Event(), []

    def held_responder(body):
        if tag_of(body) == HELD:
            gate.wait(30)
        else:
            answered.append(tag_of(body))
        return verdict_responder(body)

    with FakeOpenAIServer(held_responder) as server:
        env = {"JUDGE_BASE_URL": server.base_url, "JUDGE_MODEL": "fake-judge"}
        store = tmp_path / "store"
        space = Space(hub, store, tmp_path / "space.log", env=env)
        try:
            client = Client(space.url, verbose=False)
            message, *_ = client.predict(*submit_form("medrealmm", "Killed", pred), api_name="/submit")
            assert message.startswith("**Accepted.**"), message
            wait(lambda: len(answered) == JUDGED - 1 and server.calls() == JUDGED, 30, "8 verdicts and C3 in flight")
            time.sleep(0.5)  # the 8 verdicts reach the cache
            assert queue_record(store)["state"] == "scoring"
        finally:
            space.kill()
        gate.set()
        assert not list((store / "results").rglob("*.parquet"))  # killed before any result was written
        check_store(store)  # nothing half-written
        calls_before = server.calls()

        space = Space(hub, store, tmp_path / "space.log", env=env)
        try:
            client = Client(space.url, verbose=False)
            wait(lambda: [r["state"] for r in status_rows(client)] == ["finished"], 30, "the resumed submission")
        finally:
            space.stop()
        assert server.calls() - calls_before == 1  # only C3 again: the cache survived SIGKILL

        reference_store = LocalStore(tmp_path / "reference")
        config = JudgeConfig(base_url=server.base_url, model="fake-judge", cache_path=tmp_path / "ref-cache.sqlite")
        reference = Service(store=reference_store, data_dirs={"medrealmm": hub / "medrealmm"},
                            context_factory=lambda benchmark: ScoringContext(judge=Judge(config), resamples=CI_RESAMPLES))  # the Space default
        form = SubmissionForm(benchmark="medrealmm", model_name="Killed", link="https://example.org/model",
                              organisation="Load Lab", access="open", domain="medical", reasoning=False,
                              input_modality="multimodal", params_b=7, contamination="No overlap known.")
        ref_id = reference.submit("tester", form, pred).submission_id
        reference.score_one(ref_id)

    sub_id = queue_record(store)["id"]
    resumed = LocalStore(store).record("medrealmm", sub_id)
    uninterrupted = reference_store.record("medrealmm", ref_id)
    assert resumed["metrics"] == EXPECTED
    assert comparable(resumed) == comparable(uninterrupted)
    assert resumed["protocol"]["judge_stats"]["http_calls"] == 1 and resumed["protocol"]["judge_stats"]["cache_hits"] == 8
    per_item = pq.read_table(store / "private" / "per_item" / f"{sub_id}.parquet")
    assert per_item.equals(pq.read_table(reference_store.private("per_item", f"{ref_id}.parquet")))
    ours, theirs = store / "private" / "bootstrap" / f"{sub_id}.npy", reference_store.private("bootstrap", f"{ref_id}.npy")
    assert ours.is_file() == theirs.is_file()  # (MedRealMM's per-item scores lack `score_pct`: no file for either)
    if ours.is_file():
        np.testing.assert_array_equal(np.load(ours), np.load(theirs))
    counts = check_store(store)
    assert {k: counts[k] for k in ("queue", "results", "uploads", "per_item")} == {"queue": 1, "results": 1,
                                                                                   "uploads": 1, "per_item": 1}
