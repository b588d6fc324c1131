"""The board shows only what the engine's records say (issue 26): a submission without a bootstrap CI shows
none, a Wilson interval only for a published proportion with its n, a record without the comparability
flag is "not comparable", and every filter narrows the rows it names and no other."""
from __future__ import annotations

import numpy as np
import pytest

from leaderboard.scoring import registry
from leaderboard.publishing.board import MAIN, Board, Filters
from leaderboard.publishing.row_facts import badge
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.publishing.tables import Entry
from leaderboard.publishing.tie_groups import wilson

BENCH = registry.scorer("medreamm")  # primary top5_primary_icd: a proportion; release 625 cases
PRIMARY = BENCH.primary_metric


def make(name, score, source="submission", ci=None, comparable=True, **model):
    protocol = {"items": 625, "dataset_fingerprint": "full"}
    if comparable is not None:
        protocol["comparable_to_paper"] = comparable
    metrics = {m.name: None for m in BENCH.metrics}
    metrics[PRIMARY] = score
    return Result(benchmark="medreamm", model=ModelInfo(name=name, **model), metrics=metrics, source=source,
                  n_items=625, n_answered=625 if source == "submission" else None, protocol=protocol,
                  ci={PRIMARY: ci} if ci else {})


ENTRIES = [
    Entry(make("Open-Med-Small", 70.0, ci=[66.0, 74.0], access="open", domain="medical", reasoning=True,
               input_modality="multimodal", params_b=7.0), "s1"),
    Entry(make("Closed-General", 60.0, "paper", access="proprietary", domain="general", reasoning=False,
               input_modality="text-only", params_b=None), "p1"),
    Entry(make("Open-General-Big", 50.0, ci=[45.0, 55.0], comparable=False, access="open", domain="general",
               reasoning=False, input_modality="multimodal", params_b=72.0), "s2"),
    Entry(make("Human-Mid", 40.0, "human", comparable=None, params_b=30.0), "h1"),
    Entry(make("NoCI-Sub", 30.0, comparable=None, access="open"), "s3"),
]


@pytest.fixture(scope="module")
def board():
    return Board.build(BENCH, ENTRIES)


def shown(board, **filters) -> list[str]:
    keep = board.mask(MAIN, Filters(**filters))
    return [e.result.model.name for e, k in zip(board.parts[MAIN].entries, keep) if k]


@pytest.mark.parametrize("filters, expected", [
    ({}, ["Open-Med-Small", "Closed-General", "Open-General-Big", "Human-Mid", "NoCI-Sub"]),
    ({"access": "open"}, ["Open-Med-Small", "Open-General-Big", "NoCI-Sub"]),
    ({"access": "proprietary"}, ["Closed-General"]),
    ({"domain": "general"}, ["Closed-General", "Open-General-Big"]),
    ({"domain": "medical"}, ["Open-Med-Small"]),
    ({"reasoning": "yes"}, ["Open-Med-Small"]),
    ({"reasoning": "no"}, ["Closed-General", "Open-General-Big"]),
    ({"input_modality": "text-only"}, ["Closed-General"]),
    ({"input_modality": "multimodal"}, ["Open-Med-Small", "Open-General-Big"]),
    ({"size": "<10B"}, ["Open-Med-Small"]),
    ({"size": "10-70B"}, ["Human-Mid"]),
    ({"size": ">70B"}, ["Open-General-Big"]),
    ({"size": "unknown"}, ["Closed-General", "NoCI-Sub"]),
    ({"sources": ("paper",)}, ["Closed-General"]),
    ({"sources": ("human", "submission")}, ["Open-Med-Small", "Open-General-Big", "Human-Mid", "NoCI-Sub"]),
    ({"search": "general"}, ["Closed-General", "Open-General-Big"]),
    ({"comparable_only": True}, ["Open-Med-Small", "Closed-General"]),
    ({"access": "open", "comparable_only": True}, ["Open-Med-Small"]),
])
def test_each_filter_keeps_exactly_its_rows(board, filters, expected):
    assert shown(board, **filters) == expected


def test_intervals_come_from_the_record_only(board):
    arrays = board.parts[MAIN].arrays
    names = arrays["model"].tolist()
    low, high = arrays[f"{PRIMARY}_ci_low"], arrays[f"{PRIMARY}_ci_high"]
    method = dict(zip(names, arrays["ci_method"].tolist()))
    at = {n: i for i, n in enumerate(names)}
    # the submission's bootstrap CI as recorded
    assert (low[at["Open-Med-Small"]], high[at["Open-Med-Small"]]) == (66.0, 74.0)
    assert method["Open-Med-Small"] == "bootstrap over items"
    # a submission without a bootstrap CI shows none (no Wilson stand-in that would move its rank range)
    assert np.isnan(low[at["NoCI-Sub"]]) and np.isnan(high[at["NoCI-Sub"]]) and method["NoCI-Sub"] == "none"
    # a published proportion gets its Wilson interval from its n (625)
    expected = wilson(60.0, 625)
    assert (low[at["Closed-General"]], high[at["Closed-General"]]) == pytest.approx(expected)
    assert method["Closed-General"] == "Wilson, n=625"
    # the no-CI submission ranks on its point value alone: 30 is behind everything else
    ranks = dict(zip(names, arrays["rank_best"].tolist()))
    assert ranks["NoCI-Sub"] == 5


def test_a_record_without_the_comparability_flag_is_not_comparable(board):
    badges = dict(zip(board.parts[MAIN].arrays["model"].tolist(), board.parts[MAIN].arrays["protocol"].tolist()))
    assert badges == {"Open-Med-Small": "paper protocol", "Closed-General": "paper protocol",
                     "Open-General-Big": "differs", "Human-Mid": "differs", "NoCI-Sub": "differs"}
    text, why = badge(make("x", 1.0, comparable=None).protocol)
    assert (text, why) == ("differs", "Not comparable with the paper: protocol differs.")
    assert badge(make("x", 1.0, comparable=True).protocol, gap="scored on 10 items")[0] == "sample data"


def test_size_buckets_at_their_edges():
    from leaderboard.publishing.board import size_bucket

    assert [size_bucket(p) for p in (None, 9.9, 10.0, 70.0, 70.1)] == ["unknown", "<10B", "10-70B", "10-70B", ">70B"]


def test_a_paper_interval_uses_the_metrics_own_n_and_only_for_a_proportion():
    paper = make("P", 60.0, "paper")
    paper.protocol["n_by_metric"] = {PRIMARY: 100}  # the metric's published n, not the row's 625
    board = Board.build(BENCH, [Entry(paper, "p")])
    arrays = board.parts[MAIN].arrays
    assert (arrays[f"{PRIMARY}_ci_low"][0], arrays[f"{PRIMARY}_ci_high"][0]) == pytest.approx(wilson(60.0, 100))
    assert arrays["ci_method"][0] == "Wilson, n=100"
    # X-PCR's SWA_Avg is a mean of six stage accuracies, not a proportion: a paper row gets no interval
    xpcr = registry.scorer("xpcr")
    row = Result(benchmark="xpcr", model=ModelInfo("Q"), metrics={"SWA_Avg": 55.0}, source="paper", n_items=900,
                 n_answered=None, protocol={"items": 177_868})
    arrays = Board.build(xpcr, [Entry(row, "q")]).parts[MAIN].arrays
    assert np.isnan(arrays["SWA_Avg_ci_low"][0]) and arrays["ci_method"][0] == "none (not a proportion)"
