"""Anomaly review (leaderboard/scoring/judge/anomaly.py): the rule on hand-computed numbers, and a ClinMM submission
whose two judges disagree sharply held as `needs review` through the Service (real HTTP to the fake judge),
then scored and ranked once a maintainer approves it."""
from __future__ import annotations

import json

import pytest

from conftest import ROOT
from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.judge import Judge, JudgeConfig
from leaderboard.scoring.judge.anomaly import anomalies, review_note
from leaderboard.operations.service import Service, SubmissionForm
from leaderboard.operations.store import LocalStore


def test_medcmr_open_ended_far_above_what_mcq_predicts_is_held():
    # mcq 40 -> expected 26.42 + 0.364 * 40 = 40.98; 100 items -> margin 15 + 100 / 10 = 25 -> limit 65.98
    protocol = {"open_ended_judged": 100}
    assert anomalies("medcmr", {"open_all": 66.0, "mcq_all": 40.0}, protocol)
    assert not anomalies("medcmr", {"open_all": 65.9, "mcq_all": 40.0}, protocol)
    # 4 items: margin 15 + 50 = 65 -> limit 105.98: noise that large is no evidence of anything
    assert not anomalies("medcmr", {"open_all": 100.0, "mcq_all": 40.0}, {"open_ended_judged": 4})
    assert not anomalies("medcmr", {"open_all": None, "mcq_all": 40.0}, protocol)  # pending: nothing to compare


def test_clinmm_sharp_disagreement_between_the_judges_is_held():
    held = lambda sharp, cases: anomalies("clinmm", {}, {"judge_agreement": {"cases": cases, "sharp_disagreements": sharp}})  # noqa: E731
    assert held(3, 20)  # 3 > 10 % of 20
    assert not held(2, 5)  # 40 %, but fewer than 3 cases
    assert not held(4, 40)  # exactly 10 %: not more
    assert not anomalies("medrealmm", {"open_all": 99.0, "mcq_all": 0.0}, {"open_ended_judged": 10_000})
    assert review_note({"review_decision": "approved"}, "clinmm", {}, {"judge_agreement": {"cases": 20, "sharp_disagreements": 20}}) is None


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    from dataset_builders.stage import build
    from leaderboard.scoring import registry

    out = tmp_path_factory.mktemp("hub")
    build(registry.adapter("clinmm"), ROOT / "benchmarks" / "clinmm" / "sample", out, sample=True, progress=False)
    return out / "clinmm"


def split_judges(body):
    """judge-a says every diagnosis is wrong, judge-b that every one is right; facts: one each, unmatched."""
    text = body["messages"][1]["content"]
    if "Please determine" in text:
        accuracy = 0 if body["model"] == "judge-a" else 2
        return f"<result><reasoning>r</reasoning><accuracy>{accuracy}</accuracy></result>"
    if "Extract atomic facts" in text:
        return json.dumps({"facts": ["A fact"]})
    return json.dumps({"matched_pairs": [], "hallucinated_predicted_ids": [], "non_hallucinated_unmatched_predicted_ids": [1],
                       "unmatched_ground_truth_ids": list(range(1, 1 + text.split("G-list")[-1].count("\n")))})


def test_a_submission_whose_judges_split_waits_for_a_maintainer_then_is_ranked(tmp_path, hub):
    with FakeOpenAIServer(split_judges) as server:
        def context(benchmark=None):
            first = Judge(JudgeConfig(base_url=server.base_url, model="judge-a", cache_path=tmp_path / "j.sqlite",
                                      backoff_base=0.01, backoff_max=0.02))
            return ScoringContext(judge=first, judge_2=first.with_model("judge-b"), resamples=0)

        service = Service(store=LocalStore(tmp_path / "store"), data_dirs={"clinmm": hub}, context_factory=context)
        pred = tmp_path / "pred.jsonl"
        rows = [{"id": f"clinmm-s00{k}", "diagnosis": "Viral syndrome"} for k in range(1, 8)]
        pred.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        outcome = service.submit("alice", SubmissionForm(benchmark="clinmm", model_name="M"), pred)
        assert outcome.accepted, outcome.message
        service.score_one(outcome.submission_id)
        record = service.store.read_json(service.queue_path(outcome.submission_id))
        assert record["state"] == "needs review"
        assert record["review"]["anomalies"] == [
            "the two diagnosis judges disagree sharply (one 2, the other 0) on 7 of 7 cases"]
        assert service.store.record("clinmm", outcome.submission_id) is None  # nothing published
        calls = server.calls()
        service._update(outcome.submission_id, state="queued", review_decision="approved")  # as `review approve`
        service.score_one(outcome.submission_id)
        record = service.store.read_json(service.queue_path(outcome.submission_id))
        assert record["state"] == "finished", record["message"]
        assert service.store.record("clinmm", outcome.submission_id) is not None
        assert server.calls() == calls  # every verdict came from the cache
