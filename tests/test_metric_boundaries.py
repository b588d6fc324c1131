"""Boundaries of the pure metric functions that a one-character slip would move, each pinned with a
hand-computed value: a primary match exactly at the last counted rank, a ClinMM consensus of exactly 0.5,
two models with identical resamples, and the exact percentile positions of every bootstrap interval."""
import math

import numpy as np
import pytest

from benchmarks.clinmm.metrics import categories, consensus
from leaderboard.scoring.metrics.bootstrap import bootstrap_means, percentile_ci
from leaderboard.scoring.metrics.cell_bootstrap import cell_bootstrap, cell_draws, group_accuracy, percentile_interval
from leaderboard.scoring.metrics.ranked_lists import NO_MATCH, first_match_ranks, ranked_metrics, reciprocal_rank
from leaderboard.scoring.metrics.subgroup import percentile_bounds, subset_replicates
from leaderboard.publishing.tie_groups import PAIRED_SHARE, TIE_RESAMPLES, rank_ranges, tied


# ------------------------------------------------------------------ ranked lists: the last counted rank
def one_case(primary_rank: int | None, secondary_rank: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    matches = np.zeros((1, 10, 2), dtype=bool)
    if primary_rank:
        matches[0, primary_rank - 1, 0] = True
    if secondary_rank:
        matches[0, secondary_rank - 1, 1] = True
    return matches, np.array([[True, secondary_rank is not None]])


def test_primary_exactly_at_rank_ten_counts_for_top10_and_mrr_one_tenth():
    m = {k: float(v[0]) for k, v in ranked_metrics(*one_case(10)).items()}
    assert m["mrr"] == pytest.approx(0.1)
    assert (m["top10_primary"], m["top10_complete"], m["top5_primary"], m["top1"]) == (1.0, 1.0, 0.0, 0.0)
    assert m["ndcg10"] == pytest.approx((2 / math.log2(11)) / 2)  # gain 2 at rank 10 over IDCG 2: 0.289065
    # rank 5 is the last one in the top 5; rank 6 is not (and rank 9 still earns 1/9, rank 10 1/10)
    assert float(ranked_metrics(*one_case(5))["top5_primary"][0]) == 1.0
    assert float(ranked_metrics(*one_case(6))["top5_primary"][0]) == 0.0
    assert reciprocal_rank(np.array([[9], [10], [NO_MATCH], [11]])).tolist() == pytest.approx([1 / 9, 0.1, 0.0, 0.0])


def test_secondary_exactly_at_rank_ten_completes_the_top10_not_the_top5():
    m = {k: float(v[0]) for k, v in ranked_metrics(*one_case(1, 10)).items()}
    assert (m["top10_complete"], m["top5_complete"], m["mrr"]) == (1.0, 0.0, 1.0)
    idcg = 2 + 1 / math.log2(3)
    assert m["ndcg10"] == pytest.approx((2 + 1 / math.log2(11)) / idcg)  # 0.911... not (2 + 1/log2(3)) / idcg
    assert first_match_ranks(*one_case(3, 10)).tolist() == [[3, 10]]


# ------------------------------------------------------------------ ClinMM: a consensus of exactly 0.5
def test_one_judge_zero_one_judge_one_is_partially_correct_never_a_complete_error():
    c = consensus(np.array([[0, 1], [1, 0], [0, 0], [2, 1], [2, 2]], dtype=float), np.ones(5, dtype=bool))
    assert c.tolist() == [0.5, 0.5, 0.0, 1.5, 2.0]
    cats = categories(c)
    assert cats["partially_correct"].tolist() == [1, 1, 0, 1, 0]
    assert cats["complete_error"].tolist() == [0, 0, 1, 0, 0]
    assert cats["completely_correct"].tolist() == [0, 0, 0, 0, 1]
    # the three categories partition the cases
    assert (cats["partially_correct"] + cats["complete_error"] + cats["completely_correct"]).tolist() == [1] * 5


# ------------------------------------------------------------------ tie groups: identical resamples tie
def test_two_models_with_identical_resamples_tie():
    rng = np.random.default_rng(7)
    same = rng.normal(60, 2, TIE_RESAMPLES)
    assert tied(same, same.copy())  # neither leads in any resample
    # scores differ at the shown precision and every CI overlaps, so only the paired resamples decide
    scores = np.array([65.0, 60.04, 60.0, 55.0])
    ranks = rank_ranges(scores, scores - 10, scores + 10, resamples=[same + 5, same, same.copy(), same - 5],
                        pair_keys=["fp"] * 4, decimals=2)
    assert ranks.labels() == ["1", "2–3", "2–3", "4"] and ranks.paired
    # j is ahead of i only when it leads in MORE than PAIRED_SHARE of the paired resamples
    assert PAIRED_SHARE == 0.975
    boundary = np.where(np.arange(TIE_RESAMPLES) < 25, 0.0, 1.0)  # leads in 975 of 1000: exactly the share
    assert tied(boundary, np.zeros(TIE_RESAMPLES))
    boundary[24] = 1.0  # leads in 976 of 1000
    assert not tied(boundary, np.zeros(TIE_RESAMPLES))
    assert not tied(same + 1e-9, same)  # a lead in every resample, however small, separates


# ------------------------------------------------------------------ percentile positions: 2.5% and 97.5%
def test_cell_bootstrap_percentiles_are_exactly_2_5_and_97_5():
    # 0..200 in a shuffled order: the 2.5% quantile is element 5 (0.025 x 200), the 97.5% one element 195
    draws = np.random.default_rng(3).permutation(np.arange(201, dtype=float))[:, None]
    lo, hi = percentile_interval(draws)
    assert (lo[0], hi[0]) == pytest.approx((5.0, 195.0))
    lo, hi = percentile_interval(draws, level=0.9)
    assert (lo[0], hi[0]) == pytest.approx((10.0, 190.0))
    with_nan = np.vstack([draws, [[np.nan]]])  # the NaN-aware branch gives the same positions
    lo, hi = percentile_interval(with_nan)
    assert (lo[0], hi[0]) == pytest.approx((5.0, 195.0))


def test_cell_bootstrap_interval_is_the_2_5_and_97_5_quantile_of_its_own_draws():
    counts = np.array([3, 9, 6, 2])  # group 0: 3 wrong 9 right; group 1: 6 wrong 2 right (asymmetric)
    lo, hi = cell_bootstrap(counts, lambda d: group_accuracy(d, 2), resamples=400, seed=11)
    accuracy = group_accuracy(cell_draws(counts, 400, 11), 2)
    assert lo.tolist() == pytest.approx(np.quantile(accuracy, 0.025, axis=0).tolist())
    assert hi.tolist() == pytest.approx(np.quantile(accuracy, 0.975, axis=0).tolist())
    assert lo[0] < 0.75 < hi[0] and lo[1] < 0.25 < hi[1]  # and brackets 9/12 and 2/8


def test_item_and_subgroup_bootstraps_use_the_same_percentile_positions():
    values = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    lo, hi = percentile_ci(values, resamples=300, seed=5)
    means = bootstrap_means(values, 300, 5)[:, 0]
    assert (lo[0], hi[0]) == pytest.approx((np.quantile(means, 0.025), np.quantile(means, 0.975)))
    replicates = np.column_stack([np.arange(201, dtype=float), np.r_[np.arange(200, dtype=float), np.nan]])
    lo, hi = percentile_bounds(replicates)
    assert lo.tolist() == pytest.approx([5.0, 0.025 * 199]) and hi.tolist() == pytest.approx([195.0, 0.975 * 199])


def test_rows_without_comparable_resamples_are_never_tied():
    a = np.array([50.0, 51.0, 49.0])
    assert not tied(None, a) and not tied(a, None) and not tied(None, None)  # paper rows: no resamples
    assert not tied(a, np.array([50.0, 51.0, 49.0, 50.0]))  # different resample counts are not paired
    assert not tied(np.array([]), np.array([]))
    assert tied(np.array([50.0]), np.array([50.0]))  # one paired resample with difference 0 does tie
    # rows without comparable resamples are ranked by their intervals alone: overlapping CIs share a range
    scores = np.array([70.0, 60.0, 58.0])
    ranks = rank_ranges(scores, np.array([69.0, 55.0, 50.0]), np.array([71.0, 65.0, 61.0]),
                        resamples=[a, None, a[:2]], pair_keys=["fp", "fp", "fp"])
    assert ranks.labels() == ["1", "2–3", "2–3"]


def test_subset_replicates_reuse_the_overall_bootstrap_draws():
    """Same seed, same item draws as bootstrap_means: the all-items subset IS the overall mean's replicate,
    and a subset's replicate is its items' share of each resample."""
    values = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0])
    masks = np.column_stack([np.ones(7, dtype=bool), np.arange(7) < 3])  # all items; the first three (2 of 3 right)
    reps = subset_replicates(values, masks, resamples=300, seed=9)
    assert reps[:, 0].tolist() == pytest.approx(bootstrap_means(values, 300, 9)[:, 0].tolist())
    both = bootstrap_means(np.column_stack([values * masks[:, 1], masks[:, 1]]), 300, 9)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(both[:, 1] > 0, both[:, 0] / both[:, 1], np.nan)
    assert np.array_equal(np.isnan(reps[:, 1]), np.isnan(expected))
    assert reps[:, 1][~np.isnan(expected)].tolist() == pytest.approx(expected[~np.isnan(expected)].tolist())
    assert not np.array_equal(reps, subset_replicates(values, masks, resamples=300, seed=10), equal_nan=True)


