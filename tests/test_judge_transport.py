"""The judge's asyncio transport (one event loop + aiohttp pool) through real HTTP against the scripted
server on 127.0.0.1: the shared retry policy, the in-flight bound across `run` and `judge_one` callers,
identical requests asked once, cache hits that never open a connection, and the loop thread's lifetime."""
import gc
import socket
import threading

import pytest

from fake_openai_server import FakeOpenAIServer, ground
from leaderboard.remote.chat_http import backoff_delay
from leaderboard.scoring.judge import Judge, JudgeCall, JudgeConfig, load_prompt, parse_json_object


@pytest.fixture
def prompt(tmp_path):
    (tmp_path / "grade.v1.txt").write_text("Grade.\n=== USER ===\nCriterion: {criterion}\nCandidate:\n{candidate}\n")
    return load_prompt("grade", folder=tmp_path)


def judge_for(base_url, tmp_path, **kw):
    kw = {"backoff_base": 0.01, "backoff_max": 0.02, "timeout": 5.0, **kw}
    return Judge(JudgeConfig(base_url=base_url, model="fake-judge", cache_path=tmp_path / "cache.sqlite", **kw))


def call(prompt, criterion, key=None):
    return JudgeCall(key or criterion, prompt, {"criterion": criterion, "candidate": "Use an emollient."})


def loop_threads() -> int:
    return sum(t.name == "judge-http" and t.is_alive() for t in threading.enumerate())


def test_backoff_doubles_is_capped_and_jittered_to_half_or_more():
    for attempt, low, high in [(1, 0.5, 1.0), (2, 1.0, 2.0), (3, 2.0, 4.0), (8, 30.0, 60.0)]:
        delays = [backoff_delay(attempt, 1.0, 60.0) for _ in range(200)]
        assert low <= min(delays) and max(delays) <= high and max(delays) - min(delays) > (high - low) / 4


def test_every_transient_fault_is_retried_and_counted_then_a_4xx_fails_at_once(tmp_path, prompt):
    with FakeOpenAIServer(lambda body: '{"met": true}') as server:
        server.script = [429, "truncated", 503, "timeout"]
        server.timeout_sleep = 1.0
        judge = judge_for(server.base_url, tmp_path, timeout=0.4, attempts=5)
        verdict = judge.run([call(prompt, "a")], parse_json_object)[0]
        # 4 faults then the answer: 5 requests, 4 of them retries, no repair (each body was unusable, not wrong)
        assert verdict.value == {"met": True} and server.calls() == 5
        assert (judge.stats.http_calls, judge.stats.retries, judge.stats.repairs, judge.stats.failures) == (5, 4, 0, 0)
        server.script = [400]
        refused = judge.run([call(prompt, "b")], parse_json_object)[0]
        assert refused.value is None and refused.kind == "status 400"
        assert server.calls() == 6 and (judge.stats.http_calls, judge.stats.retries, judge.stats.failures) == (6, 4, 1)
        judge.close()


def test_an_endpoint_that_refuses_connections_fails_after_the_bounded_attempts(tmp_path, prompt):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    judge = judge_for(f"http://127.0.0.1:{port}/v1", tmp_path, attempts=3)
    verdict = judge.run([call(prompt, "a")], parse_json_object)[0]
    assert verdict.value is None and verdict.kind == "connection"
    assert (judge.stats.http_calls, judge.stats.retries, judge.stats.failures) == (3, 2, 1)
    judge.close()


def test_run_and_judge_one_threads_share_one_bound_of_concurrency(tmp_path, prompt):
    with FakeOpenAIServer(lambda body: '{"met": false}') as server:
        server.delay = 0.05
        judge = judge_for(server.base_url, tmp_path, concurrency=3)
        # a caller's own threads (as ClinMM's run_each) while a batch runs: 12 + 4 x 2 distinct requests
        singles = [threading.Thread(target=lambda i=i: [judge.judge_one(call(prompt, f"t{i}-{j}"), parse_json_object)
                                                        for j in range(2)]) for i in range(4)]
        for thread in singles:
            thread.start()
        verdicts = judge.run([call(prompt, f"r{i}") for i in range(12)], parse_json_object)
        for thread in singles:
            thread.join()
        assert [v.key for v in verdicts] == [f"r{i}" for i in range(12)] and all(v.value == {"met": False} for v in verdicts)
        assert server.calls() == 20 and judge.stats.http_calls == 20
        assert server.max_in_flight == 3  # reached, never exceeded
        judge.close()


