"""Models across benchmarks: the Overview (models x benchmarks, one row per registry model) and a model's
profile (each benchmark's primary metric with its CI and rank range; a specialty profile through
`specialties`). Both read the benchmarks' boards, so they follow the boards' split: the main board (paper rows
and submissions on the full release) or the sample board, never both in one view. Gaps stay gaps."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from . import models as registry
from . import specialties
from ..scoring.benchmark import Benchmark
from .board import MAIN, Board

SORTS = ("Model name (A–Z)", "Benchmarks covered (most first)", "Release date (newest first)", "Organisation (A–Z)")
NOT_LISTED = " (not in registry)"


@dataclass
class Placing:
    """A model's best row on one benchmark's board."""

    value: float
    low: float | None
    high: float | None
    rank: str
    of: int  # rows on that board
    index: int  # position in the board's part (best first)
    rows: int  # rows of this model on the board


def label(model: registry.Model) -> str:
    return model.name if model.known else model.name + NOT_LISTED


def placings(benches: list[Benchmark], boards: dict[str, Board], board: str = MAIN
             ) -> dict[str, tuple[registry.Model, dict[str, Placing]]]:
    """model id -> (model, benchmark -> its best placing), model rows only (no physician groups)."""
    out: dict[str, tuple[registry.Model, dict[str, Placing]]] = {}
    for bench in benches:
        part = boards[bench.name].parts[board]
        arrays, primary = part.arrays, bench.primary_metric
        for i, e in enumerate(part.entries):  # best first: the first row of a model is its best
            if not registry.is_model_row(e.result):
                continue
            model = registry.identity(e.result)
            _, cells = out.setdefault(model.id, (model, {}))
            if bench.name in cells:
                cells[bench.name].rows += 1
                continue
            low, high = arrays[f"{primary}_ci_low"][i], arrays[f"{primary}_ci_high"][i]
            cells[bench.name] = Placing(float(arrays[primary][i]), None if np.isnan(low) else float(low),
                                        None if np.isnan(high) else float(high), str(arrays["rank"][i]),
                                        len(part.entries), i, 1)
    return out


def overview(benches: list[Benchmark], boards: dict[str, Board], sort: str = SORTS[0], board: str = MAIN
             ) -> tuple[dict, list[str], dict[str, str]]:
    """(Dataframe payload, datatypes, shown label -> model id). Cells: the model's best value on each board
    with its rank range; sorted as the visitor chose (a benchmark's column: best first, gaps last)."""
    found = placings(benches, boards, board)
    rows = sorted(found.values(), key=lambda r: r[0].name.casefold())
    by_bench = {f"{b.pretty_name}: {b.metric(b.primary_metric).label}": b for b in benches}
    if sort in by_bench:
        bench = by_bench[sort]
        sign = -1 if bench.metric(bench.primary_metric).higher_is_better else 1
        rows.sort(key=lambda r: (bench.name not in r[1], sign * r[1][bench.name].value if bench.name in r[1] else 0,
                                 r[0].name.casefold()))
    elif sort == SORTS[1]:
        rows.sort(key=lambda r: (-len(r[1]), r[0].name.casefold()))
    elif sort == SORTS[2]:  # stable: equal months keep name order; unknown dates ("") last
        rows.sort(key=lambda r: r[0].released or "", reverse=True)
    elif sort == SORTS[3]:
        rows.sort(key=lambda r: (r[0].organisation is None, (r[0].organisation or "").casefold()))
    headers = ["Model", "Organisation", "Params (B)", "Weights", "Released", "Benchmarks"]
    types = ["str", "str", "number", "str", "str", "number"]
    for bench in benches:  # the metric is named above the table: a header stays short
        headers.append(bench.pretty_name)
        types.append("number")
    data, display, ids = [], [], {}
    for model, cells in rows:
        shown = label(model)
        ids[shown] = model.id
        values = [shown, model.organisation or "", model.params_b, model.access or "", model.released or "",
                  len(cells)]
        texts = [shown, model.organisation or "", "" if model.params_b is None else f"{model.params_b:g}",
                 model.access or "", model.released or "", str(len(cells))]
        for bench in benches:
            cell = cells.get(bench.name)
            d = bench.metric(bench.primary_metric).decimals
            values.append(None if cell is None else cell.value)
            texts.append("" if cell is None else f"{cell.value:.{d}f} ({cell.rank} of {cell.of})")
        data.append(values)
        display.append(texts)
    payload = {"headers": headers, "data": data,
               "metadata": {"display_value": display, "styling": [[""] * len(headers)] * len(data)}}
    return payload, types, ids


def sort_choices(benches: list[Benchmark]) -> list[str]:
    return [*SORTS, *(f"{b.pretty_name}: {b.metric(b.primary_metric).label}" for b in benches)]


def profile_candidates(benches, boards, board: str = MAIN, minimum: int = 1) -> list[tuple[str, str]]:
    """(label, model id) of models on at least `minimum` benchmarks, most benchmarks first, then by name."""
    found = placings(benches, boards, board)
    ordered = sorted(found.values(), key=lambda mc: (-len(mc[1]), mc[0].name.casefold()))
    return [(f"{label(m)} ({len(c)} benchmark{'s' if len(c) != 1 else ''})", m.id) for m, c in ordered
            if len(c) >= minimum]


def benchmark_table(model_id: str, benches, boards, board: str = MAIN) -> pd.DataFrame:
    """One line per benchmark: the model's best row (value, 95% CI, rank range of the board's rows), or a gap."""
    found = placings(benches, boards, board).get(model_id)
    cells = found[1] if found else {}
    lines = []
    for bench in benches:
        spec = bench.metric(bench.primary_metric)
        cell, d = cells.get(bench.name), spec.decimals
        if cell is None:
            lines.append({"Benchmark": bench.pretty_name, "Primary metric": spec.label, "Value": "",
                          "95% CI": "", "Rank": "", "Rows": "not evaluated"})
            continue
        ci = "" if cell.low is None else f"[{cell.low:.{d}f}, {cell.high:.{d}f}]"
        lines.append({"Benchmark": bench.pretty_name, "Primary metric": spec.label, "Value": f"{cell.value:.{d}f}",
                      "95% CI": ci or "none (not a proportion)", "Rank": f"{cell.rank} of {cell.of}",
                      "Rows": f"{cell.rows} row{'s' if cell.rows != 1 else ''} (best shown)"})
    return pd.DataFrame(lines)


def specialty_table(model_id: str, benches, boards, board: str = MAIN) -> tuple[pd.DataFrame, list[str]]:
    """Rows = specialties with a value in some benchmark, columns = benchmarks (their stratum metric), cells =
    the model's value there 'value (n=..)', blank where the benchmark has no such cell for it; and notes (which
    stratum each benchmark contributes, values left unmapped)."""
    columns: dict[str, dict[str, str]] = {}
    notes = []
    for bench in benches:
        part = boards[bench.name].parts[board]
        mine = [e for e in part.entries if registry.is_model_row(e.result)
                and registry.identity(e.result).id == model_id]
        header = f"{bench.pretty_name}: {bench.metric_spec(bench.stratum_metric).label}"
        if specialties.whole_of(bench.name) and mine:
            name = specialties.whole_of(bench.name)
            spec = bench.metric(bench.primary_metric)
            header = f"{bench.pretty_name}: {spec.label}"
            best = mine[0].result
            columns[header] = {name: f"{best.metrics[bench.primary_metric]:.{spec.decimals}f} (n={best.n_items:,})"}
            notes.append(f"{bench.pretty_name}: the whole benchmark is {name.lower()} (its primary metric).")
            continue
        stratum = specialties.stratum_of(bench.name)
        if stratum is None:
            continue
        with_cells = [e for e in mine if e.result.strata.get(stratum)]
        if not with_cells:
            continue
        cells = with_cells[0].result.strata[stratum]
        d = bench.metric_spec(bench.stratum_metric).decimals
        pooled = specialties.pooled(cells, bench.name, bench.stratum_metric)
        columns[header] = {name: ("" if v is None else f"{v:.{d}f}") + (f" (n={n:,})" if n else "") +
                           (f" — {why}" if why and v is None else "")
                           for name, (v, n, why) in pooled.items()}
        left = specialties.unmapped(bench.name, cells)
        notes.append(f"{bench.pretty_name}: {bench.stratum_label(stratum).lower()}"
                     + (f" (left out, no specialty: {', '.join(left)})" if left else "") + ".")
    names = [s for s in specialties.SPECIALTIES if any(s in c for c in columns.values())]
    table = pd.DataFrame([{"Specialty": s, **{h: c.get(s, "") for h, c in columns.items()}} for s in names],
                         columns=["Specialty", *columns])
    return table, notes
