"""`predict` machinery through real HTTP to the fake server: retries, failures, resuming, --limit,
concurrency, the metadata sidecar and request settings. Med-CMR's sample (one request per item,
21 MCQ + 4 open-ended items) is the vehicle."""
import json

import pytest

from fake_openai_server import FakeOpenAIServer
from leaderboard.scoring import registry
from leaderboard.harness.predict.cli import main as predict_main
from leaderboard.harness.predict.runner import ChatClient, ChatConfig, ChatError, done_ids
from leaderboard.intake.prediction_files import validate
from predict_helpers import build_sample, lines, read_config, reset_server, run

N_ITEMS = 25  # the Med-CMR sample: 21 MCQ + 4 open-ended


@pytest.fixture(scope="module")
def shared_server():
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def fake(shared_server):
    return lambda responder=None: reset_server(shared_server, responder)


@pytest.fixture(scope="module")
def medcmr(tmp_path_factory):
    return build_sample("medcmr", tmp_path_factory.mktemp("hub"))


def test_every_item_once_and_the_file_validates(medcmr, tmp_path, fake):
    out = tmp_path / "p.jsonl"
    server = fake(lambda body: "Answer: B")
    assert run("medcmr", medcmr, server, out) == 0
    assert server.calls() == N_ITEMS
    rows = lines(out)
    assert len(rows) == N_ITEMS and len({r["id"] for r in rows}) == N_ITEMS
    assert all(set(r) == {"id", "response"} and r["response"] == "Answer: B" for r in rows)
    ids = [r["id"] for r in read_config(medcmr, "mcq")] + [r["id"] for r in read_config(medcmr, "open_ended")]
    report = validate(out, registry.scorer("medcmr").schema, ids)
    assert report.ok and not report.issues and report.n_valid == N_ITEMS


def test_second_run_skips_finished_ids_and_sends_nothing(medcmr, tmp_path, fake):
    out = tmp_path / "p.jsonl"
    server = fake(lambda body: "Answer: A")
    assert run("medcmr", medcmr, server, out, "--limit", "6") == 0
    assert server.calls() == 6
    assert run("medcmr", medcmr, server, out, "--limit", "6") == 0
    assert server.calls() == 6  # zero new requests
    assert len(lines(out)) == 6
    meta = json.loads(out.with_name("p.jsonl.meta.json").read_text())
    assert [r["tasks_skipped"] for r in meta["runs"]] == [0, 6]
    assert [r["rows_written"] for r in meta["runs"]] == [6, 0]


def test_limit_takes_the_first_k_and_a_larger_limit_adds_only_the_rest(medcmr, tmp_path, fake):
    out = tmp_path / "p.jsonl"
    server = fake(lambda body: "Answer: A")
    assert run("medcmr", medcmr, server, out, "--limit", "3") == 0
    assert server.calls() == 3
    assert {r["id"] for r in lines(out)} == {"mcq-0", "mcq-1", "mcq-2"}  # dataset order (written as they finish)
    assert run("medcmr", medcmr, server, out, "--limit", "5") == 0
    assert server.calls() == 5  # 3 skipped, 2 new
    assert {r["id"] for r in lines(out)} == {f"mcq-{i}" for i in range(5)}


def test_429_and_500_are_retried_and_succeed(medcmr, tmp_path, fake):
    out = tmp_path / "p.jsonl"
    server = fake(lambda body: "Answer: C")
    server.script = [429, 500, 503]
    assert run("medcmr", medcmr, server, out, "--limit", "1", "--concurrency", "1") == 0
    assert server.calls() == 4  # three failures, then the answer
    assert lines(out) == [{"id": "mcq-0", "response": "Answer: C"}]
    http = json.loads(out.with_name("p.jsonl.meta.json").read_text())["runs"][0]["http"]
    assert (http["requests"], http["http_calls"], http["retries"], http["failures"]) == (1, 4, 3, 0)


def test_timeouts_are_retried(medcmr, tmp_path):
    # Its own server: the timed-out request is still being answered after the test ends, and on the
    # module's shared server it could be counted by the next test (reset_server drains only requests
    # already counted in flight).
    out = tmp_path / "p.jsonl"
    with FakeOpenAIServer() as server:
        server.responder = lambda body: "Answer: D"
        server.script = ["timeout"]
        server.timeout_sleep = 0.5
        assert run("medcmr", medcmr, server, out, "--limit", "1", "--timeout", "0.3") == 0
        assert server.calls() == 2
    assert lines(out)[0]["response"] == "Answer: D"


