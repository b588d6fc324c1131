"""Leaderboard views as DataFrames: ranked table, stratified view, radar data, overview, export.
The Space only draws what these return."""
from __future__ import annotations

import io
import json
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .benchmark import Benchmark
from .tie_groups import rank_labels, tie_groups
from .result import Result
from .run_settings import describe

SOURCE_BADGES = {"paper": "paper", "submission": "submitted", "human": "human"}
ALWAYS_SHOWN = ("rank", "model", "source")
SIZE_BUCKETS = ("<10B", "10-70B", ">70B", "unknown")
ANY = "any"


@dataclass
class Entry:
    """A result as the leaderboard sees it: the public record, its id and (server-side only) the
    resampled primary-metric means used for paired tie tests."""

    result: Result
    entry_id: str
    resamples: np.ndarray | None = None


@dataclass
class Filters:
    access: str = ANY  # open | proprietary
    domain: str = ANY  # general | medical
    reasoning: str = ANY  # yes | no
    input_modality: str = ANY  # multimodal | text-only
    size: str = ANY  # one of SIZE_BUCKETS
    sources: tuple[str, ...] = ("paper", "submission", "human")
    search: str = ""
    comparable_only: bool = False
    columns: list[str] | None = None  # metric columns to show (default: all)


def size_bucket(params_b: float | None) -> str:
    if params_b is None:
        return "unknown"
    return "<10B" if params_b < 10 else ("10-70B" if params_b <= 70 else ">70B")


def protocol_badge(result: Result) -> str:
    if result.protocol.get("comparable_to_paper"):
        return "paper protocol"
    reasons = result.protocol.get("not_comparable_because") or ["protocol differs"]
    return "DIFFERS: " + "; ".join(dict.fromkeys(reasons))


def _matches(result: Result, f: Filters) -> bool:
    m = result.model
    checks = [
        f.access == ANY or m.access == f.access,
        f.domain == ANY or m.domain == f.domain,
        f.reasoning == ANY or (m.reasoning is True and f.reasoning == "yes") or (m.reasoning is False and f.reasoning == "no"),
        f.input_modality == ANY or m.input_modality == f.input_modality,
        f.size == ANY or size_bucket(m.params_b) == f.size,
        result.source in f.sources,
        not f.search or f.search.casefold() in (m.name + " " + (m.organisation or "")).casefold(),
        not f.comparable_only or bool(result.protocol.get("comparable_to_paper")),
    ]
    return all(checks)


def ranked_table(benchmark: Benchmark, entries: list[Entry] | list[Result], filters: Filters | None = None) -> pd.DataFrame:
    """Rows with the primary metric, best first, after filters; `rank` shows tie groups ('2-4')."""
    filters = filters or Filters()
    entries = [e if isinstance(e, Entry) else Entry(e, f"row{i}") for i, e in enumerate(entries)]
    primary = benchmark.primary_metric
    spec = benchmark.metric(primary)
    kept = [e for e in entries if e.result.metrics.get(primary) is not None and _matches(e.result, filters)]
    kept.sort(key=lambda e: (-e.result.metrics[primary] if spec.higher_is_better else e.result.metrics[primary],
                             e.result.created_at))
    metric_names = filters.columns or [m.name for m in benchmark.metrics]
    rows = []
    for e in kept:
        r = e.result
        ci = r.ci.get(primary)
        row = {
            "model": r.model.name,
            "source": SOURCE_BADGES.get(r.source, r.source),
            primary: r.metrics[primary],
            f"{primary} 95% CI": f"[{ci[0]:.1f}, {ci[1]:.1f}]" if ci else "",
            "coverage %": None if r.coverage is None else round(100 * r.coverage, 1),
            "date": r.created_at[:10],
            "organisation": r.model.organisation or "",
            "access": r.model.access or "",
            "domain": r.model.domain or "",
            "reasoning": {True: "yes", False: "no"}.get(r.model.reasoning, ""),
            "input": r.model.input_modality or "",
            "params (B)": r.model.params_b,
            "protocol": protocol_badge(r),
            "run settings": describe(r.protocol.get("run_settings")),
            "flagged cells": ", ".join(sorted(r.cell_flags)) or "",
            "id": "" if r.source != "submission" else e.entry_id,  # paper rows have no submission id
        }
        row.update({name: r.metrics.get(name) for name in metric_names if name != primary})
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return pd.DataFrame(columns=["rank", "model", "source", primary])
    table.insert(0, "rank", rank_labels(tie_groups([e.resamples for e in kept])))
    return drop_empty_columns(table, keep=(*ALWAYS_SHOWN, primary))


def drop_empty_columns(table: pd.DataFrame, keep: tuple[str, ...]) -> pd.DataFrame:
    """Columns with nothing in any visible row (e.g. CIs when only paper rows are shown) only add noise."""
    empty = [c for c in table.columns if c not in keep and (table[c].isna() | table[c].astype(object).eq("")).all()]
    return table.drop(columns=empty)


def strata_names(entries: list[Entry]) -> list[str]:
    names: dict[str, None] = {}
    for e in entries:
        names.update(dict.fromkeys(e.result.strata))
    return list(names)


