"""ClinMM-Bench `predict`: turn-by-turn disclosure in one conversation (images kept, the model's replies
carried), nothing from findings/significance/diagnosis/reasoning in any prompt, and the final reply
split into the fields the benchmark's schema declares."""
import pytest

from leaderboard.scoring import registry
from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.judge import NO_JUDGE
from benchmarks.clinmm.protocol import split_final
from leaderboard.scoring.score_file import score_file
from predict_helpers import assert_never_sent, build_sample, decoded, image_urls, lines, read_config, run, texts


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_sample("clinmm", tmp_path_factory.mktemp("hub"))


@pytest.fixture(scope="module")
def cases(built):
    return {r["case_id"]: r for r in read_config(built)}


def case_of(body, cases):
    first = texts(body["messages"][0])
    return next(c for c in cases.values() if c["turns"][0]["text"] == first)


def responder(body):
    n = sum(m["role"] == "user" for m in body["messages"])
    if "Final diagnosis:" in texts(body["messages"][-1]):
        return "**Final diagnosis:** Scripted disease.\nReasoning: because of turn-by-turn evidence."
    return f"reply to turn {n}"


@pytest.fixture(scope="module")
def english_run(built, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "p.jsonl"
    with FakeOpenAIServer(responder) as server:
        assert run("clinmm", built, server, out) == 0
        return out, list(server.requests)


def test_turns_are_disclosed_one_by_one_keeping_images_and_replies(cases, english_run):
    _, bodies = english_run
    assert len(bodies) == sum(c["num_turns"] for c in cases.values())
    for case in cases.values():
        mine = [b for b in bodies if case_of(b, cases) is case]
        assert sorted(len(b["messages"]) for b in mine) == [2 * k - 1 for k in range(1, case["num_turns"] + 1)]
        last = max(mine, key=lambda b: len(b["messages"]))["messages"]
        users = last[0::2]
        assert [m["role"] for m in users] == ["user"] * case["num_turns"]
        assert [m["content"] for m in last[1::2]] == [f"reply to turn {k}" for k in range(1, case["num_turns"])]
        # each turn: its text, then its images (original bytes); earlier images stay in the history
        assert [texts(m) for m in users] == [t["text"] for t in case["turns"]]
        sent = [decoded(u) for m in users for u in image_urls(m)]
        assert sent == [(registry.get("clinmm").sample_dir / p).read_bytes() for p in case["image_paths"]]
        for m, turn in zip(users[1:-1], case["turns"][1:-1]):
            assert turn["image_types"][0] in texts(m) and len(image_urls(m)) == 1
        assert "Final diagnosis:" in texts(users[-1]) and not image_urls(users[-1])
    secrets = [c["final_diagnosis_en"] for c in cases.values()] + [c["diagnostic_reasoning_en"] for c in cases.values()]
    for c in cases.values():
        secrets += [s for s in (c["image_findings_en"] or []) + (c["diagnostic_significance_en"] or []) if s]
    assert_never_sent(bodies, secrets)


def test_output_fields_validate_and_scoring_waits_for_the_judges(built, cases, english_run):
    out, _ = english_run
    rows = lines(out)
    assert {r["id"] for r in rows} == set(cases)
    for row in rows:
        assert row["diagnosis"] == "Scripted disease"
        assert row["reasoning"] == "because of turn-by-turn evidence."
        n = cases[row["id"]]["num_turns"]
        assert row["turn_responses"][:-1] == [f"reply to turn {k}" for k in range(1, n)] and len(row["turn_responses"]) == n
    report, result = score_file("clinmm", out, built, ScoringContext(resamples=0))
    assert report.ok and not report.issues and report.n_valid == len(cases)
    assert result.pending["diagnostic_accuracy_score"].startswith(NO_JUDGE[:20])


def test_chinese_turns_on_request(built, cases, tmp_path):
    with FakeOpenAIServer(lambda body: "最终诊断：某病\n推理：依据。") as server:
        assert run("clinmm", built, server, tmp_path / "p.jsonl", "--language", "zh", "--limit", "1") == 0
        first = server.requests[0]
    assert texts(first["messages"][0]) in {c["turn_texts_zh"][0] for c in cases.values()}
    row = lines(tmp_path / "p.jsonl")[0]
    assert (row["diagnosis"], row["reasoning"]) == ("某病", "依据。")


@pytest.mark.parametrize("reply, expected", [
    ("Final diagnosis: Lyme neuroborreliosis\nReasoning: tick bite, CSF pleocytosis.",
     ("Lyme neuroborreliosis", "tick bite, CSF pleocytosis.", True)),
    ("## Final Diagnosis: Sarcoidosis. Reasoning: hilar nodes.", ("Sarcoidosis", "hilar nodes.", True)),
    ("Thinking aloud.\nDiagnosis: Gout\nUrate crystals seen.", ("Gout", "Thinking aloud.\nUrate crystals seen.", True)),
    ("I think it is gout.", ("", "I think it is gout.", False)),
])
def test_split_final(reply, expected):
    assert split_final(reply) == expected
