"""The Breakdown sub-tab of a benchmark: models x stratum-values heatmap, radar of chosen models, and the
reasons behind every empty cell. Draws what `leaderboard.publishing.breakdowns` computes."""
from __future__ import annotations

from collections import defaultdict

import gradio as gr

import html

from leaderboard.publishing.breakdowns import (ALL_CASES, HIDDEN, Breakdown, breakdown, metrics_available, radar_data, strata_available)
from leaderboard.publishing.board import BOARDS, main_entries, release_gap
from space.plain import md
from space.served import served_exports
from space.charts import heatmap, message_figure, radar

HEATMAP_ROWS = 40  # rows drawn; the CSV download holds every row
PICKER_ROWS = 500  # radar choices (thousands of names would bloat every page load)


def _choices(bench, entries):
    strata = strata_available(bench, entries)
    return [(bench.stratum_label(s), s) for s in strata]


def _metric_choices(bench, entries, stratum):
    return [(bench.metric_spec(m).label, m) for m in metrics_available(bench, entries, stratum)] if stratum else []


def _note(bench, bd: Breakdown | None, hidden_only: bool = False) -> str:
    """`hidden_only`: records here have strata, but disclosure control hid every cell (too few items in each)."""
    parts = []
    if bench.breakdown_note:
        parts.append(bench.breakdown_note)
    if bd is None and hidden_only:
        parts.append("The records on this board have per-stratum values, but every cell covers too few items to "
                     "be shown: a cell is published only when it cannot reveal single items' scores (see About, "
                     "disclosure control). A run on the full release has cells large enough.")
        return "\n\n".join(parts)
    if bd is None:
        parts.append("No record of this benchmark has per-stratum values yet: submissions scored here will have them.")
        return "\n\n".join(parts)
    spec = bench.metric_spec(bd.metric)
    shown = (f"the best {len(bd.rows)} of {bd.total_rows} rows" if bd.total_rows > len(bd.rows)
             else f"{len(bd.rows)} row{'s' if len(bd.rows) != 1 else ''}")
    parts.append(f"Each cell: **{spec.label}** in that {bench.stratum_label(bd.stratum).lower()} ({shown}; hover a "
                 "cell for n and its 95% CI; rows marked *paper* are the paper's published per-stratum numbers; a *paper figure* row pools all of the "
                 "paper's models and describes the benchmark, not one model).")
    gaps = {c.gap for r in bd.rows for c in r.cells.values() if c.gap}
    legend = []
    hidden = {g for g in gaps if g.startswith("hidden")}  # one reason per rule that applied
    if hidden:
        legend.append("grey **hidden** = " + "; or ".join(sorted(g.removeprefix("hidden: ") for g in hidden)))
    if gaps - hidden:
        legend.append("light **–** = " + "; ".join(sorted(gaps - hidden)))
    if legend:
        parts.append("Empty cells are gaps, never 0: " + "; ".join(legend) + ".")
    flagged = sum(c.flag is not None for r in bd.rows for c in r.cells.values())
    if flagged:
        parts.append(f"Values marked **⚠** ({flagged}) carry the transcription's doubt about the published number "
                     "(hover for it); they are shown as published, never corrected.")
    if bd.without:
        grouped = defaultdict(list)
        for label, why in bd.without:
            grouped[why].append(md(label.split(" · ")[0]))
        lines = [f"- {len(names)} row(s): {md(why)} ({', '.join(names[:8])}{', …' if len(names) > 8 else ''})"
                 for why, names in grouped.items()]
        parts.append("Not in this view:\n" + "\n".join(lines))
    return "\n\n".join(parts)


def _figures(bench, bd: Breakdown | None, chosen):
    if bd is None or not bd.rows:
        empty = message_figure("No per-stratum values for this view yet")
        return empty, message_figure("Nothing to draw yet", height=300)
    spec = bench.metric_spec(bd.metric)
    stratum = bench.stratum_label(bd.stratum)
    cells = [[{"value": c.value, "n": c.n, "ci": c.ci, "gap": c.gap, "flag": c.flag} for c in (r.cells[v] for v in bd.values)]
             for r in bd.rows]
    columns = [_value_label(bench, bd.stratum, v) for v in bd.values]
    heat = heatmap([r.label for r in bd.rows], columns, bd.values, cells, spec.label, f"{spec.label} by {stratum.lower()}",
                   spec.scale)
    axes, series, notes = radar_data(bd, chosen or None)
    labels = [_value_label(bench, bd.stratum, v) for v in axes]
    return heat, radar(labels, series, spec.label, f"{spec.label} by {stratum.lower()}", spec.scale, notes)


