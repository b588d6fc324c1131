"""Per-stratum breakdowns as the Space shows them: a models x stratum-values matrix with n, CI and, for every
empty cell, the reason it is empty. Fed by every record with stratum cells: scored submissions, paper rows
whose paper publishes per-stratum numbers, and pooled paper figures (`source: pooled`).

A cell is never 0 for want of a value: a value that is hidden (n < MIN_PUBLIC_CELL) or not reported is None
with its reason, and the views draw it as a gap.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from ..scoring.benchmark import Benchmark
from .models import canonical_info
from ..scoring.result import MIN_PUBLIC_CELL
from .tables import Entry

SOURCE_NAMES = {"paper": "paper", "submission": "submitted", "human": "human", "pooled": "paper figure"}
HIDDEN = f"hidden: fewer than {MIN_PUBLIC_CELL} items (a value that small would reveal individual answers)"
NOT_REPORTED = "not reported by this source"
PENDING = "no value yet (metric pending)"
MISSING = "(missing)"
ALL_CASES = "(all cases)"  # the row's overall value, beside a stratum of one value (a subset alone says little)


@dataclass(frozen=True)
class Cell:
    value: float | None
    n: int | None = None  # None: the source does not say
    ci: tuple[float, float] | None = None
    gap: str | None = None  # why value is None
    flag: str | None = None  # the source's doubt about this value (e.g. a probable copy error in the paper)


@dataclass
class Row:
    label: str  # unique within a breakdown: "model · source"
    model: str
    source: str
    cells: dict[str, Cell]  # stratum value id -> cell (every column of the breakdown)


@dataclass
class Breakdown:
    benchmark: str
    stratum: str
    metric: str
    values: list[str]  # column ids, in display order
    rows: list[Row]
    without: list[tuple[str, str]] = field(default_factory=list)  # (row label, why it has no breakdown)
    total_rows: int = 0  # rows with data before `limit`

    def matrix(self) -> list[list[float | None]]:
        return [[row.cells[v].value for v in self.values] for row in self.rows]

    def frame(self) -> pd.DataFrame:
        """Long form with ids (for downloads): one line per row and value."""
        lines = [{"model": r.model, "source": r.source, "stratum": self.stratum, "value": v, "metric": self.metric,
                  self.metric: c.value, "n": c.n, "ci_low": c.ci[0] if c.ci else None,
                  "ci_high": c.ci[1] if c.ci else None, "empty_because": c.gap or "", "flag": c.flag or ""}
                 for r in self.rows for v in self.values for c in [r.cells[v]]]
        return pd.DataFrame(lines, columns=["model", "source", "stratum", "value", "metric", self.metric, "n",
                                            "ci_low", "ci_high", "empty_because", "flag"])


def _has_value(cell: dict, metric: str | None = None) -> bool:
    values = cell.get("metrics") or {}
    return any(v is not None for k, v in values.items() if metric is None or k == metric)


def strata_available(benchmark: Benchmark, entries: list[Entry]) -> list[str]:
    """Strata that some record has cells for: the benchmark's labelled strata first (its order), then the rest,
    each ordered by how many rows hold a value there (most first, stable)."""
    counts: dict[str, int] = {}
    for e in entries:
        for stratum, cells in e.result.strata.items():
            counts[stratum] = counts.get(stratum, 0) + (1 if any(_has_value(c) for c in cells.values()) else 0)
    labelled = [s for s in benchmark.stratum_labels if s in counts]
    rest = [s for s in counts if s not in benchmark.stratum_labels]
    return sorted(labelled, key=lambda s: -counts[s]) + sorted(rest, key=lambda s: -counts[s])


def metrics_available(benchmark: Benchmark, entries: list[Entry], stratum: str) -> list[str]:
    """Metrics that some cell of `stratum` holds, most filled cells first (the stratum metric wins ties),
    then in declaration order."""
    counts: dict[str, int] = {}
    if any(e.result.strata.get(stratum) for e in entries):  # cells all hidden still make a view (of gaps)
        counts[benchmark.stratum_metric] = 0
    for e in entries:
        for cell in (e.result.strata.get(stratum) or {}).values():
            for name, value in (cell.get("metrics") or {}).items():
                counts[name] = counts.get(name, 0) + (value is not None)
    declared = [m.name for m in (*benchmark.metrics, *benchmark.cell_metrics)]
    order = {name: i for i, name in enumerate(declared)}
    return sorted(counts, key=lambda m: (-counts[m], m != benchmark.stratum_metric, order.get(m, len(order)), m))


def _ordered_values(benchmark: Benchmark, stratum: str, seen: list[str]) -> list[str]:
    listed = [v for v in benchmark.value_labels.get(stratum, {}) if v in seen]
    rest = [v for v in seen if v not in listed and v != MISSING]
    return listed + rest + ([MISSING] if MISSING in seen else [])


def _cell(raw: dict | None, metric: str) -> Cell:
    if raw is None:
        return Cell(None, gap=NOT_REPORTED)
    n = raw.get("n")
    if raw.get("suppressed"):  # the reason disclosure control recorded (k-rule or complementary suppression)
        return Cell(None, n, gap=f"hidden: {raw['reason']}" if raw.get("reason") else HIDDEN)
    value = (raw.get("metrics") or {}).get(metric)
    ci = (raw.get("ci") or {}).get(metric)
    if value is None:
        return Cell(None, n, gap=NOT_REPORTED if metric not in (raw.get("metrics") or {}) or raw.get("metrics") is None
                    else PENDING)
    return Cell(float(value), n, tuple(ci) if ci else None, flag=(raw.get("flags") or {}).get(metric))


def _why_none(result, stratum_name: str) -> str:
    if result.source == "submission":
        return f"scored without {stratum_name} labels (the dataset it ran on has none)"
    if result.source == "human":
        return f"the paper reports no {stratum_name} breakdown for this group"
    return f"the paper publishes no {stratum_name} breakdown for this model"


def _order_key(benchmark: Benchmark, e: Entry):
    """Pooled rows first (they describe the benchmark), then by the primary metric, best first."""
    primary = e.result.metrics.get(benchmark.primary_metric)
    sign = -1 if benchmark.metric(benchmark.primary_metric).higher_is_better else 1
    return (e.result.source != "pooled", primary is None, sign * primary if primary is not None else 0.0,
            e.result.created_at)


def breakdown(benchmark: Benchmark, entries: list[Entry], stratum: str, metric: str | None = None,
              limit: int | None = 40) -> Breakdown:
    """Rows = records with a value for `metric` in some cell of `stratum` (the `limit` best, pooled rows first),
    columns = the stratum's values. Records with no such value are listed in `without`, with the reason."""
    metric = metric or benchmark.stratum_metric
    stratum_name = benchmark.stratum_label(stratum).lower()
    rows, without, seen = [], [], {}
    labels: dict[str, int] = {}
    for e in sorted(entries, key=lambda e: _order_key(benchmark, e)):
        r = e.result
        label = f"{canonical_info(r.model, r.source).name} · {SOURCE_NAMES.get(r.source, r.source)}"
        labels[label] = labels.get(label, 0) + 1
        if labels[label] > 1:
            label = f"{label} #{labels[label]}"
        cells = r.strata.get(stratum) or {}
        if not cells:
            without.append((label, _why_none(r, stratum_name)))
            continue
        shown = any(_has_value(c, metric) or c.get("suppressed") for c in cells.values())
        if not shown:
            why = ("its cells have no values yet (metric pending)" if any("metrics" in c for c in cells.values())
                   and r.source == "submission" else f"no {benchmark.metric_spec(metric).label} per {stratum_name}")
            without.append((label, why))
            continue
        rows.append((label, r, cells))
    total = len(rows)
    if limit is not None:
        rows = rows[:limit]
    for _, _, cells in rows:  # the columns of the rows shown
        seen.update(dict.fromkeys(cells))
    values = _ordered_values(benchmark, stratum, list(seen))
    overall = len(values) == 1 and any(r.metrics.get(metric) is not None for _, r, _ in rows)
    built = [Row(label, canonical_info(r.model, r.source).name, r.source,
                 {**({ALL_CASES: _overall(r, metric)} if overall else {}),
                  **{v: _cell(cells.get(v), metric) for v in values}})
             for label, r, cells in rows]
    return Breakdown(benchmark.name, stratum, metric, ([ALL_CASES] if overall else []) + values, built, without,
                     total)


