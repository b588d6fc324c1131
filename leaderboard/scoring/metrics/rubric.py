"""Rubric scores from per-criterion verdicts (HealthBench-style signed points), vectorised.

Criteria of all cases are passed flat: `case_index[j]` names the case of criterion j, `points[j]` its
signed weight, `met[j]` the judge's verdict (for a negative criterion, met = triggered).

    S_i = clip( sum_j w_j v_j / sum_j max(w_j, 0), 0, 1 )

A case whose rubric has no positive point has no denominator; the builder refuses such cases, and if
one reaches the scorer anyway it scores 1 when no penalty is triggered and 0 otherwise (the limit of
"did everything it could" vs "did something it must not"); `no_positive` counts them.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

HISTOGRAM_WIDTH = 0.05  # the paper's Fig. 7 bin width (5%)


@dataclass(frozen=True)
class RubricScores:
    score: np.ndarray  # S per case, in [0, 1]
    raw: np.ndarray  # the ratio before clipping (NaN where there is no positive point)
    positives_met: np.ndarray  # count of positive criteria met per case
    negatives_triggered: np.ndarray  # count of negative criteria triggered per case
    no_positive: int  # cases whose rubric has no positive point


def rubric_scores(case_index: np.ndarray, points: np.ndarray, met: np.ndarray, n_cases: int) -> RubricScores:
    case_index = np.asarray(case_index, dtype=np.int64)
    points = np.asarray(points, dtype=np.float64)
    met = np.asarray(met, dtype=bool)
    earned = np.bincount(case_index, weights=points * met, minlength=n_cases)
    possible = np.bincount(case_index, weights=np.maximum(points, 0.0), minlength=n_cases)
    positive, negative = points > 0, points < 0
    pos_met = np.bincount(case_index, weights=(positive & met).astype(np.float64), minlength=n_cases)
    neg_hit = np.bincount(case_index, weights=(negative & met).astype(np.float64), minlength=n_cases)
    has_rubric = np.bincount(case_index, minlength=n_cases) > 0
    no_denominator = possible <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        raw = np.where(no_denominator, np.nan, earned / np.where(no_denominator, 1.0, possible))
    score = np.clip(np.nan_to_num(raw, nan=0.0), 0.0, 1.0)
    # no positive point: 1 if nothing was triggered, else 0
    score = np.where(no_denominator & has_rubric, (neg_hit == 0).astype(np.float64), score)
    return RubricScores(score, raw, pos_met, neg_hit, int((no_denominator & has_rubric).sum()))


def score_histogram(scores: np.ndarray, width: float = HISTOGRAM_WIDTH) -> dict[str, int]:
    """Counts per bin [0, 5), [5, 10), ..., [95, 100] in percent (the last bin closed)."""
    bins = int(round(1.0 / width))
    # integer bin index with a small tolerance, so 0.15 lands in [15, 20) despite float edges
    index = np.minimum(np.floor(np.asarray(scores, dtype=np.float64) * bins + 1e-9), bins - 1).astype(np.int64)
    counts = np.bincount(index, minlength=bins)
    step = round(100 / bins)
    return {f"{k * step}-{(k + 1) * step}": int(counts[k]) for k in range(bins)}
