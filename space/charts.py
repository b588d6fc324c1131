"""Plotly figures from data the library prepared (drawing only).

Empty cells are never drawn as 0: a heatmap leaves them as gaps (grey "hidden" or blank "–" with the reason
on hover) and a radar breaks its line there."""
from __future__ import annotations

import math
import textwrap

import plotly.graph_objects as go

from space.plain import plotly_text

HIDDEN_GREY = "#c8c8c8"
NOT_REPORTED_GREY = "#f2f2f2"
FONT = {"family": "Inter, Arial, sans-serif", "size": 13}


def message_figure(text: str, height: int = 260) -> go.Figure:
    return go.Figure(layout={
        "annotations": [{"text": text, "showarrow": False, "x": 0.5, "y": 0.5, "xref": "paper", "yref": "paper",
                         "font": {**FONT, "size": 15, "color": "#555"}}],
        "xaxis": {"visible": False}, "yaxis": {"visible": False}, "height": height, "font": FONT,
        "plot_bgcolor": "white", "paper_bgcolor": "white", "margin": {"t": 20, "b": 20, "l": 20, "r": 20}})


def value_range(scale: tuple[float, float] | None, values: list[float]) -> tuple[float, float]:
    """The metric's declared range, widened to the data when a value falls outside it (e.g. a negative
    difference); from the data alone when the metric declares none."""
    finite = [v for v in values if v is not None and math.isfinite(v)]
    if scale is None:
        low, high = (min(0.0, *finite), max(finite)) if finite else (0.0, 1.0)
        return low, high * 1.05 if high > 0 else high + 1.0
    low, high = scale
    if finite:
        low, high = min(low, min(finite)), max(high, max(finite))
    return low, high


def wrap(label: str, width: int = 14) -> str:
    """A long axis label over several lines (plotly breaks on <br> only)."""
    lines, line = [], ""
    for word in label.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return "<br>".join(lines + [line])


def _fmt(value: float, span: float) -> str:
    return f"{value:.2f}" if span <= 5 else f"{value:.1f}"