def test_subset_replicates_without_items_are_all_nan():
    reps = subset_replicates(np.array([]), np.zeros((0, 3), dtype=bool), resamples=50, seed=1)
    assert reps.shape == (50, 3) and np.isnan(reps).all()


def test_tied_needs_equal_resample_counts():
    rng = np.random.default_rng(2)
    long, short = rng.normal(50, 2, 1000), rng.normal(40, 2, 400)
    rows = [long, long.copy(), short, short + rng.normal(0, 0.5, 400), short - 30, None]
    expected = [tied(rows[i], rows[i + 1]) for i in range(len(rows) - 1)]
    assert expected == [True, False, True, False, False]


def test_group_accuracy_of_single_item_groups_and_empty_groups():
    draws = np.array([[0, 1, 1, 0, 0, 0], [2, 1, 0, 3, 0, 0]])  # (wrong, right) per group, per resample
    acc = group_accuracy(draws, 3)
    assert acc[:, :2].tolist() == [[1.0, 0.0], [pytest.approx(1 / 3), 1.0]] and np.isnan(acc[:, 2]).all()


def test_percentile_interval_with_nan_is_per_column():
    draws = np.column_stack([np.arange(201, dtype=float), np.arange(201, dtype=float) + 1000])
    draws[7, 1] = np.nan  # a resample that emptied the second stratum: that column loses one value
    lo, hi = percentile_interval(draws)
    # 200 values left (0..6, 8..200): positions 0.025 x 199 = 4.975 and 0.975 x 199 = 194.025 of that column
    assert lo.tolist() == pytest.approx([5.0, 1000 + 4.975])
    assert hi.tolist() == pytest.approx([195.0, 1000 + 195.025])
    assert lo.shape == hi.shape == (2,)