def top_entries(benchmark: Benchmark, entries: list[Entry], limit: int | None) -> list[Entry]:
    """The `limit` best entries by the primary metric (all when limit is None), best first."""
    primary, spec = benchmark.primary_metric, benchmark.metric(benchmark.primary_metric)
    scored = [e for e in entries if e.result.metrics.get(primary) is not None]
    scored.sort(key=lambda e: -e.result.metrics[primary] if spec.higher_is_better else e.result.metrics[primary])
    rest = [e for e in entries if e.result.metrics.get(primary) is None]
    ordered = scored + rest
    return ordered if limit is None else ordered[:limit]


def strata_table(benchmark: Benchmark, entries: list[Entry], stratum: str, metric: str | None = None,
                 limit: int | None = None) -> pd.DataFrame:
    """Rows = models (the `limit` best by the primary metric), columns = stratum values ('value (n=12)'),
    cells = the metric in that cell."""
    metric = metric or benchmark.stratum_metric
    rows, columns = [], {}
    for e in top_entries(benchmark, entries, limit) if limit else entries:
        cells = e.result.strata.get(stratum)
        if not cells:
            continue
        row = {"model": e.result.model.name, "source": SOURCE_BADGES.get(e.result.source, e.result.source)}
        for value, cell in cells.items():
            label = f"{value} (n={cell['n']})"
            columns[label] = None
            row[label] = cell["metrics"].get(metric)
        rows.append(row)
    table = pd.DataFrame(rows, columns=["model", "source", *columns])
    return table


def radar_series(benchmark: Benchmark, entries: list[Entry], stratum: str, models: list[str] | None = None,
                 metric: str | None = None, top: int = 5) -> dict[str, dict[str, float]]:
    """model -> {stratum value: metric}; empty when fewer than three values make it meaningless.
    Default models: the top `top` by the primary metric that have this stratum."""
    metric = metric or benchmark.stratum_metric
    with_stratum = [e for e in entries if e.result.strata.get(stratum)]
    values = {v for e in with_stratum for v in e.result.strata[stratum]}
    if len(values) < 3:
        return {}
    if not models:
        ranked = sorted(with_stratum, key=lambda e: -(e.result.metrics.get(benchmark.primary_metric) or -1e9))
        models = [e.result.model.name for e in ranked[:top]]
    order = sorted(values)
    series = {}
    for e in with_stratum:
        if e.result.model.name in models and e.result.model.name not in series:
            cells = e.result.strata[stratum]
            series[e.result.model.name] = {v: cells[v]["metrics"].get(metric) if v in cells else None for v in order}
    return series


def overview_table(benchmarks: list[Benchmark], entries_by_benchmark: dict[str, list[Entry]]) -> pd.DataFrame:
    """One row per model name, one column per benchmark's primary metric (best row of that model)."""
    best: dict[str, dict[str, float]] = {}
    for bench in benchmarks:
        primary = bench.primary_metric
        for e in entries_by_benchmark.get(bench.name, []):
            value = e.result.metrics.get(primary)
            if value is None:
                continue
            cell = best.setdefault(e.result.model.name, {})
            column = f"{bench.pretty_name} ({primary})"
            if column not in cell or (value > cell[column] if bench.metric(primary).higher_is_better
                                      else value < cell[column]):
                cell[column] = value
    table = pd.DataFrame([{"model": name, **cells} for name, cells in best.items()])
    if table.empty:
        return table
    table.insert(1, "benchmarks", table.drop(columns=["model"]).notna().sum(axis=1))
    return table.sort_values(["benchmarks", "model"], ascending=[False, True]).reset_index(drop=True)


def reported_baselines(entries: list[Entry], primary: str) -> pd.DataFrame:
    """Rows that measure another task (no primary metric), e.g. a paper's human-vs-model study."""
    rows = []
    for e in entries:
        if e.result.metrics.get(primary) is None and e.result.source in ("human", "paper"):
            rows.append({"model": e.result.model.name, "source": SOURCE_BADGES.get(e.result.source, e.result.source),
                         "task": e.result.protocol.get("task", ""), **e.result.metrics,
                         "notes": " ".join(e.result.notes)})
    return pd.DataFrame(rows)


FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(table: pd.DataFrame) -> pd.DataFrame:
    """Text cells a spreadsheet would run as a formula get a leading apostrophe (OWASP CSV injection)."""
    def clean(value):
        if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
            return "'" + value
        return value
    safe = table.copy()
    for column in safe.columns:
        if not pd.api.types.is_numeric_dtype(safe[column]):
            safe[column] = safe[column].map(clean)
    safe.columns = [clean(str(c)) for c in safe.columns]
    return safe


def export_csv(table: pd.DataFrame) -> str:
    buffer = io.StringIO()
    # CRLF rows (RFC 4180): the csv writer then quotes any cell holding a CR, which a bare-LF export left
    # unquoted, so "\r=cmd" split into a new row that opened with the formula the apostrophe was guarding
    spreadsheet_safe(table).to_csv(buffer, index=False, lineterminator="\r\n")
    return buffer.getvalue()


def export_json(table: pd.DataFrame) -> str:
    """Values as they are: JSON is not run by spreadsheets, so no formula escaping here."""
    return json.dumps(json.loads(table.to_json(orient="records")), indent=2, ensure_ascii=False)
