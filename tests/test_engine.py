"""The aggregation engine (leaderboard.scoring.engine): numbers and the item sets behind them from one source,
and one resampling default for every front door."""
from __future__ import annotations

import json

import numpy as np

from conftest import ROOT
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.cli import main as cli_main
from leaderboard.privacy.disclosure import cell_key, metric_key
from leaderboard.scoring.engine import CI_RESAMPLES, mean_metrics
from leaderboard.scoring.score_file import score_file
from leaderboard.scoring.services import context_factory
from predict_helpers import build_sample


def test_mean_metrics_values_cells_and_item_sets_agree():
    correct = np.array([1, 0, 1, 1, 0, 0, 1], dtype=float)
    labels = {"topic": ["a", "a", "b", "b", "b", None, ["a", "b"]]}
    numbers = mean_metrics({"accuracy": correct}, labels, 7, resamples=0, whole_set=["judged"])
    assert numbers.metrics == {"accuracy": round(400 / 7, 4)} and numbers.ci == {}
    assert numbers.strata["topic"] == {"a": {"n": 3, "metrics": {"accuracy": round(200 / 3, 4)}},
                                       "b": {"n": 4, "metrics": {"accuracy": 75.0}},
                                       "(missing)": {"n": 1, "metrics": {"accuracy": 0.0}}}
    [cells] = numbers.cells
    column = {key: cells.masks[:, j].nonzero()[0].tolist() for j, key in enumerate(cells.keys)}
    assert column[metric_key("accuracy")] == list(range(7)) and column[metric_key("judged")] == list(range(7))
    assert column[cell_key("topic", "a")] == [0, 1, 6] and column[cell_key("topic", "b")] == [2, 3, 4, 6]
    assert column[cell_key("topic", "(missing)")] == [5]
    assert cells.sources[cell_key("topic", "a")] == "topic"


def test_the_space_and_the_cli_give_the_same_cis_for_the_same_file(tmp_path):
    assert context_factory()("medcmr").resamples == ScoringContext().resamples == CI_RESAMPLES
    data = build_sample("medcmr", tmp_path / "hub")
    pred = ROOT / "submissions" / "medcmr" / "example_predictions.jsonl"
    assert cli_main(["score", "medcmr", str(pred), "--data", str(data), "--json", str(tmp_path / "r.json"),
                     "--quiet", "--public"]) == 0  # what the Space publishes
    cli = json.loads((tmp_path / "r.json").read_text())
    _, space = score_file("medcmr", pred, data, context_factory()("medcmr"))
    assert cli["ci"] and cli["ci"] == space.to_public_dict()["ci"]
    assert cli_main(["score", "medcmr", str(pred), "--data", str(data), "--json", str(tmp_path / "exact.json"),
                     "--quiet"]) == 0  # a local run with the answers: exact, every interval of the same draw
    exact = json.loads((tmp_path / "exact.json").read_text())
    assert exact["ci"] == space.ci and set(cli["ci"]) < set(exact["ci"])
    assert cli["protocol"]["bootstrap"]["resamples"] == CI_RESAMPLES


def test_one_range_per_metric_serves_noise_and_chart_axes():
    from leaderboard.scoring import registry

    mcs = registry.scorer("xpcr").metric_spec("MCS_CFP_G1")
    assert mcs.value_range == mcs.bounds == mcs.scale == (-100.0, 100.0)  # the two had drifted: (0, 100) axes
    ece = registry.scorer("xpcr").metric_spec("ECE")
    assert ece.bounds == ece.scale == (0.0, 1.0)
    per_case = registry.scorer("medrealmm").metric_spec("positives_met_per_case")
    assert per_case.bounds == (0.0, None) and per_case.scale is None  # open end: axes from the data
    for name in registry.names():
        bench = registry.scorer(name)
        for spec in (*bench.metrics, *bench.cell_metrics):
            low, high = spec.value_range
            assert spec.bounds == spec.value_range and (spec.scale is None or spec.scale == spec.value_range)
            assert low is None or high is None or low < high, (name, spec.name)


