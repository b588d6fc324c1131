"""Ranked-diagnosis metrics over a match tensor (Top-k recall, Top-1, MRR, NDCG@10).

Input: `matches[c, i, g]` is True when prediction i (0-based rank) of case c matches ground-truth
entity g; `valid_gt[c, g]` marks real entities (padding is False); entity 0 of every case is the
primary. Each ground-truth entity is credited once, at its first matching rank.
"""
from __future__ import annotations

import numpy as np

NO_MATCH = np.iinfo(np.int32).max


def first_match_ranks(matches: np.ndarray, valid_gt: np.ndarray) -> np.ndarray:
    """1-based rank of each entity's first matching prediction; NO_MATCH if none (or padding)."""
    cases, depth, _ = matches.shape
    if depth == 0:
        return np.full(valid_gt.shape, NO_MATCH, dtype=np.int64)
    hit = matches & valid_gt[:, None, :]
    any_hit = hit.any(axis=1)
    first = hit.argmax(axis=1) + 1
    return np.where(any_hit, first, NO_MATCH).astype(np.int64)


def topk_primary(ranks: np.ndarray, k: int) -> np.ndarray:
    return (ranks[:, 0] <= k).astype(np.float64)


def topk_complete(ranks: np.ndarray, valid_gt: np.ndarray, k: int) -> np.ndarray:
    covered = (ranks <= k) | ~valid_gt
    return covered.all(axis=1).astype(np.float64)


def reciprocal_rank(ranks: np.ndarray, depth: int = 10) -> np.ndarray:
    primary = ranks[:, 0]
    return np.where(primary <= depth, 1.0 / np.minimum(primary, depth).clip(min=1), 0.0)


def ndcg(ranks: np.ndarray, valid_gt: np.ndarray, depth: int = 10) -> np.ndarray:
    """Linear-gain NDCG@depth: rel 2 for the primary, 1 for a secondary, each credited once at its
    first matching rank; a rank that is first match of the primary and a secondary gets 2 (max).
    IDCG is the ground truth's ideal list [2, 1, 1, ...] truncated to `depth`."""
    cases, entities = ranks.shape
    credited = (ranks <= depth) & valid_gt
    # rel[c, r] = the largest gain credited at rank r: 1 where a secondary is, then 2 where the primary is
    # (the gains are 2 and 1 only), two plain assignments instead of a scattered np.maximum.at per entity
    rel = np.zeros((cases, depth + 1))
    secondary = credited & (np.arange(entities) > 0)[None, :]
    rel[np.nonzero(secondary)[0], ranks[secondary]] = 1.0
    if entities:
        primary = credited[:, 0]
        rel[np.flatnonzero(primary), ranks[primary, 0]] = 2.0
    discounts = 1.0 / np.log2(np.arange(1, depth + 1) + 1)
    dcg = rel[:, 1:] @ discounts
    n_gt = valid_gt.sum(axis=1)
    ideal = np.zeros((cases, depth))
    ideal[:, 0] = np.where(n_gt > 0, 2.0, 0.0)
    ideal[:, 1:] = (np.arange(1, depth)[None, :] < n_gt[:, None]).astype(float)
    idcg = ideal @ discounts
    return np.divide(dcg, idcg, out=np.zeros(cases), where=idcg > 0)


def ranked_metrics(matches: np.ndarray, valid_gt: np.ndarray) -> dict[str, np.ndarray]:
    """Per-case values (0/1 or fractions) of every ranked metric, keyed by the paper's stem names."""
    ranks = first_match_ranks(matches, valid_gt)
    return {
        "top5_primary": topk_primary(ranks, 5),
        "top5_complete": topk_complete(ranks, valid_gt, 5),
        "top10_primary": topk_primary(ranks, 10),
        "top10_complete": topk_complete(ranks, valid_gt, 10),
        "top1": topk_primary(ranks, 1),
        "mrr": reciprocal_rank(ranks, 10),
        "ndcg10": ndcg(ranks, valid_gt, 10),
    }
