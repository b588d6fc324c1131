"""Plotly figures from data the library prepared (drawing only)."""
from __future__ import annotations

import plotly.graph_objects as go


def radar(series: dict[str, dict[str, float | None]], metric: str, stratum: str) -> go.Figure:
    figure = go.Figure()
    if not series:
        figure.add_annotation(text=f"Radar hidden: '{stratum}' has fewer than three values with results",
                              showarrow=False, x=0.5, y=0.5, xref="paper", yref="paper")
        figure.update_layout(xaxis_visible=False, yaxis_visible=False, height=420)
        return figure
    for model, cells in series.items():
        labels = list(cells)
        values = [v if v is not None else 0.0 for v in cells.values()]
        figure.add_trace(go.Scatterpolar(r=values + values[:1], theta=labels + labels[:1], name=model, fill="toself",
                                         opacity=0.55, hovertemplate="%{theta}: %{r:.1f}<extra>" + model + "</extra>"))
    figure.update_layout(polar={"radialaxis": {"visible": True, "range": [0, 100]}}, height=480,
                         title=f"{metric} by {stratum}", legend={"orientation": "h"}, margin={"t": 60, "b": 20})
    return figure
