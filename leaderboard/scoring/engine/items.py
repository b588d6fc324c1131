"""Per-item score columns and labels in, published numbers and their item sets out.

`mean_metrics` is the engine's general kind: each metric is the mean (x100) of one per-item column
over every item of the split; its stratum cells are the same mean over the items holding each label
value. The item set of every number it returns is in `Numbers.cells`, built from the same labels that
made the cells, so a number and its item set cannot disagree.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from ..aggregate import by_stratum, overall
from ...privacy.disclosure import Cells, cell_key, metric_key
from ..metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, mean_and_ci

CI_RESAMPLES = DEFAULT_RESAMPLES  # the one default count, everywhere
CI_SEED = DEFAULT_SEED


@dataclass
class Numbers:
    """What the engine computed: metric -> value, metric -> [low, high], stratum -> value -> cell, and
    the item sets behind them (one `Cells` per universe of items)."""

    metrics: dict[str, float | None] = field(default_factory=dict)
    ci: dict[str, list[float]] = field(default_factory=dict)
    strata: dict[str, dict[str, dict]] = field(default_factory=dict)
    cells: list[Cells] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # metric -> items it is computed from
    derived: dict[str, list[str]] = field(default_factory=dict)  # metric -> the metrics it averages


def mean_metrics(scores: dict[str, np.ndarray], labels: dict[str, Sequence[Any]], n_items: int,
                 resamples: int = CI_RESAMPLES, seed: int = CI_SEED,
                 whole_set: Sequence[str] = ()) -> Numbers:
    """Means x100 of per-item columns (aligned with the key's rows; missing items already scored), their
    percentile-bootstrap CIs over items, the same means per stratum cell, and the item sets: every
    metric (and each name in `whole_set`, e.g. metrics pending here) over all `n_items` items, each
    stratum cell over its items. A list label puts the item in each of its values."""
    metrics, ci = overall(scores, resamples, seed)
    names = list(dict.fromkeys([*scores, *whole_set]))
    return Numbers(metrics, ci, by_stratum(scores, labels), [Cells.from_labels(labels, names, n=n_items)])


def scored_means(columns: dict[str, np.ndarray], scales: dict[str, float], stratum: str, labels: Sequence[Any],
                 order: Sequence[str] = (), resamples: int = CI_RESAMPLES, seed: int = CI_SEED) -> Numbers:
    """The judged kind: each metric is the mean x scale of one column over the items that have a value
    (NaN = not scored, e.g. a judge gave no verdict), with a percentile-bootstrap CI resampling those
    items; the same per cell of one stratum (cells listed in `order`, then the other values sorted; None
    is '(missing)'), each cell with its own CIs and n per metric. Item sets: a metric's scored items, a
    cell's items."""
    numbers = Numbers()
    for name, column in columns.items():
        mean, bounds, n = mean_and_ci(column, scales[name], resamples, seed)
        numbers.metrics[name], numbers.counts[name] = mean, n
        if bounds is not None:
            numbers.ci[name] = bounds
    values = np.array(["(missing)" if v is None else v for v in labels], dtype=object)
    present = set(values.tolist())
    masks, keys = [], []
    for name, column in columns.items():
        masks.append(~np.isnan(np.asarray(column, dtype=np.float64)))
        keys.append(metric_key(name))
    if columns:
        cells = {}
        for value in [v for v in order if v in present] + sorted(present - set(order)):
            mask = values == value
            cell = {"n": int(mask.sum()), "metrics": {}, "ci": {}, "n_by_metric": {}}
            for name, column in columns.items():
                mean, bounds, n = mean_and_ci(column[mask], scales[name], resamples, seed)
                cell["metrics"][name], cell["n_by_metric"][name] = mean, n
                if bounds is not None:
                    cell["ci"][name] = bounds
            cells[value] = cell
            masks.append(mask)
            keys.append(cell_key(stratum, value))
        numbers.strata = {stratum: cells}
    n = len(values)
    numbers.cells = [Cells(np.column_stack(masks) if masks else np.zeros((n, 0), dtype=bool), keys,
                           {key: stratum for key in keys if key[0] == "stratum"})]
    return numbers
