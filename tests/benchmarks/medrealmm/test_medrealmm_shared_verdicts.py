"""Judge verdicts shared across workers through Parquet shards in a private Hub dataset
(leaderboard/scoring/judge/shared.py), over real HTTP to the fake Hub and the fake judge: a second worker rescoring a
submission the first judged makes no judge call; a worker lost after publishing loses no verdict; what a worker
could not publish is published by the next process on its disk; racing publishers both land.

The tiny release of test_medrealmm_scoring.py: 9 criteria are judged (cases A, B, C: 3 each; E's reply is empty),
and each of the 3 replies' quoted digest is shared too (a "q:" row: the second worker runs no injection detector)."""
import io
import sqlite3
import threading

import pyarrow.parquet as pq
import pytest
from huggingface_hub import HfApi

from fake_hub_server import FakeHub
from fake_openai_server import FakeOpenAIServer
from leaderboard.remote.hub_calls import Retry
from leaderboard.scoring.judge import Judge, JudgeConfig
from leaderboard.scoring.judge.cache import JudgeCache
from leaderboard.scoring.judge.shared import SHARD_DIR, SharedVerdicts
from medrealmm_release import build_release
from test_medrealmm_scoring import EXPECTED, PREDICTIONS, run, verdict_responder

REPO = "lab/verdicts"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_release(tmp_path_factory.mktemp("mr"))


@pytest.fixture
def hub():
    with FakeHub(tokens={"a": "worker-a", "b": "worker-b"}, orgs={"lab": {"worker-a", "worker-b"}}) as hub:
        hub.create("dataset", REPO, private=True)
        yield hub


def shared(hub, token, **kw):
    return SharedVerdicts(REPO, api=HfApi(endpoint=hub.url, token=token), worker=f"w{token}",
                          retry=Retry(attempts=2, base=0.001, cap=0.01), **kw)


def judge(server, hub, token, cache, **kw):
    return Judge(JudgeConfig(base_url=server.base_url, model="fake-judge", cache_path=cache, backoff_base=0.01,
                             backoff_max=0.02, timeout=5.0), shared=shared(hub, token, **kw))


def memo(cache) -> list[tuple]:
    return sorted(sqlite3.connect(cache).execute("SELECT digest, sha, flagged FROM quoted"))


def verdict_rows(rows) -> list[tuple]:
    return [row for row in rows if not row[0].startswith("q:")]


def shards(hub) -> dict[str, list[tuple]]:
    """path -> its rows (key, raw, parsed) at the head of the verdict repo."""
    files = hub.repo("dataset", REPO).head.files
    out = {}
    for path, data in sorted(files.items()):
        if path.startswith(SHARD_DIR + "/"):
            table = pq.read_table(io.BytesIO(data))
            out[path] = list(zip(*(table.column(c).to_pylist() for c in ("key", "raw", "parsed"))))
    return out


def test_a_second_worker_rescoring_a_judged_submission_makes_no_judge_call(built, tmp_path, hub):
    with FakeOpenAIServer(verdict_responder) as server:
        first = run(built, tmp_path, judge(server, hub, "a", tmp_path / "a.sqlite"))[1]
        assert server.calls() == 9 and first.metrics == EXPECTED
        published = shards(hub)  # at the end of the submission: one shard, every verdict once
        assert len(published) == 1
        rows = next(iter(published.values()))
        assert len(verdict_rows(rows)) == 9 and len({row[0] for row in rows}) == 12  # + the 3 replies' digests
        second = run(built, tmp_path, judge(server, hub, "b", tmp_path / "b.sqlite"))[1]  # another disk
        assert server.calls() == 9  # not one call more
        assert second.metrics == first.metrics
        assert second.protocol["judge_stats"]["cache_hits"] == 9 and second.protocol["judge_stats"]["http_calls"] == 0
        # the second worker had nothing new to publish: not a verdict, not a reply quoted again
        assert shards(hub) == published
        assert memo(tmp_path / "b.sqlite") == memo(tmp_path / "a.sqlite") and len(memo(tmp_path / "a.sqlite")) == 3


