"""Hub faults one at a time, through the fault proxy in front of the fake Hub: a lost acknowledgement of a claim,
of a finish and of the Space's own commit; a failed upload; an upload that is not there; two workers sharing one
breakdown budget."""
import json
from types import SimpleNamespace

import pytest
from huggingface_hub import HfApi

from fake_hub_server import FakeHub
from fault_proxy import FaultProxy, is_commit
from hub_fault_run import writes
from leaderboard.remote.hub_calls import DEFAULT_RETRY, Retry
from leaderboard.operations.hub_ledger import HubLedger
from leaderboard.operations.hub_queue import NOT_READY_LIMIT, HubQueue, score_claimed
from leaderboard.operations.store import HubMirror, LocalStore

FAST = Retry(attempts=3, base=0.001, cap=0.01)
UPLOAD = "private/uploads/s1/predictions.jsonl"


def record(sub_id, state="queued", **extra):
    return {"id": sub_id, "benchmark": "xpcr", "state": state, "created_at": "2026-01-01T00:00:01",
            "updated_at": "2026-01-01T00:00:01", "progress": 0.0, "file_name": "predictions.jsonl",
            "user": "alice", **extra}


@pytest.fixture
def hub():
    tokens = {"a": "scorer-a", "b": "scorer-b", "space": "space-bot"}
    with FakeHub(tokens=tokens, orgs={"lab": {"scorer-a", "scorer-b", "space-bot"}}) as hub:
        hub.create("dataset", "lab/results")
        hub.create("dataset", "lab/private", private=True)
        with FaultProxy(hub.url) as proxy:
            yield hub, proxy


def api(url, token):
    return HfApi(endpoint=url, token=token)


def worker(url, token, name):
    return HubQueue("lab/private", "lab/results", name, 60.0, api=api(url, token), retry=FAST)


def files(hub, repo="lab/private"):
    return hub.repo("dataset", repo).head.files


def commits_touching(hub, repo, path):
    return writes(hub.repo("dataset", repo), path)


def seed(hub, *records):
    private = hub.repo("dataset", "lab/private")
    hub.commit(private, {**private.head.files, **{f"private/queue/{r['id']}.json": json.dumps(r).encode()
                                                  for r in records}, UPLOAD: b"{}\n"}, "seed", None)


def test_a_claim_whose_acknowledgement_is_lost_is_still_ours_and_claimed_once(hub):
    hub, proxy = hub
    seed(hub, record("s1"))
    a = worker(proxy.url, "a", "A")
    proxy.force("lost_ack", is_commit)
    claimed = a.claim(["xpcr"])
    assert claimed["id"] == "s1" and proxy.injected["lost_ack"] == 1
    assert commits_touching(hub, "lab/private", "private/queue/s1.json") == 2  # the seed, then one claim
    a.complete(claimed, {"state": "finished", "message": "ranked", "progress": 1.0},
               {"results/xpcr/s1.json": b'{"r": 1}'}, {})
    assert json.loads(files(hub)["private/queue/s1.json"])["state"] == "finished"


def test_a_lost_finish_acknowledgement_publishes_one_result_once(hub):
    hub, proxy = hub
    seed(hub, record("s1"))
    a = worker(proxy.url, "a", "A")
    claimed = a.claim(["xpcr"])
    proxy.force("lost_ack", is_commit)  # the finishing commit lands, its answer does not
    proxy.force("lost_ack", lambda method, path: is_commit(method, path) and "lab/results" in path)
    a.complete(claimed, {"state": "finished", "message": "ranked", "progress": 1.0},
               {"results/xpcr/s1.json": b'{"r": 1}'}, {"private/per_item/s1.parquet": b"p"})
    assert proxy.injected["lost_ack"] == 2
    final = json.loads(files(hub)["private/queue/s1.json"])
    assert (final["state"], final["finished_by"]) == ("finished", "A")
    assert commits_touching(hub, "lab/results", "results/xpcr/s1.json") == 1
    assert files(hub, "lab/results")["results/xpcr/s1.json"] == b'{"r": 1}'
    assert not [p for p in files(hub) if p.startswith("private/outbox/")]


