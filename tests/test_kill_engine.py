"""Kill tests for the scoring engine (leaderboard/scoring/engine/*): mutants the engine suite let through.

Each expected number is worked out by hand or re-computed independently from the bootstrap primitives with the
same seed (a CI drawn from another seed, from no seed, or rounded to another precision fails). Fixtures hold
one-item values, thirds (values with more than 4 decimals) and unknown labels, so off-by-one sizes and
rounding variants differ."""
from __future__ import annotations

import numpy as np
import pytest

from leaderboard.privacy.disclosure import cell_key, metric_key
from leaderboard.scoring.engine.coded_kinds import (coverage, group_completion, label_family, paired_differences,
                                                    paired_intervals, proportion, uncertainty_score)
from leaderboard.scoring.engine.items import Numbers, mean_metrics, scored_means
from leaderboard.scoring.engine.subsets import subset_numbers
from leaderboard.scoring.metrics.bootstrap import percentile_ci
from leaderboard.scoring.metrics.cell_bootstrap import multinomial_draws, percentile_interval
from leaderboard.scoring.metrics.subgroup import percentile_bounds, subset_replicates


def _pct(low, high) -> list[float]:
    return [round(100.0 * float(low), 4), round(100.0 * float(high), 4)]


# ----------------------------------------------------------------------------------------- label families
def test_a_family_counts_one_item_values_and_rounds_thirds_to_4_decimals():
    numbers = Numbers()
    codes = np.array([0, 0, 0, 1, 2, -1])
    correct = np.array([1, 0, 0, 1, 0, 1])
    label_family(numbers, codes, correct, ["a", "b", "c"], "macro", 0, [1, 2])
    assert numbers.metrics == {"a": 33.3333, "b": 100.0, "c": 0.0, "macro": 44.4444}
    assert numbers.counts == {"a": 3, "b": 1, "c": 1, "macro": 5}
    assert numbers.ci == {}


def test_a_family_without_a_known_label_has_no_macro_and_one_item_has_one():
    empty = Numbers()
    label_family(empty, np.array([-1, -1]), np.array([1, 0]), ["a"], "macro", 50, [0, 0])
    assert empty.metrics == {"a": None, "macro": None} and empty.ci == {}
    one = Numbers()
    label_family(one, np.array([0]), np.array([1]), ["a"], "macro", 50, [0, 0])
    assert one.metrics == {"a": 100.0, "macro": 100.0}
    assert one.ci == {"a": [100.0, 100.0], "macro": [100.0, 100.0]}  # one item: a CI even so


def test_a_family_draws_a_ci_from_a_single_resample():
    numbers = Numbers()
    label_family(numbers, np.array([0, 0, 1]), np.array([1, 0, 1]), ["a", "b"], None, 1, [0, 0])
    assert set(numbers.ci) == {"a", "b"}


def test_the_macro_ci_averages_a_one_item_value_whenever_a_resample_holds_it():
    # value a: 1 item, right; value b: 4 items, wrong. A resample holds a with p = 1 - 0.8^5 = 0.67, then the
    # macro mean is (1 + 0) / 2 = 50; without a it is 0. So the 95% interval is [0, 50].
    numbers = Numbers()
    label_family(numbers, np.array([0, 1, 1, 1, 1]), np.array([1, 0, 0, 0, 0]), ["a", "b"], "macro", 2000, [3, 4])
    assert numbers.metrics["macro"] == 50.0
    assert numbers.ci["macro"] == [0.0, 50.0]


# ----------------------------------------------------------------------------------------- proportions
def _binomial_ci(n, rate, resamples, seed):
    draws = np.random.default_rng(seed).binomial(n, rate, size=resamples) / n
    low, high = percentile_interval(draws[:, None])
    return _pct(low[0], high[0])


