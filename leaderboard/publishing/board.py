"""A benchmark's board, computed once per store version: ranks on the whole board, confidence intervals,
protocol badges and the columns of every row. A view (filters, search, column choice) is then a slice of it:
rows are masked, never re-ranked, and only the rows drawn are formatted.

Two boards per benchmark: the main board (paper rows, human rows and submissions scored on the paper's full
release) and the sample board (submissions scored on a smaller build, e.g. the shipped synthetic samples),
ranked among themselves and never labelled "paper protocol".
"""
from __future__ import annotations

import html
import itertools
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..scoring.benchmark import Benchmark
from .heap import release_freed_memory
from .row_facts import gap as _gap, size_bucket  # noqa: F401 (size_bucket: imported from here)
from .tie_groups import rank_ranges, wilson

SOURCE_BADGES = {"paper": "paper", "submission": "submitted", "human": "human"}
SIZE_BUCKETS = ("<10B", "10-70B", ">70B", "unknown")
ANY = "any"
MAIN, SAMPLE = "main", "sample"
PAIR_OUTCOMES: dict[str, dict] = {}  # benchmark -> paired-test outcomes by (entry id, score) pair, kept across rebuilds


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
    boards: tuple[str, ...] = (MAIN, SAMPLE)  # the Space shows MAIN, and SAMPLE only when asked


def release_gap(bench: Benchmark, result) -> str | None:
    """Why a submission was not scored on the paper's full release (None when it was, or when unknown)."""
    return _gap(bench, result.source, result.protocol, result.n_items)


def main_entries(bench: Benchmark, entries: list) -> list:
    """Entries that belong on the main board and in the overview (sample-data submissions left out)."""
    return [e for e in entries if not release_gap(bench, e.result)]


def _paper_interval(spec, protocol: dict, n_items: int, value: float) -> tuple[float, float, str] | None:
    if not spec.proportion:
        return None
    n = spec.published_n or (protocol.get("n_by_metric") or {}).get(spec.name) or n_items
    if not n:
        return None
    lo, hi = wilson(value, int(n))
    return lo, hi, f"Wilson, n={int(n):,}"


def ci_note(bench: Benchmark) -> str:
    """One sentence on how paper rows get (or do not get) a CI, for the page."""
    spec = bench.metric(bench.primary_metric)
    if spec.proportion:
        n = f"n = {spec.published_n:,}" if spec.published_n else "n of each row"
        return (f"CIs of paper rows: 95% Wilson score interval from the published {n} ({spec.label} is a "
                "proportion of items).")
    return (f"Paper rows have no CI: {spec.label} is not a proportion of items, so no interval follows from the "
            "published n; they rank by their point value.")


@dataclass
class Part:
    """One board (main or sample): rows in score order with everything a view needs."""

    entries: list
    badge_reasons: list[str]
    search_text: list[str]
    paired: bool = True
    arrays: dict = field(default_factory=dict)  # column -> numpy array: views index these

    @property
    def frame(self) -> pd.DataFrame:
        """The download shape (ids as headers, full precision), built when asked for, not kept: pandas copies
        every text column into Arrow strings (~6 MB per 20,000 rows), a second copy of what `arrays` holds."""
        return pd.DataFrame(dict(self.arrays.items()), copy=False)


@dataclass
class View:
    """What a view draws: the Dataframe payload (values for sorting, display strings for reading)."""

    headers: list[str]
    data: list[list]
    display: list[list[str]]
    datatypes: list[str]
    _part: "Part"
    _rows: np.ndarray  # every filtered row
    total: int  # rows after filters

    @property
    def download(self) -> pd.DataFrame:
        """Every filtered row, ids and full precision (built only when a download file is written)."""
        frame = self._part.frame.iloc[self._rows].drop(columns=["source_kind", "size"])
        return frame.reset_index(drop=True)

    def payload(self) -> dict:
        return {"headers": self.headers, "data": self.data,
                "metadata": {"display_value": self.display, "styling": [[""] * len(self.headers)] * len(self.data)}}


_SERIALS = itertools.count(1)
VIEWS_KEPT = 16  # per board build; a 500-row view is ~0.5 MB of Python lists


