"""The submission service: validate, queue, score off-thread, store atomically, resume, refuse."""
import json
import os

import pytest

from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore
from test_medreamm_scoring import PREDICTIONS, DictCoder, VectorEmbedder


def context(benchmark=None):
    return ScoringContext(icd_coder=DictCoder(), embedder=VectorEmbedder(), resamples=200)


@pytest.fixture
def service(tmp_path, tiny_built):
    svc = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": tiny_built}, context_factory=context,
                  quota_per_day=3)
    yield svc
    svc.stop()


def upload(tmp_path, lines, name="preds.jsonl"):
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(l) for l in lines) + "\n")
    return path


def form(**kw):
    return SubmissionForm(benchmark="medreamm", model_name=kw.pop("model_name", "Model A"), contact="a@b.org", **kw)


def test_valid_submission_is_scored_off_thread_and_ranked(tmp_path, service):
    outcome = service.submit("alice", form(access="open"), upload(tmp_path, PREDICTIONS))
    assert outcome.accepted and outcome.submission_id
    assert service.status_for("alice")[0]["state"] == "queued"
    service.start()
    assert service.drain(30)
    record = service.status_for("alice")[0]
    assert record["state"] == "finished", record
    entries = [e for e in service.entries("medreamm") if e.result.source == "submission"]
    assert len(entries) == 1
    assert entries[0].result.metrics["ndcg10_icd"] == pytest.approx(63.3517, abs=1e-3)  # as in test_medreamm_scoring
    assert entries[0].resamples is not None and len(entries[0].resamples) == 1000
    public = json.dumps(service.store.record("medreamm", outcome.submission_id))
    assert "a@b.org" not in public and "per_item" not in public  # private fields stay private
    assert (service.store.private("per_item", f"{outcome.submission_id}.parquet")).is_file()


def test_invalid_file_gets_the_report_and_nothing_is_queued(tmp_path, service):
    outcome = service.submit("alice", form(), upload(tmp_path, [{"id": "100", "diagnoses": "Cholera"}, {"id": "nope"}]))
    assert not outcome.accepted and "nothing was queued" in outcome.message
    assert "line 1, field 'diagnoses'" in outcome.report and "unknown id 'nope'" in outcome.report
    assert service.queue_records() == []


def test_duplicate_file_is_refused_with_a_pointer_and_quota_holds(tmp_path, service):
    first = service.submit("alice", form(), upload(tmp_path, PREDICTIONS))
    mine = service.submit("alice", form(model_name="Renamed"), upload(tmp_path, PREDICTIONS, "other-name.jsonl"))
    assert not mine.accepted and first.submission_id in mine.message  # a pointer to the first
    theirs = service.submit("bob", form(model_name="Copy"), upload(tmp_path, PREDICTIONS, "copy.jsonl"))
    assert not theirs.accepted and "already submitted" in theirs.message and "alice" not in theirs.message
    assert first.submission_id not in theirs.message and "Model A" not in theirs.message  # nothing of alice's shown
    for k in range(2):
        lines = [dict(PREDICTIONS[0], diagnoses=["Cholera", f"variant {k}"])]
        assert service.submit("alice", form(model_name=f"M{k}"), upload(tmp_path, lines, f"p{k}.jsonl")).accepted
    over = service.submit("alice", form(model_name="M9"), upload(tmp_path, [PREDICTIONS[1]], "p9.jsonl"))
    assert not over.accepted and "Daily quota reached (3/3" in over.message


def test_restart_resumes_queued_work(tmp_path, tiny_built):
    store = LocalStore(tmp_path / "store")
    first = Service(store=store, data_dirs={"medreamm": tiny_built}, context_factory=context)
    sub = first.submit("alice", form(), upload(tmp_path, PREDICTIONS)).submission_id  # never started: "crash"
    second = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": tiny_built}, context_factory=context)
    second.start()
    assert second.drain(30)
    assert second.status_for("alice")[0]["state"] == "finished"
    assert LocalStore(tmp_path / "store").record("medreamm", sub) is not None
    second.stop()


