"""Percentile bootstrap over items: resample cases with replacement, recompute every mean at once.

Each chunk of resamples draws item indices, turns them into per-item counts with one bincount, and
applies them with one matrix product, so memory stays at chunk x items whatever the resample count.
(numpy's multinomial is exact too but about 10x slower at 60,000 items.)
"""
from __future__ import annotations

import numpy as np

DEFAULT_RESAMPLES = 5000  # the papers' usual figure
DEFAULT_SEED = 20260825


PATTERN_SHARE = 32  # the pattern draw runs when items outnumber their distinct rows 32-fold
GATHERED_METRICS = 4  # up to this many metric columns, the item draw sums gathered items (see _item_draws)
# names the draw: a CI memo (metrics/ci_memo.py) keyed with it is never read back by a different algorithm
ALGORITHM = f"percentile-bootstrap/items-or-patterns-{PATTERN_SHARE}/gathered-{GATHERED_METRICS}"


def bootstrap_means(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                    chunk: int = 250, method: str = "auto") -> np.ndarray:
    """(resamples, metrics) matrix of resampled means of `values` (items, metrics).

    Two exact ways to draw the same bootstrap distribution (`method`):
    - "items": resample item indices (cost resamples x items);
    - "patterns": items with identical rows (the same score on every metric: 0/1 hits, reciprocal
      ranks...) are interchangeable, so resampling n items puts Multinomial(n, share of each distinct
      row) items on each row; drawing those counts costs resamples x distinct rows (the cell bootstrap
      of metrics/cell_bootstrap.py, with the distinct rows as cells).
    "auto" takes patterns when items outnumber distinct rows PATTERN_SHARE-fold (and no value is NaN).
    Both are the percentile bootstrap over items; their draws differ, so CI endpoints differ by Monte
    Carlo noise only (a scoring bench under bench/ prints both)."""
    values = np.asarray(values, dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    n = values.shape[0]
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, values.shape[1]))
    if n == 0:
        out[:] = np.nan
        return out
    if not np.isnan(values).any():
        patterns, inverse = distinct_rows(values)
        if method == "patterns" or (method != "items" and len(patterns) * PATTERN_SHARE <= n):
            counts = np.bincount(inverse.ravel(), minlength=len(patterns))
            for start in range(0, resamples, chunk * 8):  # (chunk x patterns) counts at a time
                size = min(chunk * 8, resamples - start)
                out[start:start + size] = multinomial_draws(counts, size, rng).astype(np.float64) @ patterns / n
            return out
        return _item_draws(patterns, inverse, n, resamples, rng, chunk, out)
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        picks = rng.integers(0, n, size=(size, n))
        picks += (np.arange(size) * n)[:, None]
        counts = np.bincount(picks.ravel(), minlength=size * n).reshape(size, n).astype(np.float64)
        out[start:start + size] = counts @ values / n
    return out


def _item_draws(patterns: np.ndarray, inverse: np.ndarray, n: int, resamples: int, rng, chunk: int,
                out: np.ndarray) -> np.ndarray:
    """The "items" draw (the same item indices, so the same resamples as drawing them one by one).

    Few metrics (a rescore's one score column): each resample's items are gathered and summed per column
    (np.take + sum), ~4x faster than counting them, and with no BLAS call, whose threads cost a 5,000 x
    5,620 bootstrap more CPU than they save on two cores and whose summation order changes with the thread
    count. Many metrics: each resample's items are counted per distinct row and the counts applied by
    einsum, one pass over the draws whatever the metric count. The two sum in different orders, so means
    differ in the last bits only (tests/test_bootstrap.py)."""
    distinct, metrics = patterns.shape
    if metrics <= GATHERED_METRICS:
        columns = [np.ascontiguousarray(patterns[inverse, j]) for j in range(metrics)]
        for start in range(0, resamples, chunk):
            size = min(chunk, resamples - start)
            # int32 draws are the same numbers as int64 ones below 2**31 (numpy's bounded generator), and
            # halve the memory the gather reads
            picks = rng.integers(0, n, size=(size, n), dtype=np.int32 if n < 2 ** 31 else np.int64)
            for j, column in enumerate(columns):
                out[start:start + size, j] = np.take(column, picks).sum(axis=1)
        out /= n
        return out
    offsets = (np.arange(chunk, dtype=np.int64) * distinct)[:, None]
    for start in range(0, resamples, chunk):
        size = min(chunk, resamples - start)
        rows = inverse[rng.integers(0, n, size=(size, n))]
        rows += offsets[:size]
        counts = np.bincount(rows.ravel(), minlength=size * distinct).reshape(size, distinct).astype(np.float64)
        out[start:start + size] = np.einsum("ij,jk->ik", counts, patterns) / n
    return out