def test_subsets_share_resamples_and_key_each_subset_once_as_cell_and_column():
    from leaderboard.scoring.engine import subset_numbers

    correct = np.array([1, 1, 0, 1, 0, 0], dtype=float)
    t1, t2 = np.array([1, 1, 1, 0, 0, 0], bool), np.array([0, 0, 0, 1, 1, 0], bool)
    columns = np.column_stack([np.ones(6, bool), t1, t2, np.zeros(6, bool)])
    names = [("all", "all"), ("task", "T1"), ("task", "T2"), ("task", "T3")]
    subsets = subset_numbers(correct, columns, names, 0, 0)
    assert [subsets.value(j) for j in range(4)] == [50.0, round(200 / 3, 4), 50.0, None]
    assert subsets.macro([1, 2, 3]) == (round((2 / 3 + 0.5) / 2 * 100, 4), None)  # the empty T3 left out
    assert subsets.macro([3]) == (None, None)
    assert subsets.strata("acc") == {"task": {"T1": {"n": 3, "metrics": {"acc": round(200 / 3, 4)}},
                                              "T2": {"n": 2, "metrics": {"acc": 50.0}}}}
    cells = subsets.cells(lambda s, v: "all" if s == "all" else (f"t_{v}" if v != "T2" else None))
    assert cells.keys == [metric_key("all"), metric_key("t_T1"), cell_key("task", "T1"), cell_key("task", "T2"),
                          metric_key("t_T3"), cell_key("task", "T3")]
    assert cells.masks[:, 1].tolist() == cells.masks[:, 2].tolist() == t1.tolist()
    # a column and a cell are built from their stratum's labels (a held-out label column hides both)
    assert cells.sources == {metric_key("t_T1"): "task", cell_key("task", "T1"): "task", cell_key("task", "T2"): "task",
                             metric_key("t_T3"): "task", cell_key("task", "T3"): "task"}
    with_ci = subset_numbers(correct, columns, names, 400, 7)
    low, high = with_ci.interval(0)
    assert low <= 50.0 <= high and with_ci.interval(3) is None
    value, interval = with_ci.macro([1, 2])
    assert interval[0] <= value <= interval[1]


def test_scored_means_leave_unscored_items_out_of_values_and_item_sets():
    from leaderboard.scoring.engine import scored_means

    score = np.array([1.0, np.nan, 0.5, 0.0, 1.0])  # case 1 was not scored (no verdict)
    numbers = scored_means({"s": score}, {"s": 2.0}, "specialty", ["B", "A", "A", None, "B"], order=["B", "Z"],
                           resamples=0)
    assert numbers.metrics == {"s": round(2.5 / 4 * 2.0, 4)} and numbers.counts == {"s": 4}
    assert list(numbers.strata["specialty"]) == ["B", "(missing)", "A"]  # listed order first, then sorted
    assert numbers.strata["specialty"]["A"] == {"n": 2, "metrics": {"s": 1.0}, "ci": {}, "n_by_metric": {"s": 1}}
    [cells] = numbers.cells
    assert cells.keys[0] == metric_key("s") and cells.masks[:, 0].tolist() == [True, False, True, True, True]
    assert cells.masks[:, cells.keys.index(cell_key("specialty", "A"))].tolist() == [False, True, True, False, False]


def test_macro_replicates_skip_empty_subsets_and_keep_an_all_empty_draw_empty():
    from leaderboard.scoring.engine.subsets import _row_nanmean

    out = _row_nanmean(np.array([[np.nan, np.nan], [1.0, np.nan], [0.25, 0.75]]))
    assert np.isnan(out[0]) and out[1:].tolist() == [1.0, 0.5]


