"""Every decision of the Hub queue (leaderboard/operations/hub_queue.py) about finishing, pinned with exact values
(issue 29: mutation score >= 90 %): the one conditional finishing commit, a lost acknowledgement of it, a finish
of another attempt by the same process, the outbox and its publication (written once, past a broken entry, after
a race), compaction on the injected clock, the lease keeper, and `score_claimed`. Reading and claiming:
test_kill_hub_queue.py. Real HTTP against the fake Hub; time is an injected clock (tests/hub_queue_kit.py)."""
import base64
import json
import logging

import pytest

from fault_proxy import is_commit
from hub_queue_kit import hub, proxy, servers  # noqa: F401 (fixtures)
from hub_queue_kit import (NO_WAIT, PRIVATE, RESULTS, START, Clock, claimed_s1, commits_posted, files, listing_after,
                           make, messages, put, rec, seed, state, writes_posted)
from leaderboard.operations import hub_queue
from leaderboard.operations.hub_queue import LeaseKeeper, LostClaim, iso, score_claimed
from leaderboard.operations.store import LocalStore
from leaderboard.remote.hub_calls import encode


# ---------------------------------------------------------------------------------------------- finishing
FINAL = {"state": "finished", "message": "ranked", "progress": 1.0, "ranked": True, "score": 0.9}


def test_finishing_is_one_commit_then_the_result_is_published_and_the_outbox_emptied(hub):
    q, clock, claimed = claimed_s1(hub)
    clock.at += 10
    q.complete(claimed, FINAL, {"results/xpcr/s1.json": b'{"r": 1}'}, {"private/per_item/s1.parquet": b"p"})
    closed = {**claimed, "state": "finished", "message": "ranked", "progress": 1.0, "ranked": True,
              "updated_at": iso(START + 10), "lease_until": None, "finished_by": "A", "finished_instance": q.instance}
    assert state(hub, "s1") == closed and files(hub)["private/per_item/s1.parquet"] == b"p"
    finish = next(c for c in hub.repo("dataset", PRIVATE).commits if c.message == "finished s1 (A)")
    assert json.loads(finish.files["private/outbox/s1.json"]) == {
        "repo": RESULTS, "files": {"results/xpcr/s1.json": base64.b64encode(b'{"r": 1}').decode()}}
    assert files(hub, RESULTS)["results/xpcr/s1.json"] == b'{"r": 1}' and "README.md" not in files(hub, RESULTS)
    assert messages(hub) == ["claim s1 (A)", "finished s1 (A)", "published private/outbox/s1.json"]
    assert messages(hub, RESULTS) == ["result s1"]
    with pytest.raises(LostClaim) as twice:  # finishing twice is refused
        q.complete(claimed, FINAL, {"results/xpcr/s1.json": b'{"r": 2}'}, {})
    assert twice.value.args == ("s1",) and files(hub, RESULTS)["results/xpcr/s1.json"] == b'{"r": 1}'


def test_a_finish_without_public_files_writes_no_outbox_and_keeps_unset_fields(hub):
    q, clock, claimed = claimed_s1(hub)
    q.complete(claimed, {"state": "failed"}, {}, {})
    assert state(hub, "s1") == {**claimed, "state": "failed", "lease_until": None, "finished_by": "A",
                                "finished_instance": q.instance}
    assert not [p for p in files(hub) if "outbox" in p] and messages(hub, RESULTS) == []
    assert messages(hub) == ["claim s1 (A)", "failed s1 (A)"]


def test_a_finish_whose_acknowledgement_was_lost_still_publishes(hub, proxy):
    q, clock, claimed = claimed_s1(hub, proxy.url)
    proxy.force("lost_ack", is_commit)
    q.complete(claimed, FINAL, {"results/xpcr/s1.json": b"r"}, {})
    assert state(hub, "s1")["finished_instance"] == q.instance and files(hub, RESULTS)["results/xpcr/s1.json"] == b"r"
    assert messages(hub) == ["claim s1 (A)", "finished s1 (A)", "published private/outbox/s1.json"]


def test_a_finish_by_this_process_of_another_attempt_is_not_taken_for_ours(hub):
    """Replicas may share a worker id and a process may hold a stale attempt: only the attempt tells them apart."""
    q, clock, claimed = claimed_s1(hub)
    q.api.before_commit = [lambda: put(hub, [(None, {**claimed, "state": "finished", "attempt": 2,
                                                     "finished_instance": q.instance})])]
    with pytest.raises(LostClaim):
        q.complete(claimed, FINAL, {"results/xpcr/s1.json": b"r"}, {})
    assert "results/xpcr/s1.json" not in files(hub, RESULTS) and "private/outbox/s1.json" not in files(hub)


