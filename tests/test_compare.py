"""Two submissions compared item by item: counts and the paired difference, by hand."""

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from leaderboard.scoring import registry
from leaderboard.publishing.compare import CompareError, compare
from leaderboard.operations.store import LocalStore

BENCH = registry.scorer("medreamm")


def put(store, sub_id, scores, published, held_out=False):
    ids = [f"i{k}" for k in range(1, len(scores) + 1)]
    path = store.private("per_item", f"{sub_id}.parquet")
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"id": ids, "top5_primary_icd": scores}), path)
    store.write_records("medreamm", [{"submission_id": sub_id, "benchmark": "medreamm", "model": {"name": sub_id},
                                      "source": "submission", "metrics": {"top5_primary_icd": published},
                                      "protocol": {"answers_held_out": held_out}}])


def test_counts_and_mean_difference_by_hand(tmp_path):
    store = LocalStore(tmp_path)
    # items:      i1 i2 i3 i4 i5 i6 i7 i8
    put(store, "a", [1., 1., 1., 0., 0., 1., 0., None], 400 / 7)  # i8 unscored by A: left out of the pairs
    put(store, "b", [0., 1., 0., 0., 1., 0., 0., 1.], 300 / 8)
    result = compare(BENCH, store, "a", "b")
    # A better on i1, i3, i6; B better on i5; ties i2, i4, i7; per-item fractions shown x100 like the metric
    assert (result.n, result.a_wins, result.b_wins, result.ties) == (7, 3, 1, 3)
    assert result.mean_a == pytest.approx(400 / 7) and result.mean_b == pytest.approx(200 / 7)  # over shared items
    assert result.diff == pytest.approx(200 / 7)  # (3 - 1) / 7 x 100
    assert result.ci[0] < result.diff < result.ci[1] and -100 <= result.ci[0] and result.ci[1] <= 100
    swapped = compare(BENCH, store, "b", "a")
    assert (swapped.a_wins, swapped.b_wins) == (1, 3) and swapped.diff == pytest.approx(-200 / 7)


def test_identical_submissions_have_a_zero_width_ci_and_small_overlaps_are_refused(tmp_path):
    store = LocalStore(tmp_path)
    put(store, "a", [1., 0., 1., 1., 0.], 60.0)
    put(store, "c", [1., 0., 1., 1., 0.], 60.0)
    same = compare(BENCH, store, "a", "c")
    assert (same.ties, same.diff, same.ci) == (5, 0.0, (0.0, 0.0))
    put(store, "d", [1., None, None, None, None], 100.0)
    with pytest.raises(CompareError, match="share 1 scored items; at least 5"):
        compare(BENCH, store, "a", "d")
    with pytest.raises(CompareError, match="no per-item scores"):
        compare(BENCH, store, "a", "paper-row")


def test_submissions_on_a_held_out_key_are_never_compared(tmp_path):
    store = LocalStore(tmp_path)
    # two probes that differ in one answer: "A better on 1 item" would tell which letter is right
    put(store, "probe-1", [1., 0., 0., 0., 0., 0.], 100 / 6, held_out=True)
    put(store, "probe-2", [0., 0., 0., 0., 0., 0.], 0.0, held_out=True)
    put(store, "open", [1., 1., 0., 0., 0., 0.], 200 / 6)
    with pytest.raises(CompareError, match="held-out answer key"):
        compare(BENCH, store, "probe-1", "probe-2")
    with pytest.raises(CompareError, match="probe-2 was scored against a held-out answer key"):
        compare(BENCH, store, "open", "probe-2")
    from types import SimpleNamespace as NS

    from leaderboard.publishing.compare import comparable_submissions

    def entry(name, held_out, source="submission"):
        return NS(entry_id=name, result=NS(source=source, protocol={"answers_held_out": held_out}, model=NS(name=name)))

    offered = comparable_submissions([entry("open", False), entry("probe-1", True), entry("paper", False, "paper")])
    assert offered == [("open · open", "open")]


def test_ids_from_the_page_must_be_ones_it_was_offered():
    from leaderboard.publishing.compare import listed

    options = [("Model A · 20260101-a", "20260101-a"), ("Model B · 20260101-b", "20260101-b")]
    assert listed(options, "20260101-a", "20260101-b")
    assert not listed(options, "20260101-a", "../../private/per_item/x")  # a path never reaches the store
    assert not listed(options, "20260101-a", None)