def test_cell_bootstrap_passes_its_level_on():
    counts = np.array([3, 9, 6, 2])
    accuracy = group_accuracy(cell_draws(counts, 400, 11), 2)
    lo, hi = cell_bootstrap(counts, lambda d: group_accuracy(d, 2), resamples=400, seed=11, level=0.8)
    assert lo.tolist() == pytest.approx(np.quantile(accuracy, 0.1, axis=0).tolist())
    assert hi.tolist() == pytest.approx(np.quantile(accuracy, 0.9, axis=0).tolist())


def test_lists_of_depth_zero_and_one():
    valid = np.array([[True, True], [True, False]])
    empty = ranked_metrics(np.zeros((2, 0, 2), dtype=bool), valid)  # nobody submitted a diagnosis
    assert all(v.tolist() == [0.0, 0.0] for v in empty.values())
    assert first_match_ranks(np.zeros((2, 0, 2), dtype=bool), valid).tolist() == [[NO_MATCH] * 2] * 2
    one = np.zeros((2, 1, 2), dtype=bool)
    one[0, 0, 0] = one[1, 0, 1] = True  # case 0: its primary at rank 1; case 1: only padding "matches"
    m = ranked_metrics(one, valid)
    assert m["top1"].tolist() == [1.0, 0.0] and m["mrr"].tolist() == [1.0, 0.0]
    assert m["top5_complete"].tolist() == [0.0, 0.0]  # case 0 still misses its secondary


