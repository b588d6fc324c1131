"""One ranking rule for every row: a rank range from confidence intervals, as LMArena does.

Row j is *ahead* of row i when the data separate them:
- both rows carry paired bootstrap resamples of the primary metric (submissions scored on the same items: same
  dataset fingerprint, same seed, same resample count, so resample b of one used the same items as resample b
  of the other) and j leads i in more than 97.5% of the paired resamples (the lower end of the 95% percentile
  interval of the paired difference lies above 0);
- otherwise (a paper row, or a submission without resamples): j's 95% CI lies entirely above i's (lower bound
  of j above the upper bound of i). A paper row's CI comes from its published n when the metric is a
  proportion (Wilson score interval); a row without a CI is a point, so it is ahead of, or behind, every
  row whose interval does not contain it.

rank (best) = 1 + number of rows ahead of this one; rank (worst) = number of rows - number of rows behind it.
Rows with equal scores (at the precision shown) always share one rank range: the best of their bests and the
worst of their worsts. Ranks are computed on the whole board, before any filter or search.

Paired tests are run only for pairs whose intervals overlap (non-overlapping intervals already separate a
pair) and only while the number of such pairs stays below MAX_PAIRED_PAIRS; beyond that (thousands of
near-identical submissions) every pair is decided by the interval rule and the board says so.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

TIE_RESAMPLES = 1000
TIE_SEED = 4242
Z95 = 1.959963984540054  # two-sided 95%
PAIRED_SHARE = 0.975  # j is ahead of i when it leads in more than this share of paired resamples
MAX_PAIRED_PAIRS = 50_000  # overlapping pairs tested with resamples (x 1,000 resamples: ~0.1 s)


def wilson(percent: float, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval of a proportion given in percent, in percent."""
    p = min(max(percent / 100.0, 0.0), 1.0)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return 100 * (centre - half), 100 * (centre + half)


def tied(a: np.ndarray | None, b: np.ndarray | None, level: float = 0.95) -> bool:
    """Neither of two paired resample vectors leads in more than `level`-and-a-half of the resamples."""
    if a is None or b is None or len(a) != len(b) or len(a) == 0:
        return False
    share = (1 + level) / 2
    lead = float(np.mean(np.asarray(a) > np.asarray(b)))
    trail = float(np.mean(np.asarray(b) > np.asarray(a)))
    return lead <= share and trail <= share


@dataclass
class Ranks:
    best: np.ndarray  # 1-based best rank per row
    worst: np.ndarray  # 1-based worst rank per row
    paired: bool  # False when the board was too large for paired tests (interval rule everywhere)

    def labels(self) -> list[str]:
        return [str(b) if b == w else f"{b}–{w}" for b, w in zip(self.best.tolist(), self.worst.tolist())]


def rank_ranges(scores: np.ndarray, lows: np.ndarray, highs: np.ndarray, higher_is_better: bool = True,
                resamples: list[np.ndarray | None] | None = None, pair_keys: list | None = None,
                decimals: int = 1, max_paired_pairs: int = MAX_PAIRED_PAIRS, pair_ids: list | None = None,
                cache: dict | None = None) -> Ranks:
    """Best and worst rank of every row (any order). `lows`/`highs` are the 95% CI (equal to the score when a row
    has none); `resamples[i]` the row's paired bootstrap means, `pair_keys[i]` what must match for pairing.
    With `pair_ids` (a stable id per row) and a `cache` dict, paired outcomes seen before are reused, so a board
    rebuilt after one new result tests only that result's pairs."""
    scores = np.asarray(scores, dtype=float)
    n = len(scores)
    if n == 0:
        return Ranks(np.zeros(0, int), np.zeros(0, int), True)
    lo, hi = np.asarray(lows, dtype=float), np.asarray(highs, dtype=float)
    if not higher_is_better:  # rank on the negated scale: "ahead" always means "larger"
        scores, lo, hi = -scores, -hi, -lo
    sorted_lo, sorted_hi = np.sort(lo), np.sort(hi)
    ahead = n - np.searchsorted(sorted_lo, hi, side="right")  # rows whose lower bound is above my upper bound
    behind = np.searchsorted(sorted_hi, lo, side="left")  # rows whose upper bound is below my lower bound
    paired = _paired_counts(lo, hi, resamples, pair_keys, max_paired_pairs, higher_is_better, pair_ids, cache)
    if paired is not None:
        ahead, behind = ahead + paired[0], behind + paired[1]
    best, worst = 1 + ahead, n - behind
    # equal scores (as shown) share one range
    shown = np.round(scores, decimals)
    order = np.argsort(shown, kind="stable")
    values = shown[order]
    starts = np.flatnonzero(np.r_[True, values[1:] != values[:-1]])
    best_sorted = np.minimum.reduceat(best[order], starts)
    worst_sorted = np.maximum.reduceat(worst[order], starts)
    group = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))
    best[order], worst[order] = best_sorted[group], worst_sorted[group]
    return Ranks(best.astype(int), worst.astype(int), paired is not None or not _has_pairs(resamples))


def _has_pairs(resamples) -> bool:
    return bool(resamples) and sum(r is not None for r in resamples) > 1


