"""A pull from the Hub never replaces a queue record with an older one (the lost-update race of issue 17's CI
run: the worker wrote "finished", a refresh that had read the Hub a moment earlier put "scoring" back)."""
import json

from leaderboard.operations.hub_data import merge_queue_records


def write(folder, name, **record):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.json").write_text(json.dumps(record), encoding="utf-8")


def state(folder, name):
    return json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))["state"]


def test_only_fresher_pulled_records_replace_local_ones(tmp_path):
    pulled, local = tmp_path / "pulled", tmp_path / "local"
    same_second = "2026-12-01T08:47:15+00:00"
    # ours finished in the same second the Hub's snapshot was taken "scoring": ours stays
    write(local, "a", state="finished", progress=1.0, updated_at=same_second)
    write(pulled, "a", state="scoring", progress=0.8, updated_at=same_second)
    # another worker moved b on later: the Hub's copy wins
    write(local, "b", state="queued", progress=0.0, updated_at="2026-12-01T08:47:15+00:00")
    write(pulled, "b", state="scoring", progress=0.3, updated_at="2026-12-01T08:47:16+00:00")
    # same second, same state, more progress on the Hub: the Hub's wins
    write(local, "c", state="scoring", progress=0.3, updated_at=same_second)
    write(pulled, "c", state="scoring", progress=0.8, updated_at=same_second)
    # an older Hub copy of a record that has since failed here: ours stays
    write(local, "d", state="failed", progress=1.0, updated_at="2026-12-01T09:00:00+00:00")
    write(pulled, "d", state="finished", progress=1.0, updated_at="2026-12-01T08:00:00+00:00")
    # new on the Hub: copied; a broken or non-object pulled file: skipped, the local one stays
    write(pulled, "e", state="queued", progress=0.0, updated_at=same_second)
    write(local, "f", state="finished", progress=1.0, updated_at=same_second)
    (pulled / "f.json").write_text('{"state": "scor', encoding="utf-8")
    (pulled / "g.json").write_text("[1, 2]", encoding="utf-8")

    copied = merge_queue_records(pulled, local)

    assert copied == ["b.json", "c.json", "e.json"]
    assert [state(local, n) for n in "abcdef"] == ["finished", "scoring", "scoring", "failed", "queued", "finished"]
    assert not (local / "g.json").exists()
    assert sorted(p.name for p in local.iterdir()) == [f"{n}.json" for n in "abcdef"]  # no temporary left


def test_identical_records_are_not_rewritten_and_a_missing_pull_is_a_no_op(tmp_path):
    pulled, local = tmp_path / "pulled", tmp_path / "local"
    assert merge_queue_records(pulled, local) == []
    write(local, "a", state="scoring", progress=0.5, updated_at="2026-12-01T08:47:15+00:00")
    write(pulled, "a", state="scoring", progress=0.5, updated_at="2026-12-01T08:47:15+00:00")
    assert merge_queue_records(pulled, local) == []
