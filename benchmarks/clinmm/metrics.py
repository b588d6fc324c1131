"""ClinMM-Bench's deterministic metrics, given the judges' verdicts: dual-judge consensus and its three
categories, and the atomic-fact scores (recall, hallucination, density) of one case.

Pure functions on numbers; the judge calls live in `benchmarks.clinmm.judging`.
"""
from __future__ import annotations

import numpy as np

from leaderboard.scoring.metrics.bootstrap import mean_and_ci  # noqa: F401 (moved to the engine's bootstrap; re-exported)


def consensus(scores: np.ndarray, answered: np.ndarray) -> np.ndarray:
    """Per-case consensus c = mean of the judges' 0/1/2 scores (items, judges); 0 for a case with no
    diagnosis (nothing to judge counts as a complete error). NaN where an answered case lacks a verdict."""
    scores = np.asarray(scores, dtype=np.float64)
    out = np.zeros(scores.shape[0])
    answered = np.asarray(answered, dtype=bool)
    out[answered] = scores[answered].mean(axis=1)  # a NaN (failed verdict) stays NaN: never a score
    return out


def categories(c: np.ndarray) -> dict[str, np.ndarray]:
    """The paper's partition: completely correct (c == 2, both judges gave 2), partially correct
    (0 < c < 2) and complete error (c == 0, both judges gave 0); as 0/1 floats."""
    c = np.asarray(c, dtype=np.float64)
    return {
        "completely_correct": (c == 2.0).astype(np.float64),
        "partially_correct": ((c > 0.0) & (c < 2.0)).astype(np.float64),
        "complete_error": (c == 0.0).astype(np.float64),
    }


def fact_scores(n_predicted: int, n_reference: int, matched_predicted: int, matched_reference: int,
                hallucinated: int) -> tuple[float, float, float]:
    """(recall, hallucination, density) of one case, as fractions.

    recall = reference facts in any matched pair / reference facts; hallucination = hallucinated
    predicted facts / predicted facts; density = predicted facts in any matched pair / predicted facts.
    With no predicted fact: recall 0, density 0 (nothing valid was produced) and hallucination NaN
    (undefined; 0 would reward saying nothing), which the means leave out."""
    if n_reference <= 0:
        raise ValueError("a case needs at least one reference fact")
    recall = matched_reference / n_reference
    if n_predicted <= 0:
        return recall, float("nan"), 0.0
    return recall, hallucinated / n_predicted, matched_predicted / n_predicted
