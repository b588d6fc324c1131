"""Leaderboard views as DataFrames: ranked table, stratified view, radar data, overview, export.
The Space only draws what these return."""
from __future__ import annotations

import io
import json

import pandas as pd

from ..scoring.benchmark import Benchmark
from .board import SOURCE_BADGES
from .entry import Entry  # noqa: F401 (imported from here by the Space and tests)
from .models import canonical_info

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