@dataclass
class Board:
    bench: Benchmark
    parts: dict[str, Part] = field(default_factory=dict)
    serial: int = field(default_factory=lambda: next(_SERIALS))  # a new number per build: pages redraw on change
    # drawn views of this build by (board, filters, limit), most recent last: a refresh, the live timer and every
    # page load ask for the same few views again, and a board never changes once built (a new result = new Board)
    _views: dict = field(default_factory=dict, repr=False, compare=False)
    _views_lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @classmethod
    def build(cls, bench: Benchmark, entries: list) -> "Board":
        """From the entries' columns (board_columns: stored results' values derived once, when read)."""
        from .board_columns import columns_of

        columns = columns_of(entries, bench)
        ranked = ~np.isnan(columns.metrics[bench.primary_metric])
        sample = np.array([g is not None for g in columns.text["gap"]], dtype=bool)
        board = cls(bench)
        for name, keep in ((MAIN, np.flatnonzero(ranked & ~sample)), (SAMPLE, np.flatnonzero(ranked & sample))):
            board.parts[name] = _part(bench, [entries[i] for i in keep], columns.take(keep))
        return board

    def count(self, board: str) -> int:
        return len(self.parts[board].entries)

    def mask(self, board: str, f: Filters) -> np.ndarray:
        part = self.parts[board]
        keep = np.ones(len(part.entries), dtype=bool)
        if not len(keep):
            return keep
        for column, wanted in (("access", f.access), ("domain", f.domain), ("reasoning", f.reasoning),
                               ("input_modality", f.input_modality), ("size", f.size)):
            if wanted != ANY:
                keep &= part.arrays[column] == wanted
        keep &= np.isin(part.arrays["source_kind"], list(f.sources))
        if f.comparable_only:
            keep &= part.arrays["protocol"] == "paper protocol"
        if f.search:
            needle = f.search.casefold()
            keep &= np.fromiter((needle in text for text in part.search_text), bool, len(keep))
        return keep

    def view(self, board: str, f: Filters, limit: int | None = None) -> View:
        """The drawn rows (shared with other callers asking for the same view: read them, never change them)."""
        key = (board, repr(f), limit)
        with self._views_lock:
            found = self._views.get(key)
        if found is None:  # drawn outside the lock: two threads asking at once both draw, harmlessly
            part = self.parts[board]
            rows = np.flatnonzero(self.mask(board, f))
            shown = rows if limit is None else rows[:limit]
            found = _draw(self.bench, part, shown, f.columns, rows)
        with self._views_lock:
            self._views.pop(key, None)
            self._views[key] = found  # (re)inserted last: the least recently asked view goes first
            while len(self._views) > VIEWS_KEPT:
                self._views.pop(next(iter(self._views)))
        return found


def _part(bench: Benchmark, entries: list, columns) -> Part:
    """One board from its rows' columns (board_columns.Columns): sorted, ranked, laid out; no per-row derivation."""
    primary = bench.primary_metric
    spec = bench.metric(primary)
    sign = -1.0 if spec.higher_is_better else 1.0
    order = np.lexsort((columns.created_at.astype(str), sign * columns.metrics[primary]))  # stable: ties keep order
    entries, columns = [entries[i] for i in order], columns.take(order)
    scores = columns.metrics[primary].astype(float)
    lows, highs = columns.ci_low.copy(), columns.ci_high.copy()
    submitted = columns.text["source"] == "submission"
    methods = np.where(~np.isnan(lows), "bootstrap over items", np.where(submitted, "none", "none (not a proportion)"))
    methods = np.array(_shared(methods.tolist()), dtype=object)  # three labels, not a string object per row
    for i in np.flatnonzero(np.isnan(lows) & ~submitted):  # paper rows: a Wilson CI from the published n
        n = {"n_by_metric": {primary: int(columns.n_primary[i])}} if columns.n_primary[i] == columns.n_primary[i] else {}
        interval = _paper_interval(spec, n, int(columns.n_items[i]), float(scores[i]))
        if interval:
            lows[i], highs[i], methods[i] = interval
    lo_rank = np.where(np.isnan(lows), scores, lows)
    hi_rank = np.where(np.isnan(highs), scores, highs)
    ranks = rank_ranges(scores, lo_rank, hi_rank, spec.higher_is_better,
                        resamples=[e.paired_resamples for e in entries],
                        pair_keys=columns.text["fingerprint"].tolist(), decimals=spec.decimals,
                        pair_ids=[(e.entry_id, s) for e, s in zip(entries, scores.tolist())],
                        cache=PAIR_OUTCOMES.setdefault(bench.name, {}))
    text = columns.text
    table = {
        "rank": _shared(ranks.labels()),
        "rank_best": ranks.best,
        "rank_worst": ranks.worst,
        "model": text["name"],
        "source": np.array([SOURCE_BADGES.get(s, s) for s in text["source"].tolist()], dtype=object),
        "protocol": text["badge"],
        "protocol_reasons": text["badge_reason"],
        primary: scores,
        f"{primary}_ci_low": lows,
        f"{primary}_ci_high": highs,
        "ci_method": methods,
    }
    others = [m.name for m in bench.metrics if m.name != primary]
    table.update(dict.fromkeys(others))  # their place in the column order; read from `columns.metrics` when drawn
    table.update({
        "coverage_pct": 100 * columns.coverage,
        "date": text["date"],
        "organisation": text["organisation"],
        "access": text["access"],
        "domain": text["domain"],
        "reasoning": text["reasoning"],
        "input_modality": text["input_modality"],
        "params_b": columns.params_b,
        "run_settings": text["run_settings"],
        "flagged_cells": text["flags"],
        "id": np.where(submitted, np.array([e.entry_id for e in entries], dtype=object), ""),
        "source_kind": text["source"],
        "size": text["size"],
    })
    arrays = {name: np.asarray(values, dtype=object if isinstance(values, list) else None)
              for name, values in table.items() if name not in others}
    return Part(entries, text["badge_reason"], text["search"], ranks.paired,
                PartColumns(list(table), arrays, columns.metrics))


