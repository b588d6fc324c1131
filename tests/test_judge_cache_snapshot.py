"""JudgeCache.get_many: index lookups for a few keys, one snapshot of the table once the keys asked for
add up to a sixth of it (a rescore), and rows another process wrote after the snapshot still found."""
import json
import sqlite3

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
    assert cache._snapshot is None
    assert first == {f"k{i}": (f"raw{i}", {"met": i % 3 == 0}) for i in range(5)}
    second = cache.get_many([f"k{i}" for i in range(5, 9)])  # 10 asked in all, 10 x 6 >= 40: snapshot
    assert cache._snapshot is not None and len(cache._snapshot) == 40
    assert second == {f"k{i}": (f"raw{i}", {"met": i % 3 == 0}) for i in range(5, 9)}
    other = sqlite3.connect(tmp_path / "c.sqlite")  # another scorer writes after the snapshot was read
    with other:
        other.execute("INSERT INTO verdicts VALUES (?, ?, ?)", ("late", "raw-late", json.dumps({"met": True})))
    other.close()
    cache.put("mine", "raw-mine", {"met": False})  # this process's own write: answered from memory
    assert cache.get_many(["k39", "late", "mine", "nope"]) == {
        "k39": ("raw39", {"met": True}), "late": ("raw-late", {"met": True}), "mine": ("raw-mine", {"met": False})}
    cache.close()


def test_values_many_returns_each_keys_value_in_order_from_memory_snapshot_or_index(tmp_path):
    cache = filled(tmp_path / "c.sqlite", 40)
    asked = ["k7", "nope", "k3", "k7", "k0", "k1"]  # a repeat and a miss, 6 keys: 6 x 6 < 40, index lookups
    assert cache.values_many(asked) == [{"met": False}, None, {"met": True}, {"met": False}, {"met": True},
                                        {"met": False}]
    assert cache._values_snapshot is None and cache._snapshot is None
    later = [f"k{i}" for i in range(30, 34)]  # 10 keys in all: 10 x 6 >= 40, one read of (key, parsed) only
    assert cache.values_many(later) == [{"met": i % 3 == 0} for i in range(30, 34)]
    assert cache._values_snapshot is not None and len(cache._values_snapshot) == 40 and cache._snapshot is None
    other = sqlite3.connect(tmp_path / "c.sqlite")  # written by another process after the snapshot
    with other:
        other.execute("INSERT INTO verdicts VALUES (?, ?, ?)", ("late", "raw-late", json.dumps({"met": 2 ** 70})))
    other.close()
    cache.put("mine", "raw-mine", {"met": "held"})  # in memory, not yet (or just) written
    assert cache.values_many(["mine", "late", "k39", "gone"]) == [{"met": "held"}, {"met": 2 ** 70}, {"met": True},
                                                                  None]
    assert type(cache.values_many(["late"])[0]["met"]) is int  # past 64 bits: read exactly
    cache.close()


def test_values_many_without_a_file_answers_from_memory(tmp_path):
    cache = JudgeCache(None)
    cache.put("a", "raw", {"met": True})
    assert cache.values_many(["b", "a"]) == [None, {"met": True}]
    assert JudgeCache(None).values_many(["a"]) == [None]
