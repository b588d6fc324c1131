"""Mutation-gate tests of leaderboard.publishing.board (issue 26 item 4, issue 29 item 1): exact badges, intervals,
ranks, drawn cells and payloads on small asymmetric boards. Expected numbers are worked by hand in the comments."""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from leaderboard.scoring import registry
from leaderboard.publishing.board import (MAIN, SAMPLE, Board, BoardCache, Filters, _paper_interval, ci_note, main_entries,
                                         release_gap)
from leaderboard.publishing.row_facts import badge
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.publishing.tables import Entry

BENCH = registry.scorer("medreamm")  # primary top5_primary_icd, a proportion with 1 decimal; release 625 cases
PRIMARY = BENCH.primary_metric


def test_the_ci_note_says_how_paper_rows_get_an_interval():
    assert ci_note(registry.scorer("medreamm")) == (
        "CIs of paper rows: 95% Wilson score interval from the published n of each row (Top-5 Primary Recall "
        "(ICD-11) is a proportion of items).")
    medcmr = registry.scorer("medcmr")
    label = medcmr.metric(medcmr.primary_metric).label
    assert ci_note(medcmr) == (f"CIs of paper rows: 95% Wilson score interval from the published n = 16,655 "
                               f"({label} is a proportion of items).")
    assert ci_note(registry.scorer("xpcr")) == (
        "Paper rows have no CI: Stage-wise accuracy, mean of the six stages is not a proportion of items, so no "
        "interval follows from the published n; they rank by their point value.")


def record(name, score, source="submission", ci=None, items=625, answered=625, created="2025-01-01T00:00:00+00:00",
           metrics=None, protocol=None, flags=None, **model):
    values = {m.name: None for m in BENCH.metrics}
    values[PRIMARY] = score
    values.update(metrics or {})
    prot = {"items": items, "dataset_fingerprint": "full", "comparable_to_paper": True, **(protocol or {})}
    return Result(benchmark="medreamm", model=ModelInfo(name=name, **model), metrics=values, source=source,
                  n_items=items, n_answered=answered, protocol=prot, ci={PRIMARY: ci} if ci else {},
                  created_at=created, cell_flags=flags or {})


SETTINGS = {"protocol": "lmms", "protocol_version": "2", "temperature": 0.0, "prompt_sha": "abc"}
ENTRIES = [
    Entry(record("Quux-Paper", 60.0, "paper", answered=None, created="2024-05-06T00:00:00+00:00", reasoning=False),
          "p1"),
    Entry(record("Small-Sample", 90.0, ci=[80.0, 95.0], items=10, answered=10), "s9"),
    Entry(record("Zeta-Unlisted", 70.0, ci=[66.0, 74.0], answered=500, created="2025-03-04T10:00:00+00:00",
                 metrics={"top1_icd": 33.333}, protocol={"run_settings": SETTINGS}, flags={"top1": "x", "a": "y"},
                 organisation="Org Z", access="open", domain="medical", reasoning=True, input_modality="multimodal",
                 params_b=7.4), "s1"),
]
WHY_PAPER = "Scored as the paper did."
BADGE = f'<span class="badge" title="{WHY_PAPER}">paper protocol</span>'


@pytest.fixture  # built per test: mutmut maps _part's mutants to every test that builds a board
def board():
    return Board.build(BENCH, ENTRIES)


def test_a_view_draws_every_column_it_has_values_for(board):
    view = board.view(MAIN, Filters())
    assert view.headers == ["Rank", "Model", "Top-5 Primary Recall (ICD-11)", "Top-1 Accuracy (ICD-11)", "Protocol",
                            "Source", "Coverage %", "Date", "Organisation", "Access", "Domain", "Reasoning", "Input",
                            "Params (B)", "Run settings", "Flagged cells", "Submission id"]
    assert view.datatypes == ["number", "str", "number", "number", "html", "str", "number", "str", "str", "str", "str",
                              "str", "str", "number", "str", "str", "str"]
    # 70 [66, 74] and the paper's Wilson [56.1, 63.8] (n = 625) do not overlap: ranks 1 and 2, not tied
    assert view.data == [
        [1, "Zeta-Unlisted", 70.0, 33.333, "paper protocol", "submitted", 80.0, "2025-03-04", "Org Z", "open",
         "medical", "yes", "multimodal", 7.4, "lmms v2, T=0.0, prompt abc", "a, top1", "s1"],
        [2, "Quux-Paper", 60.0, None, "paper protocol", "paper", None, "2024-05-06", "", "", "", "no", "", None, "",
         "", ""]]
    assert view.display == [
        ["1", "Zeta-Unlisted", "70.0 [66.0, 74.0]", "33.3", BADGE, "submitted", "80.0", "2025-03-04", "Org Z", "open",
         "medical", "yes", "multimodal", "7", "lmms v2, T=0.0, prompt abc", "a, top1", "s1"],
        ["2", "Quux-Paper", "60.0 [56.1, 63.8]", "", BADGE, "paper", "", "2024-05-06", "", "", "", "no", "", "", "",
         "", ""]]
    assert view.total == 2
    payload = view.payload()
    assert payload == {"headers": view.headers, "data": view.data,
                       "metadata": {"display_value": view.display, "styling": [[""] * 17] * 2}}