def test_a_worker_lost_after_publishing_loses_no_verdict(built, tmp_path, hub):
    with FakeOpenAIServer(verdict_responder) as server:
        lost = judge(server, hub, "a", tmp_path / "a.sqlite")
        run(built, tmp_path, lost, rows=[p for p in PREDICTIONS if p["id"] in ("A", "B")])
        assert server.calls() == 6
        (tmp_path / "a.sqlite").unlink()  # the worker and its disk are gone (never closed)
        result = run(built, tmp_path, judge(server, hub, "b", tmp_path / "b.sqlite"))[1]
        assert server.calls() == 9  # only C's 3 criteria were asked again
        assert result.metrics == EXPECTED
        assert sorted(len(verdict_rows(rows)) for rows in shards(hub).values()) == [3, 6]
        assert sorted(len(rows) for rows in shards(hub).values()) == [4, 8]  # with 1 and 2 replies' digests


def test_verdicts_not_published_are_published_by_the_next_process_on_the_disk(built, tmp_path):
    with FakeHub(tokens={"a": "worker-a"}, orgs={"lab": {"worker-a"}}) as hub, \
            FakeOpenAIServer(verdict_responder) as server:
        run(built, tmp_path, judge(server, hub, "a", tmp_path / "a.sqlite"))  # the repo is not there yet
        assert server.calls() == 9
        hub.create("dataset", REPO, private=True)
        assert shards(hub) == {}
        restarted = JudgeCache(tmp_path / "a.sqlite", shared(hub, "a"))  # publishes what was left, at start
        published = shards(hub)
        assert [len(verdict_rows(rows)) for rows in published.values()] == [9]
        restarted.close()
        assert shards(hub) == published  # nothing twice


class Clock:
    def __init__(self):
        self.at = 100.0

    def __call__(self):
        return self.at


def test_publish_on_batch_size_and_on_age_and_at_close(tmp_path, hub):
    clock = Clock()
    cache = JudgeCache(tmp_path / "c.sqlite", shared(hub, "a", clock=clock, batch=3, after_s=30.0))
    for k in range(3):
        cache.put(f"k{k}", "raw", {"met": True})
    cache.flush()
    assert [len(rows) for rows in shards(hub).values()] == [3]  # a full batch
    cache.put("k3", "raw", {"met": False})
    cache.flush()
    clock.at += 29.0
    cache.put("k4", "raw", {"met": False})
    cache.flush()
    assert len(shards(hub)) == 1  # 2 waiting, the oldest for 29 s: not yet
    clock.at += 1.0
    cache.put("k5", "raw", {"met": True})
    cache.flush()
    assert sorted(len(rows) for rows in shards(hub).values()) == [3, 3]  # the oldest waited 30 s
    cache.put("k6", "raw", {"met": True})
    cache.close()
    everything = [row for rows in shards(hub).values() for row in rows]
    assert sorted(len(rows) for rows in shards(hub).values()) == [1, 3, 3]
    assert sorted(row[0] for row in everything) == [f"k{k}" for k in range(7)]
    assert dict((row[0], row[2]) for row in everything)["k3"] == '{"met": false}'


