"""Scoring runs in a child process with a wall-time and a memory limit (issue 13), and no submission can
get stuck: a limit hit, a crash, a full disk or a judge that never gives a usable verdict all end in
`failed` with a reason, and a failed run never counts against the quota.

The hostile context factories below are module-level functions, so the job pickles and runs in the
persistent `python -m leaderboard.scoring.isolation` child; a lambda takes the forked path (tested too)."""
import errno
import os
import time

import pytest

from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.isolation import Limits, ScoreJob, ScoringLimit, ScoringProcess
from leaderboard.operations.service import Service
from medrealmm_release import build_release
from test_medrealmm_scoring import PREDICTIONS as MR_PREDICTIONS
from test_medrealmm_scoring import write_predictions
from test_service import PREDICTIONS, context, form, upload


SLEEPY_S = 60


def sleepy_context(benchmark=None):  # a scorer stuck for a minute (a freeze line, a hung service)
    time.sleep(SLEEPY_S)


def hungry_context(benchmark=None):  # a scorer decoding a bomb: 3 GB at once
    return bytearray(3 * 10**9)


def broken_context(benchmark=None):
    raise RuntimeError("scorer bug 4711")


def pid_context(benchmark=None):
    raise RuntimeError(f"child pid {os.getpid()}")


def make(tmp_path, built, factory, **limits) -> Service:
    from leaderboard.operations.store import LocalStore

    return Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": built}, context_factory=factory,
                   quota_per_day=2, **limits)


def submit_and_score(service, tmp_path, name="p.jsonl", lines=PREDICTIONS) -> dict:
    outcome = service.submit("alice", form(), upload(tmp_path, lines, name))
    assert outcome.accepted, outcome.message
    service.score_one(outcome.submission_id)
    return service.status_for("alice")[-1]


def test_time_limit_fails_the_submission_refunds_the_quota_and_the_next_one_scores(tmp_path, tiny_built):
    service = make(tmp_path, tiny_built, sleepy_context, score_seconds=4)
    record = submit_and_score(service, tmp_path)
    # stopped by the 4 s limit: the message names it (a stuck scorer that ran out its minute would fail with
    # another reason, or finish); no wall-clock bound
    assert record["state"] == "failed"
    assert record["message"] == ("scoring stopped: it ran longer than the 4 s limit; it does not count against "
                                 "your quota")
    assert service.used_today("alice") == 0
    service.context_factory = context  # a fresh child takes the next job and scores it normally
    service.score_seconds = 120
    second = submit_and_score(service, tmp_path, "q.jsonl", PREDICTIONS[:-1])
    assert second["state"] == "finished", second["message"]
    assert service.used_today("alice") == 1
    service.stop()


@pytest.mark.parametrize("factory", [hungry_context, lambda benchmark=None: bytearray(3 * 10**9)],
                         ids=["spawned child", "forked child"])
def test_memory_limit_fails_the_submission_with_a_clear_reason(tmp_path, tiny_built, factory):
    service = make(tmp_path, tiny_built, factory, score_memory_mb=600)
    record = submit_and_score(service, tmp_path)
    assert record["state"] == "failed"
    assert record["message"] == ("scoring stopped: it needed more than the 600 MB memory limit; it does not count "
                                 "against your quota")
    assert service.used_today("alice") == 0
    service.stop()


def test_a_scorer_crash_is_logged_not_shown_and_refunded(tmp_path, tiny_built, caplog):
    service = make(tmp_path, tiny_built, broken_context)
    record = submit_and_score(service, tmp_path)
    assert record["state"] == "failed" and "scorer bug" not in record["message"]
    assert record["message"].startswith("scoring failed on the server")
    assert "RuntimeError: scorer bug 4711" in caplog.text  # the child's traceback reaches the server log
    assert service.used_today("alice") == 0
    service.stop()


def child_pid(error) -> str:
    import re

    return re.search(r"RuntimeError: child pid (\d+)", str(error)).group(1)


def test_the_child_is_reused_between_jobs_and_replaced_after_a_kill(tmp_path, tiny_built):
    scorer = ScoringProcess()
    job = ScoreJob("medreamm", tmp_path / "none.jsonl", tiny_built, {"name": "M"}, pid_context)
    pids = []
    for _ in range(2):
        with pytest.raises(Exception) as caught:
            scorer.run(job, Limits(seconds=60))
        pids.append(child_pid(caught.value))
    assert pids[0] == pids[1] != str(os.getpid())  # one persistent child, not the parent
    with pytest.raises(ScoringLimit):
        scorer.run(ScoreJob("medreamm", tmp_path / "none.jsonl", tiny_built, {"name": "M"}, sleepy_context),
                   Limits(seconds=3))
    with pytest.raises(Exception) as caught:
        scorer.run(job, Limits(seconds=60))
    assert child_pid(caught.value) != pids[0]  # the killed child was replaced
    scorer.close()