def distinct_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(values, axis=0, return_inverse=True)` (rows sorted lexicographically) without sorting
    whole rows as records (~100x slower at 60,000 items): each column is ranked on its own, the ranks are
    packed into one integer per row (first column most significant, so integer order is row order), and
    those integers are deduplicated. NaN-free input (the caller checks)."""
    values = np.ascontiguousarray(np.asarray(values, dtype=np.float64) + 0.0)  # -0.0 == 0.0, as in np.unique
    n, m = values.shape
    hashed = _distinct_by_hash(values)
    if hashed is not None:
        return hashed
    keys = np.zeros(n, dtype=np.int64)
    span = 1
    for j in range(m):
        levels, rank = np.unique(values[:, j], return_inverse=True)
        span *= max(len(levels), 1)
        if span >= 2 ** 62:  # too many combinations to pack: fall back to numpy's row sort
            patterns, inverse = np.unique(values, axis=0, return_inverse=True)
            return patterns, inverse.ravel()
        keys = keys * len(levels) + rank.ravel()
    _, firsts, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return values[firsts], inverse.ravel()


def _row_hashes(values: np.ndarray) -> np.ndarray:
    """One uint64 per row of a C-contiguous float64 matrix, from its bits (multiply-xorshift per column)."""
    bits = values.view(np.uint64)
    mixed = np.zeros(len(values), dtype=np.uint64)
    for j in range(values.shape[1]):  # uint64 products wrap, as a hash wants
        mixed = (mixed ^ bits[:, j]) * np.uint64(0x9E3779B97F4A7C15)
        mixed ^= mixed >> np.uint64(29)
    return mixed


def _distinct_by_hash(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """`distinct_rows` from one 64-bit hash per row (one sort instead of one per column), checked exactly:
    None when two different rows share a hash (the caller then ranks column by column)."""
    n, m = values.shape
    if n == 0 or m == 0:
        return None
    _, firsts, inverse = np.unique(_row_hashes(values), return_index=True, return_inverse=True)
    inverse = inverse.ravel()
    patterns = values[firsts]
    if not np.array_equal(patterns[inverse], values):
        return None
    order = np.lexsort(patterns.T[::-1])  # rows in lexicographic order, first column most significant
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return patterns[order], rank[inverse]


def percentile_ci(values: np.ndarray, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED,
                  level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper percentile bounds per metric column; read back from the scoring memo when one is
    active and holds these exact inputs (leaderboard/scoring/memo.py), and written to it otherwise."""
    from ..memo import current

    memo = current()
    key = None
    if memo is not None:
        values = np.ascontiguousarray(values, dtype=np.float64)
        key = memo.key(ALGORITHM, f"{resamples}/{seed}/{level!r}/{values.shape}", values.tobytes())
        found = memo.get(key)
        if found is not None:
            return np.asarray(found[0], dtype=np.float64), np.asarray(found[1], dtype=np.float64)
    means = bootstrap_means(values, resamples, seed)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, alpha, axis=0), np.quantile(means, 1.0 - alpha, axis=0)
    if key is not None:
        memo.put(key, [[float(x) for x in lo], [float(x) for x in hi]])
    return lo, hi


def mean_and_ci(values: np.ndarray, scale: float, resamples: int, seed: int) -> tuple[float | None, list | None, int]:
    """Mean x scale over the non-NaN items, its 95% percentile bootstrap CI (resampling those items)
    and how many items it covers; (None, None, 0) when no item has a value."""
    values = np.asarray(values, dtype=np.float64)
    kept = values[~np.isnan(values)]
    if kept.size == 0:
        return None, None, 0
    mean = round(float(kept.mean()) * scale, 4)
    if resamples <= 0:
        return mean, None, int(kept.size)
    lo, hi = percentile_ci(kept, resamples=resamples, seed=seed)
    return mean, [round(float(lo[0]) * scale, 4), round(float(hi[0]) * scale, 4)], int(kept.size)


def multinomial_draws(counts: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """(resamples, *counts.shape) draws of Multinomial(row total, row counts / row total) for each row of
    `counts` (..., cells), as a chain of conditional binomials vectorised over resamples and rows: the
    same distribution as `rng.multinomial`, several times faster for a few cells x 5,000 resamples."""
    counts = np.asarray(counts, dtype=np.int64)
    remaining = np.broadcast_to(counts.sum(axis=-1), (resamples, *counts.shape[:-1])).copy()
    left = counts.sum(axis=-1)  # the original mass not yet assigned, per row
    out = np.zeros((resamples, *counts.shape), dtype=np.int64)
    for j in range(counts.shape[-1] - 1):
        share = np.divide(counts[..., j], left, out=np.zeros(counts.shape[:-1]), where=left > 0)
        out[..., j] = rng.binomial(remaining, np.clip(share, 0.0, 1.0))
        remaining -= out[..., j]
        left = left - counts[..., j]
    out[..., -1] = remaining
    return out
