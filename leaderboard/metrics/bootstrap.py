"""Percentile bootstrap over items: resample cases with replacement, recompute every mean at once.

Each chunk of resamples draws item indices, turns them into per-item counts with one bincount, and
applies them with one matrix product, so memory stays at chunk x items whatever the resample count.
(numpy's multinomial is exact too but about 10x slower at 60,000 items.)
"""
from __future__ import annotations

import numpy as np

DEFAULT_RESAMPLES = 5000  # the papers' usual figure
DEFAULT_SEED = 20260825


def bootstrap_means(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                    chunk: int = 250) -> np.ndarray:
    """(resamples, metrics) matrix of resampled means of `values` (items, metrics)."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n = values.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, values.shape[1]))
    if n == 0:
        out[:] = np.nan
        return out
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        picks = rng.integers(0, n, size=(size, n))
        picks += (np.arange(size) * n)[:, None]
        counts = np.bincount(picks.ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        out[start:start + size] = counts @ values / n
    return out


def percentile_ci(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper percentile bounds per metric column."""
    means = bootstrap_means(values, resamples, seed)
    alpha = (1.0 - level) / 2.0
    return np.quantile(means, alpha, axis=0), np.quantile(means, 1.0 - alpha, axis=0)
