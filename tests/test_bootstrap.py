import numpy as np
import pytest

from leaderboard.scoring.aggregate import by_stratum, overall
from leaderboard.scoring.metrics.bootstrap import bootstrap_means, percentile_ci


def test_constant_values_have_a_degenerate_interval():
    lo, hi = percentile_ci(np.ones((40, 1)), resamples=200, seed=1)
    assert lo[0] == 1.0 and hi[0] == 1.0


def test_resampled_means_are_means_of_multisets_of_the_items():
    values = np.array([0.0, 1.0])
    means = bootstrap_means(values, resamples=500, seed=7)
    # with two items each resample mean is 0, 0.5 or 1
    assert set(np.round(means[:, 0], 6)) <= {0.0, 0.5, 1.0}
    assert means[:, 0].mean() == pytest.approx(0.5, abs=0.05)


def test_same_seed_same_interval_and_interval_contains_mean():
    rng = np.random.default_rng(0)
    values = (rng.random((625, 3)) < [0.2, 0.5, 0.8]).astype(float)
    a = percentile_ci(values, resamples=1000, seed=42)
    b = percentile_ci(values, resamples=1000, seed=42)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    mean = values.mean(axis=0)
    assert np.all(a[0] <= mean) and np.all(mean <= a[1])
    # the binomial standard error at p=0.5, n=625 is 0.02; a 95% interval is about +-0.039
    assert (a[1][1] - a[0][1]) == pytest.approx(2 * 1.96 * 0.02, abs=0.01)


def test_overall_scales_by_100_and_strata_count_list_labels_in_each_cell():
    per_item = {"m": np.array([1.0, 0.0, 1.0, 1.0])}
    metrics, ci = overall(per_item, resamples=0)
    assert metrics == {"m": 75.0} and ci == {}
    strata = by_stratum(per_item, {"type": [["CT", "MRI"], ["CT"], [], None]})
    assert strata["type"]["CT"] == {"n": 2, "metrics": {"m": 50.0}}
    assert strata["type"]["MRI"] == {"n": 1, "metrics": {"m": 100.0}}
    assert strata["type"]["(missing)"] == {"n": 1, "metrics": {"m": 100.0}}


def test_pattern_draws_are_the_item_bootstrap_of_two_items():
    # resampling 2 items of values 0 and 1: mean 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4
    means = bootstrap_means(np.array([0.0, 1.0]), resamples=20000, seed=3, method="patterns")[:, 0]
    shares = [np.mean(np.isclose(means, m)) for m in (0.0, 0.5, 1.0)]
    assert sum(shares) == 1.0
    assert shares == pytest.approx([0.25, 0.5, 0.25], abs=0.015)


def test_pattern_and_item_draws_agree_on_the_interval_and_auto_picks_patterns_for_repeated_rows():
    rng = np.random.default_rng(5)
    n = 4000
    hits = (rng.random((n, 2)) < [0.3, 0.7]).astype(float)
    values = np.column_stack([hits, 1.0 / rng.integers(1, 4, size=n)])  # 2 x 2 x 3 = 12 distinct rows
    items = bootstrap_means(values, resamples=4000, seed=9, method="items")
    patterns = bootstrap_means(values, resamples=4000, seed=9, method="patterns")
    assert np.array_equal(bootstrap_means(values, resamples=4000, seed=9), patterns)  # 12 x 32 <= 4000
    # same distribution: means and spreads agree with the binomial/analytic ones within Monte Carlo error
    se = values.std(axis=0) / np.sqrt(n)
    for draws in (items, patterns):
        assert np.allclose(draws.mean(axis=0), values.mean(axis=0), atol=3 * se / np.sqrt(4000) * 10)
        assert np.allclose(draws.std(axis=0), se, rtol=0.06)
    assert np.allclose(np.quantile(items, [0.025, 0.975], axis=0), np.quantile(patterns, [0.025, 0.975], axis=0),
                       atol=0.25 * se.max())
    few = values[:300]  # 12 x 32 > 300: items are resampled directly
    assert np.array_equal(bootstrap_means(few, resamples=500, seed=2), bootstrap_means(few, resamples=500, seed=2,
                                                                                         method="items"))