# ------------------------------------------------------------------ declared kinds (engine.coded_numbers)
def _declared_fixture():
    """15 key rows: universe u = rows 0-7, 'other' = rows 8-9, 'abl' = rows 10-14 (paired outcomes).
    Label g (x, y, z; -1 unknown), chains c0-c2 with stages s1/s2, a free-text label f."""
    from leaderboard.scoring.benchmark import MetricSpec
    from leaderboard.scoring.engine import CodedItems, Label
    from leaderboard.scoring.engine.kinds import (CalibrationError, Coverage, GroupCompletion, LabelAccuracy, MacroMean, PairedDifference, Proportion, Stratum, UncertaintyScore)

    nan = np.nan
    rows = np.arange(15)
    items = CodedItems(
        columns={"correct": np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0], dtype=bool),
                 "confidence": np.array([0.9, 0.2, 0.8, nan, 0.6, 0.3, 0.05, 1.0, nan, nan, nan, nan, nan, nan, nan]),
                 "baseline_correct": np.array([0] * 10 + [1, 1, 0, 1, 1], dtype=bool),
                 "answered": np.array([1] * 10 + [1, 1, 0, 0, 1], dtype=bool)},
        labels={"g": Label(np.array([0, 0, 0, 1, 1, -1, 0, 1, 0, 2, 0, 0, 0, 1, 2]), ["x", "y", "z"], "gcol"),
                "chain": Label(np.array([0, 0, 0, 1, 1, 1, 2, 2] + [-1] * 7), ["c0", "c1", "c2"], "parent"),
                "st": Label(np.array([0, 1, 1, 0, 1, 1, 0, 0] + [-1] * 7), ["s1", "s2"], "stage"),
                "f": Label(np.array([0, 1, 0, 1, -1, 0, 1, 1] + [-1] * 7), ["zeta", "alpha"], "fcol")},
        universes={"u": rows < 8, "other": (rows >= 8) & (rows < 10), "abl": rows >= 10})
    specs = [MetricSpec("acc_x", "x", aggregation=LabelAccuracy("u", "g", "x", 1)),
             MetricSpec("acc_y", "y", aggregation=LabelAccuracy("u", "g", "y", 1)),
             MetricSpec("macro", "mean", aggregation=MacroMean("u", "g", 1)),
             MetricSpec("all_u", "all", aggregation=Proportion("u", stream=2)),
             MetricSpec("other_x", "other x", aggregation=Proportion("other", (("g", "x"),), stream=3)),
             MetricSpec("done", "chains", aggregation=GroupCompletion("u", "chain", "st", 4)),
             MetricSpec("covered", "coverage", aggregation=Coverage("u")),
             MetricSpec("ece", "ece", aggregation=CalibrationError("u")),
             MetricSpec("uas", "uas", aggregation=UncertaintyScore("u", "g", (1.0, 2.0, 4.0), 5)),
             MetricSpec("gain_x", "gain x", aggregation=PairedDifference("abl", (("g", "x"),), 6)),
             MetricSpec("gain_y", "gain y", aggregation=PairedDifference("abl", (("g", "y"),), 6)),
             MetricSpec("gain_z", "gain z", aggregation=PairedDifference("abl", (("g", "z"),), 6)),
             MetricSpec("gain_none", "no pair", aggregation=PairedDifference("other", (("g", "y"),), 6)),
             MetricSpec("by_hand", "not declared")]
    strata = [Stratum("free", "u", "f", by_value=True), Stratum("g_cells", "u", "g")]
    return specs, items, strata