def test_a_proportion_is_rounded_to_4_decimals_and_its_ci_is_the_seeded_binomial_draw():
    numbers = Numbers()
    proportion(numbers, "p", np.array([1, 0, 0]), 0, [0, 0])
    assert numbers.metrics == {"p": 33.3333} and numbers.counts == {"p": 3} and numbers.ci == {}
    big = np.zeros(99_999)
    big[:33_333] = 1  # rate 1/3: the interval's ends have more than 4 decimals
    proportion(numbers, "q", big, 400, [7, 1])
    assert numbers.ci["q"] == _binomial_ci(99_999, 1 / 3, 400, [7, 1])
    assert numbers.ci["q"][0] != round(numbers.ci["q"][0], 3)  # the fixture does exercise the 4th decimal
    proportion(numbers, "r", np.array([1, 0]), 1, [0, 0])
    assert "r" in numbers.ci  # one resample is still a CI


def test_a_group_completion_rate_and_its_seeded_ci():
    # groups 0, 1, 2 (a chain of stages 0 and 1 each): 0 complete, 1 has a wrong item, 2 lacks stage 1.
    numbers = Numbers()
    group = np.array([0, 0, 1, 1, 2])
    stage = np.array([0, 1, 0, 1, 0])
    correct = np.array([1, 1, 1, 0, 1])
    group_completion(numbers, "chain", group, 3, stage, 2, correct, 0, [0, 0])
    assert numbers.metrics == {"chain": 50.0} and numbers.counts == {"chain": 2} and numbers.ci == {}
    # one eligible group: a rate, not None
    group_completion(numbers, "one", np.array([0, 0]), 1, np.array([0, 1]), 2, np.array([1, 1]), 1, [0, 0])
    assert numbers.metrics["one"] == 100.0 and numbers.ci["one"] == [100.0, 100.0]
    # none eligible: None
    group_completion(numbers, "none", np.array([0]), 1, np.array([0]), 2, np.array([1]), 10, [0, 0])
    assert numbers.metrics["none"] is None and "none" not in numbers.ci
    # 3,000 eligible groups, 1,000 complete (the first item of the others is wrong): 33.3333 and the seeded CI
    g = np.repeat(np.arange(3000), 2)
    s = np.tile([0, 1], 3000)
    c = np.ones(6000, dtype=np.int64)
    c[2000::2] = 0
    group_completion(numbers, "third", g, 3000, s, 2, c, 300, [5, 6])
    assert numbers.metrics["third"] == 33.3333 and numbers.counts["third"] == 3000
    assert numbers.ci["third"] == _binomial_ci(3000, 1 / 3, 300, [5, 6])


def test_coverage_rounds_thirds_and_is_none_without_items():
    numbers = Numbers()
    coverage(numbers, "cov", np.array([0.5, np.nan, np.nan]))
    assert numbers.metrics == {"cov": 33.3333} and numbers.counts == {"cov": 3}
    coverage(numbers, "empty", np.array([]))
    assert numbers.metrics["empty"] is None and numbers.counts["empty"] == 0


# ----------------------------------------------------------------------------------------- uncertainty score
def _uas_fixture():
    # rows: (label code, confidence, correct); threshold 0.5. Row 6 is outside the universe.
    rows = [(0, 0.9, 1),     # value 0, CC (category 1)
            (0, np.nan, 1),  # value 0, no confidence (category 0)
            (1, 0.2, 0),     # value 1, IU (category 3)
            (1, 0.9, 0),     # value 1, IC (category 4)
            (-1, 0.8, 1),    # unknown value: counted in the last cell only
            (0, 0.3, 1),     # value 0, CU (category 2)
            (1, 0.9, 1)]     # outside the universe
    codes = np.array([r[0] for r in rows])
    confidence = np.array([r[1] for r in rows], dtype=np.float64)
    correct = np.array([r[2] for r in rows])
    universe = np.array([True] * 6 + [False])
    return universe, codes, confidence, correct


