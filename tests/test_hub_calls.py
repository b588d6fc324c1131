"""The one retry rule for Hub calls (leaderboard/remote/hub_calls.py): which failures are retried, how long it waits
(exponential backoff with full jitter, on an injected sleep), and a timeout through the fault proxy."""
import random
from types import SimpleNamespace

import pytest
from huggingface_hub import HfApi

from fake_hub_server import FakeHub
from fault_proxy import FaultProxy
from leaderboard.remote.hub_calls import HubConfigError, HubMissing, HubUnavailable, Retry, read_file, use_timeouts


class Failing(Exception):
    def __init__(self, status):
        super().__init__(status)
        self.response = SimpleNamespace(status_code=status)


def flaky(*statuses, value="ok"):
    """A call that fails with these statuses in turn, then returns `value`."""
    left = list(statuses)

    def call():
        if left:
            raise Failing(left.pop(0))
        return value
    return call


def test_5xx_and_429_are_retried_with_growing_jittered_waits():
    waits = []
    retry = Retry(attempts=5, base=1.0, cap=3.0, sleep=waits.append, rng=random.Random(1))
    assert retry.run(flaky(500, 429, 503, 502), "x") == "ok"
    bounds = [1.0, 2.0, 3.0, 3.0]  # base * 2^attempt, capped
    assert len(waits) == 4 and all(0 <= w <= b for w, b in zip(waits, bounds))
    assert waits[2] > 1.0 or waits[3] > 1.0  # the later waits may exceed the first bound (seeded: they do)


def test_what_is_not_retried():
    waits = []
    retry = Retry(attempts=5, sleep=waits.append)
    with pytest.raises(HubConfigError, match="403"):
        retry.run(flaky(403), "read lab/private")
    with pytest.raises(HubMissing):
        retry.run(flaky(404), "read lab/private/x")
    with pytest.raises(Failing):  # a 400 is our bug: raised as it is
        retry.run(flaky(400), "x")
    assert waits == []
    with pytest.raises(HubUnavailable, match="5 tries"):
        retry.run(flaky(*[500] * 5), "x")
    assert len(waits) == 4  # no pointless wait after the last try


def test_a_request_held_past_the_timeout_is_retried():
    with FakeHub(tokens={"t": "lab"}) as hub, FaultProxy(hub.url, delay=2.0) as proxy:
        hub.create("dataset", "lab/x", files={"a.json": b"{}"})
        proxy.force("delay", lambda method, path: "/resolve/" in path)
        use_timeouts(0.5)
        try:
            data = read_file(HfApi(endpoint=proxy.url, token="t"), "lab/x", "a.json", "main",
                             Retry(attempts=3, base=0.001, cap=0.01))
        finally:
            use_timeouts()
        assert data == b"{}" and proxy.injected["delay"] == 1
        assert proxy.requests == 2  # the held request timed out; the second try was answered
