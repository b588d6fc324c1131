"""Mutation-gate tests of leaderboard.board (issue 26 item 4, issue 29 item 1): exact badges, intervals,
ranks, drawn cells and payloads on small asymmetric boards."""
from __future__ import annotations

from leaderboard import registry
from leaderboard.board import ci_note


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
