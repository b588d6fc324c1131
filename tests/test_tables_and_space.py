"""Ranking, tie groups, filters, strata, radar rules and export - the data the Space draws."""
import json

import numpy as np
import pandas as pd

from leaderboard.scoring import registry
from leaderboard.publishing.tie_groups import tied
from leaderboard.scoring.result import ModelInfo, Result
from leaderboard.operations.store import load_records
from board_helpers import ranked_table
from leaderboard.publishing.board import Filters
from leaderboard.publishing.tables import Entry, export_csv, export_json, reported_baselines

BENCH = registry.scorer("medreamm")


def entry(name, score, source="submission", resamples=None, strata=None, **model):
    metrics = {m.name: None for m in BENCH.metrics}
    metrics["top5_primary_icd"] = score
    result = Result(benchmark="medreamm", model=ModelInfo(name=name, **model), metrics=metrics, source=source,
                    n_items=10, n_answered=10, strata=strata or {})
    return Entry(result, name, resamples)


def test_paper_rows_rank_by_the_primary_metric():
    entries = [Entry(r, str(i)) for i, r in enumerate(load_records("medreamm"))]
    table = ranked_table(BENCH, entries)
    assert len(table) == 23  # Table 2; Table 6's rows are another task and lack the ranking metric
    assert table.loc[0, "model"] == "Gemini-2.5-Pro" and table.loc[0, "top5_primary_icd"] == 65.9
    assert table["top5_primary_icd"].is_monotonic_decreasing
    assert table.loc[table["model"] == "o3-mini", "flagged_cells"].item() == "mrr_sem, ndcg10_icd"
    # Wilson 95% CIs from n=625: Gemini-2.5-Pro [62.1, 69.5] is ahead of every row whose upper bound is below
    # 62.1 (o1 and below: 21 rows) and of none above it; the two 37.6 rows share one range
    assert table["rank"].tolist()[:3] == ["1–2", "1–8", "2–8"]
    assert table.loc[table["top5_primary_icd"] == 37.6, "rank"].tolist() == ["10–19", "10–19"]
    baselines = reported_baselines(entries, BENCH.primary_metric)
    assert baselines.loc[baselines["source"] == "human", "gi_mcq_accuracy"].item() == 10.87


def test_paired_bootstrap_ties():
    rng = np.random.default_rng(0)
    base = rng.normal(50, 2, 1000)
    assert not tied(base, base + 0.1)  # paired: a constant shift, however small, is always separable
    assert not tied(base + 5, base)
    # independent noise of the same size: the difference straddles 0
    assert tied(base, rng.normal(50, 2, 1000))


def test_filters_search_sources_and_columns():
    entries = [entry("Open-Med-7B", 30.0, access="open", domain="medical", params_b=7, reasoning=False),
               entry("Closed-Big", 50.0, access="proprietary", domain="general", reasoning=True),
               entry("Human panel", 45.0, source="human"),
               entry("Open-Gen-72B", 40.0, access="open", domain="general", params_b=72)]
    names = lambda f: ranked_table(BENCH, entries, f)["model"].tolist()
    assert names(Filters(access="open")) == ["Open-Gen-72B", "Open-Med-7B"]
    assert names(Filters(domain="medical")) == ["Open-Med-7B"]
    assert names(Filters(reasoning="yes")) == ["Closed-Big"]
    assert names(Filters(size="<10B")) == ["Open-Med-7B"]
    assert names(Filters(size=">70B")) == ["Open-Gen-72B"]
    assert names(Filters(sources=("human",))) == ["Human panel"]
    assert names(Filters(search="open-")) == ["Open-Gen-72B", "Open-Med-7B"]
    table = ranked_table(BENCH, entries, Filters(columns=["top5_primary_icd", "mrr_icd"]))
    assert "mrr_icd" not in table.columns  # all-empty columns are dropped
    assert "ndcg10_icd" not in table.columns and "top5_primary_icd" in table.columns


def test_csv_export_is_safe_against_formula_injection_and_json_is_exact():
    table = pd.DataFrame({"model": ["=cmd|' /C calc'!A0", "+SUM(A1)", "-2+3", "@x", "normal"], "score": [1.0, 2.0, -3.0, 4.0, 5.0]})
    csv = export_csv(table)
    assert "'=cmd" in csv and "'+SUM" in csv and "'-2+3" in csv and "'@x" in csv and "\nnormal," in csv
    assert ",-3.0" in csv  # numbers stay numbers
    records = json.loads(export_json(table))
    assert records[0]["model"] == "=cmd|' /C calc'!A0" and records[2]["score"] == -3.0  # JSON keeps values as they are


def test_the_breakdown_note_says_why_a_board_with_strata_shows_no_cell():
    from leaderboard.scoring import registry
    from space.breakdown_view import _note

    bench = registry.scorer("medreamm")
    hidden = _note(bench, None, hidden_only=True)
    assert "every cell covers too few items" in hidden and "No record" not in hidden
    empty = _note(bench, None)
    assert "No record of this benchmark has per-stratum values yet" in empty and "too few" not in empty