def test_a_finish_that_keeps_losing_races_is_a_lost_claim(hub, monkeypatch):
    monkeypatch.setattr(hub_queue, "MAX_RACES", 2)
    q, clock, claimed = claimed_s1(hub)
    q.api.before_commit = [lambda i=i: put(hub, [(f"private/uploads/s{i}/p", b"x")]) for i in range(2)]
    with pytest.raises(LostClaim) as lost:
        q.complete(claimed, FINAL, {}, {})
    assert lost.value.args == ("s1",) and state(hub, "s1")["state"] == "scoring"


def test_a_finish_that_loses_one_race_reads_again_and_finishes(hub):
    q, clock, claimed = claimed_s1(hub)
    q.api.before_commit = [lambda: put(hub, [("private/uploads/s9/p", b"x")])]
    q.complete(claimed, FINAL, {}, {"private/per_item/s1.parquet": b"p"})
    assert state(hub, "s1")["state"] == "finished" and files(hub)["private/per_item/s1.parquet"] == b"p"


def test_a_finish_publishes_only_its_own_outbox_entry(hub):
    seed(hub, rec("s1"))
    entry = {"repo": RESULTS, "files": {"results/xpcr/s0.json": base64.b64encode(b"zero").decode()}}
    q = make(hub.url)
    claimed = q.claim(["xpcr"])
    put(hub, [("private/outbox/s0.json", encode(entry))])  # another finisher's, not published yet
    q.complete(claimed, FINAL, {"results/xpcr/s1.json": b"one"}, {})
    assert set(files(hub, RESULTS)) == {".gitattributes", "results/xpcr/s1.json"}
    assert "private/outbox/s0.json" in files(hub)


@pytest.mark.parametrize("failing", ["HubMissing", "HubUnavailable"])
def test_a_publish_that_fails_waits_in_the_outbox_for_any_workers_next_pass(hub, proxy, caplog, failing):
    seed(hub, rec("s1"), rec("s2", created="2026-01-02"))
    q = make(proxy.url, results="lab/later" if failing == "HubMissing" else RESULTS)
    claimed = q.claim(["xpcr"])
    if failing == "HubUnavailable":
        for _ in range(NO_WAIT.attempts):
            proxy.force("500", lambda method, path: f"/{RESULTS}" in path)
    with caplog.at_level(logging.WARNING, logger="leaderboard.operations.hub_queue"):
        q.complete(claimed, FINAL, {"results/xpcr/s1.json": b"one"}, {})
    assert caplog.messages == [f"publishing s1 deferred ({failing})"]
    assert "private/outbox/s1.json" in files(hub)
    if failing == "HubMissing":
        hub.create("dataset", "lab/later")
    assert make(hub.url, "B", "b").claim(["xpcr"])["id"] == "s2"  # B's pass publishes it on its way
    assert files(hub, "lab/later" if failing == "HubMissing" else RESULTS)["results/xpcr/s1.json"] == b"one"
    assert "private/outbox/s1.json" not in files(hub)


# ---------------------------------------------------------------------------------------------- publishing
def entry(repo, **contents):
    return encode({"repo": repo, "files": {p: base64.b64encode(d).decode() for p, d in contents.items()}})


def test_the_outbox_is_published_entry_by_entry_past_a_broken_one(hub):
    hub.create("dataset", "lab/other")
    put(hub, [("private/outbox/a.json", b"{broken"), ("private/outbox/b.json", entry("lab/other", **{"x/b": b"B"})),
              ("private/outbox/c.json", entry(RESULTS, **{"x/c": b"C"})), ("private/outbox/d.txt", b"not an entry")])
    q = make(hub.url)
    q.publish_outbox(q.snapshot(), only="private/outbox/c.json")
    assert files(hub, RESULTS)["x/c"] == b"C" and "x/b" not in files(hub, "lab/other")
    q.publish_outbox(q.snapshot())
    assert files(hub, "lab/other")["x/b"] == b"B"
    assert sorted(p for p in files(hub) if "outbox" in p) == ["private/outbox/a.json", "private/outbox/d.txt"]
    assert messages(hub, RESULTS) == ["result c"] and messages(hub, "lab/other") == ["result b"]
    assert messages(hub) == ["published private/outbox/c.json", "published private/outbox/b.json"]