def _paired_counts(lo, hi, resamples, pair_keys, budget, higher_is_better, pair_ids=None, cache=None):
    """(extra rows ahead, extra rows behind) from paired tests on overlapping pairs; None when over budget.
    `resamples[i]` may be a zero-argument loader: only rows in a tested pair are loaded."""
    n = len(lo)
    ahead, behind = np.zeros(n, int), np.zeros(n, int)
    if not _has_pairs(resamples):
        return ahead, behind
    keys = pair_keys or [None] * n
    groups: dict = {}
    for i, r in enumerate(resamples):
        if r is not None:
            groups.setdefault(keys[i], []).append(i)
    candidates, total = [], 0
    for members in groups.values():
        if len(members) < 2:
            continue
        idx = np.asarray(members)
        order = idx[np.argsort(lo[idx], kind="stable")]
        l, h = lo[order], hi[order]
        # j after i in lo-order overlaps i while lo_j <= hi_i (and hi_j >= lo_i holds as lo_j >= lo_i)
        ends = np.searchsorted(l, h, side="right")
        counts = np.maximum(ends - np.arange(len(order)) - 1, 0)
        total += int(counts.sum())
        if total > budget:
            return None
        if counts.sum():  # every (order[a], order[a+1 .. ends[a]-1]) at once
            firsts = np.repeat(np.arange(len(order)), counts)
            offsets = np.arange(len(firsts)) - np.repeat(np.cumsum(counts) - counts, counts)
            candidates.append(np.column_stack([order[firsts], order[firsts + 1 + offsets]]))
    if not candidates:
        return ahead, behind
    pairs = np.concatenate(candidates)
    outcome = np.zeros(len(pairs), dtype=np.int8)  # 1: first ahead, -1: second ahead, 0: not separated
    fresh = np.arange(len(pairs))
    if cache is not None and pair_ids is not None:  # pairs seen before (a board rebuilt after one new result)
        codes = cache.setdefault("codes", {})  # stable pair id -> small integer
        row_codes = np.array([codes.setdefault(pid, len(codes)) for pid in pair_ids], dtype=np.int64)
        keys = (row_codes[pairs[:, 0]] << 32) | row_codes[pairs[:, 1]]
        known_keys = cache.get("keys", np.zeros(0, np.int64))
        known_values = cache.get("values", np.zeros(0, np.int8))
        at = np.minimum(np.searchsorted(known_keys, keys), max(len(known_keys) - 1, 0))
        known = (known_keys[at] == keys) if len(known_keys) else np.zeros(len(keys), bool)
        outcome[known] = known_values[at[known]]
        fresh = np.flatnonzero(~known)
    if len(fresh):
        outcome[fresh] = _paired_outcomes(pairs[fresh], resamples, higher_is_better)
        if cache is not None and pair_ids is not None:
            merged_keys = np.concatenate([known_keys, keys[fresh]])
            merged_values = np.concatenate([known_values, outcome[fresh]])
            order = np.argsort(merged_keys, kind="stable")
            cache["keys"], cache["values"] = merged_keys[order], merged_values[order]
            if len(order) > 4 * MAX_PAIRED_PAIRS:  # bounded: start again
                cache.clear()
    np.add.at(ahead, pairs[outcome == 1, 1], 1)
    np.add.at(behind, pairs[outcome == 1, 0], 1)
    np.add.at(ahead, pairs[outcome == -1, 0], 1)
    np.add.at(behind, pairs[outcome == -1, 1], 1)
    return ahead, behind


def _paired_outcomes(pairs: np.ndarray, resamples, higher_is_better: bool) -> np.ndarray:
    """1 where the first row of a pair leads in more than PAIRED_SHARE of the paired resamples, -1 where the
    second does, 0 otherwise (or when the two cannot be paired)."""
    outcome = np.zeros(len(pairs), dtype=np.int8)
    rows = np.unique(pairs)
    loaded = []
    for i in rows.tolist():
        r = resamples[i]
        r = r() if callable(r) else r
        loaded.append(None if r is None or not len(r) else np.asarray(r, dtype=float))
    lengths = {len(r) for r in loaded if r is not None}
    if not lengths:
        return outcome
    width = max(lengths, key=lambda k: sum(1 for r in loaded if r is not None and len(r) == k))
    usable = np.array([r is not None and len(r) == width for r in loaded])
    matrix = np.stack([r if ok else np.zeros(width) for r, ok in zip(loaded, usable)])
    if not higher_is_better:
        matrix = -matrix
    position = np.searchsorted(rows, pairs)  # row of each pair member in `matrix`
    usable_pairs = np.flatnonzero(usable[position[:, 0]] & usable[position[:, 1]])
    limit = PAIRED_SHARE * width
    for start in range(0, len(usable_pairs), 2048):  # bounded memory: 2,048 x resamples at a time
        chosen = usable_pairs[start:start + 2048]
        a, b = matrix[position[chosen, 0]], matrix[position[chosen, 1]]
        outcome[chosen[(a > b).sum(axis=1) > limit]] = 1
        outcome[chosen[(b > a).sum(axis=1) > limit]] = -1
    return outcome
