"""Judge-bound scoring through the Service under load and under judge faults.

Load: three MedRealMM submissions queued at once; the worker drains the queue, scores each once, and the
judge is called once per distinct criterion (bench/judge_load.py is the same at the paper's size).
Faults: the judge answers 500, 429, timeouts and truncated JSON. A short burst is absorbed by retries and
the result is exact; a long outage leaves the submission `waiting for judge` with every judged metric
pending (never a guess, never ranked), and once the judge recovers the idle worker's retry completes it
with the hand-computed numbers of tests/benchmarks/medrealmm/test_medrealmm_scoring.py (EXPECTED)."""
import sys
import time

import pytest

from conftest import ROOT
from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring import registry
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.judge import Judge, JudgeConfig
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore
from board_helpers import ranked_table
from medrealmm_release import build_release
from test_medrealmm_scoring import EXPECTED, PREDICTIONS, verdict_responder, write_predictions

sys.path.insert(0, str(ROOT / "bench"))

from judge_load import run_judge_load  # noqa: E402

FAULTS = [500, 429, "timeout", "truncated"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_release(tmp_path_factory.mktemp("mr"))


def test_three_judge_bound_submissions_drain_and_no_criterion_is_judged_twice(tmp_path):
    # run_judge_load asserts: all finished, one `scoring` transition and one result write per submission,
    # HTTP calls == distinct (case, answer, criterion), C's shared half answered from the cache
    figures = run_judge_load(tmp_path, cases=20, concurrency=8, latency=0.005, log=lambda *a: None)
    assert figures["calls"] == figures["expected_calls"]
    assert len(set(figures["score_pct"].values())) == 1  # the verdicts depend on the criterion only


def service_for(tmp_path, built, server, monkeypatch, **judge):
    monkeypatch.setenv("JUDGE_BASE_URL", server.base_url)  # what the worker checks before a retry
    monkeypatch.setenv("JUDGE_MODEL", "fake-judge")

    def context(benchmark=None):
        config = JudgeConfig(base_url=server.base_url, model="fake-judge", backoff_base=0.01, backoff_max=0.02,
                             cache_path=tmp_path / "store" / "private" / "cache" / "judge_cache.sqlite", **judge)
        return ScoringContext(judge=Judge(config), resamples=0)

    return Service(store=LocalStore(tmp_path / "store"), data_dirs={"medrealmm": built}, context_factory=context,
                   judge_retry_seconds=0.3)


def submit(service, tmp_path, name="M"):
    pred = write_predictions(tmp_path / f"{name}.jsonl", PREDICTIONS)
    outcome = service.submit("alice", SubmissionForm(benchmark="medrealmm", model_name=name), pred)
    assert outcome.accepted, outcome.message
    return outcome.submission_id


def public_record(service, sub_id):
    return service.store.record("medrealmm", sub_id)


def test_a_burst_of_faults_is_absorbed_by_retries_and_the_result_is_exact(tmp_path, built, monkeypatch):
    with FakeOpenAIServer(verdict_responder) as server:
        server.script = list(FAULTS)
        server.timeout_sleep = 0.6
        service = service_for(tmp_path, built, server, monkeypatch, concurrency=1, timeout=0.3, attempts=5)
        sub = submit(service, tmp_path)
        service.score_one(sub)
    record = public_record(service, sub)
    assert service.status_for("alice")[0]["state"] == "finished"
    assert record["metrics"] == EXPECTED
    # 9 criteria judged (A, B, C three each; E is empty, D unanswered): 4 failed attempts retried first
    assert record["protocol"]["judge_stats"]["retries"] == 4 and record["protocol"]["judge_stats"]["http_calls"] == 13


def wait_for(service, condition, seconds=30):
    """alice's first record once `condition` holds; the deadline only bounds a hang."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        records = service.status_for("alice")
        if records and condition(records[0]):
            return records[0]
        time.sleep(0.05)
    raise AssertionError(f"condition not met after {seconds} s: {service.status_for('alice')}")


def wait_for_state(service, state, seconds=30):
    return wait_for(service, lambda record: record["state"] == state, seconds)


def test_an_outage_waits_with_nothing_guessed_then_completes_exactly_after_recovery(tmp_path, built, monkeypatch):
    with FakeOpenAIServer(verdict_responder) as server:
        server.script = FAULTS * 1000  # longer than every retry: all 9 criteria fail, again and again
        server.timeout_sleep = 0.4
        service = service_for(tmp_path, built, server, monkeypatch, concurrency=4, timeout=0.2, attempts=2)
        service.start()  # the running worker scores it, and keeps retrying while the judge is down
        sub = submit(service, tmp_path)
        wait_for_state(service, "waiting for judge")
        record = public_record(service, sub)
        assert record["metrics"] == {name: None for name in EXPECTED}  # pending, never 0 or a default
        assert set(record["pending"]) == set(EXPECTED)
        assert record["pending"]["score_pct"].startswith("judge failed on 9 of 9 criteria")
        bench = registry.scorer("medrealmm")
        ranked = ranked_table(bench, service.entries("medrealmm"))
        assert sub not in set(ranked.get("id", []))  # a pending primary metric is never ranked
        for cell in record["strata"]["department"].values():
            assert all(v is None for v in cell["metrics"].values())
        # a whole retry during the outage (the worker asked the judge again and counted the attempt): still
        # waiting, still nothing guessed. Two counted attempts after these reads: the second began after them
        # (one already under way when the calls were counted could count without a call after them)
        calls_before = server.calls()
        attempts_before = service.status_for("alice")[0].get("judge_attempts", 0)
        retried = wait_for(service, lambda r: r["state"] == "waiting for judge"
                           and r.get("judge_attempts", 0) >= attempts_before + 2)
        assert server.calls() > calls_before
        assert retried["message"] == "deterministic metrics ranked; judged metrics wait for a judge"
        assert public_record(service, sub)["metrics"] == {name: None for name in EXPECTED}

        server.script = []  # the judge recovers; the idle worker's next retry completes the submission
        wait_for_state(service, "finished")
        service.stop()
    record = public_record(service, sub)
    assert record["metrics"] == EXPECTED and record["pending"] == {}
    assert record["protocol"]["judge_failures"]["criteria"] == 0
    assert service.store.results_table("medrealmm").num_rows == 1  # the rescore replaced the row, none added


def test_no_retry_loop_without_a_judge(tmp_path, built, monkeypatch):
    """Without a configured judge a waiting submission is left alone (rescoring could not change it)."""
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)
    service = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medrealmm": built},
                      context_factory=lambda benchmark: ScoringContext(resamples=0), judge_retry_seconds=0.1)
    sub = submit(service, tmp_path)
    service.score_one(sub)
    assert service.status_for("alice")[0]["state"] == "waiting for judge"
    restarted = Service(store=service.store, data_dirs=service.data_dirs, context_factory=service.context_factory,
                        judge_retry_seconds=0.1)  # a fresh worker: nothing left in the in-memory queue
    restarted._retry_waiting_for_judge()  # the worker's idle tick, run here: no thread, no sleep
    assert restarted._queue.qsize() == 0  # left alone
    monkeypatch.setenv("JUDGE_BASE_URL", "http://127.0.0.1:9")  # control: with a judge the same tick re-queues it
    monkeypatch.setenv("JUDGE_MODEL", "fake-judge")
    restarted._retry_waiting_for_judge()
    assert restarted._queue.qsize() == 1 and restarted._queue.get_nowait() == sub