def test_an_outbox_entry_the_hub_fails_to_serve_waits_for_the_next_pass(hub, proxy):
    put(hub, [("private/outbox/s1.json", entry(RESULTS, **{"r/one": b"1"}))])
    q = make(proxy.url)
    for _ in range(NO_WAIT.attempts):
        proxy.force("500", lambda method, path: path.endswith("/private/outbox/s1.json"))
    q.publish_outbox(q.snapshot())
    assert "r/one" not in files(hub, RESULTS) and "private/outbox/s1.json" in files(hub) and proxy.forced == []
    q.publish_outbox(q.snapshot())
    assert files(hub, RESULTS)["r/one"] == b"1" and "private/outbox/s1.json" not in files(hub)


def test_a_claim_publishes_what_a_crashed_finisher_left_even_with_nothing_to_claim(hub):
    put(hub, [("private/outbox/s7.json", entry(RESULTS, **{"results/xpcr/s7.json": b"7"}))])
    assert make(hub.url).claim(["xpcr"]) is None
    assert files(hub, RESULTS)["results/xpcr/s7.json"] == b"7" and "private/outbox/s7.json" not in files(hub)


def test_a_result_already_on_the_hub_is_not_written_again(hub):
    put(hub, [("r/one", b"1"), ("r/two", b"2")], repo=RESULTS)
    put(hub, [("private/outbox/s1.json", entry(RESULTS, **{"r/one": b"1", "r/two": b"2"})),
              ("private/outbox/s2.json", entry(RESULTS, **{"r/one": b"1", "r/two": b"two"}))])
    q = make(hub.url)
    q.publish_outbox(q.snapshot(), only="private/outbox/s1.json")
    assert writes_posted(hub, RESULTS) == 0 and "private/outbox/s1.json" not in files(hub)  # not even a preupload
    q.publish_outbox(q.snapshot())
    assert (files(hub, RESULTS)["r/one"], files(hub, RESULTS)["r/two"]) == (b"1", b"two")
    assert commits_posted(hub, RESULTS) == 1 and messages(hub, RESULTS) == ["result s2"]


def test_a_publish_that_loses_the_race_reads_again(hub):
    put(hub, [("private/outbox/s1.json", entry(RESULTS, **{"r/one": b"1"}))])
    q = make(hub.url)
    q.api.before_commit = [lambda: put(hub, [("r/zero", b"0")], repo=RESULTS)]
    q.publish_outbox(q.snapshot())
    assert files(hub, RESULTS)["r/one"] == b"1" and files(hub, RESULTS)["r/zero"] == b"0"
    assert commits_posted(hub, RESULTS) == 2 and "private/outbox/s1.json" not in files(hub)


def test_an_entry_that_cannot_be_published_stays_in_the_outbox(hub, monkeypatch):
    monkeypatch.setattr(hub_queue, "MAX_RACES", 2)
    put(hub, [("private/outbox/s1.json", entry(RESULTS, **{"r/one": b"1"}))])
    q = make(hub.url)
    q.api.before_commit = [lambda i=i: put(hub, [(f"r/{i}", b"0")], repo=RESULTS) for i in range(2)]
    q.publish_outbox(q.snapshot())
    assert "r/one" not in files(hub, RESULTS) and "private/outbox/s1.json" in files(hub)


def test_the_outbox_entry_is_dropped_once_even_when_someone_dropped_it_first(hub):
    put(hub, [("private/outbox/s1.json", entry(RESULTS, **{"r/one": b"1"})),
              ("private/outbox/s2.json", entry(RESULTS, **{"r/two": b"2"}))])
    q = make(hub.url)

    def dropped_by_another_worker():
        r = hub.repo("dataset", PRIVATE)
        hub.commit(r, {p: d for p, d in r.head.files.items() if p != "private/outbox/s1.json"}, "other writer", None)

    # s1: another worker removes the entry while we publish; s2: our delete loses one race, then lands
    q.api.before_commit = [dropped_by_another_worker, lambda: None, lambda: put(hub, [("private/uploads/x", b"x")])]
    q.publish_outbox(q.snapshot())
    assert not [p for p in files(hub) if "outbox" in p] and messages(hub) == ["published private/outbox/s2.json"]
    assert commits_posted(hub) == 2


def shard_bytes(sub_id, stored_at):
    from leaderboard.publishing.result_shards import records_table, to_bytes

    return to_bytes(records_table([{"submission_id": sub_id, "benchmark": "xpcr", "model": {"name": sub_id}}],
                                  "xpcr", stored_at, ["accuracy"]))