def test_store_write_failure_leaves_no_partial_record(tmp_path, service, monkeypatch):
    import leaderboard.operations.store as store_module

    real_replace = os.replace
    calls = {"n": 0}

    def failing_replace(src, dst):
        calls["n"] += 1
        if calls["n"] == 1:
            raise OSError(28, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(store_module.os, "replace", failing_replace)
    outcome = service.submit("alice", form(), upload(tmp_path, PREDICTIONS))
    assert not outcome.accepted and "No space left on device" in outcome.message
    assert service.queue_records() == []
    leftovers = [p for p in service.store.root.rglob("*") if p.is_file()]
    assert leftovers == []  # the temporary file was removed too
    assert service.submit("alice", form(), upload(tmp_path, PREDICTIONS)).accepted  # the next write succeeds


def test_hostile_metadata_is_cleaned(tmp_path, service):
    hostile = form(model_name="<script>alert(1)</script>=cmd|' /C calc'!A0", link="javascript:alert(1)",
                   organisation="=HYPERLINK(\"http://x\")")
    outcome = service.submit("alice", hostile, upload(tmp_path, PREDICTIONS))
    record = service.status_for("alice")[0]
    assert "<" not in record["model"]["name"] and record["model"]["link"] is None
    assert outcome.accepted


def test_external_worker_scores_a_shared_store(tmp_path, tiny_built):
    """The Space queues (no worker thread); `python -m leaderboard worker --once` scores from the same store."""
    import subprocess
    import sys

    from conftest import ROOT

    space_side = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": tiny_built}, context_factory=context)
    sub = space_side.submit("alice", form(), upload(tmp_path, PREDICTIONS)).submission_id
    proc = subprocess.run([sys.executable, "-m", "leaderboard", "worker", "--store", str(tmp_path / "store"),
                           "--data", str(tiny_built.parent), "--icd-coder", "offline", "--once"],
                          capture_output=True, text=True, cwd=ROOT, env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    assert "scored 1 submission(s)" in proc.stdout
    assert space_side.status_for("alice")[0]["state"] == "finished"
    result = LocalStore(tmp_path / "store").record("medreamm", sub)
    assert result["protocol"]["icd_coder"]["coder"] == "offline-title"  # the worker's own matcher configuration


def test_hub_mirror_sends_results_public_and_everything_else_private(tmp_path, tiny_built):
    from huggingface_hub import HfApi

    from fake_hub_server import FakeHub
    from fault_proxy import FaultProxy
    from leaderboard.remote.hub_calls import Retry
    from leaderboard.operations.store import HubMirror

    with FakeHub(tokens={"t": "org"}) as hub, FaultProxy(hub.url, kinds=("500",)) as proxy:
        mirror = HubMirror("org/results", "org/private", api=HfApi(endpoint=proxy.url, token="t"),
                           retry=Retry(attempts=2, base=0.001, cap=0.01))
        svc = Service(store=LocalStore(tmp_path / "store", mirror), data_dirs={"medreamm": tiny_built},
                      context_factory=context)
        sub = svc.submit("alice", form(), upload(tmp_path, PREDICTIONS)).submission_id
        svc.score_one(sub)
        private, public = (hub.repo("dataset", r) for r in ("org/private", "org/results"))
        folders = lambda repo: {"/".join(p.split("/")[:2]) for p in repo.head.files if p != ".gitattributes"}
        assert folders(public) == {"README.md", "results/medreamm"}  # the card and the shards
        assert folders(private) >= {"private/uploads", "private/queue", "private/per_item", "private/contacts"}
        assert not any(p.startswith("results/") for p in private.head.files)
        proxy.rate = 1.0  # the Hub is down
        sub2 = svc.submit("alice", form(model_name="B"), upload(tmp_path, PREDICTIONS[:2], "b.jsonl")).submission_id
        assert sub2 and mirror.pending  # kept for retry, the local store still has everything
        assert not any(sub2 in p for p in private.head.files)
        proxy.rate = 0.0
        waiting = len(mirror.pending)
        assert mirror.retry_pending() == waiting and mirror.pending == []
        assert f"private/queue/{sub2}.json" in private.head.files


def test_waiting_for_judge_is_rescored_once_a_judge_is_configured(tmp_path, monkeypatch):
    from conftest import ROOT
    from leaderboard.scoring import registry
    from dataset_builders.stage import build
    from fake_openai_server import FakeOpenAIServer
    from leaderboard.scoring.services import configure_judges

    build(registry.adapter("medcmr"), ROOT / "benchmarks" / "medcmr" / "sample", tmp_path / "hub", progress=False)
    monkeypatch.delenv("JUDGE_BASE_URL", raising=False)

    def ctx(benchmark=None):
        return configure_judges(ScoringContext(resamples=0), cache_dir=tmp_path / "cache")

    from leaderboard.privacy.disclosure import Policy
    small = Policy(min_cell=1)  # the sample has 4 open items; disclosure control is tested in test_disclosure.py
    store = LocalStore(tmp_path / "store", policy=small)
    svc = Service(store=store, data_dirs={"medcmr": tmp_path / "hub" / "medcmr"}, context_factory=ctx)
    example = ROOT / "submissions" / "medcmr" / "example_predictions.jsonl"
    sub = svc.submit("alice", SubmissionForm(benchmark="medcmr", model_name="M"), example).submission_id
    svc.score_one(sub)
    assert svc.status_for("alice")[0]["state"] == "waiting for judge"
    scores = '{"consistency": 5, "coherence": 5, "visual_accuracy": 5, "ground_truth": 5}'
    with FakeOpenAIServer(lambda body: scores) as server:
        monkeypatch.setenv("JUDGE_BASE_URL", server.base_url)
        monkeypatch.setenv("JUDGE_MODEL", "fake-judge")
        restarted = Service(store=LocalStore(tmp_path / "store", policy=small), data_dirs=svc.data_dirs,
                            context_factory=ctx)
        restarted.start()
        assert restarted.drain(30)
        restarted.stop()
    assert restarted.status_for("alice")[0]["state"] == "finished"
    record = LocalStore(tmp_path / "store").record("medcmr", sub)
    answered = record["protocol"]["open_ended_judged"]
    # every judged open item scores 5+5+20+20 = 50; unanswered open items score 0
    assert record["metrics"]["open_all"] == pytest.approx(50 * answered / record["protocol"]["open_items"])


def test_run_settings_from_predict_are_kept_and_shown(tmp_path, service):
    from board_helpers import ranked_table
    from leaderboard.scoring import registry

    meta = tmp_path / "preds.jsonl.meta.json"
    meta.write_text(json.dumps({"benchmark": "medreamm", "model": "m1", "endpoint": "http://10.0.0.5:8000/v1",
                                "protocol": {"name": "medreamm", "version": "1", "prompt_sha": "8137f4bbb6dd"},
                                "request": {"temperature": 0.0}, "runs": [{"tasks_failed": 0}, {"tasks_failed": 2}]}))
    sub = service.submit("alice", form(), upload(tmp_path, PREDICTIONS), settings=meta).submission_id
    service.score_one(sub)
    record = service.store.record("medreamm", sub)
    assert record["protocol"]["run_settings"]["tasks_failed"] == 2 and record["protocol"]["run_settings"]["runs"] == 2
    assert "10.0.0.5" not in json.dumps(record)  # endpoints are never published
    table = ranked_table(registry.scorer("medreamm"), service.entries("medreamm"))
    assert table.loc[table["id"] == sub, "run_settings"].item() == "medreamm v1, T=0.0, prompt 8137f4bbb6dd"
    bad = tmp_path / "bad.meta.json"
    bad.write_text("[1, 2]")
    refused = service.submit("alice", form(model_name="B"), upload(tmp_path, PREDICTIONS[:1], "b.jsonl"), settings=bad)
    assert not refused.accepted and "not a `predict` metadata file" in refused.message
