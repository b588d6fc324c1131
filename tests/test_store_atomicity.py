"""Store writes are atomic over an existing record: when the disk fails while the new bytes are written or
flushed (not only at the final rename), the old record is still there, whole, and no temp file is left.
An implementation that wrote the record in place would lose the old record here. Results are shards
(results/<benchmark>/data/*.parquet): a rescore is a new shard, so the old one is never touched."""
import errno
import json
import os

import pytest

import leaderboard.operations.store as store_module
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.operations.store import LocalStore, StoreError

FULL = "could not save to the results store (No space left on device); nothing was recorded, please try again later"


def result(score: float) -> Result:
    return Result(benchmark="medreamm", model=ModelInfo(name="Model-7B"), metrics={"top5_primary_icd": score},
                  source="submission", n_items=10, n_answered=9)


@pytest.fixture
def store(tmp_path):
    s = LocalStore(tmp_path / "store")
    s.save_result("sub-1", result(41.5))
    return s


def shards(store: LocalStore) -> list:
    return sorted((store.root / "results" / "medreamm" / "data").iterdir())


def old_bytes_kept(store: LocalStore, before: dict) -> None:
    assert {p: p.read_bytes() for p in shards(store)} == before  # the old shard, whole; no temp file beside it
    assert store.record("medreamm", "sub-1")["metrics"]["top5_primary_icd"] == 41.5


def saved(store: LocalStore) -> dict:
    return {p: p.read_bytes() for p in shards(store)}


def test_fsync_failure_over_an_existing_record_keeps_the_old_one(store, monkeypatch):
    before = saved(store)
    version = store.version

    def fsync(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(store_module.os, "fsync", fsync)
    with pytest.raises(StoreError) as failure:
        store.save_result("sub-1", result(77.0))
    assert str(failure.value) == FULL
    old_bytes_kept(store, before)
    assert store.version == version  # caches keyed on the version are not invalidated by a failed write


def test_write_failure_halfway_over_an_existing_record_keeps_the_old_one(store, monkeypatch):
    before = saved(store)
    real_fdopen = os.fdopen

    class HalfWritten:
        """A file object that writes half the bytes, then reports a full disk."""
        def __init__(self, handle):
            self.handle = handle

        def write(self, data):
            self.handle.write(data[: len(data) // 2])
            self.handle.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, name):
            return getattr(self.handle, name)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

    monkeypatch.setattr(store_module.os, "fdopen", lambda fd, *a, **k: HalfWritten(real_fdopen(fd, *a, **k)))
    with pytest.raises(StoreError):
        store.save_result("sub-1", result(77.0))
    old_bytes_kept(store, before)


def test_a_successful_rewrite_replaces_the_record_whole(store):
    store.save_result("sub-1", result(77.0))
    record = store.record("medreamm", "sub-1")
    assert (record["submission_id"], record["metrics"]["top5_primary_icd"]) == ("sub-1", 77.0)
    assert store.results_table("medreamm").num_rows == 1  # the latest row only
    assert all(p.name.endswith("-sub-1.parquet") for p in shards(store)) and len(shards(store)) == 2


def test_the_temp_file_is_hidden_beside_the_record_and_never_looks_like_one(store, monkeypatch):
    """Same folder: the final rename is atomic only within one filesystem. Hidden, '.tmp': a reader that
    lists '*.json' records never picks up a half-written one, and a leftover is easy to find."""
    seen = []
    real_fsync = os.fsync

    def fsync(fd):
        seen.append(os.readlink(f"/proc/self/fd/{fd}"))
        real_fsync(fd)

    monkeypatch.setattr(store_module.os, "fsync", fsync)
    target = store.save_result("sub-1", result(50.0))
    temp = seen[0]  # then the card (README.md), unchanged, is not written again
    assert len(seen) == 1 and os.path.dirname(temp) == str(target.parent.resolve())
    name = os.path.basename(temp)
    assert name.startswith("." + target.name + ".") and name.endswith(".tmp") and not name.endswith(".parquet"), name


def test_private_writes_go_to_the_private_repo_and_results_to_the_public_one(tmp_path):
    from huggingface_hub import HfApi

    from fake_hub_server import FakeHub
    from leaderboard.privacy.disclosure import Policy
    from leaderboard.operations.store import HubMirror

    with FakeHub(tokens={"t": "org"}) as hub:
        api = HfApi(endpoint=hub.url, token="t")
        # a configured secret: the store then writes no private/disclosure.key of its own
        s = LocalStore(tmp_path / "store", HubMirror("org/results", "org/private", api=api), Policy(secret=b"test-secret"))
        s.write_bytes(s.private("per_item", "sub-1.parquet"), b"PAR1")
        s.write_json(s.private("queue", "sub-1.json"), {"state": "queued"})
        s.save_result("sub-1", result(50.0))
        private, public = (hub.repo("dataset", r) for r in ("org/private", "org/results"))
        assert sorted(p for p in private.head.files if p != ".gitattributes") == [
            "private/per_item/sub-1.parquet", "private/queue/sub-1.json"]
        (shard,) = shards(s)
        assert sorted(p for p in public.head.files if p != ".gitattributes") == [
            "README.md", f"results/medreamm/data/{shard.name}"]
        assert private.head.files["private/per_item/sub-1.parquet"] == b"PAR1"
        assert public.head.files[f"results/medreamm/data/{shard.name}"] == shard.read_bytes()
        assert private.repo_id == "org/private" and private.private and not public.private
        assert [c.message for c in private.commits[1:]] == ["store: private/per_item/sub-1.parquet",
                                                            "store: private/queue/sub-1.json"]  # in write order


def test_a_failure_without_an_os_message_names_its_type(store, monkeypatch):
    def fsync(fd):
        raise OSError()  # no errno, no strerror (as some filesystems report)

    monkeypatch.setattr(store_module.os, "fsync", fsync)
    with pytest.raises(StoreError) as failure:
        store.save_result("sub-1", result(77.0))
    assert str(failure.value).startswith("could not save to the results store (OSError); nothing was recorded")


def test_records_are_pretty_printed_utf8_json(store):
    """Stable, readable files in the mirrored Hub repo: two-space indent, non-ASCII kept, one final newline."""
    obj = {"model": {"name": "Modèle-β"}, "metrics": {"top1": 12.5}}
    path = store.private("queue", "sub-2.json")
    store.write_json(path, obj)
    assert path.read_bytes() == ('{\n  "model": {\n    "name": "Modèle-β"\n  },\n  "metrics": {\n    "top1": 12.5\n'
                                 '  }\n}\n').encode("utf-8")


def test_every_saved_result_bumps_the_version_caches_key_on(store):
    versions = [store.version]
    for score in (60.0, 61.0, 62.0):
        store.save_result("sub-1", result(score))
        versions.append(store.version)
    assert versions == sorted(versions) and len(set(versions)) == 4