def _overall(result, metric: str) -> Cell:
    value = result.metrics.get(metric)
    ci = result.ci.get(metric)
    if value is None:
        return Cell(None, result.n_items or None, gap=NOT_REPORTED)
    return Cell(float(value), result.n_items or None, tuple(ci) if ci else None)


def radar_data(bd: Breakdown, chosen: list[str] | None = None, top: int = 5):
    """(axes, series, notes) for a radar of the chosen row labels (default: the first `top` rows).

    Axes are the stratum values where at least one chosen row has a value; a chosen row's missing value stays
    None (a gap, never 0). `notes` says which axes were left out and which chosen rows have no data."""
    known = {r.label: r for r in bd.rows}
    picked = [label for label in (chosen or [r.label for r in bd.rows[:top]])]
    notes = [f"{label}: no values for this view" for label in picked if label not in known]
    rows = [known[label] for label in picked if label in known]
    axes = [v for v in bd.values if any(r.cells[v].value is not None for r in rows)]
    left_out = [v for v in bd.values if v not in axes]
    if left_out and rows:
        notes.append("left out (no value for any chosen model): " + ", ".join(left_out))
    series = {r.label: [r.cells[v].value for v in axes] for r in rows}
    gaps = [f"{label} ({sum(x is None for x in values)})" for label, values in series.items() if None in values]
    if gaps:
        notes.append("gaps where a value is hidden or not reported: " + ", ".join(gaps))
    return axes, series, notes