def test_the_at_ten_metrics_stop_at_rank_ten_even_in_longer_lists():
    matches = np.zeros((2, 11, 2), dtype=bool)
    matches[0, 10, 0] = True  # case 0: primary only at rank 11
    matches[1, 0, 0] = matches[1, 10, 1] = True  # case 1: primary at 1, secondary only at rank 11
    m = ranked_metrics(matches, np.ones((2, 2), dtype=bool))
    assert m["top10_primary"].tolist() == [0.0, 1.0] and m["mrr"].tolist() == [0.0, 1.0]
    assert m["top10_complete"].tolist() == [0.0, 0.0]
    assert m["ndcg10"][1] == pytest.approx(2 / (2 + 1 / math.log2(3)))  # the rank-11 secondary earns nothing


def test_a_secondary_at_rank_six_misses_the_top5_complete():
    m = {k: float(v[0]) for k, v in ranked_metrics(*one_case(1, 6)).items()}
    assert (m["top5_complete"], m["top10_complete"], m["top5_primary"]) == (0.0, 1.0, 1.0)


def test_ndcg_truncates_the_ideal_list_at_ten_and_is_zero_without_ground_truth():
    matches = np.zeros((2, 10, 12), dtype=bool)
    for rank in range(10):
        matches[0, rank, rank] = True  # twelve entities, the first ten found in the ideal order
    valid = np.array([[True] * 12, [False] * 12])  # case 1 has no valid entity at all
    m = ranked_metrics(matches, valid)
    assert m["ndcg10"][0] == pytest.approx(1.0)  # IDCG counts ten positions, not twelve entities
    assert m["ndcg10"][1] == 0.0 and not np.isnan(m["ndcg10"]).any()


def test_modality_contribution_of_one_item_and_of_none():
    from leaderboard.scoring.metrics.chains import modality_contribution

    assert modality_contribution(np.array([True]), np.array([False])) == 100.0
    assert modality_contribution(np.array([1, 1, 0]), np.array([0, 1, 1])) == 0.0
    assert modality_contribution(np.array([1, 1, 1, 0]), np.array([0, 1, 0, 0])) == 50.0
    assert np.isnan(modality_contribution(np.array([]), np.array([])))


def test_a_cell_holding_the_last_item_gets_every_draw():
    """When one item of mass is left and it sits in the current cell, that cell's share is 1, not 0."""
    for counts in ([1, 0, 0], [0, 1, 0], [2, 1, 0]):
        draws = cell_draws(np.array(counts), 200, 4)
        assert (draws.sum(axis=1) == sum(counts)).all()
        assert (draws[:, 2] == 0).all(), counts  # an empty cell never receives an item
    assert (cell_draws(np.array([0, 1, 0]), 50, 4) == [0, 1, 0]).all()


def test_calibration_and_fact_scores_of_a_single_item():
    from benchmarks.clinmm.metrics import fact_scores
    from benchmarks.xpcr.taxonomy import TIER_WEIGHTS
    from leaderboard.scoring.metrics.calibration import (BASE_SCORES, expected_calibration_error, uncertainty_aware_score)

    assert expected_calibration_error(np.array([0.8]), np.array([1])) == pytest.approx(0.2)  # |1 - 0.8| / 1
    # one R-tier item (total weight 1.0 is a real total, not "no items"): CU scores its base 0.5
    assert uncertainty_aware_score(np.array([0.3]), np.array([1]), np.array([TIER_WEIGHTS["R"]])) == \
        pytest.approx(100 * BASE_SCORES["CU"])
    assert fact_scores(2, 1, 1, 1, 1) == (1.0, 0.5, 0.5)  # one reference fact is a valid case


