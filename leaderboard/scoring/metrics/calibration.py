"""Confidence metrics over multiple-choice items (expected calibration error and an uncertainty-aware score).

Pure and vectorised: numpy arrays in, floats out. `confidence` is in [0, 1]; `correct` is 0/1.
Items without a confidence are the caller's to drop (this project excludes them and reports coverage).
"""
from __future__ import annotations

import numpy as np

ECE_BINS = 10
CONFIDENT_AT = 0.5  # confidence >= this is "confident"
# Uncertainty categories, in code order 0..3.
CATEGORIES = ("CC", "CU", "IU", "IC")
BASE_SCORES = {"CC": 1.0, "CU": 0.5, "IU": 0.25, "IC": 0.0}


def bin_index(confidence: np.ndarray, bins: int = ECE_BINS) -> np.ndarray:
    """Equal-width bins [0, 1/b), [1/b, 2/b), ..., [(b-1)/b, 1]: confidence 1.0 falls in the last bin.
    Rounded before flooring so 0.3 * 10 = 3.0000000000000004 and 0.7 * 10 land where a reader expects."""
    scaled = np.floor(np.round(np.asarray(confidence, dtype=np.float64) * bins, 9))
    return np.clip(scaled, 0, bins - 1).astype(np.int64)


def expected_calibration_error(confidence: np.ndarray, correct: np.ndarray, bins: int = ECE_BINS) -> float:
    """ECE = sum over bins of |B|/N * |accuracy(B) - mean confidence(B)|, as a fraction (0.062, not 6.2).
    NaN when there are no items."""
    confidence = np.asarray(confidence, dtype=np.float64)
    correct = np.asarray(correct, dtype=np.float64)
    n = len(confidence)
    if n == 0:
        return float("nan")
    index = bin_index(confidence, bins)
    hits = np.bincount(index, weights=correct, minlength=bins)
    mass = np.bincount(index, weights=confidence, minlength=bins)
    return float(np.abs(hits - mass).sum() / n)  # |B|/N * |hits/|B| - mass/|B|| summed = sum |hits - mass| / N


def uncertainty_codes(confidence: np.ndarray, correct: np.ndarray, threshold: float = CONFIDENT_AT) -> np.ndarray:
    """0 CC, 1 CU, 2 IU, 3 IC per item."""
    confident = np.asarray(confidence, dtype=np.float64) >= threshold
    right = np.asarray(correct).astype(bool)
    return np.where(right, np.where(confident, 0, 1), np.where(confident, 3, 2)).astype(np.int64)


def base_score_vector(base: dict[str, float] = BASE_SCORES) -> np.ndarray:
    return np.array([base[c] for c in CATEGORIES], dtype=np.float64)


def uncertainty_aware_score(confidence: np.ndarray, correct: np.ndarray, weights: np.ndarray,
                            threshold: float = CONFIDENT_AT, base: dict[str, float] = BASE_SCORES) -> float:
    """UAS = 100 * sum(w_i * b(category_i)) / sum(w_i); `weights` per item (e.g. by tier). NaN if no items."""
    weights = np.asarray(weights, dtype=np.float64)
    if len(weights) == 0 or weights.sum() == 0:
        return float("nan")
    scores = base_score_vector(base)[uncertainty_codes(confidence, correct, threshold)]
    return float(100.0 * (weights * scores).sum() / weights.sum())
