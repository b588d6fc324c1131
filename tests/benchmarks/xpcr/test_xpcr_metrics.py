"""Pure X-PCR metric functions with hand-computed values: ECE binning, UAS per category and tier
weight, chain completion, MCS, and the cell-count bootstrap."""
import numpy as np
import pytest

from leaderboard.scoring.metrics.calibration import (bin_index, expected_calibration_error, uncertainty_aware_score, uncertainty_codes)
from leaderboard.scoring.metrics.cell_bootstrap import cell_bootstrap, group_accuracy
from leaderboard.scoring.metrics.chains import chain_completion, chain_completion_rate, modality_contribution


def test_bins_are_equal_width_left_closed_with_one_in_the_last_bin():
    conf = np.array([0.0, 0.05, 0.1, 0.3, 0.7, 0.55, 0.999, 1.0])
    assert bin_index(conf).tolist() == [0, 0, 1, 3, 7, 5, 9, 9]  # 0.3*10 and 0.7*10 are not 2.999.. / 7.0..1 surprises


def test_ece_on_a_known_binning():
    # bin 2: one wrong at 0.2           -> |0 - 0.2|          = 0.2
    # bin 5: two right at 0.5 and 0.55  -> |2 - 1.05|         = 0.95
    # bin 7: one wrong 0.7, one right 0.75 -> |1 - 1.45|      = 0.45
    # bin 9: right at 0.95 and 1.0      -> |2 - 1.95|         = 0.05
    # ECE = (0.2 + 0.95 + 0.45 + 0.05) / 7 items = 1.65 / 7 = 0.235714...
    conf = np.array([0.2, 0.5, 0.55, 0.7, 0.75, 0.95, 1.0])
    correct = np.array([0, 1, 1, 0, 1, 1, 1])
    assert expected_calibration_error(conf, correct) == pytest.approx(1.65 / 7)
    # the per-bin definition, written out: sum |B|/N * |acc(B) - conf(B)|
    by_bin = (1 / 7) * abs(0 - 0.2) + (2 / 7) * abs(1 - 0.525) + (2 / 7) * abs(0.5 - 0.725) + (2 / 7) * abs(1 - 0.975)
    assert expected_calibration_error(conf, correct) == pytest.approx(by_bin)


def test_ece_is_zero_when_perfectly_calibrated_and_nan_without_items():
    assert expected_calibration_error(np.array([1.0, 1.0, 0.0]), np.array([1, 1, 0])) == 0.0
    assert np.isnan(expected_calibration_error(np.array([]), np.array([])))


def test_uncertainty_categories_with_the_threshold_inclusive():
    conf = np.array([0.9, 0.5, 0.49, 0.2, 0.5, 0.8])
    correct = np.array([1, 1, 1, 0, 0, 0])
    assert uncertainty_codes(conf, correct).tolist() == [0, 0, 1, 2, 3, 3]  # CC CC CU IU IC IC


@pytest.mark.parametrize("conf, correct, base", [(0.9, 1, 1.0), (0.3, 1, 0.5), (0.3, 0, 0.25), (0.9, 0, 0.0)],
                         ids=["CC", "CU", "IU", "IC"])
@pytest.mark.parametrize("weight", [1.0, 1.5, 2.0], ids=["R", "A", "S"])
def test_uas_base_score_of_each_category_under_each_tier_weight(conf, correct, base, weight):
    # One item of the category under test (weight w, base b) and one R-tier CC item (weight 1, base 1):
    # UAS = 100 * (w * b + 1) / (w + 1).
    uas = uncertainty_aware_score(np.array([conf, 0.9]), np.array([correct, 1]), np.array([weight, 1.0]))
    assert uas == pytest.approx(100 * (weight * base + 1) / (weight + 1))