# ------------------------------------------------------------------ calibration: bins, thresholds, empty inputs
def test_ece_of_low_confidences_only_fills_the_first_bins_and_takes_its_bin_count():
    from leaderboard.scoring.metrics.calibration import ECE_BINS, expected_calibration_error

    # bins (of 10): 0.15 -> 1, 0.25 and 0.28 -> 2, 0.35 -> 3; nothing reaches the upper bins
    confidence = np.array([0.15, 0.25, 0.28, 0.35])
    correct = np.array([1, 0, 1, 0])
    # |1 - 0.15| + |1 - (0.25 + 0.28)| + |0 - 0.35| = 0.85 + 0.47 + 0.35 = 1.67, over 4 items
    assert expected_calibration_error(confidence, correct) == pytest.approx(1.67 / 4)
    assert ECE_BINS == 10
    # 4 bins: 0.15 -> 0, 0.25 and 0.28 and 0.35 -> 1: |1 - 0.15| + |1 - 0.88| = 0.97, over 4
    assert expected_calibration_error(confidence, correct, bins=4) == pytest.approx(0.97 / 4)


def test_bin_edges_absorb_float_noise_and_out_of_range_confidences_clip_to_the_end_bins():
    from leaderboard.scoring.metrics.calibration import bin_index

    # 0.299999999994 * 10 is 3 to 9 decimals (float noise of a 0.3 written by a model): bin 3, not bin 2
    assert bin_index(np.array([0.299999999994, 0.3, 0.7, 1.0])).tolist() == [3, 3, 7, 9]
    assert bin_index(np.array([-0.05, 1.2])).tolist() == [0, 9]  # never bin -1 or 10


def test_uas_passes_its_threshold_on_and_is_nan_without_items_or_weight():
    from leaderboard.scoring.metrics.calibration import BASE_SCORES, uncertainty_aware_score

    confidence, correct, weights = np.array([0.6, 0.4]), np.array([1, 0]), np.array([1.0, 3.0])
    # threshold 0.5: CC (1.0) and IU (0.25) -> 100 * (1 * 1.0 + 3 * 0.25) / 4 = 43.75
    assert uncertainty_aware_score(confidence, correct, weights) == pytest.approx(43.75)
    # threshold 0.7: CU (0.5) and IU (0.25) -> 100 * (0.5 + 0.75) / 4 = 31.25
    assert uncertainty_aware_score(confidence, correct, weights, threshold=0.7) == pytest.approx(31.25)
    assert (BASE_SCORES["CC"], BASE_SCORES["CU"], BASE_SCORES["IU"]) == (1.0, 0.5, 0.25)
    assert math.isnan(uncertainty_aware_score(np.array([]), np.array([]), np.array([])))
    assert math.isnan(uncertainty_aware_score(confidence, correct, np.zeros(2)))


# ------------------------------------------------------------------ ClinMM: masks, messages, one predicted fact
def test_consensus_takes_answered_as_a_mask_even_when_given_as_zeros_and_ones():
    scores = np.array([[2.0, 1.0], [2.0, 2.0], [0.0, 1.0]])
    assert consensus(scores, [1, 0, 1]).tolist() == [1.5, 0.0, 0.5]  # not rows 1, 0, 1 picked by index


def test_fact_scores_of_one_predicted_fact_and_the_message_without_reference_facts():
    from benchmarks.clinmm.metrics import fact_scores

    assert fact_scores(1, 4, 1, 2, 0) == (0.5, 0.0, 1.0)  # one predicted fact is a real denominator
    assert fact_scores(1, 4, 0, 0, 1) == (0.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="^a case needs at least one reference fact$"):
        fact_scores(3, 0, 0, 0, 0)


def test_mean_and_ci_rounds_to_four_decimals_and_resamples_with_the_given_count_and_seed():
    from benchmarks.clinmm.metrics import mean_and_ci

    values = np.array([1.0, 0.0, np.nan, 1.0, 0.0, 0.0, 1.0, 0.0])  # 3 of 7 non-NaN: 42.857142...%
    mean, bounds, n = mean_and_ci(values, 100.0, 300, 11)
    assert (mean, n) == (42.8571, 7)
    lo, hi = percentile_ci(values[~np.isnan(values)], resamples=300, seed=11)  # not 5000 draws, not seed default
    assert bounds == [round(float(lo[0]) * 100, 4), round(float(hi[0]) * 100, 4)]
    # resampled means are multiples of 1/7, so both bounds have more than four decimals to round
    assert round(float(lo[0]) * 100, 5) != bounds[0] and round(float(hi[0]) * 100, 5) != bounds[1]
    assert 0 < bounds[0] < mean < bounds[1] < 100
    assert mean_and_ci(values, 100.0, 0, 11) == (42.8571, None, 7)  # no resamples: no interval
    one = mean_and_ci(values, 100.0, 1, 11)  # one resample is an interval of one draw
    assert one[1] is not None and one[1][0] == one[1][1] and one[2] == 7
    assert mean_and_ci(np.array([np.nan]), 100.0, 300, 11) == (None, None, 0)


