"""Leaderboard views as DataFrames: ranked table, stratified view, radar data, overview, export.
The Space only draws what these return."""
from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd

from ..scoring.benchmark import Benchmark
from .board import ANY, BOARDS, MAIN, SAMPLE, SIZE_BUCKETS, SOURCE_BADGES, Board, Filters, size_bucket  # noqa: F401
from .entry import Entry  # noqa: F401 (imported from here by the Space and tests)
from .models import canonical_info
from ..scoring.result import Result

ALWAYS_SHOWN = ("rank", "model", "source")


def ranked_table(benchmark: Benchmark, entries: list[Entry] | list[Result], filters: Filters | None = None,
                 limit: int | None = None) -> pd.DataFrame:
    """The filtered rows of the requested boards in download shape (ids as headers, full precision): main board
    first, then the sample board, each ranked on its whole board (filters never renumber)."""
    filters = filters or Filters()
    if not all(isinstance(e, Entry) for e in entries):  # the same list object keeps its cached board
        entries = [e if isinstance(e, Entry) else Entry(e, f"row{i}") for i, e in enumerate(entries)]
    board = BOARDS.get(benchmark, entries)
    frames = []
    for name in filters.boards:
        view = board.parts[name].frame.iloc[np.flatnonzero(board.mask(name, filters))]
        if limit is not None:
            view = view.head(limit)
        frames.append(view.assign(board=name))
    table = pd.concat(frames, ignore_index=True).drop(columns=["source_kind", "size"])
    keep = [m.name for m in benchmark.metrics if filters.columns is None or m.name in filters.columns
            or m.name == benchmark.primary_metric]
    table = table.drop(columns=[m.name for m in benchmark.metrics if m.name not in keep])
    return drop_empty_columns(table, keep=(*ALWAYS_SHOWN, benchmark.primary_metric))


def drop_empty_columns(table: pd.DataFrame, keep: tuple[str, ...]) -> pd.DataFrame:
    """Columns with nothing in any visible row (e.g. CIs when only paper rows are shown) only add noise."""
    empty = [c for c in table.columns if c not in keep and (table[c].isna() | table[c].astype(object).eq("")).all()]
    return table.drop(columns=empty)


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


def reported_baselines(entries: list[Entry], primary: str) -> pd.DataFrame:
    """Rows that measure another task (no primary metric), e.g. a paper's human-vs-model study."""
    rows = []
    for e in entries:
        if e.result.metrics.get(primary) is None and e.result.source in ("human", "paper"):
            rows.append({"model": canonical_info(e.result.model, e.result.source).name,
                         "source": SOURCE_BADGES.get(e.result.source, e.result.source),
                         "task": e.result.protocol.get("task", ""), **e.result.metrics,
                         "notes": " ".join(e.result.notes)})
    return pd.DataFrame(rows)


def subset_boards(benchmark: Benchmark, entries: list[Entry]) -> list[tuple[str, str, pd.DataFrame]]:
    """The reported baselines grouped by the case set they were measured on (`protocol.task`), each a board of its
    own: (task, the note all its rows share, rows best first on its first metric, labelled), never mixed with the
    main ranking."""
    primary = benchmark.metric(benchmark.primary_metric)
    table = reported_baselines(entries, benchmark.primary_metric)
    boards = []
    for task, rows in (table.groupby("task", sort=False) if not table.empty else []):
        rows = rows.dropna(axis=1, how="all")
        metrics = [c for c in rows.columns if c not in ("model", "source", "task", "notes")]
        if not metrics:
            continue
        first = metrics[0]
        rows = rows.sort_values(first, ascending=not benchmark.metric_spec(first).higher_is_better)
        labels = {m: (f"{primary.label} on this case set" if m.startswith(primary.name + "_")
                      else benchmark.metric_spec(m).label) for m in metrics}
        shared = _shared_opening(rows["notes"].tolist())  # said once above the board, not on every row
        notes = rows["notes"].map(lambda text: text[len(shared):].strip())
        shown = rows[["model", "source", *metrics]].assign(notes=notes)
        shown = shown.rename(columns={"model": "Model", "source": "Source", "notes": "Notes", **labels})
        boards.append((str(task) or "rows without the ranking metric", shared, shown.reset_index(drop=True)))
    return boards


def _shared_opening(texts: list[str]) -> str:
    """The sentences every text opens with (whole sentences only)."""
    if len(texts) < 2:
        return ""
    opening = texts[0]
    for text in texts[1:]:
        k = 0
        while k < min(len(opening), len(text)) and opening[k] == text[k]:
            k += 1
        opening = opening[:k]
    cut = opening.rfind(". ")
    return opening[:cut + 1] if cut >= 0 else ("" if opening != texts[0] else opening)


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
    return table.to_json(orient="records", indent=2, force_ascii=False)  # 10 decimals: beyond any metric's precision