def test_the_part_holds_ids_full_precision_and_the_interval_method(board):
    frame = board.parts[MAIN].frame
    assert frame["ci_method"].tolist() == ["bootstrap over items", "Wilson, n=625"]
    # Wilson 60 % of 625: centre 59.940, half-width 3.830
    assert frame[f"{PRIMARY}_ci_low"].tolist() == pytest.approx([66.0, 56.10944], abs=1e-5)
    assert frame[f"{PRIMARY}_ci_high"].tolist() == pytest.approx([74.0, 63.76838], abs=1e-5)
    assert frame["rank"].tolist() == ["1", "2"] and frame["rank_worst"].tolist() == [1, 2]
    assert frame["protocol_reasons"].tolist() == [WHY_PAPER, WHY_PAPER]
    assert frame["source_kind"].tolist() == ["submission", "paper"] and frame["size"].tolist() == ["<10B", "unknown"]
    download = board.view(MAIN, Filters(), 1).download  # every filtered row, whatever the drawn limit
    assert "source_kind" not in download and "size" not in download and download.index.tolist() == [0, 1]
    assert download["id"].tolist() == ["s1", ""] and np.isnan(download["coverage_pct"][1])


def test_a_limit_draws_the_first_rows_and_counts_all_of_them(board):
    view = board.view(MAIN, Filters(), 1)
    assert [row[1] for row in view.data] == ["Zeta-Unlisted"] and view.total == 2
    # columns: only the chosen metric columns; one without a value in any drawn row is left out
    assert "Top-1 Accuracy (ICD-11)" not in board.view(MAIN, Filters(columns=[])).headers
    assert "Top-1 Accuracy (ICD-11)" in board.view(MAIN, Filters(columns=["top1_icd"])).headers
    paper_only = board.view(MAIN, Filters(sources=("paper",)))  # columns empty in every drawn row are left out
    assert paper_only.headers == ["Rank", "Model", "Top-5 Primary Recall (ICD-11)", "Protocol", "Source", "Date",
                                  "Reasoning"]


def test_search_reads_name_and_organisation_in_any_case(board):
    def names(search):
        keep = board.mask(MAIN, Filters(search=search))
        return [e.result.model.name for e, k in zip(board.parts[MAIN].entries, keep) if k]

    assert names("ZETA") == ["Zeta-Unlisted"] and names("org z") == ["Zeta-Unlisted"] and names("quux") == ["Quux-Paper"]
    assert names("medical") == []  # the domain is a filter, not searched text


def test_the_sample_board_holds_the_small_build_alone(board):
    assert board.count(MAIN) == 2 and board.count(SAMPLE) == 1
    sample = board.parts[SAMPLE].frame
    assert sample["model"].tolist() == ["Small-Sample"] and sample["protocol"].tolist() == ["sample data"]
    assert sample["protocol_reasons"].tolist() == [
        "Not comparable with the paper: scored on 10 items; the paper's release has 625 (a sample build)."]
    assert [e.entry_id for e in main_entries(BENCH, ENTRIES)] == ["p1", "s1"]
    empty = Board.build(BENCH, [])
    assert empty.count(MAIN) == 0 and empty.mask(MAIN, Filters(search="x")).tolist() == []


def test_release_gap_only_for_submissions_below_the_release():
    gap = "scored on 624 items; the paper's release has 625"
    assert release_gap(BENCH, record("a", 1.0, items=624)) == gap
    assert release_gap(BENCH, record("a", 1.0, items=625)) is None
    assert release_gap(BENCH, record("a", 1.0, "paper", items=10)) is None
    no_items = record("a", 1.0, items=624)
    no_items.protocol.pop("items")  # the record's n_items (624) stands in
    assert release_gap(BENCH, no_items) == gap
    no_items.protocol["items"], no_items.n_items = 0, 0  # unknown: not a gap
    assert release_gap(BENCH, no_items) is None
    unknown = type(BENCH)()
    unknown.release_items = None
    assert release_gap(unknown, record("a", 1.0, items=3)) is None


