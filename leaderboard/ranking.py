"""Ranks with honest uncertainty: neighbours whose difference a paired bootstrap cannot separate
share a tie group.

Every scored submission keeps the resampled means of the primary metric (same seed, same item order,
so resample b of one model and resample b of another used the same items: the test is paired). Two
neighbours are tied when the 95% percentile interval of their per-resample difference contains 0.
Rows without resamples (paper rows) are never tied by this test: their rank is their position.
"""
from __future__ import annotations

import numpy as np

TIE_RESAMPLES = 1000
TIE_SEED = 4242


def tied(a: np.ndarray | None, b: np.ndarray | None, level: float = 0.95) -> bool:
    if a is None or b is None or len(a) != len(b) or len(a) == 0:
        return False
    diff = np.asarray(a) - np.asarray(b)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(diff, [alpha, 1 - alpha])
    return bool(lo <= 0 <= hi)


def tie_groups(resamples: list[np.ndarray | None]) -> list[int]:
    """Group number (1-based) per row of a list already sorted best first; a row joins the previous
    row's group when the two are tied."""
    groups: list[int] = []
    for i, current in enumerate(resamples):
        if i > 0 and tied(resamples[i - 1], current):
            groups.append(groups[-1])
        else:
            groups.append((groups[-1] + 1) if groups else 1)
    return groups


def rank_labels(positions_by_group: list[int]) -> list[str]:
    """'3' for a row alone in its group, '2-4' for a member of a group spanning positions 2..4."""
    spans: dict[int, list[int]] = {}
    for position, group in enumerate(positions_by_group, start=1):
        spans.setdefault(group, []).append(position)
    return [str(spans[g][0]) if len(spans[g]) == 1 else f"{spans[g][0]}-{spans[g][-1]}" for g in positions_by_group]
