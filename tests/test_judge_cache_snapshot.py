"""JudgeCache.get_many: index lookups for a few keys, one snapshot of the table once the keys asked for
add up to a sixth of it (a rescore), and rows another process wrote after the snapshot still found."""
import json
import sqlite3

import pytest

from leaderboard.scoring.judge.cache import JudgeCache


def filled(path, n):
    cache = JudgeCache(path)
    for i in range(n):
        cache.put(f"k{i}", f"raw{i}", {"met": i % 3 == 0})
    cache.close()
    return JudgeCache(path)  # a new process: nothing in memory


def test_batches_switch_to_one_snapshot_after_a_quarter_of_the_rows(tmp_path):
    cache = filled(tmp_path / "c.sqlite", 40)
    first = cache.get_many(["k0", "k1", "k2", "k3", "k4", "nope"])  # 6 asked, 6 x 6 < 40: index lookups
    assert cache._snapshots == {}
    assert first == {f"k{i}": (f"raw{i}", {"met": i % 3 == 0}) for i in range(5)}
    second = cache.get_many([f"k{i}" for i in range(5, 9)])  # 10 asked in all, 10 x 6 >= 40: snapshot
    assert list(cache._snapshots) == ["raw, parsed"] and len(cache._snapshots["raw, parsed"]) == 40
    assert second == {f"k{i}": (f"raw{i}", {"met": i % 3 == 0}) for i in range(5, 9)}
    other = sqlite3.connect(tmp_path / "c.sqlite")  # another scorer writes after the snapshot was read
    with other:
        other.execute("INSERT INTO verdicts VALUES (?, ?, ?)", ("late", "raw-late", json.dumps({"met": True})))
    other.close()
    cache.put("mine", "raw-mine", {"met": False})  # this process's own write: answered from memory
    assert cache.get_many(["k39", "late", "mine", "nope"]) == {
        "k39": ("raw39", {"met": True}), "late": ("raw-late", {"met": True}), "mine": ("raw-mine", {"met": False})}
    cache.close()


def test_flags_many_returns_each_keys_boolean_in_order_from_memory_snapshot_or_index(tmp_path):
    cache = filled(tmp_path / "c.sqlite", 40)
    asked = ["k7", "nope", "k3", "k7", "k0", "k1"]  # a repeat and a miss, 6 keys: 6 x 6 < 40, index lookups
    assert cache.flags_many(asked, "met") == [False, None, True, False, True, False]
    assert cache._snapshots == {}
    later = [f"k{i}" for i in range(30, 34)]  # 10 keys in all: 10 x 6 >= 40, one read of (key, flag) only
    assert cache.flags_many(later, "met") == [True, False, False, True]
    assert list(cache._snapshots) == ["json_type(parsed, '$.met')"]
    assert len(cache._snapshots["json_type(parsed, '$.met')"]) == 40
    other = sqlite3.connect(tmp_path / "c.sqlite")  # written by another process after the snapshot
    with other:
        other.executemany("INSERT INTO verdicts VALUES (?, ?, ?)", [
            ("late", "raw", json.dumps({"met": True})), ("number", "raw", json.dumps({"met": 1})),
            ("text", "raw", json.dumps({"met": "true"})), ("other", "raw", json.dumps({"score": True}))])
    other.close()
    cache.put("mine", "raw-mine", {"met": False})  # in memory, not yet (or just) written
    cache.put("odd", "raw-odd", {"met": "held"})  # not a boolean, in memory and on disk
    # only a JSON true/false is a flag: 1, "true" or a missing field is not (such a verdict is asked again)
    assert cache.flags_many(["mine", "late", "k39", "gone", "number", "text", "other", "odd"], "met") == [
        False, True, True, None, None, None, None, None]
    assert cache.flags_many(["k0", "k2"], "score") == [None, None]
    with pytest.raises(ValueError, match="not a verdict field name"):
        cache.flags_many(["k0"], "met') FROM verdicts; --")
    cache.close()


def test_flags_many_without_a_file_answers_from_memory(tmp_path):
    cache = JudgeCache(None)
    cache.put("a", "raw", {"met": True})
    cache.put("b", "raw", {"met": 0})
    assert cache.flags_many(["b", "a", "c"], "met") == [None, True, None]
    assert JudgeCache(None).flags_many(["a"], "met") == [None]
