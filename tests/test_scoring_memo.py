"""The scoring memo (leaderboard/scoring/memo.py): a rescore reads back its bootstrap CIs instead of drawing
them again, and only ever gets what the bootstrap gives for exactly those inputs."""
import sqlite3

import numpy as np
import pytest

from leaderboard.scoring import memo
from leaderboard.scoring.metrics import bootstrap
from leaderboard.scoring.metrics.bootstrap import percentile_ci

# asymmetric per-item scores over 3 metrics (different means, spreads and a skew), 37 items
VALUES = np.column_stack([np.arange(37) % 5 / 4.0, (np.arange(37) % 3 == 0).astype(float), np.sqrt(np.arange(37)) / 6])


def test_key_is_unambiguous_and_changes_with_every_input():
    key = memo.Memo.key
    assert key("f", "ab", "c") != key("f", "a", "bc")  # length-prefixed: no two splits collide
    assert key("f", "ab") != key("g", "ab") != key("f", b"ab\x00")
    assert key("f", "é") == key("f", "é".encode())  # text is its UTF-8 bytes


def test_values_round_trip_exactly_and_a_missing_or_broken_file_is_a_miss(tmp_path):
    store = memo.Memo(tmp_path / "m" / memo.FILE_NAME)
    assert store.get("k") is None  # no file yet
    bounds = [[0.1 + 0.2, 1 / 3, 5e-324], [2.0 ** 0.5, -0.0, 123456.789012345678]]
    store.put("k", bounds)
    store.put("k", [[9.0], [9.0]])  # a key is written once: the first value stays
    assert store.get("k") == bounds and store.get("other") is None
    (tmp_path / "broken.sqlite").write_bytes(b"not a database at all" * 10)
    broken = memo.Memo(tmp_path / "broken.sqlite")
    assert broken.get("k") is None
    broken.put("k", [1])  # cannot be written: nothing raised, still a miss
    assert broken.get("k") is None


def _percentile_ci_draws(monkeypatch) -> list:
    """Record each bootstrap draw percentile_ci makes (a memo hit makes none)."""
    draws, real = [], bootstrap.bootstrap_means

    def counting(values, resamples, seed, *args, **kwargs):
        draws.append((len(values), resamples, seed))
        return real(values, resamples, seed, *args, **kwargs)

    monkeypatch.setattr(bootstrap, "bootstrap_means", counting)
    return draws


def test_percentile_ci_is_drawn_once_then_read_back_identical(tmp_path, monkeypatch):
    draws = _percentile_ci_draws(monkeypatch)
    plain = percentile_ci(VALUES, resamples=400, seed=11)  # no memo active: computed
    with memo.active(tmp_path):
        first = percentile_ci(VALUES, resamples=400, seed=11)
        again = percentile_ci(VALUES.copy(), resamples=400, seed=11)
    assert draws == [(37, 400, 11), (37, 400, 11)]  # the third call read the memo
    for got in (first, again):
        assert [a.tolist() for a in got] == [a.tolist() for a in plain]  # bit for bit
    assert (tmp_path / memo.FILE_NAME).is_file()


@pytest.mark.parametrize("change", ["last bit of one value", "resamples", "seed", "level"])
def test_any_changed_input_is_drawn_again(tmp_path, monkeypatch, change):
    draws = _percentile_ci_draws(monkeypatch)
    with memo.active(tmp_path):
        percentile_ci(VALUES, resamples=300, seed=5)
        values, resamples, seed, level = VALUES.copy(), 300, 5, 0.95
        if change == "last bit of one value":
            values[17, 2] = np.nextafter(values[17, 2], 1.0)
        elif change == "resamples":
            resamples = 301
        elif change == "seed":
            seed = 6
        else:
            level = 0.9
        got = percentile_ci(values, resamples=resamples, seed=seed, level=level)
    assert len(draws) == 2
    with memo.active(None):  # the same inputs without a memo: the same numbers
        want = percentile_ci(values, resamples=resamples, seed=seed, level=level)
    assert [a.tolist() for a in got] == [a.tolist() for a in want]


def test_a_memo_entry_is_what_percentile_ci_returns_so_its_key_must_name_every_input(tmp_path):
    """A planted entry under the exact key is returned as is: proof the memo is read, and why the key holds
    the algorithm, the resample count, seed, level, shape and every value's bytes."""
    values = np.ascontiguousarray(VALUES)
    key = memo.Memo.key(bootstrap.ALGORITHM, f"300/5/{0.95!r}/{values.shape}", values.tobytes())
    memo.Memo(tmp_path / memo.FILE_NAME).put(key, [[0.25, 0.5, 0.75], [1.0, 2.0, 3.0]])
    with memo.active(tmp_path):
        lo, hi = percentile_ci(VALUES, resamples=300, seed=5)
        other = percentile_ci(VALUES[:, :2], resamples=300, seed=5)  # another shape: computed
    assert lo.tolist() == [0.25, 0.5, 0.75] and hi.tolist() == [1.0, 2.0, 3.0]
    assert other[0].shape == (2,) and other[0].tolist() != [0.25, 0.5]
    with sqlite3.connect(tmp_path / memo.FILE_NAME) as db:
        assert db.execute("SELECT COUNT(*) FROM memo").fetchone()[0] == 2


def test_the_memo_is_active_only_inside_its_block(tmp_path):
    assert memo.current() is None
    with memo.active(tmp_path):
        assert memo.current().path == tmp_path / memo.FILE_NAME
        with memo.active(None):
            assert memo.current() is None
        assert memo.current() is not None
    assert memo.current() is None


def test_the_key_holds_the_values_as_float64_bytes_so_integer_scores_share_the_float_entry(tmp_path, monkeypatch):
    """0/1 hits given as integers (or as a list) are the same inputs as 0.0/1.0: one draw, then the entry is read
    back; the planted entry proves the key is the float64 bytes of the values, whatever their dtype."""
    draws = _percentile_ci_draws(monkeypatch)
    hits = np.array([[1], [0], [0], [1], [1], [1], [0], [1], [1], [1], [0]])  # int64, 7 of 11
    with memo.active(tmp_path):
        as_float = percentile_ci(hits.astype(np.float64), resamples=200, seed=3)
        as_int = percentile_ci(hits, resamples=200, seed=3)
        as_list = percentile_ci(hits.tolist(), resamples=200, seed=3)
    assert draws == [(11, 200, 3)]
    assert [a.tolist() for a in as_int] == [a.tolist() for a in as_list] == [a.tolist() for a in as_float]
    floats = np.ascontiguousarray(hits, dtype=np.float64)
    key = memo.Memo.key(bootstrap.ALGORITHM, f"200/4/{0.95!r}/(11, 1)", floats.tobytes())
    memo.Memo(tmp_path / memo.FILE_NAME).put(key, [[0.125], [0.875]])
    with memo.active(tmp_path):
        lo, hi = percentile_ci(hits, resamples=200, seed=4)
    assert (lo.tolist(), hi.tolist()) == ([0.125], [0.875])
