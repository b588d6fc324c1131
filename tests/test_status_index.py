"""Status polling reads only the viewer's own records, through a per-user index (issue 13: every open tab
rescanned the whole queue twice per 2 s tick, ~1 s per tick at 10,000 records)."""
import json

from leaderboard.operations.service import Service
from leaderboard.operations.store import LocalStore
from test_service import PREDICTIONS, context, form, upload


def test_status_reads_the_users_index_and_records_only(tmp_path, tiny_built, monkeypatch):
    service = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": tiny_built},
                      context_factory=context, quota_per_day=50)
    mine = service.submit("alice", form(), upload(tmp_path, PREDICTIONS)).submission_id
    queue = service.store.private("queue")
    for k in range(300):  # other accounts' records, written as the service writes them
        record = dict(json.loads((queue / f"{mine}.json").read_text()), id=f"other-{k:03d}", user=f"user{k}")
        (queue / f"other-{k:03d}.json").write_text(json.dumps(record))
    reads = []
    real = service.store.read_json
    monkeypatch.setattr(service.store, "read_json", lambda path: reads.append(path.name) or real(path))
    records = service.status_for("alice")
    assert [r["id"] for r in records] == [mine]
    assert len(reads) == 2, reads  # alice's index file and her one record, not 301 records
    assert service.used_today("alice") == 1 and service.status_for("nobody") == []
    assert not any("alice" in p.name for p in service.store.private("users").iterdir())  # names are hashed


def test_a_store_from_before_the_index_is_indexed_once(tmp_path, tiny_built):
    first = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": tiny_built}, context_factory=context)
    sub = first.submit("alice", form(), upload(tmp_path, PREDICTIONS)).submission_id
    for path in first.store.private("users").iterdir():  # as an older version left the store
        path.unlink()
    first.store.private("users").rmdir()
    second = Service(store=LocalStore(tmp_path / "store"), data_dirs={"medreamm": tiny_built}, context_factory=context)
    assert [r["id"] for r in second.status_for("alice")] == [sub]
    assert second.store.private("users").is_dir()
