"""The Hub queue's claim protocol (leaderboard/operations/hub_queue.py), in-process against the fake Hub. Leases are
measured on an injected clock: no test waits for one to run out."""
import json
import threading
from datetime import datetime, timezone

import pytest
from huggingface_hub import HfApi

from fake_hub_server import FakeHub
from leaderboard.remote.hub_calls import Retry
from leaderboard.operations.hub_queue import HubQueue, LostClaim

START = 1_800_000_000.0


class Clock:
    def __init__(self, at=START):
        self.at = at

    def __call__(self):
        return self.at


def record(sub_id, state="queued", **extra):
    return json.dumps({"id": sub_id, "benchmark": "xpcr", "state": state, "created_at": f"2026-01-01T00:00:0{sub_id[-1]}",
                       "file_name": "predictions.jsonl", "model": {"name": sub_id}, **extra}).encode()


@pytest.fixture
def hub():
    with FakeHub(tokens={"a": "scorer-a", "b": "scorer-b"}, orgs={"lab": {"scorer-a", "scorer-b"}}) as hub:
        hub.create("dataset", "lab/results")
        hub.create("dataset", "lab/private", private=True,
                   files={f"private/queue/s{i}.json": record(f"s{i}") for i in range(1, 3)})
        yield hub


def queue(hub, token, name, clock, lease=60.0, **options):
    return HubQueue("lab/private", "lab/results", name, lease, api=HfApi(endpoint=hub.url, token=token), clock=clock,
                    retry=Retry(base=0.001, cap=0.01), **options)


def put(hub, sub_id, data):
    private = hub.repo("dataset", "lab/private")
    hub.commit(private, {**private.head.files, f"private/queue/{sub_id}.json": data}, f"set {sub_id}", None)


def state(hub, sub_id):
    return json.loads(hub.repo("dataset", "lab/private").head.files[f"private/queue/{sub_id}.json"])


