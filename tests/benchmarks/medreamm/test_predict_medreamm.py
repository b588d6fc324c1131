"""MedReaMM `predict`: the authors' top-10 prompt as sent over HTTP, no leaked answers, and a
scripted model whose output scores to hand-computed numbers."""
import pytest

from leaderboard.scoring import registry
from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring.benchmark import ScoringContext
from benchmarks.medreamm.protocol import FINAL, SYSTEM
from leaderboard.scoring.score_file import score_file
from predict_helpers import assert_never_sent, build_sample, decoded, lines, read_config, run


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_sample("medreamm", tmp_path_factory.mktemp("hub"))


@pytest.fixture(scope="module")
def cases(built):
    return {row["case_id"]: row for row in read_config(built)}


class DictCoder:
    """Every ground-truth term codes to its own code; anything else codes to nothing."""
    identity = {"coder": "test-dictionary", "approximate": False}

    def __init__(self, cases):
        self.table = {d["term"].lower(): d["icd11_code"] for c in cases.values() for d in c["diagnoses"]}

    def code(self, term):
        return self.table.get(term.strip().lower())


def case_of(body, cases):
    record = body["messages"][1]["content"][0]["text"]
    return next(c for c in cases.values() if record == f"[Chief Complaint and Medical History]\n{c['medical_records']}")


def test_messages_follow_the_authors_prompt_with_original_image_bytes(built, cases, tmp_path):
    with FakeOpenAIServer(lambda body: '### Output ###\n["X"]') as server:
        assert run("medreamm", built, server, tmp_path / "p.jsonl") == 0
        bodies = list(server.requests)
    assert len(bodies) == len(cases) == 10
    for body in bodies:
        assert body["temperature"] == 0.0 and body["model"] == "test-model"
        system, user = body["messages"]
        assert system == {"role": "system", "content": SYSTEM} and user["role"] == "user"
        assert "top 10 most likely diagnoses in order" in SYSTEM and "### Output ###" in SYSTEM
        case = case_of(body, cases)
        parts = user["content"]
        # record, then (Figure k: caption, image) per figure, then the output format
        assert len(parts) == 2 + 2 * case["num_images"]
        for k in range(case["num_images"]):
            caption_part, image_part = parts[1 + 2 * k], parts[2 + 2 * k]
            assert caption_part == {"type": "text", "text": f"Figure {k + 1}: {case['captions'][k]}"}
            assert image_part["image_url"]["detail"] == "high"
            original = (registry.get("medreamm").sample_dir / case["image_paths"][k]).read_bytes()
            assert decoded(image_part["image_url"]["url"]) == original
        assert parts[-1] == {"type": "text", "text": FINAL}
    secrets = [c["diagnosis_text"] for c in cases.values()] + [c["reasoning_path"] for c in cases.values()]
    secrets += [d for c in cases.values() for d in c["detailed_captions"] if d]
    assert_never_sent(bodies, secrets)


def test_jpeg_and_png_get_their_own_mime_type(built, cases, tmp_path):
    with FakeOpenAIServer(lambda body: "[]") as server:
        assert run("medreamm", built, server, tmp_path / "p.jsonl", "--limit", "3") == 0
        urls = [p["image_url"]["url"] for b in server.requests for p in b["messages"][1]["content"]
                if p["type"] == "image_url"]
    for url in urls:
        data = decoded(url)
        expected = "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"
        assert url.startswith(f"data:{expected};base64,")


def test_held_out_build_runs_the_same_prompts(tmp_path):
    """The protocol reads input columns only: a build without the answer columns works unchanged."""
    public = build_sample("medreamm", tmp_path / "hub", hold_out_answers=True)
    with FakeOpenAIServer(lambda body: "[]") as server:
        assert run("medreamm", public, server, tmp_path / "p.jsonl", "--limit", "2") == 0
        assert server.calls() == 2


def test_scripted_model_scores_as_hand_computed(built, cases, tmp_path):
    """Every response ranks a wrong disease first and the primary diagnosis second, in the authors'
    output format: primary at rank 2 in every case, so Top-1 = 0, Top-5/Top-10 primary = 100,
    MRR = 1/2 -> 50 (ICD mode; the dictionary coder maps each ground-truth term to its code)."""
    def responder(body):
        case = case_of(body, cases)
        primary = next(d["term"] for d in case["diagnoses"] if d["is_primary"])
        return f'Reasoning...\n### Output ###\n["Made-up syndrome", "{primary}"]'

    out = tmp_path / "p.jsonl"
    with FakeOpenAIServer(responder) as server:
        assert run("medreamm", built, server, out) == 0
    assert {r["id"] for r in lines(out)} == set(cases)
    report, result = score_file("medreamm", out, built, ScoringContext(icd_coder=DictCoder(cases), resamples=0))
    assert report.ok and report.n_valid == 10
    metrics = result.metrics
    assert metrics["top1_icd"] == 0.0
    assert metrics["top5_primary_icd"] == 100.0 and metrics["top10_primary_icd"] == 100.0
    assert metrics["mrr_icd"] == 50.0
    assert result.parse_failures == 0