def test_racing_publishers_both_land_and_a_reader_imports_each_shard_once(tmp_path, hub):
    caches = [JudgeCache(tmp_path / f"{name}.sqlite", shared(hub, name)) for name in ("a", "b")]
    for n, cache in enumerate(caches):
        for k in range(4):
            cache.put(f"{n}-{k}", "raw", {"met": bool(k % 2)})
        cache.flush()  # below the batch: waiting
    hub.commit_delay = 0.2  # both read the same head before either commit lands: one is refused (412)
    threads = [threading.Thread(target=cache.publish) for cache in caches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    hub.commit_delay = 0.0
    assert sorted(len(rows) for rows in shards(hub).values()) == [4, 4]
    reader = JudgeCache(tmp_path / "r.sqlite", shared(hub, "b"))
    assert reader.flags_many(["0-1", "1-2", "2-0"], "met") == [True, False, None]
    assert reader.pull() == 0  # both shards already imported
    for cache in (*caches, reader):
        cache.close()


def test_a_public_verdict_repo_is_refused_before_anything_is_read_or_written(tmp_path):
    from leaderboard.remote.hub_calls import HubConfigError

    with FakeHub(tokens={"a": "worker-a"}, orgs={"lab": {"worker-a"}}) as hub:
        hub.create("dataset", REPO, private=False)
        with pytest.raises(HubConfigError, match="is public"):
            JudgeCache(tmp_path / "a.sqlite", shared(hub, "a"))
        assert shards(hub) == {}


def test_the_repo_is_read_from_judge_verdicts_repo(monkeypatch):
    for name, value in {"JUDGE_BASE_URL": "http://127.0.0.1:9/v1", "JUDGE_MODEL": "m",
                        "JUDGE_VERDICTS_REPO": REPO}.items():
        monkeypatch.setenv(name, value)
    assert JudgeConfig.from_env().verdicts_repo == REPO
    monkeypatch.delenv("JUDGE_VERDICTS_REPO")
    assert JudgeConfig.from_env().verdicts_repo is None


def test_small_shards_are_merged_once_there_are_enough_and_no_verdict_is_lost(tmp_path, hub):
    writer = shared(hub, "a")
    writer.publish([("k1", "r1", '{"met": true}'), ("k2", "r2", '{"met": false}')])
    writer.publish([("k2", "r2", '{"met": false}'), ("k3", "r3", '{"met": true}')])  # k2 judged twice
    early = JudgeCache(tmp_path / "early.sqlite", shared(hub, "b", compact_at=3))
    assert len(shards(hub)) == 2  # two small shards: not merged yet
    writer.publish([("k4", "r4", '{"met": true}')])
    merger = JudgeCache(tmp_path / "m.sqlite", shared(hub, "b", compact_at=3))
    (path, rows), = shards(hub).items()  # one merged shard replaced the three
    assert path.startswith(f"{SHARD_DIR}/merged-")
    assert sorted(rows) == [("k1", "r1", '{"met": true}'), ("k2", "r2", '{"met": false}'),
                            ("k3", "r3", '{"met": true}'), ("k4", "r4", '{"met": true}')]  # each key once
    assert merger.pull() == 0  # it had read every merged shard: the merged one is not read again
    fresh = JudgeCache(tmp_path / "f.sqlite", shared(hub, "a", compact_at=3))
    assert early.pull() == 4  # imported before the merge: reads the merged shard (its two keys already held)
    for cache in (early, merger, fresh):
        assert cache.flags_many(["k1", "k2", "k3", "k4"], "met") == [True, False, True, True]
        cache.close()
    assert len(shards(hub)) == 1  # merged shards are not merged again


def test_two_cli_processes_as_users_run_them_share_verdicts_through_the_env(built, tmp_path, hub):
    """`python -m leaderboard score` on two cache folders (two machines), configured only by JUDGE_VERDICTS_REPO,
    HF_ENDPOINT and HF_TOKEN: the second process makes no judge call; a public repo is a clear error."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from hub_space import hub_env
    from test_medrealmm_scoring import write_predictions

    root = Path(__file__).resolve().parents[3]
    pred = write_predictions(tmp_path / "pred.jsonl", PREDICTIONS)

    def score(server, token, cache, repo=REPO):
        env = {**hub_env(hub.url, token, tmp_path / f"home-{token}"), "JUDGE_VERDICTS_REPO": repo}
        out = tmp_path / f"{cache}.json"
        done = subprocess.run([sys.executable, "-m", "leaderboard", "score", "medrealmm", str(pred), "--data", str(built),
                               "--cache-dir", str(tmp_path / cache), "--judge-base-url", server.base_url,
                               "--judge-model", "fake-judge", "--resamples", "0", "--quiet", "--json", str(out)],
                              cwd=root, env=env, capture_output=True, text=True, timeout=120)
        return done, (json.loads(out.read_text()) if done.returncode == 0 else None)

    with FakeOpenAIServer(verdict_responder) as server:
        _, first = score(server, "a", "cache-a")
        assert server.calls() == 9 and first["metrics"] == EXPECTED
        _, second = score(server, "b", "cache-b")
        assert server.calls() == 9 and second["metrics"] == EXPECTED
        assert second["protocol"]["judge_stats"]["http_calls"] == 0
        hub.create("dataset", "lab/open-verdicts", private=False)
        refused, _ = score(server, "b", "cache-c", repo="lab/open-verdicts")
        assert refused.returncode == 2 and "lab/open-verdicts is public" in refused.stderr
        assert "Traceback" not in refused.stderr and server.calls() == 9