def test_distinct_rows_matches_numpy_unique_rows_and_inverse():
    """The pattern bootstrap's row dedup is np.unique(axis=0) exactly: same sorted rows, same inverse
    (so the draws, hence the CIs, are unchanged), -0.0 merged with 0.0, and the packed-key overflow
    falls back to numpy."""
    from leaderboard.scoring.metrics.bootstrap import distinct_rows

    values = np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 1.0], [1.0, 0.5, 0.0], [-0.0, 1.0, 1.0], [0.0, 0.25, 1.0]])
    rows, inverse = distinct_rows(values)
    assert rows.tolist() == [[0.0, 0.25, 1.0], [0.0, 1.0, 1.0], [1.0, 0.5, 0.0]]
    assert inverse.tolist() == [2, 1, 2, 1, 0]
    rng = np.random.default_rng(3)
    wide = rng.integers(0, 3, size=(400, 50)) / 2.0  # 3^50 combinations: past the packed key, numpy's path
    for matrix in (wide, wide[:, :7], rng.integers(0, 2, size=(1000, 1)).astype(float)):
        want_rows, want_inverse = np.unique(matrix, axis=0, return_inverse=True)
        got_rows, got_inverse = distinct_rows(matrix)
        assert np.array_equal(got_rows, want_rows) and np.array_equal(got_inverse, want_inverse.ravel())


def test_distinct_rows_survives_hash_collisions(monkeypatch):
    """Rows are first told apart by one hash each; when different rows share a hash the exact check sends them
    to the column-by-column ranking (and past its packed key, to numpy): the same answer every way."""
    from leaderboard.scoring.metrics import bootstrap as B

    rng = np.random.default_rng(4)
    wide = rng.integers(0, 3, size=(400, 50)) / 2.0
    matrices = (wide, wide[:, :7], np.array([[1.0, 0.5], [-0.0, 1.0], [1.0, 0.5], [0.0, 1.0]]))
    wants = [np.unique(m + 0.0, axis=0, return_inverse=True) for m in matrices]
    hashed = [B.distinct_rows(m) for m in matrices]
    collide = lambda values: np.zeros(len(values), dtype=np.uint64)  # every row the same hash
    monkeypatch.setattr(B, "_row_hashes", collide)
    assert B._distinct_by_hash(np.ascontiguousarray(wide[:, :7])) is None
    for matrix, (want_rows, want_inverse), (rows, inverse) in zip(matrices, wants, hashed):
        got_rows, got_inverse = B.distinct_rows(matrix)
        for r, i in ((rows, inverse), (got_rows, got_inverse)):
            assert np.array_equal(r, want_rows) and np.array_equal(i, want_inverse.ravel())
    assert B.distinct_rows(np.ones((2, 1)))[1].tolist() == [0, 0]  # equal rows: the hash check passes


def test_strata_of_plain_and_mixed_labels_split_exactly():
    """by_stratum's numpy split (one plain label type) and its general path (None, mixed types, lists)."""
    per_item = {"m": np.array([1.0, 0.0, 0.5, 1.0, 0.0, 0.25])}
    labels = {"year": [2020, 2021, 2020, 2022, 2021, 2020], "rare": [True, False, True, True, False, False],
              "kind": ["b", "a", "b", None, "a", "b"], "mixed": [1, "1", True, 1, None, "x"],
              "imaging": [["CT", "MRI"], ["CT"], [], ["MRI"], ["CT"], ["US"]]}
    out = by_stratum(per_item, labels)
    assert out["year"] == {"2020": {"n": 3, "metrics": {"m": 58.3333}}, "2021": {"n": 2, "metrics": {"m": 0.0}},
                           "2022": {"n": 1, "metrics": {"m": 100.0}}}
    assert out["rare"] == {"False": {"n": 3, "metrics": {"m": 8.3333}}, "True": {"n": 3, "metrics": {"m": 83.3333}}}
    assert {k: v["n"] for k, v in out["kind"].items()} == {"a": 2, "b": 3, "(missing)": 1}
    assert out["mixed"]["1"] == {"n": 3, "metrics": {"m": 66.6667}}  # 1, "1" and the second 1 share a label
    assert out["mixed"]["True"]["n"] == 1 and out["mixed"]["(missing)"]["n"] == 1
    assert {k: v["n"] for k, v in out["imaging"].items()} == {"CT": 3, "MRI": 2, "US": 1}