@pytest.mark.parametrize("readable", [True, False])
def test_a_published_shard_keeps_the_card_current_and_small_shards_are_merged_at_the_clocks_time(hub, proxy, readable):
    """`readable=False`: the compaction cannot list the repo (2 tries of the queue's Retry): the shards wait."""
    from leaderboard.publishing.result_shards import COMPACT_AT

    # shards written in 2095, published by a worker whose clock says 2096: old enough to merge (at the real
    # time they would be from the future, and wait)
    names = {f"results/xpcr/data/20950101T0000{i:02d}.000000Z-s{i}.parquet":
             shard_bytes(f"s{i}", f"2095-01-01T00:00:{i:02d}.000000+00:00") for i in range(COMPACT_AT)}
    last = sorted(names)[-1]
    put(hub, [(p, d) for p, d in names.items() if p != last], repo=RESULTS)
    put(hub, [("private/outbox/s1.json", entry(RESULTS, **{last: names[last]}))])
    q = make(proxy.url, clock=Clock(4_000_000_000.0))
    for _ in range(0 if readable else NO_WAIT.attempts):
        proxy.force("500", listing_after(hub, RESULTS, "result s1"))
    q.publish_outbox(q.snapshot())
    published = files(hub, RESULTS)
    assert "README.md" in published and proxy.forced == []
    if readable:
        assert not [p for p in published if p in names]
        assert messages(hub, RESULTS) == ["result s1", f"compact {COMPACT_AT} xpcr shards", "dataset card"]
    else:
        assert set(names) <= set(published) and messages(hub, RESULTS) == ["result s1", "dataset card"]


def test_a_published_file_that_is_no_shard_leaves_the_card_alone(hub):
    put(hub, [("private/outbox/s1.json", entry(RESULTS, **{"results/xpcr/s1.json": b"{}"}))])
    q = make(hub.url)
    q.publish_outbox(q.snapshot())
    assert messages(hub, RESULTS) == ["result s1"]


# ---------------------------------------------------------------------------------------------- lease keeper
class Ticks:
    """Stands in for the keeper's stop event: records each wait, moves the clock on, says "stop" after `n`."""

    def __init__(self, clock, n):
        self.clock, self.n, self.waits = clock, n, []

    def wait(self, timeout):
        self.waits.append(timeout)
        self.clock.at += 1
        return len(self.waits) > self.n


def test_the_keeper_renews_every_third_of_the_lease_until_stopped(hub):
    clock = Clock()
    seed(hub, rec("s1"))
    q = make(hub.url, clock=clock, lease=45.0)
    keeper = LeaseKeeper(q, q.claim(["xpcr"]))
    assert keeper.lost is False and keeper._thread.name == "lease" and keeper._thread.daemon is True
    keeper._stop = ticks = Ticks(clock, 2)
    keeper._run()
    assert ticks.waits == [15.0, 15.0, 15.0] and keeper.lost is False
    assert state(hub, "s1")["lease_until"] == START + 2 + 45
    assert messages(hub) == ["claim s1 (A)", "lease s1", "lease s1"]


def test_the_keeper_stops_at_a_lost_claim_and_rides_out_a_hub_hiccup(hub, proxy, caplog):
    clock = Clock()
    seed(hub, rec("s1"))
    q = make(proxy.url, clock=clock)
    keeper = LeaseKeeper(q, q.claim(["xpcr"]))
    for _ in range(NO_WAIT.attempts):  # the first renewal cannot read the queue
        proxy.force("500", lambda method, path: method == "GET" and f"/api/datasets/{PRIVATE}" in path)
    keeper._stop = ticks = Ticks(clock, 5)
    before = clock.at

    def taken_over_after_the_second_wait():
        if len(ticks.waits) == 2:
            make(hub.url, "B", "b", clock=Clock(START + 1000)).claim(["xpcr"])
        return len(ticks.waits) > 5

    ticks.wait = lambda timeout: (ticks.waits.append(timeout), setattr(clock, "at", clock.at + 1),
                                  taken_over_after_the_second_wait())[-1]
    with caplog.at_level(logging.WARNING, logger="leaderboard.operations.hub_queue"):
        keeper._run()
    assert caplog.messages == ["lease renewal failed (HubUnavailable)"]
    assert keeper.lost is True and len(ticks.waits) == 2 and clock.at == before + 2  # no wait after the loss
    assert state(hub, "s1")["worker"] == "B"


