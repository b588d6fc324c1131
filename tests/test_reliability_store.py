"""Store write failures during scoring (the submit side is in tests/test_service.py): the disk fills up
just as the public result is written. The user sees a clear `failed` message, no result record (whole
or partial) appears, the failed run does not use quota, and once space is back the same file is
accepted again and ranked."""
import errno
import os

from test_service import PREDICTIONS, form, service, upload  # noqa: F401  (service is a fixture)


def test_result_write_failure_fails_cleanly_and_the_next_attempt_succeeds(tmp_path, service, monkeypatch):
    import leaderboard.operations.store as store_module

    real_replace = os.replace
    disk_full = {"on": True}

    def replace(src, dst):
        if disk_full["on"] and "/results/" in str(dst):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(store_module.os, "replace", replace)
    first = service.submit("alice", form(), upload(tmp_path, PREDICTIONS))
    assert first.accepted
    service.score_one(first.submission_id)
    record = service.status_for("alice")[0]
    assert record["state"] == "failed"
    assert record["message"] == ("could not save to the results store (No space left on device); nothing was "
                                 "recorded, please try again later")
    results = service.store.root / "results"
    assert not [p for p in results.rglob("*") if p.is_file()]  # no record, whole or partial, no temp file
    assert not list(service.store.root.rglob("*.tmp"))
    assert service.used_today("alice") == 0  # failed runs do not count

    disk_full["on"] = False
    again = service.submit("alice", form(), upload(tmp_path, PREDICTIONS))
    assert again.accepted, again.message  # the failed run does not block the same file
    service.score_one(again.submission_id)
    states = {r["id"]: r["state"] for r in service.status_for("alice")}
    assert states == {first.submission_id: "failed", again.submission_id: "finished"}
    assert service.store.results_table("medreamm").column("submission_id").to_pylist() == [again.submission_id]