def test_strata_with_missing_labels_split_exactly():
    """A plain label type with None (an unrecorded field is all None) takes numpy's split: the same cells as
    labelling each item by hand, "(missing)" merged with a value spelled so."""
    per_item = {"m": np.array([1.0, 0.0, 0.5, 1.0, 0.0, 0.25])}
    labels = {"none": [None] * 6, "year": [2020, None, 2020, None, 2021, None],
              "rare": [True, None, False, True, None, True],
              "kind": ["(missing)", "a", None, "a", None, "b"]}
    out = by_stratum(per_item, labels)
    assert out["none"] == {"(missing)": {"n": 6, "metrics": {"m": 45.8333}}}
    assert out["year"] == {"2020": {"n": 2, "metrics": {"m": 75.0}}, "2021": {"n": 1, "metrics": {"m": 0.0}},
                           "(missing)": {"n": 3, "metrics": {"m": 41.6667}}}
    assert out["rare"] == {"False": {"n": 1, "metrics": {"m": 50.0}}, "True": {"n": 3, "metrics": {"m": 75.0}},
                           "(missing)": {"n": 2, "metrics": {"m": 0.0}}}
    # rows 0, 2 and 4: (1 + 0.5 + 0) / 3
    assert out["kind"] == {"(missing)": {"n": 3, "metrics": {"m": 50.0}}, "a": {"n": 2, "metrics": {"m": 50.0}},
                           "b": {"n": 1, "metrics": {"m": 25.0}}}
    from leaderboard.scoring.aggregate import _groups

    assert [list(map(int, rows)) for rows in _groups(labels["year"]).values()] == [[0, 2], [4], [1, 3, 5]]


@pytest.mark.parametrize("metrics", [1, 4, 5])  # gathered sums up to GATHERED_METRICS, counted rows beyond
def test_item_draws_are_the_means_of_the_drawn_item_indices_on_both_summing_paths(metrics):
    """Reference: draw item indices chunk by chunk with the same generator and average the drawn rows. 600
    resamples = 2 full chunks of 250 + one of 100; 23 items, a different skew per metric column."""
    n = 23
    values = np.column_stack([(np.arange(n) * (j + 3) % 7) / (j + 6.0) + (np.arange(n) == j) for j in range(metrics)])
    got = bootstrap_means(values, resamples=600, seed=41, method="items")
    rng = np.random.default_rng(41)
    want = np.vstack([values[rng.integers(0, n, size=(size, n))].mean(axis=1) for size in (250, 250, 100)])
    assert got.shape == (600, metrics)
    assert np.allclose(got, want, rtol=0, atol=1e-12)
    assert not np.allclose(got[1:], want[:-1], rtol=0, atol=1e-6)  # row for row, not just the same set


def test_int32_item_draws_are_the_int64_draws():
    """The gathered path draws int32 indices; numpy's bounded generator gives the same numbers below 2**31."""
    a = np.random.default_rng(3).integers(0, 5620, size=(7, 5620))
    b = np.random.default_rng(3).integers(0, 5620, size=(7, 5620), dtype=np.int32)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("metrics", [1, 4, 5])
def test_up_to_gathered_metrics_columns_the_means_are_the_gathered_sums_bit_for_bit(metrics):
    """The path is part of the result's last bits, and bootstrap.ALGORITHM (a memo key part) names it: up to
    GATHERED_METRICS (4) columns each resample mean is exactly the column's drawn values summed (numpy's sum
    of the gathered (size, n) block) / n; from 5 columns the counted path sums in another order, which on this
    fixture differs in the last bits."""
    n = 23
    values = np.column_stack([(np.arange(n) * (j + 3) % 7) / (j + 6.0) + (np.arange(n) == j) for j in range(metrics)])
    got = bootstrap_means(values, resamples=600, seed=41, method="items")
    rng = np.random.default_rng(41)
    picks = [rng.integers(0, n, size=(size, n)) for size in (250, 250, 100)]
    gathered = np.vstack([np.column_stack([values[:, j][p].sum(axis=1) for j in range(metrics)]) / n for p in picks])
    assert np.allclose(got, gathered, rtol=0, atol=1e-12)
    assert np.array_equal(got, gathered) == (metrics <= 4)


def test_counted_item_draws_when_a_resample_misses_the_largest_row():
    """The counted path (5 metrics) bins each resample's draws per distinct row: a chunk whose last resample
    never drew the lexicographically largest row (the one item `top`) must still give every row's count.
    61 items, 60 of them `low`; chunks of 3 (20 resamples: 6 x 3 + 2)."""
    n, low, top = 61, [0.1, 0.3, 0.0, 0.7, 0.2], [0.9, 0.6, 1.0, 0.4, 0.8]
    values = np.array([low] * 60 + [top])
    got = bootstrap_means(values, resamples=20, seed=2, chunk=3, method="items")
    rng = np.random.default_rng(2)
    picks = [rng.integers(0, n, size=(size, n)) for size in [3] * 6 + [2]]
    assert sum((p[-1] != 60).all() for p in picks) == 4  # four chunks end on a resample without `top`
    tops = np.concatenate([(p == 60).sum(axis=1) for p in picks])
    want = (np.outer(n - tops, low) + np.outer(tops, top)) / n
    assert got.shape == (20, 5)
    assert np.allclose(got, want, rtol=0, atol=1e-12)