def test_uas_mixed_tiers():
    # S CC (2 x 1) + A CU (1.5 x 0.5) + R IU (1 x 0.25) + R IC (1 x 0) = 3.0 over weights 5.5 -> 54.5454...
    conf = np.array([0.8, 0.4, 0.1, 0.7])
    correct = np.array([1, 1, 0, 0])
    weights = np.array([2.0, 1.5, 1.0, 1.0])
    assert uncertainty_aware_score(conf, correct, weights) == pytest.approx(100 * 3.0 / 5.5)


def test_chain_with_one_wrong_item_is_incomplete_and_partial_chains_are_not_counted():
    # group 0: six stages all right; group 1: stage AL twice, one of them wrong; group 2: only 3 stages, all right
    group = np.array([0] * 6 + [1] * 7 + [2] * 3)
    stage = np.array([0, 1, 2, 3, 4, 5] + [0, 1, 1, 2, 3, 4, 5] + [0, 1, 3])
    correct = np.array([1] * 6 + [1, 1, 0, 1, 1, 1, 1] + [1, 1, 1])
    eligible, complete = chain_completion(group, stage, correct, 3)
    assert eligible.tolist() == [True, True, False]
    assert complete.tolist() == [True, False, False]
    assert chain_completion_rate(eligible, complete) == 50.0  # 1 complete / 2 eligible
    assert np.isnan(chain_completion_rate(np.array([False]), np.array([False])))


def test_mcs_is_full_minus_ablated_accuracy_in_points():
    # full: 3 of 4 right (75%); ablated: 1 of 4 (25%) -> MCS = +50 points; the reverse -> -50
    full, ablated = np.array([1, 1, 1, 0]), np.array([1, 0, 0, 0])
    assert modality_contribution(full, ablated) == pytest.approx(50.0)
    assert modality_contribution(ablated, full) == pytest.approx(-50.0)


def test_cell_bootstrap_matches_the_item_bootstrap():
    # 2,000 items; group 0's accuracy from (group, correct) cells vs resampling the items themselves:
    # the two percentile intervals agree within Monte Carlo noise.
    rng = np.random.default_rng(0)
    groups = rng.integers(0, 2, 2000)
    correct = (rng.random(2000) < np.where(groups == 0, 0.8, 0.4)).astype(int)
    counts = np.bincount(groups * 2 + correct, minlength=4)
    lo, hi = cell_bootstrap(counts, lambda d: group_accuracy(d, 2)[:, 0], resamples=4000, seed=1)
    draws = []
    for _ in range(2000):
        pick = rng.integers(0, 2000, 2000)
        g = groups[pick]
        draws.append(correct[pick][g == 0].mean())
    assert lo[0] == pytest.approx(np.quantile(draws, 0.025), abs=0.01)
    assert hi[0] == pytest.approx(np.quantile(draws, 0.975), abs=0.01)


def test_binomial_chain_draws_have_the_multinomial_distribution():
    from leaderboard.scoring.metrics.cell_bootstrap import multinomial_draws

    counts = np.array([[50, 0, 30, 20], [1, 1, 1, 1]])
    draws = multinomial_draws(counts, 20000, np.random.default_rng(3))
    assert draws.shape == (20000, 2, 4)
    assert (draws.sum(axis=2) == counts.sum(axis=1)).all() and (draws[:, 0, 1] == 0).all()
    # mean n*p and variance n*p*(1-p) of each cell, as a multinomial: row 0 cell 2 -> 30, 100*0.3*0.7 = 21
    assert draws[:, 0, 2].mean() == pytest.approx(30, abs=0.2) and draws[:, 0, 2].var() == pytest.approx(21, rel=0.05)
    assert draws[:, 1, 3].mean() == pytest.approx(1, abs=0.03) and draws[:, 1, 3].var() == pytest.approx(0.75, rel=0.05)
    # covariance of two cells: -n p_i p_j = -100 * 0.5 * 0.3 = -15
    assert np.cov(draws[:, 0, 0], draws[:, 0, 2])[0, 1] == pytest.approx(-15, rel=0.05)
