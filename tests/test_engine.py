"""The aggregation engine (leaderboard.engine): numbers and the item sets behind them from one source,
and one resampling default for every front door."""
from __future__ import annotations

import json

import numpy as np

from conftest import ROOT
from leaderboard.benchmark import ScoringContext
from leaderboard.cli import main as cli_main
from leaderboard.disclosure import cell_key, metric_key
from leaderboard.engine import CI_RESAMPLES, coded_cells, mean_metrics
from leaderboard.scoring import score_file
from leaderboard.scoring_services import context_factory
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


def test_coded_cells_skip_absent_values_and_keys_without_a_number():
    codes = np.array([0, 0, 2, -1, 2])
    cells = coded_cells([(codes, ["x", "y", "z"], lambda v: metric_key(v) if v != "z" else None, "col", False),
                         (codes, ["x", "y", "z"], lambda v: cell_key("s", v), "col", True)],
                        fixed=[(np.ones(5, dtype=bool), metric_key("all"))])
    assert cells.keys == [metric_key("all"), metric_key("x"), cell_key("s", "x"), cell_key("s", "z"),
                          cell_key("s", "(missing)")]
    assert cells.masks[:, 3].tolist() == [False, False, True, False, True]
    assert cells.masks[:, 4].tolist() == [False, False, False, True, False]


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
    from leaderboard import registry

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
    from leaderboard.engine import subset_numbers

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
    from leaderboard.engine import scored_means

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
    from leaderboard.engine.subsets import _row_nanmean

    out = _row_nanmean(np.array([[np.nan, np.nan], [1.0, np.nan], [0.25, 0.75]]))
    assert np.isnan(out[0]) and out[1:].tolist() == [1.0, 0.5]