def test_a_result_left_in_the_outbox_by_a_crashed_worker_is_published_by_the_next_pass(hub):
    hub, proxy = hub
    seed(hub, record("s1"), record("s2", created_at="2026-01-01T00:00:02"))
    a, b = worker(proxy.url, "a", "A"), worker(proxy.url, "b", "B")
    claimed = a.claim(["xpcr"])
    # A's finish lands; every request after it fails until A is gone (it crashed before publishing)
    proxy.force("500", lambda method, path: "lab/results" in path)
    proxy.force("500", lambda method, path: "lab/results" in path)
    proxy.force("500", lambda method, path: "lab/results" in path)
    a.complete(claimed, {"state": "finished", "message": "ranked", "progress": 1.0},
               {"results/xpcr/s1.json": b'{"r": 1}'}, {})
    assert "private/outbox/s1.json" in files(hub) and "results/xpcr/s1.json" not in files(hub, "lab/results")
    assert b.claim(["xpcr"])["id"] == "s2"  # B's pass publishes A's result on its way
    assert files(hub, "lab/results")["results/xpcr/s1.json"] == b'{"r": 1}'
    assert "private/outbox/s1.json" not in files(hub)


def test_an_upload_that_is_not_there_goes_back_to_the_queue_then_fails_refunded(hub, tmp_path):
    hub, proxy = hub
    seed(hub, record("s1"))
    a = worker(proxy.url, "a", "A")
    service = SimpleNamespace(store=LocalStore(tmp_path / "scratch"))
    for miss in range(1, NOT_READY_LIMIT):
        proxy.force("404", lambda method, path: "/resolve/" in path and "uploads" in path)
        assert score_claimed(a, service, a.claim(["xpcr"])) == "queued"
        back = json.loads(files(hub)["private/queue/s1.json"])
        assert (back["state"], back["not_ready"]) == ("queued", miss)
        assert back["message"] == "waiting for a scoring worker (its file is not on the Hub yet)"
    proxy.force("404", lambda method, path: "/resolve/" in path and "uploads" in path)
    score_claimed(a, service, a.claim(["xpcr"]))
    final = json.loads(files(hub)["private/queue/s1.json"])
    assert (final["state"], final["ranked"]) == ("failed", False)
    assert a.claim(["xpcr"]) is None


def space_store(tmp_path, proxy):
    mirror = HubMirror("lab/results", "lab/private", api=api(proxy.url, "space"), retry=FAST)
    return LocalStore(tmp_path / "space", mirror)


def test_a_lost_acknowledgement_of_the_spaces_commit_never_overwrites_a_workers_claim(hub, tmp_path):
    hub, proxy = hub
    store = space_store(tmp_path, proxy)
    store.write_bytes(store.private("uploads", "s1", "predictions.jsonl"), b"{}\n")
    proxy.force("lost_ack", is_commit)  # the record lands; the Space hears 500...
    for _ in range(FAST.attempts):  # ...and cannot read the Hub to check, so the write stays pending
        proxy.force("500", lambda method, path: method == "GET" and "/api/datasets/lab/private" in path)
    store.write_json(store.private("queue", "s1.json"), record("s1"))
    assert store.mirror.pending and json.loads(files(hub)["private/queue/s1.json"])["state"] == "queued"
    claimed = worker(hub.url, "a", "A").claim(["xpcr"])  # a worker claims it meanwhile
    assert store.mirror.retry_pending() == 1  # the Space's next refresh: its stale "queued" is older
    now = json.loads(files(hub)["private/queue/s1.json"])
    assert (now["state"], now["instance"], now["attempt"]) == ("scoring", claimed["instance"], 1)
    assert commits_touching(hub, "lab/private", "private/queue/s1.json") == 2  # the Space's one write, the claim


