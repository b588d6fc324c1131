"""MedRealMM `predict`: the consultation as one user message with images in place, server-default
decoding, `--text-only` without images, `input_modality` on every line, and no rubric or original
reply in any prompt."""
import pytest

from leaderboard.scoring import registry
from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring.benchmark import ScoringContext
from benchmarks.medrealmm.protocol import HEADER, INSTRUCTION
from leaderboard.scoring.score_file import score_file
from predict_helpers import assert_never_sent, build_sample, decoded, image_urls, lines, read_config, run, texts

REPLY = "您好，从照片看比较像足癣，建议外用抗真菌药。"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_sample("medrealmm", tmp_path_factory.mktemp("hub"))


@pytest.fixture(scope="module")
def cases(built):
    return {r["id"]: r for r in read_config(built)}


def case_of(body, cases):
    text = texts(body["messages"][0])
    return next(c for c in cases.values() if f"[1] 患者：{c['dialogue'][0]['text'].strip()}" in text)


@pytest.fixture(scope="module")
def multimodal_run(built, tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "p.jsonl"
    with FakeOpenAIServer(lambda body: REPLY) as server:
        assert run("medrealmm", built, server, out) == 0
        return out, list(server.requests)


def test_one_user_message_with_the_dialogue_and_images_in_place(cases, multimodal_run):
    _, bodies = multimodal_run
    assert len(bodies) == len(cases) == 7
    for body in bodies:
        assert "temperature" not in body and "max_tokens" not in body  # server defaults, as in the paper
        assert [m["role"] for m in body["messages"]] == ["user"]
        parts = body["messages"][0]["content"]
        case = case_of(body, cases)
        assert parts[0]["text"] == HEADER and parts[-1]["text"] == INSTRUCTION
        # every turn's text part is followed by exactly that turn's images, original bytes
        turn_parts = [i for i, p in enumerate(parts) if p["type"] == "text" and p["text"].startswith("[")]
        assert len(turn_parts) == len(case["dialogue"])
        shown = 0
        for t, (i, turn) in enumerate(zip(turn_parts, case["dialogue"]), start=1):
            role = "患者" if turn["role"] == "patient" else "医生"
            n = len(turn["images"])
            markers = "".join(f"[图片{shown + k}]" for k in range(1, n + 1))
            assert parts[i]["text"] == f"[{t}] {role}：{turn['text'].strip()}" + (f" {markers}" if n else "")
            images = [decoded(p["image_url"]["url"]) for p in parts[i + 1:i + 1 + n]]
            assert images == [(registry.get("medrealmm").sample_dir / p).read_bytes() for p in turn["image_paths"]]
            shown += n
    secrets = [r["criterion"] for c in cases.values() for r in c["rubric"]]
    secrets += [c["original_response"] for c in cases.values() if c["original_response"]]
    assert_never_sent(bodies, secrets)


def test_patient_metadata_is_rendered(cases, multimodal_run):
    _, bodies = multimodal_run
    first = next(b for b in bodies if case_of(b, cases)["id"] == "MRS001")
    assert "患者信息：年龄：28岁；性别：男；主诉：双足趾缝瘙痒脱皮2周；病程：2周" in texts(first["messages"][0])
    second = next(b for b in bodies if case_of(b, cases)["id"] == "MRS002")
    assert "患者信息：患儿，女，3岁；发热1天" in texts(second["messages"][0])


def test_multimodal_lines_validate(built, cases, multimodal_run):
    out, _ = multimodal_run
    rows = lines(out)
    assert {r["id"] for r in rows} == set(cases)
    assert all(r == {"id": r["id"], "response": REPLY, "input_modality": "multimodal"} for r in rows)
    report, _ = score_file("medrealmm", out, built, ScoringContext(resamples=0))
    assert report.ok and not report.issues


def test_text_only_drops_images_keeps_markers_and_records_the_modality(built, cases, tmp_path, capsys):
    out = tmp_path / "p.jsonl"
    with FakeOpenAIServer(lambda body: REPLY) as server:
        assert run("medrealmm", built, server, out, "--text-only") == 0
        bodies = list(server.requests)
        assert all(not image_urls(b["messages"][0]) for b in bodies)
        assert all("[图片1]" in texts(b["messages"][0]) for b in bodies)
        # one file holds one condition: a multimodal resume of a text-only file is refused
        assert run("medrealmm", built, server, out) == 2
        assert "different settings (protocol)" in capsys.readouterr().err
    rows = lines(out)
    assert len(rows) == 7 and {r["input_modality"] for r in rows} == {"text-only"}
    report, _ = score_file("medrealmm", out, built, ScoringContext(resamples=0))
    assert report.ok and not report.issues
