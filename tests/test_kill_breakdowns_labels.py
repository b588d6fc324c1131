"""Mutation-gate tests of leaderboard.publishing.breakdowns, second part (issue 29 item 1): a submission's model is
named as submitted (the judge-study resolution is for paper rows only), the stratum metric leads the metric list
even when no cell holds a value, and the radar's notes, word for word."""
from __future__ import annotations

from leaderboard.publishing.breakdowns import Breakdown, Cell, Row, breakdown, metrics_available, radar_data
from leaderboard.publishing.tables import Entry
from leaderboard.scoring import registry
from leaderboard.scoring.result import ModelInfo, Result

MEDCMR = registry.scorer("medcmr")
JUDGE_STUDY = "claude-sonnet-4 (judged by gpt-4o)"  # a paper row of this name is the judged model, Claude-Sonnet-4


def entry(name: str, source: str, cells: dict, k: int = 0) -> Entry:
    return Entry(Result(benchmark="medcmr", model=ModelInfo(name=name), source=source, metrics={"mcq_all": 50.0},
                        n_items=40, strata={"task": cells}), f"e{k}")


def test_a_submission_keeps_its_name_where_a_paper_row_of_that_name_is_the_judged_model():
    cells = {"SOD": {"n": 12, "metrics": {"mcq_all": 75.0}}}
    bd = breakdown(MEDCMR, [entry(JUDGE_STUDY, "submission", cells), entry(JUDGE_STUDY, "paper", cells, 1)], "task")
    assert sorted((r.label, r.model) for r in bd.rows) == [
        ("Claude-Sonnet-4 (judged by gpt-4o) · paper", "Claude-Sonnet-4 (judged by gpt-4o)"),
        (f"{JUDGE_STUDY} · submitted", JUDGE_STUDY)]


def test_the_stratum_metric_leads_even_when_every_cell_is_hidden():
    hidden = entry("M", "submission", {"SOD": {"n": 3, "suppressed": True}, "PA": {"n": 2, "suppressed": True}})
    other = entry("N", "submission", {"SOD": {"n": 12, "metrics": {"mcq_SOD": 80.0, "mcq_all": None}}}, 1)
    # mcq_SOD has one value, mcq_all none: the stratum metric is listed (0 values) after the metric with values
    assert metrics_available(MEDCMR, [hidden, other], "task") == ["mcq_SOD", "mcq_all"]
    assert metrics_available(MEDCMR, [hidden], "task") == ["mcq_all"]


def board(rows: list[Row], values=("SOD", "PA", "FDD")) -> Breakdown:
    return Breakdown("medcmr", "task", "mcq_all", list(values), rows)


def row(label: str, **values) -> Row:
    return Row(label, label, "submission", {v: Cell(values.get(v)) for v in ("SOD", "PA", "FDD")})


def test_the_radar_says_which_rows_have_no_data_which_axes_are_left_out_and_where_the_gaps_are():
    bd = board([row("A", SOD=60.0, PA=None), row("B", SOD=55.0, PA=40.0), row("C")])
    axes, series, notes = radar_data(bd, ["A", "B", "Z"])
    assert axes == ["SOD", "PA"] and series == {"A": [60.0, None], "B": [55.0, 40.0]}
    assert notes == ["Z: no values for this view", "left out (no value for any chosen model): FDD",
                     "gaps where a value is hidden or not reported: A (1)"]
    axes, series, notes = radar_data(bd, ["B"])  # every axis with a value, no gap: nothing to say but the left out
    assert (axes, notes) == (["SOD", "PA"], ["left out (no value for any chosen model): FDD"])
    axes, series, notes = radar_data(bd, ["Z"])  # no known row: no axis is "left out", the row is named
    assert (axes, series, notes) == ([], {}, ["Z: no values for this view"])
    two_gaps = board([row("A", SOD=60.0), row("B", PA=40.0)], ("SOD", "PA"))
    assert radar_data(two_gaps)[2] == ["gaps where a value is hidden or not reported: A (1), B (1)"]
    assert radar_data(two_gaps, top=1)[0] == ["SOD"]  # the default picks the first `top` rows


def test_the_radar_draws_the_first_five_rows_by_default():
    bd = board([row(f"R{k}", SOD=float(k)) for k in range(7)], ("SOD",))
    assert list(radar_data(bd)[1]) == ["R0", "R1", "R2", "R3", "R4"]