def test_the_uncertainty_score_and_its_ci_from_hand_laid_cells():
    universe, codes, confidence, correct = _uas_fixture()
    weights = np.array([1.0, 3.0])
    numbers = Numbers()
    uncertainty_score(numbers, "uas", universe, codes, 2, weights, confidence, correct, 300, [9, 2])
    # known items with a confidence: CC w1 (1.0), IU w3 (0.25), IC w3 (0), CU w1 (0.5):
    # 100 * (1 + 0.75 + 0 + 0.5) / (1 + 3 + 3 + 1) = 28.125
    assert numbers.metrics["uas"] == 28.125
    assert numbers.counts["uas"] == 5  # items of the universe with a confidence, unknown value included
    # cells: value 0 x (none, CC, CU, IU, IC), value 1 x (...), then the unknown-value item
    counts = np.array([1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 1])
    draws = multinomial_draws(counts, 300, np.random.default_rng([9, 2]))[:, :-1].astype(np.float64)
    wb = np.array([0, 1, 0.5, 0.25, 0] + [0, 3, 1.5, 0.75, 0])
    w = np.array([0, 1, 1, 1, 1] + [0, 3, 3, 3, 3])
    with np.errstate(invalid="ignore", divide="ignore"):
        low, high = percentile_interval(((draws @ wb) / (draws @ w))[:, None])
    assert numbers.ci["uas"] == _pct(low[0], high[0])
    assert numbers.ci["uas"][0] < 28.125 < numbers.ci["uas"][1]


def test_the_uncertainty_score_rounds_to_4_decimals_and_draws_from_one_resample():
    universe = np.array([True, True, True])
    codes = np.array([0, 0, 0])
    confidence = np.array([0.9, 0.9, 0.2])
    correct = np.array([1, 1, 0])
    numbers = Numbers()
    uncertainty_score(numbers, "uas", universe, codes, 1, np.array([1.0]), confidence, correct, 1, [0, 0])
    assert numbers.metrics["uas"] == 75.0  # (1 + 1 + 0.25) / 3 = 0.75
    assert len(numbers.ci["uas"]) == 2
    thirds = Numbers()
    uncertainty_score(thirds, "uas", universe, codes, 1, np.array([1.0]), confidence, np.array([1, 0, 0]), 0, [0, 0])
    assert thirds.metrics["uas"] == 41.6667 and thirds.ci == {}  # (1 + 0 + 0.25) / 3


# ----------------------------------------------------------------------------------------- paired differences
def test_paired_differences_count_each_outcome_pair_and_draw_seeded_cis():
    # (baseline, outcome) pairs: 00 twice, 01 once, 10 three times, 11 once
    baseline = np.array([0, 0, 0, 1, 1, 1, 1])
    outcome = np.array([0, 0, 1, 0, 0, 0, 1])
    one = Numbers()
    paired_differences(one, [("d", baseline, outcome, np.ones(7, dtype=bool))], 1, [4, 4])
    assert one.metrics["d"] == round(100 * (4 - 2) / 7, 4) == 28.5714
    assert one.counts["d"] == 7 and len(one.ci["d"]) == 2  # one resample: a CI
    # the same pairs x 100 (00: 200, 01: 100, 10: 300, 11: 100): a fine grid, so the interval shows the draw
    numbers = Numbers()
    paired_differences(numbers, [("d", np.repeat(baseline, 100), np.repeat(outcome, 100), np.ones(700, dtype=bool))],
                       500, [4, 4])
    # the interval: cells (10, 01, 00 + 11) = (300, 100, 300) of 700, seeded draws, (10 - 01) / 700
    draws = multinomial_draws(np.array([[300, 100, 300]]), 500, np.random.default_rng([4, 4]))
    low, high = percentile_interval((draws[:, :, 0] - draws[:, :, 1]) / 700)
    assert numbers.ci["d"] == _pct(low[0], high[0])
    assert low[0] < 2 / 7 < high[0]
    assert paired_intervals(np.array([[200, 100, 300, 100]]), 500, [4, 4])[0][0] == low[0]


# ----------------------------------------------------------------------------------------- items
def test_mean_metrics_ci_uses_the_given_seed_and_the_item_sets_span_n_items():
    scores = {"acc": np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0])}
    labels = {"site": ["a", "a", "b", "b", "b", None, "a"]}
    numbers = mean_metrics(scores, labels, 7, resamples=200, seed=11)
    low, high = percentile_ci(scores["acc"][:, None], resamples=200, seed=11)
    assert numbers.ci["acc"] == [round(float(low[0]) * 100, 4), round(float(high[0]) * 100, 4)]
    other = mean_metrics(scores, labels, 7, resamples=200, seed=12)
    assert other.ci["acc"] != numbers.ci["acc"]  # the seed is the one passed
    # whole-set metrics over all n_items (here more items than labels: a list label's universe)
    wide = mean_metrics(scores, {"site": ["a", "b"]}, 7, resamples=0)
    assert wide.cells[0].masks.shape[0] == 7
    assert wide.cells[0].masks[:, wide.cells[0].keys.index(metric_key("acc"))].sum() == 7