# ------------------------------------------------------------------ item bootstrap: one item, seed, level
def test_bootstrap_of_one_item_is_that_item_and_percentile_ci_uses_its_seed_and_level():
    assert bootstrap_means(np.array([0.7]), 5)[:, 0].tolist() == [0.7] * 5
    values = np.array([0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0])
    means = bootstrap_means(values, 400, 3, method="items")[:, 0]
    lo, hi = percentile_ci(values, resamples=400, seed=3)  # 13 items, 2 distinct rows: "auto" draws items
    assert (lo[0], hi[0]) == pytest.approx((np.quantile(means, 0.025), np.quantile(means, 0.975)))
    lo, hi = percentile_ci(values, resamples=400, seed=3, level=0.8)
    assert (lo[0], hi[0]) == pytest.approx((np.quantile(means, 0.1), np.quantile(means, 0.9)))


# ------------------------------------------------------------------ MedRealMM rubric: signed points, clipping
def test_rubric_scores_of_asymmetric_cases_by_hand():
    from leaderboard.scoring.metrics.rubric import rubric_scores

    # case 0: +3 met, +1 not, -2 triggered -> (3 - 2) / 4 = 0.25
    # case 1: +5 met, -1 not triggered, +2 met -> 7 / 7 = 1.0 (an untriggered penalty costs nothing)
    # case 2: no criterion at all (n_cases reaches past it) -> 0, not counted as "no positive"
    # case 3: +1 not met, -3 triggered, -1 triggered -> -4 / 1 -> raw -4, clipped to 0
    # case 4: only -2 not triggered -> no denominator, nothing triggered -> 1
    # case 5: +0.5 met, +1.5 not -> 0.25; criteria listed out of case order
    case_index = [1, 0, 3, 0, 4, 1, 0, 3, 3, 1, 5, 5]
    points = [5, 3, 1, 1, -2, -1, -2, -3, -1, 2, 0.5, 1.5]
    met = [1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0]
    s = rubric_scores(case_index, points, met, 6)
    assert s.score.tolist() == [0.25, 1.0, 0.0, 0.0, 1.0, 0.25]
    assert s.raw[[0, 1, 3, 5]].tolist() == [0.25, 1.0, -4.0, 0.25]
    assert np.isnan(s.raw[2]) and np.isnan(s.raw[4])
    assert s.positives_met.tolist() == [1, 2, 0, 0, 0, 1]
    assert s.negatives_triggered.tolist() == [1, 0, 0, 2, 0, 0]
    assert s.no_positive == 1  # case 4 only: case 2 has no rubric at all
    # a criterion worth 0 points, met, is neither a positive met nor a penalty triggered
    zero = rubric_scores([0, 0], [2, 0.0], [1, 1], 1)
    assert zero.score.tolist() == [1.0] and (zero.positives_met[0], zero.negatives_triggered[0]) == (1, 0)
    # a triggered penalty on a case without positives scores 0 even if another penalty is untriggered
    assert rubric_scores([0, 0], [-1, -2], [0, 1], 1).score.tolist() == [0.0]


def test_score_histogram_bins_of_five_percent_with_the_last_closed():
    from leaderboard.scoring.metrics.rubric import HISTOGRAM_WIDTH, score_histogram

    assert HISTOGRAM_WIDTH == 0.05
    hist = score_histogram([0.0, 0.049, 0.05, 0.15, 0.5, 0.95, 0.9499, 1.0, 1.0])
    assert list(hist)[:3] == ["0-5", "5-10", "10-15"] and list(hist)[-1] == "95-100" and len(hist) == 20
    expected = {k: 0 for k in hist}
    expected.update({"0-5": 2, "5-10": 1, "15-20": 1, "50-55": 1, "90-95": 1, "95-100": 3})
    assert hist == expected
    quarters = score_histogram([0.0, 0.3, 0.5, 0.75, 1.0], width=0.25)
    assert quarters == {"0-25": 1, "25-50": 1, "50-75": 1, "75-100": 2}