def test_two_workers_racing_never_get_the_same_submission(hub):
    clock = Clock()
    a, b = queue(hub, "a", "A", clock), queue(hub, "b", "B", clock)
    hub.commit_delay = 0.2  # both read the same head before either commit lands
    got = {}
    threads = [threading.Thread(target=lambda q=q: got.__setitem__(q.worker_id, q.claim(["xpcr"]))) for q in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(r["id"] for r in got.values()) == ["s1", "s2"]  # the loser of s1 re-read and took s2
    assert any(r.status == 412 for r in hub.requests)  # ...because the Hub refused its stale parent
    assert {state(hub, "s1")["worker"], state(hub, "s2")["worker"]} == {"A", "B"}
    assert a.claim(["xpcr"]) is None and b.claim(["medreamm"]) is None  # nothing left / other benchmark


def test_a_silent_worker_loses_the_submission_after_its_lease_and_cannot_finish_it(hub):
    clock = Clock()
    a, b = queue(hub, "a", "A", clock), queue(hub, "b", "B", clock)
    first = a.claim(["xpcr"])
    assert first["id"] == "s1" and state(hub, "s1")["message"] == "scoring (worker A)"
    assert first["lease_until"] == START + 60
    assert b.claim(["xpcr"])["id"] == "s2"  # s1 is leased
    clock.at += 59
    assert b.claim(["xpcr"]) is None  # still within A's lease
    clock.at += 2  # A went silent: its lease ran out
    again = b.claim(["xpcr"])
    assert again["id"] == "s1" and again["attempt"] == 2 and again["takeovers"] == 1
    assert state(hub, "s1")["message"] == "scoring (worker B); re-queued after worker A went silent"
    with pytest.raises(LostClaim):
        a.complete(first, {"state": "finished", "message": "ranked"}, {"results/xpcr/s1.json": b"{}"}, {})
    assert "results/xpcr/s1.json" not in hub.repo("dataset", "lab/results").head.files
    b.complete(again, {"state": "finished", "message": "ranked", "progress": 1.0}, {"results/xpcr/s1.json": b"{}"},
               {"private/per_item/s1.parquet": b"p"})
    final = state(hub, "s1")
    assert (final["state"], final["finished_by"], final["lease_until"]) == ("finished", "B", None)
    private = hub.repo("dataset", "lab/private").head.files
    assert "private/per_item/s1.parquet" in private
    assert not [p for p in private if p.startswith("private/outbox/")]  # published, then taken out of the outbox
    assert hub.repo("dataset", "lab/results").head.files["results/xpcr/s1.json"] == b"{}"
    with pytest.raises(LostClaim):  # finishing twice is refused too
        b.complete(again, {"state": "finished"}, {}, {})


def test_the_claim_names_its_attempt_a_stale_attempt_of_the_same_worker_cannot_finish(hub):
    """Replicas may share a worker id and even a process: only the attempt number tells claims apart."""
    clock = Clock()
    a = queue(hub, "a", "A", clock)
    first = a.claim(["xpcr"])
    a.claim(["xpcr"])  # s2
    clock.at += 61
    second = a.claim(["xpcr"])  # A's own expired claim on s1, taken again
    assert (second["id"], second["attempt"], second["instance"]) == ("s1", 2, first["instance"])
    with pytest.raises(LostClaim):
        a.complete(first, {"state": "finished", "message": "ranked"}, {"results/xpcr/s1.json": b"old"}, {})
    with pytest.raises(LostClaim):
        a.renew(first)
    a.complete(second, {"state": "finished", "message": "ranked"}, {"results/xpcr/s1.json": b"new"}, {})
    assert hub.repo("dataset", "lab/results").head.files["results/xpcr/s1.json"] == b"new"


def test_two_processes_with_one_worker_id_are_told_apart(hub):
    clock = Clock()
    a1, a2 = queue(hub, "a", "A", clock), queue(hub, "a", "A", clock)
    mine = a1.claim(["xpcr"])
    assert state(hub, "s1")["instance"] == a1.instance != a2.instance
    with pytest.raises(LostClaim):  # same name, same attempt number, other process
        a2.complete(mine, {"state": "finished"}, {}, {})


def test_renewing_keeps_the_claim(hub):
    clock = Clock()
    a, b = queue(hub, "a", "A", clock), queue(hub, "b", "B", clock)
    claimed = a.claim(["xpcr"])
    b.claim(["xpcr"])  # takes s2
    for _ in range(3):
        clock.at += 40
        a.renew(claimed)
        assert state(hub, "s1")["lease_until"] == clock.at + 60
    # 120 s after the claims: B's own unrenewed s2 came back, A's renewed s1 never became claimable
    assert b.claim(["xpcr"])["id"] == "s2" and b.claim(["xpcr"]) is None
    assert state(hub, "s1")["worker"] == "A"


def test_waiting_for_judge_is_claimed_again_only_after_the_retry_delay(hub):
    clock = Clock()
    updated = datetime.fromtimestamp(START, timezone.utc).isoformat(timespec="seconds")
    put(hub, "s1", record("s1", "waiting for judge", updated_at=updated))
    put(hub, "s2", record("s2", "finished"))
    a = queue(hub, "a", "A", clock, retry_judged_after=300)
    no_judge = queue(hub, "b", "B", clock)
    clock.at += 299
    assert a.claim(["xpcr"]) is None
    clock.at += 2
    assert no_judge.claim(["xpcr"]) is None  # without a judge it stays waiting
    assert a.claim(["xpcr"])["id"] == "s1"


def test_a_submission_whose_workers_keep_dying_fails_with_its_quota_refunded(hub):
    clock = Clock()
    a = queue(hub, "a", "A", clock, max_takeovers=2)
    put(hub, "s2", record("s2", "finished"))
    for attempt in (1, 2, 3):
        claimed = a.claim(["xpcr"])
        assert (claimed["id"], claimed["attempt"]) == ("s1", attempt)
        clock.at += 61  # the worker died holding it
    assert a.claim(["xpcr"]) is None
    final = state(hub, "s1")
    assert final["state"] == "failed" and final["ranked"] is False  # failed and unranked: no quota unit
    assert final["message"].startswith("scoring did not complete in 3 attempts")
