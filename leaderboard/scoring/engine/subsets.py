"""The subset kind: one per-item column (e.g. MCQ correctness) averaged over many item subsets (the whole
set, tasks, categories, modalities...) that share one set of bootstrap resamples, so a macro mean over
subsets gets a CI from the same draws. Each subset is a stratum cell, and some are also metric columns
(`metric_of`); both are keyed to the subset's exact mask, so a cell and its metric twin are one number
for disclosure control."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..aggregate import SCALE
from ...privacy.disclosure import Cells, cell_key, metric_key
from ..metrics.subgroup import percentile_bounds, subset_means, subset_replicates

ALL = ("all", "all")  # the whole-set subset's (stratum, value)


@dataclass
class Subsets:
    """Per subset j: its mean (fraction), its resampled means (None without resamples) and its CI."""

    columns: np.ndarray  # (items, subsets) booleans
    names: list[tuple[str, str]]  # (stratum, value) per subset; ALL for the whole set
    means: np.ndarray
    replicates: np.ndarray | None
    low: np.ndarray | None
    high: np.ndarray | None

    def value(self, j: int) -> float | None:
        """Subset j's mean x100, or None when it holds no item."""
        return None if np.isnan(self.means[j]) else round(float(self.means[j]) * SCALE, 4)

    def interval(self, j: int) -> list[float] | None:
        if self.low is None or np.isnan(self.low[j]):
            return None
        return [round(float(self.low[j]) * SCALE, 4), round(float(self.high[j]) * SCALE, 4)]

    def macro(self, members: list[int]) -> tuple[float | None, list[float] | None]:
        """The unweighted mean x100 of the given subsets' means (empty subsets left out) and its CI from
        the same resamples; (None, None) when every one is empty."""
        chosen = self.means[members]
        if not np.any(~np.isnan(chosen)):
            return None, None
        value = round(float(np.nanmean(chosen)) * SCALE, 4)
        if self.replicates is None:
            return value, None
        low, high = percentile_bounds(_row_nanmean(self.replicates[:, members])[:, None])
        return value, [round(float(low[0]) * SCALE, 4), round(float(high[0]) * SCALE, 4)]

    def strata(self, cell_metric: str) -> dict[str, dict[str, dict]]:
        """stratum -> value -> {n, metrics: {cell_metric}, ci: {cell_metric}} for every non-empty subset."""
        counts = self.columns.sum(axis=0)
        out: dict[str, dict[str, dict]] = {}
        for j, (stratum, value) in enumerate(self.names):
            if (stratum, value) == ALL or counts[j] == 0:
                continue
            cell = {"n": int(counts[j]), "metrics": {cell_metric: round(float(self.means[j]) * SCALE, 4)}}
            if self.interval(j) is not None:
                cell["ci"] = {cell_metric: self.interval(j)}
            out.setdefault(stratum, {})[value] = cell
        return out

    def cells(self, metric_of: Callable[[str, str], str | None]) -> Cells:
        """The item set behind every metric column (`metric_of(stratum, value)`, None: no column) and every
        stratum cell; a stratum's cells and columns are built from that stratum's label column."""
        masks, keys, sources = [], [], {}
        for j, (stratum, value) in enumerate(self.names):
            metric = metric_of(stratum, value)
            if metric is not None:
                masks.append(self.columns[:, j])
                keys.append(metric_key(metric))
                if (stratum, value) != ALL:
                    sources[keys[-1]] = stratum
            if (stratum, value) != ALL:
                masks.append(self.columns[:, j])
                keys.append(cell_key(stratum, value))
                sources[keys[-1]] = stratum
        empty = np.zeros((len(self.columns), 0), dtype=bool)
        return Cells(np.column_stack(masks) if masks else empty, keys, sources)


def subset_numbers(values: np.ndarray, columns: np.ndarray, names: list[tuple[str, str]], resamples: int,
                   seed: int) -> Subsets:
    """Means of `values` over each subset column, with percentile-bootstrap CIs over items from shared
    resamples (ratio of resampled sums to resampled counts in the subset)."""
    means = subset_means(values, columns)
    replicates = subset_replicates(values, columns, resamples, seed) if resamples > 0 else None
    low, high = percentile_bounds(replicates) if replicates is not None else (None, None)
    return Subsets(columns, names, means, replicates, low, high)


def _row_nanmean(matrix: np.ndarray) -> np.ndarray:
    """Mean of each row over its non-NaN cells (NaN for an all-NaN row), without numpy's warning."""
    present = ~np.isnan(matrix)
    counts = present.sum(axis=1)
    totals = np.where(present, matrix, 0.0).sum(axis=1)
    return np.where(counts > 0, totals / np.maximum(counts, 1), np.nan)
