"""Semantic matching's two paths decide every pair alike: the matrix product over distinct terms (float32,
pairs near the 0.85 threshold recomputed in float64) and the per-case float64 einsum it replaced."""
import numpy as np
import pytest

from benchmarks.medreamm import scorer
from benchmarks.medreamm.scorer import per_case_matches, similar_pairs
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.matching.embedder import PAPER_THRESHOLD, HashingEmbedder
from leaderboard.scoring.score_file import score_file

# exact cosines of the float32 vectors land within float32 rounding of the threshold, where a float32
# product alone cannot decide
OFFSETS = [-1e-3, -2e-5, -1e-7, -1e-9, 0.0, 1e-9, 1e-7, 2e-5, 1e-3, 0.15, -0.65]


def _vectors(dim: int, seed: int = 0):
    """Ground-truth unit vectors g_k and predictions p_k = cos_k g_k + sin_k u_k (u_k orthogonal to g_k),
    cos_k = 0.85 + offset, all turned by one random rotation so every dimension carries part of the sum."""
    rng = np.random.default_rng(seed)
    rotation, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    gts, preds = [], []
    for k, off in enumerate(OFFSETS):
        g, u = np.zeros(dim), np.zeros(dim)
        g[k % dim], u[(k + 1) % dim] = 1.0, 1.0
        c = PAPER_THRESHOLD + off
        gts.append(rotation @ g)
        preds.append(rotation @ (c * g + np.sqrt(1 - c * c) * u))
    preds += [rng.standard_normal(dim) for _ in range(5)]
    unit = lambda m: (np.array(m) / np.linalg.norm(m, axis=1, keepdims=True)).astype(np.float32)
    return unit(preds), unit(gts)


@pytest.mark.parametrize("dim", [256, 768])
def test_dense_pairs_decide_like_the_per_case_einsum(dim):
    pred_vecs, gt_vecs = _vectors(dim)
    p, g = len(pred_vecs), len(gt_vecs)
    # every prediction against every term: cases of 1 prediction slot x all terms (+ one empty slot / padding)
    pred_idx = np.array([[i] for i in range(p)] + [[-1]], dtype=np.int64)
    gt_idx = np.tile(np.append(np.arange(g), -1), (p + 1, 1))
    expected = per_case_matches(pred_vecs, gt_vecs, pred_idx, gt_idx, PAPER_THRESHOLD)
    dense = similar_pairs(pred_vecs, gt_vecs, PAPER_THRESHOLD)
    assert dense.shape == (p + 1, g + 1)
    assert np.array_equal(dense[pred_idx[:, :, None], gt_idx[:, None, :]], expected)
    assert not dense[-1].any() and not dense[:, -1].any()  # empty slots and padding never match
    diagonal = [bool(expected[k, 0, k]) for k in range(len(OFFSETS))]
    # offsets of 2e-5 and more survive rounding the vectors to float32; the tiny ones are decided by whatever the
    # float64 einsum says of the float32 vectors, on both paths alike (asserted above)
    assert [diagonal[k] for k in (0, 1, 7, 8, 9, 10)] == [False, False, True, True, True, False]
    float32_alone = (pred_vecs @ gt_vecs.T >= np.float32(PAPER_THRESHOLD))[:len(OFFSETS), :len(OFFSETS)].diagonal()
    assert float32_alone.tolist() != diagonal  # the recheck matters: float32 alone decides some pair otherwise

def test_dense_blocks_and_the_band_recheck(monkeypatch):
    pred_vecs, gt_vecs = _vectors(256, seed=3)
    whole = similar_pairs(pred_vecs, gt_vecs, PAPER_THRESHOLD)
    monkeypatch.setattr(scorer, "DENSE_ROWS", 3)  # blocks of 3 predictions: row offsets must line up
    assert np.array_equal(similar_pairs(pred_vecs, gt_vecs, PAPER_THRESHOLD), whole)
    monkeypatch.setattr(scorer, "RECHECK_BAND", 0.0)  # without the recheck float32 decides alone
    no_recheck = similar_pairs(pred_vecs, gt_vecs, PAPER_THRESHOLD)
    assert np.array_equal(no_recheck[:-1, :-1], pred_vecs @ gt_vecs.T >= np.float32(PAPER_THRESHOLD))


def test_scoring_gives_the_same_result_on_either_path(tmp_path, tiny_built, monkeypatch):
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"id": "100", "diagnoses": ["Cholera", "Vibrio cholerae infections", "dehydratation"]}\n'
                     '{"id": "200", "diagnoses": ["pneumonias", "Pneumonia", "Asthma"]}\n'
                     '{"id": "300", "diagnoses": ["obesity", "Asthma bronchiale", "Asthma"]}\n', encoding="utf-8")
    ctx = lambda: ScoringContext(embedder=HashingEmbedder(), resamples=200, keep_per_item=True)
    _, dense = score_file("medreamm", preds, tiny_built, ctx())
    monkeypatch.setattr(scorer, "DENSE_FACTOR", 0)  # force the per-case path
    _, per_case = score_file("medreamm", preds, tiny_built, ctx())
    assert dense.metrics == per_case.metrics and dense.ci == per_case.ci and dense.per_item == per_case.per_item
    assert 0 < dense.metrics["top10_complete_sem"] < 100  # the fixture has both hits and misses