def test_persistent_failures_are_summarised_not_written_and_retried_next_run(medcmr, tmp_path, capsys, fake):
    out = tmp_path / "p.jsonl"
    server = fake(lambda body: "Answer: A")
    # --max-retries 1: item 1 gets 500 twice (fails), item 2 gets 400 once (refused, no retry)
    server.script = [500, 500, 400]
    assert run("medcmr", medcmr, server, out, "--limit", "3", "--concurrency", "1", "--max-retries", "1") == 1
    err = capsys.readouterr().err
    assert "1 x failed after 2 attempts (HTTP 500): mcq-0" in err
    assert "1 x HTTP 400: scripted 400: mcq-1" in err
    assert "re-run the same command" in err
    assert [r["id"] for r in lines(out)] == ["mcq-2"]
    meta = json.loads(out.with_name("p.jsonl.meta.json").read_text())
    assert meta["runs"][0]["tasks_failed"] == 2
    assert {f["task"] for f in meta["runs"][0]["failures"]} == {"mcq-0", "mcq-1"}
    # the re-run asks only for the two failures
    assert run("medcmr", medcmr, server, out, "--limit", "3") == 0
    assert server.calls() == 3 + 1 + 2
    assert sorted(r["id"] for r in lines(out)) == ["mcq-0", "mcq-1", "mcq-2"]


def test_concurrency_is_bounded(medcmr, tmp_path, fake):
    server = fake(lambda body: "Answer: A")
    server.delay = 0.05
    assert run("medcmr", medcmr, server, tmp_path / "p.jsonl", "--concurrency", "3", "--limit", "9") == 0
    assert 2 <= server.max_in_flight <= 3


def test_request_settings_key_and_sidecar(medcmr, tmp_path, monkeypatch, fake):
    monkeypatch.setenv("PREDICT_API_KEY", "sk-secret-123")
    out = tmp_path / "p.jsonl"
    server = fake(lambda body: "<think>A or B?</think>Answer: B")
    assert run("medcmr", medcmr, server, out, "--limit", "1", "--max-tokens", "64",
               "--extra-body", '{"top_p": 0.9}') == 0
    body, headers = server.requests[0], server.headers[0]
    assert headers["authorization"] == "Bearer sk-secret-123"
    assert (body["model"], body["temperature"], body["max_tokens"], body["top_p"]) == ("test-model", 0.0, 64, 0.9)
    assert lines(out)[0]["response"] == "Answer: B"  # the leading think block is stripped
    meta_text = out.with_name("p.jsonl.meta.json").read_text()
    assert "sk-secret" not in meta_text
    meta = json.loads(meta_text)
    assert meta["model"] == "test-model" and meta["benchmark"] == "medcmr"
    assert meta["request"] == {"temperature": 0.0, "max_tokens": 64, "top_p": 0.9, "max_tokens_overrides_protocol": True}
    assert meta["protocol"]["name"] == "medcmr" and len(meta["protocol"]["prompt_sha"]) == 12


def test_temperature_none_sends_no_temperature(medcmr, tmp_path, fake):
    server = fake(lambda body: "Answer: A")
    assert run("medcmr", medcmr, server, tmp_path / "p.jsonl", "--limit", "1", "--temperature", "none") == 0
    assert "temperature" not in server.requests[0] and "max_tokens" not in server.requests[0]


def test_resuming_with_another_model_is_refused(medcmr, tmp_path, capsys, fake):
    out = tmp_path / "p.jsonl"
    server = fake(lambda body: "Answer: A")
    assert run("medcmr", medcmr, server, out, "--limit", "1") == 0
    code = run("medcmr", medcmr, server, out, "--limit", "2", "--temperature", "0.7")
    assert code == 2 and "different settings (request)" in capsys.readouterr().err
    assert server.calls() == 1
    assert run("medcmr", medcmr, server, out, "--limit", "2", "--temperature", "0.7", "--overwrite") == 0
    assert server.calls() == 3


def test_a_torn_last_line_is_cut_and_redone(medcmr, tmp_path, fake):
    out = tmp_path / "p.jsonl"
    server = fake(lambda body: "Answer: A")
    assert run("medcmr", medcmr, server, out, "--limit", "2") == 0
    out.write_text(out.read_text() + '{"id": "mcq-2", "resp', encoding="utf-8")  # crash mid-write
    assert done_ids(out) == {"mcq-0", "mcq-1"}
    assert run("medcmr", medcmr, server, out, "--limit", "3") == 0
    assert server.calls() == 3
    ids = [r["id"] for r in lines(out)]
    assert set(ids[:2]) == {"mcq-0", "mcq-1"} and ids[2:] == ["mcq-2"]  # the torn line is gone, mcq-2 redone


def test_a_wrong_dataset_folder_is_a_clear_error(tmp_path, capsys, fake):
    server = fake()
    assert run("medcmr", tmp_path / "nowhere", server, tmp_path / "p.jsonl") == 2
    assert server.calls() == 0
    assert "cannot open the dataset" in capsys.readouterr().err


def test_client_refuses_4xx_without_retrying(fake):
    server = fake()
    server.script = [404]
    client = ChatClient(ChatConfig(server.base_url, "m", backoff_base=0.01))
    with pytest.raises(ChatError, match="HTTP 404"):
        client([{"role": "user", "content": "hi"}])
    assert server.calls() == 1 and client.stats.retries == 0


def test_a_base_url_without_scheme_is_a_clear_error(medcmr, tmp_path, capsys):
    code = predict_main(["medcmr", "--data", str(medcmr), "--base-url", "localhost:8000/v1", "--model", "m",
                         "--out", str(tmp_path / "p.jsonl")])
    assert code == 2 and "--base-url must start with http://" in capsys.readouterr().err
    assert not (tmp_path / "p.jsonl").exists()
