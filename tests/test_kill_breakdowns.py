"""Mutation-gate tests of leaderboard.publishing.breakdowns (issue 26 item 4, issue 29 item 1): every empty cell's
reason, row order, labels, the overall column and the radar notes, exactly."""
from __future__ import annotations

from leaderboard.publishing.breakdowns import HIDDEN, NOT_REPORTED, PENDING, Cell, _cell


def test_each_kind_of_cell_and_its_gap():
    assert _cell(None, "acc") == Cell(None, gap=NOT_REPORTED)
    assert _cell({"n": 3, "suppressed": True, "reason": "complementary x"}, "acc") == Cell(None, 3,
                                                                                         gap="hidden: complementary x")
    assert _cell({"n": 2, "suppressed": True}, "acc") == Cell(None, 2, gap=HIDDEN)
    assert _cell({"n": 9, "metrics": {"acc": None}}, "acc") == Cell(None, 9, gap=PENDING)
    assert _cell({"n": 9, "metrics": {"f1": 1.0}}, "acc") == Cell(None, 9, gap=NOT_REPORTED)
    assert _cell({"n": 9, "metrics": None}, "acc") == Cell(None, 9, gap=NOT_REPORTED)
    assert _cell({"n": 9, "metrics": {"acc": 40}, "ci": {"acc": [30.0, 50.0]}, "flags": {"acc": "copy?"}},
                 "acc") == Cell(40.0, 9, (30.0, 50.0), flag="copy?")
    assert _cell({"n": 9, "metrics": {"acc": 40}}, "acc") == Cell(40.0, 9, None, flag=None)


def test_the_download_frame_has_one_line_per_row_and_value_with_its_reason():
    import math

    from leaderboard.publishing.breakdowns import Breakdown, Row

    bd = Breakdown("medcmr", "task", "mcq_all", ["SOD", "PA"], [
        Row("M · submitted", "M", "submission", {"SOD": Cell(60.0, 12, (50.0, 70.0), flag="copy?"),
                                                 "PA": Cell(None, 3, gap=HIDDEN)})])
    frame = bd.frame()
    assert frame.columns.tolist() == ["model", "source", "stratum", "value", "metric", "mcq_all", "n", "ci_low",
                                      "ci_high", "empty_because", "flag"]
    rows = frame.to_dict("records")
    assert rows[0] == {"model": "M", "source": "submission", "stratum": "task", "value": "SOD", "metric": "mcq_all",
                       "mcq_all": 60.0, "n": 12, "ci_low": 50.0, "ci_high": 70.0, "empty_because": "", "flag": "copy?"}
    second = {k: v for k, v in rows[1].items() if k not in ("mcq_all", "ci_low", "ci_high")}
    assert second == {"model": "M", "source": "submission", "stratum": "task", "value": "PA", "metric": "mcq_all",
                      "n": 3, "empty_because": HIDDEN, "flag": ""}
    assert all(rows[1][k] is None or math.isnan(rows[1][k]) for k in ("mcq_all", "ci_low", "ci_high"))
    assert bd.matrix() == [[60.0, None]]


def _entry(name, source, strata, primary=50.0, created="2025-01-01T00:00:00+00:00"):
    from leaderboard.scoring.result import ModelInfo, Result
    from leaderboard.publishing.tables import Entry

    return Entry(Result(benchmark="medcmr", model=ModelInfo(name=name), metrics={"mcq_all": primary}, source=source,
                        strata=strata, created_at=created), name)


def test_strata_and_metrics_are_offered_by_how_many_rows_fill_them():
    from leaderboard.scoring import registry
    from leaderboard.publishing.breakdowns import metrics_available, strata_available

    bench = registry.scorer("medcmr")
    full = {"n": 9, "metrics": {"mcq_all": 50.0, "extra": 1.0}}
    entries = [
        _entry("A", "submission", {"modality": {"CT": full}, "zeta": {"x": full}, "alpha": {"x": full},
                                   "task": {"SOD": {"n": 9, "metrics": {"mcq_all": None}}}}),
        _entry("B", "submission", {"modality": {"CT": full}, "zeta": {"x": full}, "task": {"SOD": full}}),
        _entry("C", "paper", {"organ_system": {"eye": full}, "zeta": {"x": full}}),
    ]
    # labelled strata first in order of rows with a value (modality 2, task 1, organ_system 1: ties keep the
    # benchmark's order), then the others the same way (zeta 3, alpha 1)
    assert strata_available(bench, entries) == ["modality", "task", "organ_system", "zeta", "alpha"]
    # the stratum metric first on a tie, then declaration order, then by name
    cells = {"SOD": {"n": 9, "metrics": {"zz": 1.0, "extra": 2.0, "mcq_all": 3.0, "mcq_macro": 4.0, "none": None}}}
    assert metrics_available(bench, [_entry("D", "submission", {"task": cells})], "task") == [
        "mcq_all", "mcq_macro", "extra", "zz", "none"]
    # counts add up over cells and rows; a stratum metric without any value is offered last
    two = [_entry("D", "submission", {"task": {"SOD": {"metrics": {"extra": 1.0}}, "PA": {"metrics": {"extra": 2.0}}}}),
           _entry("F", "submission", {"task": {"SOD": {"metrics": {"extra": 1.0, "mcq_all": 5.0}}}})]
    assert metrics_available(bench, two, "task") == ["extra", "mcq_all"]
    assert metrics_available(bench, two[:1], "task") == ["extra", "mcq_all"]
    # cells that are all hidden still make a view: the stratum metric is offered with no value
    hidden = {"SOD": {"n": 2, "metrics": {}, "suppressed": True}}
    assert metrics_available(bench, [_entry("E", "submission", {"task": hidden})], "task") == ["mcq_all"]
    assert metrics_available(bench, [_entry("E", "submission", {})], "task") == []