def test_the_keeper_thread_runs_inside_the_block_only(hub):
    seed(hub, rec("s1"))
    q = make(hub.url)
    with LeaseKeeper(q, q.claim(["xpcr"])) as keeper:
        assert isinstance(keeper, LeaseKeeper) and keeper._thread.is_alive()
    assert not keeper._thread.is_alive() and keeper.lost is False


# ---------------------------------------------------------------------------------------------- score_claimed
STORED_AT = "2027-01-15T08:00:00.000000+00:00"


class Scorer:
    """The part of the Service a Hub worker drives: `score_one` finds the claimed record in the scratch store,
    scores, and leaves the outcome record (and the private files) there, as Service.score_one does."""

    def __init__(self, root, outcome, shard=True, extras=("per_item", "bootstrap")):
        self.store = LocalStore(root)
        self.outcome, self.shard, self.extras, self.seen = outcome, shard, extras, []
        self.during, self.waited = None, []  # run while "scoring" (what a background thread did meanwhile)

    def queue_path(self, sub_id):
        return self.store.private("queue", f"{sub_id}.json")

    def score_one(self, sub_id):
        record = self.store.read_json(self.queue_path(sub_id))
        self.seen.append((record, self.store.private("uploads", sub_id, record["file_name"]).read_bytes()))
        if self.during is not None:
            self.waited.append(self.during())
        if self.shard:
            self.store.write_records("xpcr", [{"submission_id": sub_id, "benchmark": "xpcr", "model": {"name": "m"}}],
                                     stored_at=STORED_AT)
        for part, suffix in (("per_item", ".parquet"), ("bootstrap", ".npy")):
            if part in self.extras:
                self.store.write_bytes(self.store.private(part, sub_id + suffix), part.encode())
        if self.outcome is None:
            self.queue_path(sub_id).unlink()
        else:
            self.store.write_json(self.queue_path(sub_id), {**record, **self.outcome})


def upload(hub, sub_id="s1"):
    seed(hub, rec(sub_id))
    put(hub, [(f"private/uploads/{sub_id}/p.jsonl", b'{"id": 1}\n')])


def test_a_scored_submission_is_finished_with_its_shard_and_private_files(hub, tmp_path):
    upload(hub)
    q = make(hub.url)
    claimed = q.claim(["xpcr"])
    service = Scorer(tmp_path, {"state": "finished", "message": "ranked", "progress": 1.0, "ranked": True})
    assert score_claimed(q, service, claimed) == "finished"
    assert service.seen == [(claimed, b'{"id": 1}\n')]
    path, data = service.store.result_shard("xpcr", "s1")
    assert path == "results/xpcr/data/20270115T080000.000000-s1.parquet"
    assert files(hub, RESULTS)[path] == data and "README.md" in files(hub, RESULTS)
    private = files(hub)
    assert (private["private/per_item/s1.parquet"], private["private/bootstrap/s1.npy"]) == (b"per_item", b"bootstrap")
    final = state(hub, "s1")
    assert (final["state"], final["message"], final["ranked"]) == ("finished", "ranked", True)


def test_a_failed_scoring_publishes_nothing_and_keeps_what_files_exist(hub, tmp_path):
    upload(hub)
    q = make(hub.url)
    service = Scorer(tmp_path, {"state": "failed", "message": "bad file"}, extras=("per_item",))
    assert score_claimed(q, service, q.claim(["xpcr"])) == "failed"
    assert messages(hub, RESULTS) == [] and files(hub)["private/per_item/s1.parquet"] == b"per_item"
    assert "private/bootstrap/s1.npy" not in files(hub) and state(hub, "s1")["message"] == "bad file"


def test_scoring_that_recorded_no_outcome_fails(hub, tmp_path):
    upload(hub)
    q = make(hub.url)
    assert score_claimed(q, Scorer(tmp_path, None, shard=False, extras=()), q.claim(["xpcr"])) == "failed"
    assert (state(hub, "s1")["state"], state(hub, "s1")["message"]) == ("failed", "no outcome recorded")