def test_scored_means_seed_their_cis_and_name_each_cell_set_after_its_stratum():
    column = np.tile([1.0, 0.0, np.nan, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0], 10)
    labels = ["x", "y", "x", None, "y", "x", "x", "x", "y"] * 10
    numbers = scored_means({"judge": column}, {"judge": 100.0}, "site", labels, resamples=200, seed=13)
    kept = column[~np.isnan(column)]
    low, high = percentile_ci(kept, resamples=200, seed=13)
    assert numbers.ci["judge"] == [round(float(low[0]) * 100, 4), round(float(high[0]) * 100, 4)]
    x = column[np.array(labels) == "x"]  # 10 x (1, NaN, 1, 0, 0): a CI that depends on the draw
    low, high = percentile_ci(x[~np.isnan(x)], resamples=200, seed=13)
    assert numbers.strata["site"]["x"]["ci"]["judge"] == [round(float(low[0]) * 100, 4), round(float(high[0]) * 100, 4)]
    cells = numbers.cells[0]
    assert cells.sources == {cell_key("site", "x"): "site", cell_key("site", "y"): "site",
                             cell_key("site", "(missing)"): "site"}
    assert metric_key("judge") not in cells.sources
    # masks follow NaN in an integer-like column too
    assert cells.masks[:, cells.keys.index(metric_key("judge"))].tolist() == ([True, True, False] + [True] * 6) * 10


def test_scored_means_read_an_object_column_with_none_as_not_scored_and_keep_integer_labels_as_ints():
    column = np.array([1.0, None, 0.0, 1.0, 0.0], dtype=object)
    numbers = scored_means({"judge": column}, {"judge": 10.0}, "grade", [2, 1, None, 2, 2],
                           order=[1, 2, "(missing)"], resamples=0)
    assert numbers.metrics == {"judge": 5.0} and numbers.counts == {"judge": 4}
    assert numbers.cells[0].masks[:, 0].tolist() == [True, False, True, True, True]
    # integer grades stay ints next to '(missing)' and keep the declared order
    assert list(numbers.strata["grade"]) == [1, 2, "(missing)"]
    assert numbers.strata["grade"][2]["metrics"] == {"judge": round(10 * 2 / 3, 4)}
    assert numbers.strata["grade"][1] == {"n": 1, "metrics": {"judge": None}, "ci": {}, "n_by_metric": {"judge": 0}}


def test_scored_means_without_columns_have_an_empty_boolean_item_set():
    numbers = scored_means({}, {}, "site", ["a", "b", "a"])
    assert numbers.cells[0].masks.shape == (3, 0) and numbers.cells[0].masks.dtype == bool
    assert numbers.cells[0].keys == [] and numbers.strata == {}


# ----------------------------------------------------------------------------------------- subsets
def test_a_macro_ci_over_subsets_is_the_seeded_replicates_rounded_to_4_decimals():
    values = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    columns = np.array([[1, 0], [1, 0], [1, 0], [0, 1], [0, 1], [0, 1], [0, 1]], dtype=bool)
    subsets = subset_numbers(values, columns, [("task", "a"), ("task", "b")], 300, 17)
    value, ci = subsets.macro([0, 1])
    assert value == round((1 / 3 + 3 / 4) / 2 * 100, 4) == 54.1667
    replicates = subset_replicates(values, columns, 300, 17)
    low, high = percentile_bounds(np.nanmean(replicates, axis=1)[:, None])
    assert ci == [round(float(low[0]) * 100, 4), round(float(high[0]) * 100, 4)]
    assert ci[0] != round(ci[0], 2) or ci[1] != round(ci[1], 2)  # the fixture reaches past 2 decimals
    one = subset_numbers(values, columns, [("task", "a"), ("task", "b")], 1, 17)
    assert one.replicates is not None and one.low is not None  # one resample: replicates all the same