def test_identical_requests_in_one_run_are_asked_once_and_a_rescore_opens_no_connection(tmp_path, prompt):
    with FakeOpenAIServer(lambda body: '{"met": true}') as server:
        judge = judge_for(server.base_url, tmp_path)
        batch = [call(prompt, c, key=f"k{i}") for i, c in enumerate(["a", "b", "a", "a", "b"])]
        verdicts = judge.run(batch, parse_json_object)
        assert [v.key for v in verdicts] == ["k0", "k1", "k2", "k3", "k4"]
        assert [v.cached for v in verdicts] == [False, False, True, True, True]
        assert server.calls() == 2 and (judge.stats.http_calls, judge.stats.cache_hits) == (2, 3)
        judge.close()
        assert loop_threads() == 0
        again = judge_for(server.base_url, tmp_path)
        rescored = again.run(batch, parse_json_object)
        assert all(v.cached and v.value == {"met": True} for v in rescored) and again.stats.cache_hits == 5
        assert server.calls() == 2 and not again.transport.running  # answered from the file alone
        again.close()


def test_a_judge_nobody_closes_leaves_no_loop_thread_behind(tmp_path, prompt):
    with FakeOpenAIServer(lambda body: '{"met": true}') as server:
        before = loop_threads()
        judge = judge_for(server.base_url, tmp_path)
        assert judge.judge_one(call(prompt, "a"), parse_json_object).ok and loop_threads() == before + 1
        judge.cache.close()
        del judge
        gc.collect()
        assert loop_threads() == before


def test_a_runaway_response_body_is_cut_off_and_retried_within_the_bound(tmp_path, prompt, monkeypatch):
    import leaderboard.scoring.judge.transport as transport

    monkeypatch.setattr(transport, "MAX_RESPONSE_BYTES", 2_000)
    with FakeOpenAIServer(lambda body: '{"met": true, "rationale": "' + "x" * 5_000 + '"}') as server:
        judge = judge_for(server.base_url, tmp_path, attempts=3)
        verdict = judge.run([call(prompt, "a")], parse_json_object)[0]
        # 3 attempts, each body over 2,000 bytes: no verdict, and the kind says why
        assert verdict.value is None and verdict.kind == "body too large"
        assert server.calls() == 3 and (judge.stats.http_calls, judge.stats.retries, judge.stats.failures) == (3, 2, 1)
        # a body under the bound is read whole
        monkeypatch.setattr(transport, "MAX_RESPONSE_BYTES", 20_000)
        assert judge.run([call(prompt, "b")], parse_json_object)[0].value["met"] is True
        judge.close()