def _value_label(bench, stratum: str, value: str) -> str:
    return "All cases" if value == ALL_CASES else bench.value_label(stratum, value)


def board_entries(bench, entries: list, sample: bool) -> list:
    """The rows a view shows, split as the tables split them: the main board (paper rows, human rows and
    submissions on the full release), or, when the visitor asks for sample data, the sample board alone."""
    if not sample:
        return main_entries(bench, entries)
    return [e for e in entries if release_gap(bench, e.result)]


def phone_list(bench, bd: Breakdown | None) -> str:
    """The heatmap as a list, for narrow screens (CSS shows one or the other): one block per row, one line per
    stratum value, gaps said in words."""
    if bd is None or not bd.rows:
        return ""
    spec = bench.metric_spec(bd.metric)
    blocks = []
    for row in bd.rows:
        lines = []
        for v in bd.values:
            c = row.cells[v]
            shown = f"{c.value:.{spec.decimals}f}" if c.value is not None else ("hidden" if (c.gap or "").startswith("hidden") else "–")
            n = f" <small>n={c.n:,}</small>" if c.n else ""
            lines.append(f"<li>{html.escape(_value_label(bench, bd.stratum, v))}: <b>{shown}</b>{n}</li>")
        blocks.append(f"<details><summary>{html.escape(row.label)}</summary><ul>{''.join(lines)}</ul></details>")
    return (f"<div class='bd-list'><p><b>{html.escape(spec.label)}</b> by "
            f"{html.escape(bench.stratum_label(bd.stratum).lower())} (tap a row)</p>{''.join(blocks)}</div>")


def _model_choices(bd: Breakdown | None):
    if bd is None:
        return []
    shown = [(r.label, r.label) for r in bd.rows]
    missing = [(f"{label} — no breakdown: {why}", label) for label, why in bd.without]
    return (shown + missing)[:PICKER_ROWS]


def _chosen(bd: Breakdown | None, chosen) -> list[str]:
    """The radar's models as the picker shows them: the user's choice when it still exists, else the default."""
    if bd is None:
        return []
    known = {r.label for r in bd.rows} | {label for label, _ in bd.without}
    kept = [c for c in (chosen or []) if c in known]
    return kept or [r.label for r in bd.rows[:5]]


EXPORTS = served_exports()  # one folder per process: a breakdown's CSV is written once per board version and choice


def _download(bd: Breakdown | None, bench, entries, sample: bool) -> str | None:
    if bd is None:
        return None
    version = BOARDS.get(bench, entries).serial  # the board the ranked table already holds for these entries
    csv_path, _ = EXPORTS.files(f"{bench.name}-breakdown", version, (bd.stratum, bd.metric, sample), bd.frame)
    return csv_path


def _view(bench, everything, sample, stratum, metric, chosen):
    """Everything the tab shows for one choice (on the main board, or the sample board when `sample`); falls
    back to the first stratum/metric with data. `everything`: the service's entries (the boards' cache key)."""
    entries = board_entries(bench, everything, bool(sample))
    strata = _choices(bench, entries)
    ids = [s for _, s in strata]
    stratum = stratum if stratum in ids else (ids[0] if ids else None)
    metrics = _metric_choices(bench, entries, stratum)
    metric_ids = [m for _, m in metrics]
    metric = metric if metric in metric_ids else (metric_ids[0] if metric_ids else None)
    bd = breakdown(bench, entries, stratum, metric, limit=HEATMAP_ROWS) if stratum and metric else None
    full = breakdown(bench, entries, stratum, metric, limit=None) if bd and bd.total_rows > len(bd.rows) else bd
    heat, rad = _figures(bench, bd, chosen)
    shown = bd is not None  # with nothing to draw, the note alone says why (no empty charts)
    radar_too = shown and len(bd.values) >= 3  # fewer values make no radar: the picker and chart stay hidden
    return (gr.update(choices=strata, value=stratum, visible=bool(strata)),
            gr.update(choices=metrics, value=metric, visible=bool(strata)),
            gr.update(choices=_model_choices(bd), value=_chosen(bd, chosen), visible=radar_too),
            gr.update(value=heat, visible=shown), _note(bench, bd, bool(strata)), gr.update(value=rad, visible=radar_too),
            gr.update(value=_download(full, bench, everything, bool(sample)), visible=shown), phone_list(bench, bd))