def test_subset_cells_without_any_column_are_an_empty_boolean_set_over_the_items():
    subsets = subset_numbers(np.array([1.0, 0.0]), np.ones((2, 1), dtype=bool), [("all", "all")], 0, 1)
    cells = subsets.cells(lambda stratum, value: None)
    assert cells.masks.shape == (2, 0) and cells.keys == [] and cells.masks.dtype == bool


# ----------------------------------------------------------------------------------------- declared kinds
def test_declared_kinds_seed_each_stream_read_their_universe_and_skip_empty_universes():
    from leaderboard.scoring.benchmark import MetricSpec
    from leaderboard.scoring.engine import CodedItems, Label, coded_numbers
    from leaderboard.scoring.engine.kinds import CalibrationError, GroupCompletion, PairedDifference, Proportion, Stratum
    from leaderboard.scoring.metrics.calibration import expected_calibration_error

    n = 3000  # rows in pairs: group i = rows 2i, 2i+1 (stages 0, 1); site a = even groups, b = odd groups
    rows = np.arange(n)
    correct = np.ones(n, dtype=np.int64)
    correct[rows % 6 == 0] = 0  # every third group has a wrong first item
    confidence = np.where(rows % 4 == 0, 0.9, 0.3)
    site = Label(((rows // 2) % 2).astype(np.int64), ["a", "b"], "site_col")
    items = CodedItems(
        columns={"correct": correct, "confidence": confidence, "baseline_correct": np.ones(n, dtype=np.int64),
                 "answered": np.ones(n, dtype=bool)},
        labels={"site": site, "group": Label(rows // 2, [f"g{i}" for i in range(n // 2)]),
                "stage": Label(rows % 2, ["s0", "s1"])},
        universes={"nothing": np.zeros(n, dtype=bool), "all": np.ones(n, dtype=bool), "first": rows < 100})
    specs = [MetricSpec("p_a", "a", aggregation=Proportion("all", (("site", "a"),), stream=1)),
             MetricSpec("chains", "chains", aggregation=GroupCompletion("all", "group", "stage", 2)),
             MetricSpec("ece_first", "ece", aggregation=CalibrationError("first")),
             MetricSpec("gain", "gain", aggregation=PairedDifference("all", (), 3))]
    strata = [Stratum("none", "nothing", "site"), Stratum("sites", "all", "site")]
    numbers = coded_numbers(specs, items, strata, resamples=300, seed=21)
    # site a: 1,500 rows (0 or 1 mod 4); wrong rows are the multiples of 6, in site a those are 0 mod 12: 250
    assert numbers.metrics["p_a"] == round(100 * (1500 - 250) / 1500, 4) == 83.3333
    assert numbers.ci["p_a"] == _binomial_ci(1500, 1250 / 1500, 300, [21, 1])
    assert numbers.metrics["chains"] == round(100 * 1000 / 1500, 4)
    assert numbers.ci["chains"] == _binomial_ci(1500, 1000 / 1500, 300, [21, 2])
    first = rows < 100
    assert numbers.metrics["ece_first"] == round(expected_calibration_error(confidence[first], correct[first]), 6)
    assert numbers.metrics["ece_first"] != round(expected_calibration_error(confidence, correct), 6)
    assert numbers.counts["ece_first"] == 100 and numbers.counts["gain"] == n
    # gain: baseline always right, 500 items wrong: cells (10, 01, 00 + 11) = (500, 0, 2500), stream 3
    assert numbers.metrics["gain"] == round(100 * 500 / 3000, 4)
    draws = multinomial_draws(np.array([[500, 0, 2500]]), 300, np.random.default_rng([21, 3]))
    low, high = percentile_interval((draws[:, :, 0] - draws[:, :, 1]) / 3000)
    assert numbers.ci["gain"] == _pct(low[0], high[0])
    assert list(numbers.strata) == ["sites"]  # the empty universe's stratum left out, the next one kept
    assert len(numbers.cells) == 1  # 'all' (after the empty universe, which has none; 'first' declares no set)
    everything = numbers.cells[0]
    assert everything.sources[metric_key("p_a")] == "site_col"  # named after the first label of `where`
    assert everything.masks[:, everything.keys.index(metric_key("p_a"))].sum() == 1500
