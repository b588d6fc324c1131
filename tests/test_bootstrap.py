import numpy as np
import pytest

from leaderboard.aggregate import by_stratum, overall
from leaderboard.metrics.bootstrap import bootstrap_means, percentile_ci


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