def test_badge_reasons_are_listed_once_each_in_order():
    differs = record("x", 1.0)
    differs.protocol["comparable_to_paper"] = False
    differs.protocol["not_comparable_because"] = ["other prompt", 7, "other prompt"]
    assert badge(differs.protocol) == ("differs", "Not comparable with the paper: other prompt; 7.")
    assert badge(record("x", 1.0).protocol) == ("paper protocol", WHY_PAPER)
    assert badge(record("x", 1.0).protocol, gap="g") == ("sample data", "Not comparable with the paper: g (a sample build).")


def test_paper_interval_needs_a_proportion_and_an_n():
    def paper_interval(spec, row, value):  # what the board computes for a paper row's CI
        return _paper_interval(spec, row.protocol, row.n_items, value)

    spec = BENCH.metric(PRIMARY)
    row = record("p", 50.0, "paper", items=0)
    assert paper_interval(spec, row, 50.0) is None  # no n anywhere
    row.protocol["n_by_metric"] = {PRIMARY: 400}
    lo, hi, how = paper_interval(spec, row, 50.0)
    # Wilson at p = 0.5, n = 400: centre 50, half-width 1.96 * sqrt(0.25/400 + 1.96^2/640000) / (1 + 1.96^2/400)
    assert how == "Wilson, n=400" and (lo, hi) == pytest.approx((45.1235, 54.8765), abs=1e-4)
    published = dataclasses.replace(spec, published_n=2500)
    assert paper_interval(published, row, 50.0)[2] == "Wilson, n=2,500"  # the published n wins
    assert paper_interval(dataclasses.replace(spec, proportion=False), row, 50.0) is None


def test_ties_on_the_score_keep_the_earlier_record_first_and_lower_is_better_reverses_the_order():
    early = Entry(record("Early", 50.0, ci=[40.0, 60.0], created="2024-01-01T00:00:00+00:00"), "e")
    late = Entry(record("Late", 50.0, ci=[40.0, 60.0], created="2025-01-01T00:00:00+00:00"), "l")
    low = Entry(record("Low", 20.0, ci=[10.0, 30.0]), "w")
    order = [e.entry_id for e in Board.build(BENCH, [late, low, early]).parts[MAIN].entries]
    assert order == ["e", "l", "w"]

    class LowerIsBetter(type(BENCH)):
        metrics = tuple(dataclasses.replace(m, higher_is_better=False) if m.name == PRIMARY else m
                        for m in BENCH.metrics)

    built = Board.build(LowerIsBetter(), [late, low, early])
    assert [e.entry_id for e in built.parts[MAIN].entries] == ["w", "e", "l"]
    assert built.parts[MAIN].frame["rank"].tolist() == ["1", "2–3", "2–3"]


def test_a_submission_whose_interval_has_an_open_end_shows_none():
    open_end = Entry(record("Open", 50.0, ci=[None, 60.0]), "o")
    frame = Board.build(BENCH, [open_end]).parts[MAIN].frame
    assert frame["ci_method"].tolist() == ["none"] and np.isnan(frame[f"{PRIMARY}_ci_low"][0])
    human = Entry(record("Panel", 50.0, "human", items=0), "h")  # no n: no Wilson interval either
    frame = Board.build(BENCH, [human]).parts[MAIN].frame
    assert frame["ci_method"].tolist() == ["none (not a proportion)"] and frame["source"].tolist() == ["human"]


def test_the_board_cache_rebuilds_only_for_a_new_entries_list():
    cache = BoardCache()
    entries = list(ENTRIES)
    first = cache.get(BENCH, entries)
    assert cache.get(BENCH, entries) is first
    assert cache.get(BENCH, list(ENTRIES)) is not first  # equal content, new list: a result landed
    assert cache.get(registry.scorer("medcmr"), []) is not first


def test_filters_combine_and_search_narrows_what_they_kept():
    from test_board_filters import ENTRIES as FILTER_ENTRIES

    built = Board.build(BENCH, FILTER_ENTRIES)

    def names(**filters):
        keep = built.mask(MAIN, Filters(**filters))
        return [e.result.model.name for e, k in zip(built.parts[MAIN].entries, keep) if k]

    assert names(access="open", domain="general") == ["Open-General-Big"]
    assert names(domain="general", access="open") == ["Open-General-Big"]
    assert names(access="proprietary", search="general") == ["Closed-General"]


