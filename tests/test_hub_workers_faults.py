"""Issue 32's "Done when": with 20 % of all Hub requests failing (500s, lost acknowledgements, delays, 404s on
downloads, from a seeded fault proxy), three workers started once score 30 of 30 queued submissions exactly
once: one claim that finishes each, one published result each, no result rewritten, nothing left `scoring`,
and the run ends within 3 lease lengths. Three accounts share one breakdown budget of 2 each across the
workers (the ledger on the Hub). The workers are the real loop (`worker.serve`) with the real Service
scoring the X-PCR sample against its held-out answer key."""
import json

import pytest

from dataset_builders.stage import build
from fake_hub_server import FakeHub
from fault_proxy import FaultProxy
from hub_fault_run import ACCOUNTS, TOKENS, run_workers, seeded_queue, writes
from leaderboard.scoring import registry
from leaderboard.publishing.result_shards import repo_records
from leaderboard.operations.result_shards_hub import shard_benchmark

N = 30
LEASE = 30.0
BUDGET = 2


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("faults")
    build(registry.adapter("xpcr"), registry.get("xpcr").sample_dir, tmp, hold_out_answers=True, sample=True,
          progress=False)
    return tmp


def test_three_workers_under_20_percent_faults_score_every_submission_exactly_once(built, tmp_path):
    with FakeHub(tokens=TOKENS, orgs={"lab": set(TOKENS.values())}) as hub, \
            FaultProxy(hub.url, rate=0.2, seed=32, delay=0.05) as proxy:
        hub.create("dataset", "lab/results")
        private = hub.create("dataset", "lab/private", private=True, files=seeded_queue(N))
        done, _, said = run_workers(proxy.url, private, built / "xpcr", tmp_path, LEASE, deadline=3 * LEASE,
                                    budget=BUDGET)
    assert done, "not drained within 3 lease lengths:\n" + "\n".join(said[-20:])

    assert proxy.requests > 300 and all(proxy.injected[k] > 3 for k in ("500", "lost_ack", "delay", "404"))
    queue = {p: json.loads(d) for p, d in private.head.files.items() if p.startswith("private/queue/")}
    assert len(queue) == N and {r["state"] for r in queue.values()} == {"finished"}
    assert not [p for p in private.head.files if p.startswith("private/outbox/")]
    for path, final in queue.items():
        assert final["lease_until"] is None and final["finished_by"] in ("A", "B", "C")
        # exactly once: over the whole history, the record turned `finished` in one commit
        turned = sum(1 for before, after in zip(private.commits, private.commits[1:])
                     if path in after.files and json.loads(after.files[path])["state"] == "finished"
                     and (path not in before.files or json.loads(before.files[path])["state"] != "finished"))
        assert turned == 1, path
    results = hub.repo("dataset", "lab/results")
    published = repo_records(results.head.files)
    assert sorted(published) == sorted(r["id"] for r in queue.values())
    ever = {p for c in results.commits for p in c.files if shard_benchmark(p) and not p.rsplit("/", 1)[-1].startswith("c-")}
    assert sorted(next(s for s in published if p.endswith(f"-{s}.parquet")) for p in ever) == sorted(published)
    assert {p: writes(results, p) for p in ever} == {p: 1 for p in ever}  # no result rewritten
    assert {r["model"]["name"] for r in published.values()} == {f"Model-{i:02d}" for i in range(N)}
    # one breakdown budget per account across the three workers: BUDGET detailed results each, the rest withheld
    detailed = {a: 0 for a in ACCOUNTS}
    for result in published.values():
        account = ACCOUNTS[int(result["submission_id"][-2:]) % len(ACCOUNTS)]
        detailed[account] += not any("withheld" in cell for stratum in result["strata"].values()
                                     for cell in stratum.values())
    assert detailed == {a: BUDGET for a in ACCOUNTS}
    assert len({r["finished_by"] for r in queue.values()}) == 3  # all three took part