def test_declared_kinds_compute_every_number_from_coded_items():
    from leaderboard.scoring.engine import coded_numbers

    specs, items, strata = _declared_fixture()
    numbers = coded_numbers(specs, items, strata, resamples=0)
    # x: rows 0,1,2,6 -> 2/4; y: rows 3,4,7 -> 3/3; z: no row of u; row 5 (unknown g) in no accuracy.
    # macro: (50 + 100) / 2 (an item-weighted mean would be 5/7 = 71.43; z as 0 would be 50)
    # all_u: 6 of rows 0-7; other_x: row 8 only (row 9 is z)
    # done: c0 has s1+s2 but row 2 wrong, c1 has s1+s2 all right, c2 lacks s2 (not a chain): 1 / 2
    # covered: 7 of 8 rows of u have a confidence
    # ece: bins 9 {0.9 R, 1.0 R} |2 - 1.9|, 2 {0.2 R} .8, 8 {0.8 W} .8, 6 {0.6 R} .4, 3 {0.3 R} .7,
    #      0 {0.05 W} .05: 2.85 / 7
    # uas: x rows 0 CC 1, 1 CU .5, 2 IC 0, 6 IU .25 (weight 1 each); y rows 4 CC, 7 CC (weight 2 each);
    #      row 5 (unknown g) left out: 100 * (1.75 + 4) / (4 + 4); n counts every row with a confidence
    # gain_x: rows 10-12 baseline 2/3, outcome 1/3 (row 12 unanswered: wrong, counted); gain_y: its one row 13
    #      unanswered -> None (n 1); gain_z: row 14 right with the baseline, wrong without; gain_none: no row
    assert numbers.metrics == {"acc_x": 50.0, "acc_y": 100.0, "macro": 75.0, "all_u": 75.0, "other_x": 100.0,
                               "done": 50.0, "covered": 87.5, "ece": 0.407143, "uas": 71.875,
                               "gain_x": 33.3333, "gain_y": None, "gain_z": 100.0, "gain_none": None}
    assert numbers.counts == {"acc_x": 4, "acc_y": 3, "macro": 7, "all_u": 8, "other_x": 1, "done": 2, "covered": 8,
                              "ece": 7, "uas": 7, "gain_x": 3, "gain_y": 1, "gain_z": 1, "gain_none": 0}
    assert numbers.ci == {} and numbers.derived == {"macro": ["acc_x", "acc_y"]}
    # strata: by value (alpha before zeta, '(missing)' last) and in label order
    assert numbers.strata == {
        "free": {"alpha": {"n": 4, "metrics": {"accuracy": 75.0}}, "zeta": {"n": 3, "metrics": {"accuracy": 66.6667}},
                 "(missing)": {"n": 1, "metrics": {"accuracy": 100.0}}},
        "g_cells": {"x": {"n": 4, "metrics": {"accuracy": 50.0}}, "y": {"n": 3, "metrics": {"accuracy": 100.0}},
                    "(missing)": {"n": 1, "metrics": {"accuracy": 100.0}}}}
    assert list(numbers.strata["free"]) == ["alpha", "zeta", "(missing)"]  # (dicts compare without order)
    assert list(numbers.strata["g_cells"]) == ["x", "y", "(missing)"]


def test_declared_kinds_give_the_item_set_of_each_number_per_universe():
    from leaderboard.scoring.engine import coded_numbers

    specs, items, strata = _declared_fixture()
    u, other = coded_numbers(specs, items, strata, resamples=0).cells  # 'abl' holds no item set: no Cells
    sets = {key: u.masks[:, j].nonzero()[0].tolist() for j, key in enumerate(u.keys)}
    # metrics in declaration order, then coded strata, then strata by value (positions within u)
    assert u.keys == [metric_key("acc_x"), metric_key("acc_y"), metric_key("all_u"),
                      cell_key("g_cells", "x"), cell_key("g_cells", "y"), cell_key("g_cells", "(missing)"),
                      cell_key("free", "zeta"), cell_key("free", "alpha"), cell_key("free", "(missing)")]
    assert sets[metric_key("acc_x")] == sets[cell_key("g_cells", "x")] == [0, 1, 2, 6]
    assert sets[metric_key("acc_y")] == [3, 4, 7] and sets[metric_key("all_u")] == list(range(8))
    assert sets[cell_key("free", "zeta")] == [0, 2, 5] and sets[cell_key("free", "(missing)")] == [4]
    assert u.sources == {metric_key("acc_x"): "gcol", metric_key("acc_y"): "gcol", cell_key("g_cells", "x"): "gcol",
                         cell_key("g_cells", "y"): "gcol", cell_key("g_cells", "(missing)"): "gcol",
                         cell_key("free", "zeta"): "fcol", cell_key("free", "alpha"): "fcol",
                         cell_key("free", "(missing)"): "fcol"}
    assert other.keys == [metric_key("other_x")] and other.masks[:, 0].tolist() == [True, False]