class PartColumns(Mapping):
    """A part's columns in download order: the ones the board computed, held as arrays, and the other metrics,
    gathered from the stored columns (board_columns.Metrics) when a view or a download reads them."""

    def __init__(self, order: list, arrays: dict, metrics):
        self._order, self._arrays, self._metrics = order, arrays, metrics

    def __getitem__(self, name: str) -> np.ndarray:
        found = self._arrays.get(name)
        if found is not None:
            return found
        if name in self._order:
            return self._metrics[name]
        raise KeyError(name)

    def __iter__(self):
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)


def _shared(values: list) -> list:
    """Equal strings as one object: a board of 20,000 rows repeats a few access levels, dates, badges and rank
    labels thousands of times (each a separate object when read from Arrow or formatted per row)."""
    seen: dict = {}
    return [seen.setdefault(v, v) for v in values]


# --------------------------------------------------------------------------- drawing the shown rows
META = (  # (download column, header, decimals or None for text)
    ("source", "Source", None), ("coverage_pct", "Coverage %", 1), ("date", "Date", None),
    ("organisation", "Organisation", None), ("access", "Access", None), ("domain", "Domain", None),
    ("reasoning", "Reasoning", None), ("input_modality", "Input", None), ("params_b", "Params (B)", 0),
    ("run_settings", "Run settings", None), ("flagged_cells", "Flagged cells", None), ("id", "Submission id", None),
)


def _fmt(value, decimals: int) -> str:
    return "" if value is None or value != value else f"{value:.{decimals}f}"  # value != value: NaN


def _draw(bench: Benchmark, part: Part, rows: np.ndarray, chosen: list[str] | None, filtered: np.ndarray) -> View:
    primary = bench.primary_metric
    spec = bench.metric(primary)
    frame = _Rows(part.arrays, rows)
    metric_names = [m.name for m in bench.metrics if m.name != primary and (chosen is None or m.name in chosen)]
    headers, data, display, types = [], [], [], []

    def add(header, values, shown, kind):
        headers.append(header), data.append(values), display.append(shown), types.append(kind)

    add("Rank", frame["rank_best"].tolist(), frame["rank"].tolist(), "number")
    add("Model", frame["model"].tolist(), frame["model"].tolist(), "str")
    d = spec.decimals
    values, lows, highs = frame[primary].tolist(), frame[f"{primary}_ci_low"].tolist(), frame[f"{primary}_ci_high"].tolist()
    add(spec.label, [_clean(v) for v in values],
        [f"{v:.{d}f}" + ("" if np.isnan(lo) else f" [{lo:.{d}f}, {hi:.{d}f}]") for v, lo, hi in zip(values, lows, highs)],
        "number")
    for name in metric_names:
        column = frame[name].tolist()
        if all(np.isnan(v) for v in column):
            continue  # nothing in any shown row (e.g. a metric only submissions have, on paper rows)
        m = bench.metric(name)
        add(m.label, [_clean(v) for v in column], [_fmt(v, m.decimals) for v in column], "number")
    reasons = [part.badge_reasons[i] for i in rows]
    add("Protocol", frame["protocol"].tolist(),
        [f'<span class="badge" title="{html.escape(why)}">{html.escape(badge)}</span>'
         for badge, why in zip(frame["protocol"].tolist(), reasons)], "html")
    for column, header, decimals in META:
        values = frame[column].tolist()
        if decimals is None:
            if not any(values):
                continue
            add(header, values, values, "str")
        else:
            if all(np.isnan(v) for v in values):
                continue
            add(header, [_clean(v) for v in values], [_fmt(v, decimals) for v in values], "number")
    return View(headers, [list(r) for r in zip(*data)], [list(r) for r in zip(*display)], types, part, filtered,
                len(filtered))


class _Rows:
    """The shown rows of a part's column arrays, column by column (`rows["model"].tolist()`)."""

    def __init__(self, arrays: dict, rows: np.ndarray):
        self.arrays, self.rows = arrays, rows

    def __getitem__(self, column: str) -> np.ndarray:
        return self.arrays[column][self.rows]


def _clean(value):
    return None if value != value else value  # NaN -> None (JSON null)


# --------------------------------------------------------------------------- one board per store version
class BoardCache:
    """Boards keyed on the entries list they were built from (the service returns the same list object until a
    result lands), so every view between two results is a slice."""

    def __init__(self):
        self._boards: dict[str, tuple[int, list, Board]] = {}
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}  # one build per benchmark at a time; others wait for it

    def get(self, bench: Benchmark, entries: list) -> Board:
        with self._lock:
            cached = self._boards.get(bench.name)
            if cached and cached[1] is entries:
                return cached[2]
            building = self._building.setdefault(bench.name, threading.Lock())
        with building:
            with self._lock:
                cached = self._boards.get(bench.name)
                if cached and cached[1] is entries:
                    return cached[2]
            board = Board.build(bench, entries)
            with self._lock:
                previous = self._boards.get(bench.name)
                self._boards[bench.name] = (id(entries), entries, board)
            del previous
            release_freed_memory()  # the build's scratch and the board it replaced
        return board


BOARDS = BoardCache()