def test_a_full_disk_during_scoring_ends_failed_and_refunded_never_stuck(tmp_path, tiny_built, monkeypatch):
    """The failure itself cannot be written while the disk is full: it is shown (and refunded) at once from
    memory and written by the worker's next idle tick once the disk has room again."""
    import leaderboard.operations.store as store_module

    service = make(tmp_path, tiny_built, context, judge_retry_seconds=0.2)
    outcome = service.submit("alice", form(), upload(tmp_path, PREDICTIONS))
    real_replace, disk_full = os.replace, {"on": True}

    def replace(src, dst):
        if disk_full["on"] and "/store/" in str(dst):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(store_module.os, "replace", replace)
    service.score_one(outcome.submission_id)
    shown = service.status_for("alice")[0]
    assert shown["state"] == "failed" and "No space left on device" in shown["message"]
    assert service.used_today("alice") == 0
    on_disk = service.store.read_json(service.queue_path(outcome.submission_id))
    assert on_disk["state"] == "queued"  # nothing could be written; a restart would simply score it again
    disk_full["on"] = False
    service.start()
    deadline = time.monotonic() + 10
    while service.store.read_json(service.queue_path(outcome.submission_id))["state"] != "failed":
        assert time.monotonic() < deadline, "the failure was never written"
        time.sleep(0.05)
    service.stop()
    assert service._unrecorded == {}


def unparseable(body):
    return "I think the criterion is probably met, more or less."  # never the JSON verdict asked for


def test_a_judge_whose_verdicts_never_parse_is_asked_a_bounded_number_of_times(tmp_path, monkeypatch):
    from leaderboard.scoring.judge import Judge, JudgeConfig
    from leaderboard.operations.store import LocalStore

    built = build_release(tmp_path / "mr")
    with FakeOpenAIServer(unparseable) as server:
        monkeypatch.setenv("JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("JUDGE_MODEL", "fake-judge")

        def judged(benchmark=None):
            config = JudgeConfig(base_url=server.base_url, model="fake-judge", backoff_base=0.01, backoff_max=0.02,
                                 attempts=2, cache_path=tmp_path / "judge_cache.sqlite")
            return ScoringContext(judge=Judge(config), resamples=0)

        service = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medrealmm": built}, context_factory=judged,
                          judge_max_attempts=2)
        pred = write_predictions(tmp_path / "mr.jsonl", MR_PREDICTIONS)
        from leaderboard.operations.service import SubmissionForm

        sub = service.submit("alice", SubmissionForm(benchmark="medrealmm", model_name="M"), pred).submission_id
        states, calls = [], []
        for _ in range(5):  # the idle worker would re-queue it on every tick
            service.score_one(sub)
            states.append(service.status_for("alice")[0]["state"])
            calls.append(server.calls())
        service.stop()
    assert states == ["waiting for judge", "waiting for judge", "waiting for judge", "failed", "failed"]
    assert calls[0] > 0 and calls[2] > calls[1] > calls[0] and calls[4] == calls[3] == calls[2]  # then never again
    record = service.status_for("alice")[0]
    assert record["judge_attempts"] == 2
    assert record["message"] == ("the judge gave no usable verdicts after 2 attempts; deterministic metrics stay "
                                 "ranked, judged metrics are not scored")
    assert service.used_today("alice") == 1  # still ranked: it keeps its quota unit


def test_a_forked_process_spawns_its_own_children_after_the_parent_has_spawned():
    """Threads do not survive a fork: a child forked after the parent's first spawn must not hand its jobs to
    the parent's (absent) spawner thread, or it waits forever (mutmut's fork server did, on every scoring test)."""
    import os
    import sys

    from leaderboard.scoring import isolation

    isolation._spawn([sys.executable, "-c", "pass"]).wait()
    assert isolation._SPAWNER is not None
    pid = os.fork()
    if pid == 0:  # the child: a fresh spawner slot, and a spawn that completes
        try:
            if isolation._SPAWNER is not None:
                os._exit(1)  # the parent's spawner: its thread is gone, a spawn would never return
            code = isolation._spawn([sys.executable, "-c", "raise SystemExit(7)"]).wait()
            os._exit(0 if code == 7 else 3)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