def test_the_bound_holds_for_announced_chunked_and_compressed_bodies(tmp_path, prompt, monkeypatch):
    # a plain body within the bound is read in one call; the others are checked as they are decoded
    import gzip
    import json

    import leaderboard.scoring.judge.transport as transport

    monkeypatch.setattr(transport, "MAX_RESPONSE_BYTES", 2_000)
    def verdict(body: dict) -> bytes:  # grounded in the request (its canary), as a compliant judge answers
        content = ground('{"met": true, "rationale": "small"}', body)
        return json.dumps({"choices": [{"message": {"content": content}}]}).encode()

    big = json.dumps({"choices": [{"message": {"content": '{"met": true, "r": "' + "x" * 5_000 + '"}'}}]}).encode()

    def response(body: bytes, *headers: str) -> bytes:
        return ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n" + "".join(h + "\r\n" for h in headers)
                + "\r\n").encode() + body

    def chunked(body: bytes) -> bytes:
        return b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in (body[:1000], body[1000:]) if part) + b"0\r\n\r\n"

    bomb = gzip.compress(big)
    assert len(bomb) < 2_000 < len(big)  # small on the wire, over the bound once decoded
    with FakeOpenAIServer() as server:
        server.script = [
            response(big[:20], f"Content-Length: {len(big)}"),  # announced over the bound: refused unread
            response(chunked(big), "Transfer-Encoding: chunked"),  # no length: cut while read
            response(bomb, f"Content-Length: {len(bomb)}", "Content-Encoding: gzip"),  # cut once decoded
            lambda body: response(chunked(verdict(body)), "Transfer-Encoding: chunked"),  # the same path, within the bound
            lambda body: response(gzip.compress(verdict(body)), f"Content-Length: {len(gzip.compress(verdict(body)))}",
                                  "Content-Encoding: gzip"),
            lambda body: response(verdict(body), f"Content-Length: {len(verdict(body))}"),  # read in one call
        ]
        judge = judge_for(server.base_url, tmp_path, attempts=3)
        failed = judge.run([call(prompt, "a")], parse_json_object)[0]
        assert failed.value is None and failed.kind == "body too large"
        verdicts = [judge.run([call(prompt, c)], parse_json_object)[0] for c in "bcd"]  # in script order
        assert [v.value for v in verdicts] == [{"met": True, "rationale": "small"}] * 3
        # the first three cost 3 attempts and one failure; the other three one attempt each, no retry
        assert server.calls() == 6 and (judge.stats.http_calls, judge.stats.retries, judge.stats.failures) == (6, 2, 1)
        judge.close()


def test_the_loop_is_uvloops_where_installed_and_asyncios_otherwise(tmp_path, prompt):
    import asyncio

    with FakeOpenAIServer(lambda body: '{"met": true}') as server:
        judge = judge_for(server.base_url, tmp_path)
        assert judge.run([call(prompt, "a")], parse_json_object)[0].value == {"met": True}
        loop = judge.transport._state.loop
        try:
            import uvloop
        except ImportError:  # e.g. Windows, where uvloop has no build: the standard loop, same behaviour
            assert type(loop).__module__.startswith("asyncio")
        else:
            assert isinstance(loop, uvloop.Loop)
        assert isinstance(loop, asyncio.AbstractEventLoop)
        judge.close()


def test_bodies_carry_non_ascii_text_and_json_only_values_both_ways(tmp_path, prompt):
    # the fast codecs (orjson) stand aside for what only json reads or writes: NaN, integers past 64 bits
    answers = iter(['{"met": true, "confidence": NaN}', '{"met": false, "id": 123456789012345678901234567890}',
                    'Verdict: {"met": true} (sure)'])
    with FakeOpenAIServer(lambda body: next(answers)) as server:
        judge = judge_for(server.base_url, tmp_path, seed=2 ** 70)
        calls = [JudgeCall("k", prompt, {"criterion": "Éruption cutanée, 皮疹", "candidate": "Émollient."}),
                 call(prompt, "b"), call(prompt, "c")]
        verdicts = [judge.run([c], parse_json_object)[0] for c in calls]
        nan = verdicts[0].value["confidence"]
        assert verdicts[0].value["met"] is True and nan != nan
        assert verdicts[1].value == {"met": False, "id": 123456789012345678901234567890}
        assert verdicts[2].value == {"met": True}
        first = server.requests[0]
        assert first["seed"] == 2 ** 70 and "Éruption cutanée, 皮疹" in first["messages"][1]["content"]
        assert "Émollient." in first["messages"][1]["content"]
        judge.close()


def test_a_response_body_is_parsed_by_json_where_orjson_refuses():
    from leaderboard.remote.chat_http import parse_body

    assert parse_body(b'{"a": [1, 2.5, "\\u00e9"]}') == {"a": [1, 2.5, "é"]}
    value = parse_body(b'{"x": NaN, "y": Infinity, "z": 7}')
    assert value["x"] != value["x"] and value["y"] == float("inf") and value["z"] == 7
    with pytest.raises(ValueError):
        parse_body(b'{"a": ')
