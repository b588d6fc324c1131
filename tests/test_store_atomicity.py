"""Store writes are atomic over an existing record: when the disk fails while the new bytes are written or
flushed (not only at the final rename), the old record is still there, whole, and no temp file is left.
An implementation that wrote the record in place would lose the old record here."""
import errno
import json
import os

import pytest

import leaderboard.store as store_module
from leaderboard.result import ModelInfo, Result
from leaderboard.store import LocalStore, StoreError

FULL = "could not save to the results store (No space left on device); nothing was recorded, please try again later"


def result(score: float) -> Result:
    return Result(benchmark="medreamm", model=ModelInfo(name="Model-7B"), metrics={"top5_primary_icd": score},
                  source="submission", n_items=10, n_answered=9)


@pytest.fixture
def store(tmp_path):
    s = LocalStore(tmp_path / "store")
    s.save_result("sub-1", result(41.5))
    return s


def old_bytes_kept(store: LocalStore, before: bytes) -> None:
    path = store.result_path("medreamm", "sub-1")
    assert path.read_bytes() == before
    assert json.loads(before)["metrics"]["top5_primary_icd"] == 41.5
    assert [p.name for p in path.parent.iterdir()] == ["sub-1.json"]  # no temp file left beside it


def test_fsync_failure_over_an_existing_record_keeps_the_old_one(store, monkeypatch):
    before = store.result_path("medreamm", "sub-1").read_bytes()
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
    before = store.result_path("medreamm", "sub-1").read_bytes()
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
        store.write_json(store.result_path("medreamm", "sub-1"), {"benchmark": "medreamm", "metrics": {}})
    old_bytes_kept(store, before)


def test_a_successful_rewrite_replaces_the_record_whole(store):
    store.save_result("sub-1", result(77.0))
    record = store.read_json(store.result_path("medreamm", "sub-1"))
    assert (record["submission_id"], record["metrics"]["top5_primary_icd"]) == ("sub-1", 77.0)
    assert [p.name for p in store.result_path("medreamm", "sub-1").parent.iterdir()] == ["sub-1.json"]