def heatmap(rows: list[str], columns: list[str], column_ids: list[str], cells: list[list[dict]], metric_label: str,
            title: str, scale: tuple[float, float] | None) -> go.Figure:
    """cells[i][j] = {"value", "n", "ci", "gap"} for row i, column j (ids only in the hover)."""
    if not rows or not columns:
        return message_figure("No per-stratum values for this view yet")
    rows = [plotly_text(r) for r in rows]  # names are submitted text: plotly would render their tags and links
    columns, column_ids = [plotly_text(c) for c in columns], [plotly_text(c) for c in column_ids]
    values = [c["value"] for row in cells for c in row]
    low, high = value_range(scale, values)
    span = high - low

    def hover(c, row, column, column_id):
        n = "not reported" if c["n"] is None else f"{c['n']:,}"
        head = f"<b>{row}</b><br>{column} <span style='color:#888'>({column_id})</span><br>"
        if c["value"] is None:
            return head + f"<i>{plotly_text(c['gap'])}</i><br>n = {n}"
        ci = f"[{_fmt(c['ci'][0], span)}, {_fmt(c['ci'][1], span)}]" if c.get("ci") else "not reported"
        flag = f"<br>⚠ {'<br>'.join(textwrap.wrap(plotly_text(c['flag']), 70))}" if c.get("flag") else ""
        return head + f"{metric_label}: <b>{_fmt(c['value'], span)}</b><br>n = {n}<br>95% CI: {ci}{flag}"

    hovers = [[hover(c, rows[i], columns[j], column_ids[j]) for j, c in enumerate(row)] for i, row in enumerate(cells)]
    many = len(columns) > 10  # many columns: slanted one-line labels; few: horizontal, wrapped
    columns = columns if many else [wrap(c) for c in columns]  # wrapping only adds <br>: labels stay unique
    z = [[c["value"] for c in row] for row in cells]
    text = [[(_fmt(c["value"], span) + (" ⚠" if c.get("flag") else "")) if c["value"] is not None else "" for c in row]
            for row in cells]
    traces = []  # one constructor call with plain dicts: plotly's property-by-property updates cost ~10x more
    for name, colour, label, test in (
            ("hidden (n < 5)", HIDDEN_GREY, "hidden", lambda c: c["value"] is None and c["gap"].startswith("hidden")),
            ("not reported", NOT_REPORTED_GREY, "–", lambda c: c["value"] is None and not c["gap"].startswith("hidden"))):
        mask = [[1 if test(c) else None for c in row] for row in cells]
        if any(v is not None for row in mask for v in row):
            traces.append({
                "type": "heatmap", "z": mask, "x": columns, "y": rows, "name": name, "showscale": False,
                "colorscale": [[0, colour], [1, colour]], "text": [[label if v else "" for v in row] for row in mask],
                "texttemplate": "%{text}", "textfont": {"color": "#666", "size": 11}, "customdata": hovers,
                "hovertemplate": "%{customdata}<extra></extra>", "xgap": 2, "ygap": 2})
    traces.append({
        "type": "heatmap", "z": z, "x": columns, "y": rows, "name": metric_label, "zmin": low, "zmax": high,
        "colorscale": "YlGnBu", "text": text, "texttemplate": "%{text}", "customdata": hovers,
        "hovertemplate": "%{customdata}<extra></extra>", "xgap": 2, "ygap": 2,
        # the title above the bar, wrapped: a long label on its side was cut off by the figure's edge
        "colorbar": {"title": {"text": wrap(plotly_text(metric_label.split(" (")[0]), 16), "side": "top",
                               "font": {"size": 11}},
                     "thickness": 14, "y": 0, "yanchor": "bottom", "len": 0.75}})
    lines = max(c.count("<br>") + 1 for c in columns)
    return go.Figure(data=traces, layout={
        "title": {"text": title, "x": 0.01, "font": {**FONT, "size": 16}}, "font": FONT,
        "height": max(260, 130 + 30 * len(rows) + 16 * lines), "plot_bgcolor": "white", "paper_bgcolor": "white",
        "margin": {"t": 50, "b": 10, "l": 10, "r": 10},
        "xaxis": {"side": "top", "tickangle": -40 if many else 0, "automargin": True,
                  "tickfont": {"size": 10 if many else 12}},
        "yaxis": {"autorange": "reversed", "automargin": True}})


def radar(axes: list[str], series: dict[str, list[float | None]], metric_label: str, title: str,
          scale: tuple[float, float] | None, notes: list[str]) -> go.Figure:
    """One closed line per model over the stratum values; a None stays a gap (the line breaks, no fill)."""
    if len(axes) < 3 or not series:
        if not series:
            why = "Choose models with values in this view"
        elif not axes:
            why = "Nothing to draw: the chosen models' cells here are all hidden or not reported (never drawn as 0)"
        else:
            why = f"A radar needs at least three values with data (this view has {len(axes)}); the heatmap shows them"
        return message_figure(why, height=300)
    low, high = value_range(scale, [v for values in series.values() for v in values])
    traces = [{"type": "scatterpolar", "r": values + values[:1], "theta": axes + axes[:1], "name": plotly_text(model),
               "mode": "lines+markers", "connectgaps": False, "fill": "toself" if None not in values else "none",
               "opacity": 0.75, "hovertemplate": "%{theta}: %{r:.2f}<extra>" + plotly_text(model) + "</extra>"}
              for model, values in series.items()]
    notes_layout = [{"text": plotly_text(note), "showarrow": False, "xref": "paper", "yref": "paper", "x": 0, "y": -0.22 - 0.05 * k,
                     "xanchor": "left", "font": {"size": 11, "color": "#666"}} for k, note in enumerate(notes)]
    return go.Figure(data=traces, layout={
        "polar": {"radialaxis": {"visible": True, "range": [low, high]}}, "height": 520, "font": FONT,
        "title": {"text": title, "x": 0.01}, "legend": {"orientation": "h", "y": -0.12}, "annotations": notes_layout,
        "margin": {"t": 60, "b": 40 + 14 * len(notes), "l": 60, "r": 60}})