def breakdown_tab(app: gr.Blocks, service, bench, tab: gr.Tab | None = None, parent: gr.Tab | None = None,
                  on_load: bool = True, show_sample: gr.Checkbox | None = None, timer: gr.Timer | None = None) -> None:
    """The sub-tab's components and events; call inside `tab`. Nothing is computed while the app is built
    (start-up reads no results): the sub-tab is drawn when the page loads (`on_load`: the benchmark shown
    first), when its benchmark's tab (`parent`) or the sub-tab is opened, and whenever a control changes."""
    name = bench.name
    with gr.Row():
        stratum = gr.Dropdown(label="Break down by", elem_id=f"bd-stratum-{name}", choices=[], value=None)
        metric = gr.Dropdown(label="Metric", elem_id=f"bd-metric-{name}", choices=[], value=None)
    heat = gr.Plot(label="Models × strata", elem_id=f"heatmap-{name}", visible=False, elem_classes=["wide-only"])
    listing = gr.HTML("", elem_id=f"bd-list-{name}", elem_classes=["narrow-only"])
    note = gr.Markdown("", elem_id=f"bd-note-{name}")
    models = gr.Dropdown(multiselect=True, label="Models on the radar (default: the first five rows above)",
                         elem_id=f"bd-models-{name}", choices=[], value=[], visible=False)
    plot = gr.Plot(label="Radar", elem_id=f"radar-{name}", visible=False)
    download = gr.DownloadButton("Download this breakdown (CSV, with ids)", size="sm", elem_id=f"bd-csv-{name}",
                                 visible=False)
    seen = gr.State(None)  # the board version last drawn: the page's timer redraws only when a result landed
    outputs = [stratum, metric, models, heat, note, plot, download, listing, seen]
    sample = show_sample if show_sample is not None else gr.State(False)

    def drawn(stratum, metric, chosen, sample):
        entries = service.entries(name)
        return (*_view(bench, entries, sample, stratum, metric, chosen), BOARDS.get(bench, entries).serial)

    def update(stratum, metric, chosen, sample):
        return drawn(stratum, metric, chosen, sample)

    def new_stratum(stratum, sample):  # a new stratum has other values and maybe other metrics: its defaults
        return drawn(stratum, None, None, sample)

    def new_board(stratum, metric, sample):  # the other board has other rows: the radar starts from its default
        return drawn(stratum, metric, None, sample)

    stratum.input(new_stratum, [stratum, sample], outputs, api_name=False, show_progress="hidden")
    for control in (metric, models):
        control.input(update, [stratum, metric, models, sample], outputs, api_name=False, show_progress="hidden")
    if show_sample is not None:
        show_sample.input(new_board, [stratum, metric, sample], outputs, api_name=False, show_progress="hidden")
    if on_load:
        app.load(update, [stratum, metric, models, sample], outputs, api_name=False, show_progress="hidden")
    if timer is not None:  # a result that lands redraws the breakdown as it does the table (the page's own timer)

        def live(last, stratum, metric, chosen, sample):
            if last is None or BOARDS.get(bench, service.entries(name)).serial == last:
                return tuple(gr.skip() for _ in outputs)  # not drawn yet (the tab draws itself), or unchanged
            return update(stratum, metric, chosen, sample)

        timer.tick(live, [seen, stratum, metric, models, sample], outputs, api_name=False, show_progress="hidden")
    for opened in (tab, parent):
        if opened is not None:
            opened.select(update, [stratum, metric, models, sample], outputs, api_name=False, show_progress="hidden")