def test_the_release_gap_counts_the_items_the_protocol_names():
    sample = record("a", 1.0)
    sample.protocol["items"] = 10  # scored on a 10-item build, though the record says 625 items
    assert release_gap(BENCH, sample) == "scored on 10 items; the paper's release has 625"


def test_a_row_without_an_interval_shows_its_value_alone_and_integer_scores_are_floats():
    entries = [Entry(record("Int-Score", 70, ci=[66.0, 74.0]), "i"), Entry(record("No-CI", 30.0), "n")]
    built = Board.build(BENCH, entries)
    view = built.view(MAIN, Filters())
    assert [row[2] for row in view.display] == ["70.0 [66.0, 74.0]", "30.0"]
    assert built.parts[MAIN].frame[PRIMARY].dtype == np.float64  # a JSON record's 70 downloads as 70.0


def test_paired_resamples_of_the_same_items_separate_overlapping_rows_on_the_board():
    from leaderboard.publishing import board as board_module

    g = np.arange(40, dtype=float)
    lead = Entry(record("Lead", 60.0, ci=[55.0, 65.0]), "g", g)
    trail = Entry(record("Trail", 59.0, ci=[54.0, 64.0]), "h", g - 1)  # trails in all 40 paired resamples
    board_module.PAIR_OUTCOMES.pop(BENCH.name, None)
    built = Board.build(BENCH, [trail, lead])
    assert built.parts[MAIN].frame["rank"].tolist() == ["1", "2"] and built.parts[MAIN].paired is True
    assert BENCH.name in board_module.PAIR_OUTCOMES  # outcomes kept across rebuilds, per benchmark
    other = record("Other-Items", 59.0, ci=[54.0, 64.0], protocol={"dataset_fingerprint": "another build"})
    apart = Board.build(BENCH, [Entry(other, "o", g - 1), lead])  # other items: never paired, intervals overlap
    assert apart.parts[MAIN].frame["rank"].tolist() == ["1–2", "1–2"]


def test_text_columns_of_unknown_values_stay_readable(board):
    odd = Entry(record("Odd-Source", 10.0, "elsewhere", answered=None), "x")
    frame = Board.build(BENCH, [odd]).parts[MAIN].frame
    assert frame["source"].tolist() == ["elsewhere"] and frame["reasoning"].tolist() == [""]
    keep = board.mask(MAIN, Filters(search="unlisted org"))  # the search text is "name organisation"
    assert keep.tolist() == [True, False]
    assert board.mask(MAIN, Filters(search="xxxx")).tolist() == [False, False]


def test_paper_rows_of_a_metric_without_an_interval_rank_by_their_point_value():
    xpcr = registry.scorer("xpcr")
    primary = xpcr.primary_metric

    def paper(name, score):
        values = {m.name: None for m in xpcr.metrics}
        values[primary] = score
        return Entry(Result(benchmark="xpcr", model=ModelInfo(name=name), metrics=values, source="paper",
                            n_items=0, n_answered=None, protocol={"comparable_to_paper": True}, ci={},
                            created_at="2024-01-01T00:00:00+00:00"), name)

    # 45.04 and 45.01 differ at the metric's 2 decimals (at 1 decimal both would show 45.0 and tie)
    rows = [paper("B", 45.04), paper("A", 50.0), paper("C", 30.0), paper("D", 45.01)]
    frame = Board.build(xpcr, rows).parts[MAIN].frame
    assert frame["model"].tolist() == ["A", "B", "D", "C"]
    assert frame["rank"].tolist() == ["1", "2", "3", "4"]
    assert frame["rank_best"].tolist() == [1, 2, 3, 4] and frame["rank_worst"].tolist() == [1, 2, 3, 4]
    assert frame["ci_method"].tolist() == ["none (not a proportion)"] * 4


class _BuiltMeanwhile(dict):
    """The cache's board map as another thread leaves it: the first look finds nothing, the look under the build
    lock finds the board that thread built (a deterministic stand-in for the race the second look exists for)."""

    def __init__(self, name, value):
        super().__init__()
        self.name, self.value, self.looks = name, value, 0

    def get(self, key, default=None):
        self.looks += 1
        if key == self.name and self.looks >= 2:
            return self.value
        return default


def test_a_board_built_while_waiting_for_the_build_lock_is_returned_not_rebuilt():
    entries = list(ENTRIES)
    built = Board.build(BENCH, entries)
    cache = BoardCache()
    cache._boards = _BuiltMeanwhile(BENCH.name, (id(entries), entries, built))
    assert cache.get(BENCH, entries) is built
    assert cache._boards.looks == 2  # one look before the lock, one under it; no build, so no third