def test_a_failed_upload_never_exposes_a_record_without_its_file(hub, tmp_path):
    hub, proxy = hub
    store = space_store(tmp_path, proxy)
    proxy.rate, proxy.kinds, proxy.only = 1.0, ("500",), is_commit  # every commit fails for now
    store.write_bytes(store.private("uploads", "s1", "predictions.jsonl"), b"{}\n")
    store.write_json(store.private("queue", "s1.json"), record("s1"))
    assert UPLOAD not in files(hub) and "private/queue/s1.json" not in files(hub)
    assert worker(hub.url, "a", "A").claim(["xpcr"]) is None
    assert [p for _, p, _ in store.mirror.pending] == [UPLOAD, "private/queue/s1.json"]
    proxy.rate = 0.0  # the Hub is back: the upload lands first, then the record
    assert store.mirror.retry_pending() == 2
    history = hub.repo("dataset", "lab/private").commits
    first = {p: next(i for i, c in enumerate(history) if p in c.files) for p in (UPLOAD, "private/queue/s1.json")}
    assert first[UPLOAD] < first["private/queue/s1.json"]


def test_two_workers_spend_one_breakdown_budget(hub):
    hub, proxy = hub
    proxy.rate, proxy.kinds = 0.3, ("500", "lost_ack")
    ledgers = [HubLedger(api(proxy.url, t), "lab/private", retry=Retry(attempts=8, base=0.001, cap=0.01))
               for t in ("a", "b")]
    granted = [ledgers[i % 2].breakdown_allowed("mallory", f"s{i}", per_month=2) for i in range(5)]
    assert granted == [True, True, False, False, False]
    assert ledgers[1].breakdown_allowed("mallory", "s0", per_month=2)  # a rescore keeps its entry
    assert ledgers[0].breakdown_allowed("alice", "s9", per_month=2)  # per account
    assert proxy.injected["500"] + proxy.injected["lost_ack"] > 0


def test_a_worker_exits_only_on_a_configuration_error(hub, tmp_path):
    """A token the Hub refuses: `python -m leaderboard worker` says so and exits 2 (not a traceback)."""
    import subprocess
    import sys

    from conftest import ROOT
    from hub_space import hub_env

    hub, _ = hub
    done = subprocess.run([sys.executable, "-m", "leaderboard", "worker", "--hub-results-repo", "lab/results",
                           "--hub-private-repo", "lab/private", "--store", str(tmp_path), "--data", str(tmp_path),
                           "--once"], cwd=ROOT, env=hub_env(hub.url, "not-a-token", tmp_path / "home"),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot use the Hub repos" in done.stdout and "Traceback" not in done.stderr


def test_the_spaces_pull_reads_one_listing_and_skips_only_the_record_it_cannot_read(hub, tmp_path):
    from leaderboard.operations.hub_data import pull_store

    hub, proxy = hub
    seed(hub, *(record(f"s{i}") for i in range(1, 6)))
    space = api(proxy.url, "space")
    for _ in range(DEFAULT_RETRY.attempts):  # s3 cannot be read during the first pull, whatever the retries
        proxy.force("500", lambda method, path: path.endswith("/private/queue/s3.json"))
    before = proxy.requests
    pull_store("lab/results", "lab/private", tmp_path / "store", api=space)
    queue = tmp_path / "store" / "private" / "queue"
    assert sorted(p.name for p in queue.iterdir()) == ["s1.json", "s2.json", "s4.json", "s5.json"]
    assert proxy.requests - before == 2 + 4 + DEFAULT_RETRY.attempts  # two listings, four reads, s3's failed tries
    proxy.forced.clear()
    before = proxy.requests
    pull_store("lab/results", "lab/private", tmp_path / "store", api=space)
    assert (queue / "s3.json").is_file() and proxy.requests - before == 2 + 1  # only what changed is read
