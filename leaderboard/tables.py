"""Leaderboard tables as DataFrames: the Space only draws what these return."""
from __future__ import annotations

import pandas as pd

from .benchmarks.base import Benchmark
from .result import Result


def ranked_table(benchmark: Benchmark, records: list[Result]) -> pd.DataFrame:
    """One row per record that has the primary metric, best first; other metrics as columns."""
    primary = benchmark.primary_metric
    rows = []
    for record in records:
        if record.metrics.get(primary) is None:
            continue
        row = {
            "model": record.model.name,
            "source": record.source,
            "access": record.model.access,
            "domain": record.model.domain,
            "reasoning": record.model.reasoning,
            "comparable": record.protocol.get("comparable_to_paper"),
            "flags": len(record.cell_flags),
        }
        row.update({m.name: record.metrics.get(m.name) for m in benchmark.metrics})
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    ascending = not benchmark.metric(primary).higher_is_better
    table = table.sort_values(primary, ascending=ascending, kind="stable").reset_index(drop=True)
    table.insert(0, "rank", table[primary].rank(method="min", ascending=ascending).astype(int))
    return table
