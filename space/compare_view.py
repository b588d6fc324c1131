"""The Compare tab: two submissions on the same items, paired (leaderboard/publishing/compare.py computes; this draws)."""
from __future__ import annotations

import gradio as gr
import pandas as pd

from leaderboard.scoring import registry
from leaderboard.publishing.compare import CompareError, comparable_submissions, compare, listed
from space.breakdown_view import board_entries
from space.plain import md

EMPTY = ["what", "value"]


def compare_tab(app: gr.Blocks, service) -> None:
    names = [(b.pretty_name, b.name) for b in registry.scorers().values()]
    gr.Markdown("Two submissions scored on the same items, compared item by item on the primary metric: how often "
                "each is better, and the mean difference with a 95% paired bootstrap CI (2,000 resamples over the "
                "shared items). Only these aggregates are shown; per-item scores stay private. Paper rows have no "
                "per-item scores and cannot be compared here.")
    with gr.Row():
        benchmark = gr.Dropdown(names, value=names[0][1] if names else None, label="Benchmark", elem_id="compare-benchmark")
        first = gr.Dropdown([], label="Submission A", elem_id="compare-a")
        second = gr.Dropdown([], label="Submission B", elem_id="compare-b")
    sample = gr.Checkbox(False, label="Compare submissions scored on sample data (their own board) instead",
                         elem_id="compare-show-sample")
    run = gr.Button("Compare", variant="primary", elem_id="compare-run")
    verdict = gr.Markdown(elem_id="compare-verdict")
    table = gr.Dataframe(interactive=False, elem_id="compare-table", headers=EMPTY)

    def options_of(name, on_sample):
        if name not in registry.names():
            return []
        return comparable_submissions(board_entries(registry.scorer(name), service.entries(name), bool(on_sample)))

    def choices(name, on_sample):
        """A new benchmark or board starts afresh: new pickers, and the last verdict and table cleared."""
        options = options_of(name, on_sample)
        board = "the sample-data board" if on_sample else "this benchmark's board"
        # an empty picker says nothing: tell the reader why there is nothing to compare yet
        why = "" if len(options) > 1 else (
            f"{len(options)} submission(s) scored here on public answers on {board}; two are needed "
            "(paper rows and submissions on held-out answer keys are not compared item by item).")
        return (gr.Dropdown(choices=options, value=options[0][1] if options else None),
                gr.Dropdown(choices=options, value=options[1][1] if len(options) > 1 else None), why,
                pd.DataFrame(columns=EMPTY))

    def run_compare(name, a, b, on_sample):
        if not (name and a and b):
            return "Choose two submissions.", pd.DataFrame(columns=EMPTY)
        options = options_of(name, on_sample)
        if not listed(options, a, b):  # ids from the page are checked before any file is opened
            return "Choose two submissions from the lists.", pd.DataFrame(columns=EMPTY)
        bench = registry.scorer(name)
        labels = dict((sub_id, label.split(" · ")[0]) for label, sub_id in options)
        try:
            result = compare(bench, service.store, a, b)
        except CompareError as exc:
            return f"Cannot compare: {md(exc)}.", pd.DataFrame(columns=EMPTY)
        name_a, name_b = labels.get(a, "A"), labels.get(b, "B")
        if name_a == name_b:
            name_a, name_b = f"{name_a} (A)", f"{name_b} (B)"
        separated = result.ci[0] > 0 or result.ci[1] < 0
        label = bench.metric(bench.primary_metric).label
        text = (f"**{label}**: {md(name_a)} − {md(name_b)} = {result.diff:+.1f} [{result.ci[0]:+.1f}, {result.ci[1]:+.1f}] "
                f"over {result.n:,} shared items — " + ("the CI excludes 0." if separated else
                                                        "the CI includes 0: not separated."))
        return text, pd.DataFrame(result.rows(name_a, name_b))

    for control in (benchmark, sample):
        control.change(choices, [benchmark, sample], [first, second, verdict, table], api_name=False,
                       show_progress="hidden")
    app.load(choices, [benchmark, sample], [first, second, verdict, table], api_name=False, show_progress="hidden")
    run.click(run_compare, [benchmark, first, second, sample], [verdict, table], api_name="compare")