def test_an_upload_not_there_or_not_served_goes_back_to_the_queue(hub, proxy, tmp_path):
    seed(hub, rec("s1"))
    q = make(proxy.url)
    service = Scorer(tmp_path, {"state": "finished"})
    assert score_claimed(q, service, q.claim(["xpcr"])) == "queued"
    assert (state(hub, "s1")["not_ready"], state(hub, "s1")["message"]) == \
        (1, "waiting for a scoring worker (its file is not on the Hub yet)")
    put(hub, [("private/uploads/s1/p.jsonl", b"x")])
    for _ in range(NO_WAIT.attempts):
        proxy.force("500", lambda method, path: "/private/uploads/" in path)
    assert score_claimed(q, service, q.claim(["xpcr"])) == "queued"
    assert (state(hub, "s1")["not_ready"], state(hub, "s1")["message"]) == \
        (1, "waiting for a scoring worker (the Hub did not answer; trying again)")
    assert service.seen == [] and state(hub, "s1")["state"] == "queued"


def test_a_finish_whose_record_cannot_be_read_at_first_reads_again(hub, proxy):
    q, clock, claimed = claimed_s1(hub, proxy.url)
    for _ in range(NO_WAIT.attempts):
        proxy.force("500", lambda method, path: path.endswith("/private/queue/s1.json"))
    q.complete(claimed, FINAL, {}, {})
    assert state(hub, "s1")["state"] == "finished" and proxy.forced == []


def test_an_outbox_entry_the_finisher_could_not_drop_is_dropped_by_the_next_pass_without_a_rewrite(hub, proxy, caplog):
    q, clock, claimed = claimed_s1(hub, proxy.url)
    for _ in range(NO_WAIT.attempts):  # the results are written; the listing before the drop fails
        proxy.force("500", listing_after(hub, PRIVATE, "result s1"))
    with caplog.at_level(logging.WARNING, logger="leaderboard.operations.hub_queue"):
        q.complete(claimed, FINAL, {"results/xpcr/s1.json": b"one"}, {})
    assert caplog.messages == ["publishing s1 deferred (HubUnavailable)"] and proxy.forced == []
    assert files(hub, RESULTS)["results/xpcr/s1.json"] == b"one" and "private/outbox/s1.json" in files(hub)
    assert make(hub.url, "B", "b").claim(["xpcr"]) is None
    assert "private/outbox/s1.json" not in files(hub) and messages(hub, RESULTS) == ["result s1"]


def test_a_card_the_hub_cannot_take_now_waits_for_the_next_result(hub, proxy, caplog):
    name = "results/xpcr/data/20950101T000000.000000Z-s1.parquet"
    shard = shard_bytes("s1", "2095-01-01T00:00:00.000000+00:00")
    put(hub, [("private/outbox/s1.json", entry(RESULTS, **{name: shard}))])
    q = make(proxy.url)
    proxy.force("500", listing_after(hub, RESULTS, "result s1", skip=1))  # compaction reads; the card cannot
    proxy.force("500", listing_after(hub, RESULTS, "result s1"))
    with caplog.at_level(logging.INFO, logger="leaderboard.operations.hub_queue"):
        q.publish_outbox(q.snapshot())
    assert caplog.messages == ["compaction deferred (HubUnavailable)"] and proxy.forced == []
    assert name in files(hub, RESULTS) and "README.md" not in files(hub, RESULTS)
    assert "private/outbox/s1.json" not in files(hub)


# ---------------------------------------------------------------------------------------------- keeper while scoring
def test_the_lease_is_renewed_while_the_submission_is_scored(hub, tmp_path):
    upload(hub)
    q = make(hub.url, lease=0.3)  # a renewal every 0.1 s of real time; the lease itself runs on the fake clock
    service = Scorer(tmp_path, {"state": "finished"}, shard=False, extras=())
    # 20 s bounds only a failing run (a keeper that never renews); a working one renews within 0.1 s
    service.during = lambda: q.api.wait_until(lambda: "lease s1" in q.api.sent, timeout=20)
    assert score_claimed(q, service, q.claim(["xpcr"])) == "finished" and service.waited == [True]


def test_a_claim_lost_while_scoring_is_dropped_unpublished(hub, tmp_path):
    clock = Clock()
    upload(hub)
    q = make(hub.url, clock=clock, lease=0.3)
    service = Scorer(tmp_path, {"state": "finished"}, extras=())

    def taken_over():
        make(hub.url, "B", "b", clock=Clock(START + 100)).claim(["xpcr"])
        listed = q.api.listed
        return q.api.wait_until(lambda: q.api.listed > listed, timeout=20)  # the keeper's next renewal sees it

    service.during = taken_over
    with pytest.raises(LostClaim) as lost:
        score_claimed(q, service, q.claim(["xpcr"]))
    assert lost.value.args == ("s1",) and service.waited == [True]
    assert state(hub, "s1")["worker"] == "B" and messages(hub, RESULTS) == []
