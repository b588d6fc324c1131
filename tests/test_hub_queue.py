"""The Hub queue's claim protocol (leaderboard/hub_queue.py), in-process against the fake Hub."""
import json
import threading
import time

import pytest
from huggingface_hub import HfApi

from fake_hub_server import FakeHub
from leaderboard.hub_queue import HubQueue, LostClaim


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


def queue(hub, token, name, tmp_path, lease=60.0):
    return HubQueue("lab/private", "lab/results", name, lease, tmp_path / name,
                    api=HfApi(endpoint=hub.url, token=token))


def state(hub, sub_id):
    return json.loads(hub.repo("dataset", "lab/private").head.files[f"private/queue/{sub_id}.json"])


def test_two_workers_racing_never_get_the_same_submission(hub, tmp_path):
    a, b = queue(hub, "a", "A", tmp_path), queue(hub, "b", "B", tmp_path)
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


def test_a_silent_worker_loses_the_submission_after_its_lease_and_cannot_finish_it(hub, tmp_path):
    a, b = queue(hub, "a", "A", tmp_path, lease=0.5), queue(hub, "b", "B", tmp_path)
    first = a.claim(["xpcr"])
    assert first["id"] == "s1" and state(hub, "s1")["message"] == "scoring (worker A)"
    assert b.claim(["xpcr"])["id"] == "s2"  # s1 is leased
    time.sleep(0.6)
    again = b.claim(["xpcr"])  # A went silent: its lease ran out
    assert again["id"] == "s1" and again["attempt"] == 2
    assert state(hub, "s1")["message"] == "scoring (worker B); re-queued after worker A went silent"
    with pytest.raises(LostClaim):
        a.complete(first, {"state": "finished", "message": "ranked"}, {"results/xpcr/s1.json": b"{}"}, {})
    assert "results/xpcr/s1.json" not in hub.repo("dataset", "lab/results").head.files
    b.complete(again, {"state": "finished", "message": "ranked", "progress": 1.0}, {"results/xpcr/s1.json": b"{}"},
               {"private/per_item/s1.parquet": b"p"})
    final = state(hub, "s1")
    assert (final["state"], final["finished_by"], final["lease_until"]) == ("finished", "B", None)
    assert "private/per_item/s1.parquet" in hub.repo("dataset", "lab/private").head.files
    assert "results/xpcr/s1.json" in hub.repo("dataset", "lab/results").head.files
    with pytest.raises(LostClaim):  # finishing twice is refused too
        b.complete(again, {"state": "finished"}, {}, {})


def test_renewing_keeps_the_claim(hub, tmp_path):
    a, b = queue(hub, "a", "A", tmp_path, lease=1.0), queue(hub, "b", "B", tmp_path)
    claimed = a.claim(["xpcr"])
    b.claim(["xpcr"])  # takes s2
    for _ in range(3):
        time.sleep(0.4)
        a.renew(claimed)
    assert b.claim(["xpcr"]) is None  # s1 never became claimable