def test_declared_kinds_draw_one_bootstrap_per_stream():
    from leaderboard.scoring.engine import coded_numbers
    from leaderboard.scoring.metrics.cell_bootstrap import cell_draws, group_accuracy, percentile_interval

    specs, items, strata = _declared_fixture()
    numbers = coded_numbers(specs, items, strata, resamples=400, seed=3)
    # every resample of y's items is all right; 'other' x is one right item; z's one pair is always +100
    assert numbers.ci["acc_y"] == [100.0, 100.0] and numbers.ci["other_x"] == [100.0, 100.0]
    assert numbers.ci["gain_z"] == [100.0, 100.0]
    assert set(numbers.ci) == {"acc_x", "acc_y", "macro", "all_u", "other_x", "done", "uas", "gain_x", "gain_z"}
    low, high = numbers.ci["macro"]
    assert 50.0 <= low <= 75.0 <= high <= 100.0
    # the family is one draw: without its macro mean the members' intervals are the same
    alone = coded_numbers([s for s in specs if s.name != "macro"], items, strata, resamples=400, seed=3)
    assert alone.ci["acc_x"] == numbers.ci["acc_x"]
    # the macro mean's interval is over the family's own draw on [seed, stream]: cells x wrong/right 2/2,
    # y 0/3, z 0/0, and row 5 (unknown g) kept in the total
    draws = cell_draws(np.array([2, 2, 0, 3, 0, 0, 1]), 400, [3, 1])
    per_value = group_accuracy(draws[:, :-1], 3)[:, :2]  # z holds no item: out of the mean
    with np.errstate(invalid="ignore"):
        low, high = percentile_interval(np.nanmean(per_value, axis=1)[:, None])
    assert numbers.ci["macro"] == [round(100 * float(low[0]), 4), round(100 * float(high[0]), 4)]


def test_a_declared_stream_is_the_draw_its_numbers_share():
    """Fine-grained data (250 items) so intervals tell draws apart: a family's CIs are cell_bootstrap on
    [seed, stream]; two paired differences on one stream come from one multinomial draw."""
    from dataclasses import replace

    from leaderboard.scoring.benchmark import MetricSpec
    from leaderboard.scoring.engine import CodedItems, Label, coded_numbers
    from leaderboard.scoring.engine.coded_kinds import paired_intervals
    from leaderboard.scoring.engine.kinds import LabelAccuracy, PairedDifference
    from leaderboard.scoring.metrics.cell_bootstrap import cell_bootstrap, group_accuracy

    g = np.repeat([0, 1, -1], [100, 100, 50])  # 50 items of unknown g: in no accuracy, but in N
    correct = np.concatenate([np.arange(100) < 60, np.arange(100) < 30, np.ones(50, dtype=bool)])  # x 60 %, y 30 %
    baseline = np.concatenate([np.arange(100) < 80, np.arange(100) < 50, np.ones(50, dtype=bool)])
    items = CodedItems({"correct": correct, "baseline_correct": baseline, "answered": np.ones(250, dtype=bool)},
                       {"g": Label(g, ["x", "y"])}, {"u": np.ones(250, dtype=bool)})
    specs = [MetricSpec("acc_x", "x", aggregation=LabelAccuracy("u", "g", "x", 1)),
             MetricSpec("acc_y", "y", aggregation=LabelAccuracy("u", "g", "y", 1)),
             MetricSpec("gain_x", "gx", aggregation=PairedDifference("u", (("g", "x"),), 9)),
             MetricSpec("gain_y", "gy", aggregation=PairedDifference("u", (("g", "y"),), 9))]
    numbers = coded_numbers(specs, items, resamples=2000, seed=4)
    low, high = cell_bootstrap(np.array([40, 60, 70, 30, 50]), lambda d: group_accuracy(d[:, :-1], 2), 2000, [4, 1])
    assert numbers.ci["acc_x"] == [round(100 * float(low[0]), 4), round(100 * float(high[0]), 4)]
    assert numbers.ci["acc_y"] == [round(100 * float(low[1]), 4), round(100 * float(high[1]), 4)]
    # (baseline, outcome) cells 00, 01, 10, 11: x 20/0/20/60, y 50/0/20/30 -> +20 points each
    assert numbers.metrics["gain_x"] == numbers.metrics["gain_y"] == 20.0
    low, high = paired_intervals(np.array([[20, 0, 20, 60], [50, 0, 20, 30]]), 2000, [4, 9])
    assert numbers.ci["gain_x"] == [round(100 * float(low[0]), 4), round(100 * float(high[0]), 4)]
    assert numbers.ci["gain_y"] == [round(100 * float(low[1]), 4), round(100 * float(high[1]), 4)]
    other = [replace(s, aggregation=replace(s.aggregation, stream=2)) if s.name.startswith("acc") else s for s in specs]
    assert coded_numbers(other, items, resamples=2000, seed=4).ci["acc_x"] != numbers.ci["acc_x"]
