"""Grouped correctness: chain completion (CCR) and modality contribution (MCS).

Pure and vectorised. Groups are integer codes 0..G-1 (e.g. one per image), stages codes 0..S-1.
"""
from __future__ import annotations

import numpy as np


def chain_completion(group: np.ndarray, stage: np.ndarray, correct: np.ndarray, n_groups: int,
                     n_stages: int = 6) -> tuple[np.ndarray, np.ndarray]:
    """(eligible, complete) per group: eligible = the group has items of every stage; complete =
    eligible and every one of its items is correct (a stage with several items needs all of them)."""
    group = np.asarray(group, dtype=np.int64)
    stage = np.asarray(stage, dtype=np.int64)
    correct = np.asarray(correct).astype(bool)
    size = np.bincount(group, minlength=n_groups)
    right = np.bincount(group, weights=correct, minlength=n_groups)
    present = np.bincount(group * n_stages + stage, minlength=n_groups * n_stages).reshape(n_groups, n_stages) > 0
    eligible = present.all(axis=1)
    return eligible, eligible & (right == size)


def chain_completion_rate(eligible: np.ndarray, complete: np.ndarray) -> float:
    """100 * complete chains / eligible chains; NaN with no eligible chain."""
    n = int(np.asarray(eligible).sum())
    return float("nan") if n == 0 else 100.0 * float(np.asarray(complete).sum()) / n


def modality_contribution(full_correct: np.ndarray, ablated_correct: np.ndarray) -> float:
    """MCS in percentage points: accuracy with all modalities minus accuracy with one removed, over
    the same items (positive = removing the modality hurts)."""
    full = np.asarray(full_correct, dtype=np.float64)
    ablated = np.asarray(ablated_correct, dtype=np.float64)
    if len(full) == 0:
        return float("nan")
    return float(100.0 * (full.mean() - ablated.mean()))