def test_rows_without_a_breakdown_say_why_in_their_own_words():
    from leaderboard.scoring import registry
    from leaderboard.publishing.breakdowns import breakdown

    bench = registry.scorer("medcmr")
    entries = [_entry("Sub", "submission", {}), _entry("Panel", "human", {}), _entry("Paper", "paper", {}),
               _entry("Has", "submission", {"task": {"SOD": {"n": 9, "metrics": {"mcq_all": 40.0}}}})]
    bd = breakdown(bench, entries, "task")
    assert bd.without == [("Sub · submitted", "scored without task labels (the dataset it ran on has none)"),
                          ("Panel · human", "the paper reports no task breakdown for this group"),
                          ("Paper · paper", "the paper publishes no task breakdown for this model")]
    # a stratum of one value gets the row's overall value beside it
    assert bd.values == ["(all cases)", "SOD"] and bd.rows[0].cells["(all cases)"] == Cell(50.0, None, None)


def test_an_empty_breakdown_still_downloads_its_header():
    from leaderboard.publishing.breakdowns import Breakdown

    assert Breakdown("b", "s", "m", [], []).frame().columns.tolist() == [
        "model", "source", "stratum", "value", "metric", "m", "n", "ci_low", "ci_high", "empty_because", "flag"]


def test_a_breakdown_row_by_row():
    import dataclasses

    from leaderboard.scoring import registry
    from leaderboard.publishing.breakdowns import breakdown

    bench = registry.scorer("medcmr")
    pending = _entry("Pend", "submission", {"task": {"SOD": {"n": 9, "metrics": {"mcq_all": None}}}})
    other = _entry("Other", "paper", {"task": {"SOD": {"n": 9, "metrics": {"acc": 1.0}}}})
    odd = _entry("Odd", "elsewhere", {"zeta": {"v2": {"n": 9, "metrics": {"mcq_all": 30.0}},
                                               "v1": {"n": 9, "metrics": {"mcq_all": 20.0}}}}, primary=None)
    odd.result.n_items, odd.result.ci = 12, {}
    bd = breakdown(bench, [pending, other], "task")
    label = bench.metric_spec("mcq_all").label
    assert bd.benchmark == "medcmr" and bd.stratum == "task" and bd.rows == []
    assert bd.without == [("Pend · submitted", "its cells have no values yet (metric pending)"),
                          ("Other · paper", f"no {label} per task")]
    zeta = breakdown(bench, [odd], "zeta")  # a stratum the benchmark does not label: values in record order
    assert zeta.values == ["v2", "v1"] and zeta.rows[0].label == "Odd · elsewhere"
    assert zeta.rows[0].source == "elsewhere" and zeta.rows[0].model == "Odd"
    one = _entry("One", "submission", {"task": {"SOD": {"n": 9, "metrics": {"mcq_all": 40.0}}}}, primary=45.0)
    one.result.ci, one.result.n_items = {"mcq_all": [40.0, 50.0]}, 21
    assert breakdown(bench, [one], "task").rows[0].cells["(all cases)"] == Cell(45.0, 21, (40.0, 50.0))
    none = _entry("None", "submission", {"task": {"SOD": {"n": 9, "metrics": {"mcq_all": 40.0}}}}, primary=None)
    none.result.n_items = 21
    both = breakdown(bench, [none, one], "task")  # a row with a value first; the other's overall is a gap
    assert [r.label for r in both.rows] == ["One · submitted", "None · submitted"]
    assert both.rows[1].cells["(all cases)"] == Cell(None, 21, gap="not reported by this source")
    many = [_entry(f"M{i}", "submission", {"task": {"SOD": {"n": 9, "metrics": {"mcq_all": 1.0}}}}, primary=float(i))
            for i in range(41)]
    default = breakdown(bench, many, "task")
    assert default.total_rows == 41 and len(default.rows) == 40 and default.rows[0].label == "M40 · submitted"

    class LowerIsBetter(type(bench)):
        metrics = tuple(dataclasses.replace(m, higher_is_better=False) if m.name == "mcq_all" else m
                        for m in bench.metrics)

    assert breakdown(LowerIsBetter(), many, "task", limit=2).rows[0].label == "M0 · submitted"
