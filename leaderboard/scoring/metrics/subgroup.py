"""Means over subsets of items (per task, per category, per stratum) with bootstrap CIs, all at once.

One bootstrap over the whole item set: each resample draws items with replacement (the same draws
`bootstrap.bootstrap_means` makes for the overall mean, same seed), and every subset's resampled mean
is the ratio sum(counts * value * in_subset) / sum(counts * in_subset). Subset sizes vary across
resamples, as they would if the benchmark were redrawn. A resample holding no item of a subset gives
NaN for it, and the percentiles ignore NaNs.
"""
from __future__ import annotations

import numpy as np

from .bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, bootstrap_means


def subset_means(values: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Mean of `values` (items,) within each subset column of `masks` (items, subsets); NaN when empty."""
    values = np.asarray(values, dtype=np.float64)
    masks = np.asarray(masks, dtype=np.float64)
    counts = masks.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, values @ masks / np.where(counts > 0, counts, 1), np.nan)


def subset_replicates(values: np.ndarray, masks: np.ndarray, resamples: int = DEFAULT_RESAMPLES,
                      seed: int = DEFAULT_SEED) -> np.ndarray:
    """(resamples, subsets) bootstrap replicates of `subset_means`."""
    values = np.asarray(values, dtype=np.float64)
    masks = np.asarray(masks, dtype=np.float64)
    k = masks.shape[1]
    stacked = np.column_stack([masks * values[:, None], masks]) if len(values) else np.zeros((0, 2 * k))
    means = bootstrap_means(stacked, resamples, seed)  # (resamples, 2k): mean of value*mask, mean of mask
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(means[:, k:] > 0, means[:, :k] / np.where(means[:, k:] > 0, means[:, k:], 1), np.nan)


def percentile_bounds(replicates: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper percentile per column, ignoring NaN replicates (all-NaN columns give NaN)."""
    alpha = (1.0 - level) / 2.0
    replicates = np.asarray(replicates, dtype=np.float64)
    lo = np.full(replicates.shape[1], np.nan)
    hi = np.full(replicates.shape[1], np.nan)
    for j in range(replicates.shape[1]):
        column = replicates[:, j]
        column = column[~np.isnan(column)]
        if column.size:
            lo[j], hi[j] = np.quantile(column, alpha), np.quantile(column, 1.0 - alpha)
    return lo, hi