def test_rubric_cases_after_the_last_criterion_and_a_histogram_without_high_scores():
    from leaderboard.scoring.metrics.rubric import rubric_scores, score_histogram

    # cases 1 and 2 have no criterion (nothing judged yet): every per-case array still has n_cases entries
    s = rubric_scores([0, 0], [2.0, -1.0], [1, 1], 3)
    assert s.score.tolist() == [0.5, 0.0, 0.0] and s.no_positive == 0
    assert s.positives_met.tolist() == [1, 0, 0] and s.negatives_triggered.tolist() == [1, 0, 0]
    assert s.raw[0] == 0.5 and np.isnan(s.raw[1:]).all()
    two = rubric_scores([0, 1], [2.0, 1.0], [1, 0], 3)  # two cases judged, the third not yet
    assert two.score.tolist() == [1.0, 0.0, 0.0] and two.raw[:2].tolist() == [1.0, 0.0] and np.isnan(two.raw[2])
    hist = score_histogram([0.0, 0.42])  # nothing in the upper bins: still all 20 of them, at 0
    assert len(hist) == 20 and hist["0-5"] == 1 and hist["40-45"] == 1 and hist["95-100"] == 0
    assert sum(hist.values()) == 2


# ------------------------------------------------------------------ item bootstrap: which exact draw "auto" takes
def test_auto_draws_patterns_from_exactly_32_fold_repeats_and_items_otherwise():
    from leaderboard.scoring.metrics.bootstrap import PATTERN_SHARE

    assert PATTERN_SHARE == 32
    two_rows = np.array([0.0, 1.0] * 32)  # 64 items, 2 distinct rows: exactly 32-fold
    patterns = bootstrap_means(two_rows, 300, 9, method="patterns")
    items = bootstrap_means(two_rows, 300, 9, method="items")
    assert not np.array_equal(patterns, items)  # two different exact draws (same distribution)
    assert np.array_equal(bootstrap_means(two_rows, 300, 9), patterns)  # 2 x 32 <= 64
    fewer = two_rows[:-1]  # 63 items: under 32-fold
    assert np.array_equal(bootstrap_means(fewer, 300, 9), bootstrap_means(fewer, 300, 9, method="items"))
    assert not np.array_equal(bootstrap_means(fewer, 300, 9, method="patterns"),
                              bootstrap_means(fewer, 300, 9, method="items"))  # "patterns" is obeyed
    with_nan = np.r_[two_rows, np.nan]  # a NaN item: always the item draw (callers drop NaN items first)
    auto = bootstrap_means(with_nan, 300, 9)
    assert np.array_equal(auto, bootstrap_means(with_nan, 300, 9, method="items"), equal_nan=True)


def test_pattern_draws_beyond_one_chunk_fill_every_resample():
    two_rows = np.array([0.0, 1.0] * 32)
    means = bootstrap_means(two_rows, 2_100, 9)  # the pattern draw runs 2,000 resamples a chunk
    assert means.shape == (2_100, 1) and not np.isnan(means).any()
    assert ((means >= 0) & (means <= 1)).all() and abs(means.mean() - 0.5) < 0.01


def test_mean_and_ci_resamples_with_its_seed():
    from benchmarks.clinmm.metrics import mean_and_ci

    values = np.array([0.11, 0.92, 0.35, 0.67, 0.08, 0.54, 0.29, 0.81, 0.46, 0.73])  # 10 distinct: seeds differ
    _, bounds, _ = mean_and_ci(values, 100.0, 200, 5)
    lo, hi = percentile_ci(values, resamples=200, seed=5)
    assert bounds == [round(float(lo[0]) * 100, 4), round(float(hi[0]) * 100, 4)]
    other = percentile_ci(values, resamples=200, seed=6)
    assert [round(float(other[0][0]) * 100, 4), round(float(other[1][0]) * 100, 4)] != bounds
