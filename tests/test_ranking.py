"""The one ranking rule (leaderboard/publishing/tie_groups.py) and the board built on it, with hand-computed ranks."""
import numpy as np
import pytest

from leaderboard.scoring import registry
from leaderboard.publishing.board import BOARDS, MAIN, SAMPLE, Board, Filters
from leaderboard.scoring.result import ModelInfo, Result
from board_helpers import ranked_table
from leaderboard.publishing.tables import Entry
from leaderboard.publishing.tie_groups import rank_ranges, wilson

BENCH = registry.scorer("medreamm")  # primary top5_primary_icd: a proportion, release 625 cases

# A 70 [60,80]; B 65 [63,67]; C 50 [48,52]; D 50 [40,62]; E 30 (no CI); F 20 [10,30]
SCORES = [70, 65, 50, 50, 30, 20]
LOWS = [60, 63, 48, 40, 30, 10]
HIGHS = [80, 67, 52, 62, 30, 30]


def test_wilson_by_hand():
    # p = .659, n = 625: centre (p + z²/2n)/(1 + z²/n) = .658029, half-width .037063
    assert wilson(65.9, 625) == pytest.approx((62.0965, 69.5092), abs=1e-3)
    # p = 0: the lower bound is 0 and the upper z²/(n + z²) = 3.8415/13.8415
    lo, hi = wilson(0.0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and hi == pytest.approx(27.753, abs=1e-3)


def test_rank_ranges_by_hand():
    # best = 1 + rows whose lower bound is above my upper bound; worst = n - rows whose upper bound is below my
    # lower bound. C alone would be 3-4, D 2-4: equal scores share the best of the bests. E's point 30 touches F's
    # upper bound 30: touching is not separated (strict >), so E and F share 5-6.
    ranks = rank_ranges(np.array(SCORES), np.array(LOWS), np.array(HIGHS))
    assert ranks.labels() == ["1–3", "1–2", "2–4", "2–4", "5–6", "5–6"]
    assert ranks.best.tolist() == [1, 1, 2, 2, 5, 5] and ranks.worst.tolist() == [3, 2, 4, 4, 6, 6]


def test_lower_is_better_mirrors_the_ranks():
    ranks = rank_ranges(-np.array(SCORES, float), -np.array(HIGHS, float), -np.array(LOWS, float),
                        higher_is_better=False)
    assert ranks.labels() == ["1–3", "1–2", "2–4", "2–4", "5–6", "5–6"]


def test_paired_resamples_separate_overlapping_intervals_only_above_97_5_percent():
    # G 60 [55, 65] and H 59 [54, 64] overlap; paired resamples decide. 40 resamples: H trails G in all 40 -> G is
    # ahead; H trails in 39 of 40 (97.5%, not more) -> not separated.
    g = np.arange(40, dtype=float)
    h_all = g - 1
    h_39 = h_all.copy()
    h_39[7] = g[7] + 1
    args = (np.array([60.0, 59.0]), np.array([55.0, 54.0]), np.array([65.0, 64.0]))
    assert rank_ranges(*args, resamples=[g, h_all], pair_keys=["fp", "fp"]).labels() == ["1", "2"]
    assert rank_ranges(*args, resamples=[g, h_39], pair_keys=["fp", "fp"]).labels() == ["1–2", "1–2"]
    # different items (dataset fingerprints) are never paired
    assert rank_ranges(*args, resamples=[g, h_all], pair_keys=["fp", "other"]).labels() == ["1–2", "1–2"]
    # over the budget of paired pairs: the interval rule decides, and says so
    over = rank_ranges(*args, resamples=[g, h_all], pair_keys=["fp", "fp"], max_paired_pairs=0)
    assert over.labels() == ["1–2", "1–2"] and over.paired is False


def result(name, score, source="submission", ci=None, items=625, created="2026-01-01T00:00:00+00:00", **model):
    metrics = {m.name: None for m in BENCH.metrics}
    metrics["top5_primary_icd"] = score
    protocol = {"items": items, "dataset_fingerprint": "full", "comparable_to_paper": True}
    return Result(benchmark="medreamm", model=ModelInfo(name=name, **model), metrics=metrics, source=source,
                  n_items=items, n_answered=items if source == "submission" else None, protocol=protocol,
                  ci={"top5_primary_icd": ci} if ci else {}, created_at=created)


def test_board_paper_cis_equal_scores_and_filters_that_never_renumber():
    entries = [Entry(result("Paper-A", 60.0, "paper"), "p1"), Entry(result("Paper-B", 60.0, "paper"), "p2"),
               Entry(result("Sub-Wide", 40.0, ci=[10.0, 70.0], access="open"), "s1"),
               Entry(result("Paper-C", 50.0, "paper", access="open"), "p3"),
               Entry(result("Sample-Sub", 95.0, ci=[90.0, 99.0], items=10), "s2")]
    table = ranked_table(BENCH, entries)
    ranks = dict(zip(table["model"], table["rank"]))
    # Wilson n=625: 60.0 -> [56.11, 63.77], 50.0 -> [46.09, 53.91]: the 60s are ahead of Paper-C only (worst
    # 4 - 1 = 3); the wide submission [10, 70] overlaps everything, so nothing is ahead of it or behind it
    assert ranks["Paper-A"] == ranks["Paper-B"] == "1–3"
    assert ranks["Paper-C"] == "3–4" and ranks["Sub-Wide"] == "1–4"
    # the 10-item submission is on its own board, ranked alone, never "paper protocol"
    sample = table[table["board"] == SAMPLE]
    assert sample["model"].tolist() == ["Sample-Sub"] and sample["rank"].tolist() == ["1"]
    assert sample["protocol"].item() == "sample data" and "10 items" in sample["protocol_reasons"].item()
    main = table[table["board"] == MAIN]
    assert "Sample-Sub" not in main["model"].tolist() and set(main["protocol"]) == {"paper protocol"}
    # filters and search keep the whole board's ranks
    open_only = ranked_table(BENCH, entries, Filters(access="open", boards=(MAIN,)))
    assert dict(zip(open_only["model"], open_only["rank"])) == {"Sub-Wide": "1–4", "Paper-C": "3–4"}
    searched = ranked_table(BENCH, entries, Filters(search="paper-c", boards=(MAIN,)))
    assert searched["rank"].tolist() == ["3–4"]


def test_view_draws_numbers_for_sorting_and_formatted_text_for_reading():
    entries = [Entry(result("Paper-A", 65.9, "paper"), "p1"), Entry(result("Sub", 40.123456, ci=[35.0, 45.25]), "s1")]
    view = Board.build(BENCH, entries).view(MAIN, Filters(columns=["top5_primary_icd"]))
    header = BENCH.metric("top5_primary_icd").label
    assert view.headers[:3] == ["Rank", "Model", header] and "top5_primary_icd" not in view.headers
    col = view.headers.index(header)
    assert [row[col] for row in view.data] == [65.9, 40.123456]  # values sort as numbers
    assert [row[col] for row in view.display] == ["65.9 [62.1, 69.5]", "40.1 [35.0, 45.2]"]
    protocol = view.headers.index("Protocol")
    assert 'title="Scored as the paper did."' in view.display[0][protocol]
    assert view.download.columns[:3].tolist() == ["rank", "rank_best", "rank_worst"]
    assert view.download.loc[1, "top5_primary_icd"] == 40.123456  # downloads keep full precision


def test_board_is_built_once_per_entries_list():
    entries = [Entry(result("Paper-A", 65.9, "paper"), "p1")]
    assert BOARDS.get(BENCH, entries) is BOARDS.get(BENCH, entries)
    changed = [*entries, Entry(result("Sub", 40.0, ci=[35.0, 45.0]), "s1")]  # a result landed: a new list
    assert BOARDS.get(BENCH, changed).count(MAIN) == 2


def test_a_board_draws_each_view_once_and_keeps_the_most_recently_asked():
    import copy

    import gradio as gr

    from leaderboard.publishing import board as board_module

    entries = [Entry(result("Paper-A", 65.9, "paper"), "p1"), Entry(result("Sub", 40.123456, ci=[35.0, 45.25]), "s1"),
               Entry(result("Sub-2", 20.5, ci=[10.0, 31.0]), "s2")]
    built = Board.build(BENCH, entries)
    default = built.view(MAIN, Filters(), 500)
    drawn = copy.deepcopy((default.headers, default.data, default.display))
    # what the Space does with a view (Gradio's Dataframe postprocessing) leaves the kept view as it was
    gr.Dataframe(interactive=False).postprocess({"headers": default.headers, "data": default.data,
                                                 "metadata": {"display_value": default.display}}).model_dump()
    again = built.view(MAIN, Filters(), 500)
    assert again is default and (again.headers, again.data, again.display) == drawn
    # another filter, limit or board is another view, with its own rows
    searched = built.view(MAIN, Filters(search="sub-2"), 500)
    assert [row[1] for row in searched.data] == ["Sub-2"] and searched is not default
    assert [row[1] for row in built.view(MAIN, Filters(), 2).data] == ["Paper-A", "Sub"]
    # past VIEWS_KEPT views the least recently asked is dropped (and drawn again, the same, when asked)
    built.view(MAIN, Filters(), 500)  # asked again: now the most recent, kept
    for i in range(board_module.VIEWS_KEPT - 1):
        built.view(MAIN, Filters(search=f"nothing-{i}"), 500)
    assert built.view(MAIN, Filters(), 500) is default
    redrawn = built.view(MAIN, Filters(search="sub-2"), 500)
    assert redrawn is not searched and redrawn.data == searched.data and redrawn.display == searched.display
    # a new result builds a new board, which draws afresh
    rebuilt = Board.build(BENCH, entries[:2])
    assert [row[1] for row in rebuilt.view(MAIN, Filters(), 500).data] == ["Paper-A", "Sub"]
