"""Hand-computed MedReaMM ranking metrics, including the NDCG/MRR edge cases of the design."""
import math

import numpy as np
import pytest

from leaderboard.scoring.metrics.ranked_lists import first_match_ranks, ndcg, ranked_metrics


def case(n_pred: int, n_gt: int, hits: dict[tuple[int, int], bool]) -> tuple[np.ndarray, np.ndarray]:
    """One case: hits[(rank, entity)] with 1-based ranks; entity 0 is the primary."""
    matches = np.zeros((1, 10, max(n_gt, 1)), dtype=bool)
    for (rank, entity), value in hits.items():
        matches[0, rank - 1, entity] = value
    valid = np.zeros((1, max(n_gt, 1)), dtype=bool)
    valid[0, :n_gt] = True
    return matches, valid


def metrics_of(matches, valid):
    return {k: float(v[0]) for k, v in ranked_metrics(matches, valid).items()}


def test_primary_at_three_secondaries_at_two_and_seven():
    # predictions: [x, S1, P, x, x, x, S2]; ground truth P (primary), S1, S2
    m = metrics_of(*case(7, 3, {(2, 1): True, (3, 0): True, (7, 2): True}))
    assert m["top1"] == 0.0
    assert m["top5_primary"] == 1.0 and m["top10_primary"] == 1.0
    assert m["top5_complete"] == 0.0  # S2 only at rank 7
    assert m["top10_complete"] == 1.0
    assert m["mrr"] == pytest.approx(1 / 3)
    dcg = 1 / math.log2(3) + 2 / math.log2(4) + 1 / math.log2(8)  # 0.63093 + 1 + 0.33333
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)  # 2 + 0.63093 + 0.5
    assert m["ndcg10"] == pytest.approx(dcg / idcg)
    assert m["ndcg10"] == pytest.approx(0.627373, abs=1e-6)


def test_synonyms_of_the_primary_are_credited_once():
    # [P, P-synonym]: without crediting once, DCG = 2 + 2/log2(3) > IDCG = 2 and NDCG > 1
    m = metrics_of(*case(2, 1, {(1, 0): True, (2, 0): True}))
    assert m["ndcg10"] == 1.0
    assert m["mrr"] == 1.0 and m["top1"] == 1.0


def test_one_prediction_matching_primary_and_secondary_gets_gain_two_once():
    # [X] where X matches P and S: rel(1) = max(2, 1) = 2; S's credit is used at rank 1
    m = metrics_of(*case(1, 2, {(1, 0): True, (1, 1): True}))
    assert m["ndcg10"] == pytest.approx(2 / (2 + 1 / math.log2(3)))  # 0.760188
    assert m["ndcg10"] == pytest.approx(0.760188, abs=1e-6)
    assert m["top5_complete"] == 1.0  # one prediction may cover several entities


def test_primary_absent_secondary_found():
    m = metrics_of(*case(3, 2, {(1, 1): True}))
    assert m["mrr"] == 0.0 and m["top1"] == 0.0 and m["top10_primary"] == 0.0
    assert m["top10_complete"] == 0.0
    assert m["ndcg10"] == pytest.approx(1 / (2 + 1 / math.log2(3)))  # 0.380094


def test_no_predictions_scores_zero_everywhere():
    m = metrics_of(*case(0, 3, {}))
    assert all(v == 0.0 for v in m.values())


def test_idcg_is_truncated_to_ten_positions():
    # 11 entities, all matched at ranks 1..10 in ideal order (the 11th never fits in ten slots)
    matches = np.zeros((1, 10, 11), dtype=bool)
    for r in range(10):
        matches[0, r, r] = True
    valid = np.ones((1, 11), dtype=bool)
    assert float(ndcg(first_match_ranks(matches, valid), valid)[0]) == pytest.approx(1.0)
    assert float(ranked_metrics(matches, valid)["top10_complete"][0]) == 0.0


def test_later_secondaries_lower_ndcg_than_ideal_order():
    # [S, P] vs ideal [P, S]: DCG = 1 + 2/log2(3) = 2.26186; IDCG = 2 + 1/log2(3) = 2.63093
    m = metrics_of(*case(2, 2, {(1, 1): True, (2, 0): True}))
    assert m["ndcg10"] == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert m["mrr"] == 0.5


def test_padding_entities_never_count_as_matched_or_missing():
    matches = np.zeros((2, 10, 3), dtype=bool)
    matches[0, 0, 0] = True
    matches[0, 0, 2] = True  # padding column of case 0 (it has one entity): must be ignored
    valid = np.array([[True, False, False], [True, True, True]])
    out = ranked_metrics(matches, valid)
    assert out["top5_complete"].tolist() == [1.0, 0.0]
    assert out["ndcg10"][0] == pytest.approx(1.0)


def test_vectorised_over_cases_equals_one_by_one():
    rng = np.random.default_rng(3)
    matches = rng.random((50, 10, 4)) < 0.15
    valid = np.ones((50, 4), dtype=bool)
    valid[::3, 2:] = False
    together = ranked_metrics(matches, valid)
    for c in range(50):
        alone = ranked_metrics(matches[c:c + 1], valid[c:c + 1])
        for name, values in together.items():
            assert values[c] == pytest.approx(alone[name][0])


def test_ndcg_gains_per_rank_equal_the_scattered_maximum():
    """rel per rank by two assignments (secondaries 1, then the primary 2): the same bits as scattering each
    credited entity's gain with np.maximum.at (the earlier form), primary and secondary at one rank included."""
    rng = np.random.default_rng(11)
    ranks = rng.integers(1, 14, size=(400, 6))  # ranks past 10 earn nothing
    ranks[::7, 1] = ranks[::7, 0]  # a prediction that is first match of the primary and a secondary
    ranks[::5, 3] = np.iinfo(np.int32).max
    valid = rng.random((400, 6)) < 0.8
    valid[:, 0] = True
    valid[::9] = False  # no ground truth: NDCG 0
    cases, entities = ranks.shape
    gains = np.where(np.arange(entities) == 0, 2.0, 1.0)[None, :] * valid
    rel = np.zeros((cases, 11))
    credited = (ranks <= 10) & valid
    rows = np.repeat(np.arange(cases), entities).reshape(cases, entities)
    np.maximum.at(rel, (rows, np.where(credited, ranks, 0)), np.where(credited, gains, 0.0))
    discounts = 1.0 / np.log2(np.arange(1, 11) + 1)
    n_gt = valid.sum(axis=1)
    ideal = np.zeros((cases, 10))
    ideal[:, 0] = np.where(n_gt > 0, 2.0, 0.0)
    ideal[:, 1:] = (np.arange(1, 10)[None, :] < n_gt[:, None]).astype(float)
    idcg = ideal @ discounts
    want = np.divide(rel[:, 1:] @ discounts, idcg, out=np.zeros(cases), where=idcg > 0)
    got = ndcg(ranks, valid, 10)
    assert np.array_equal(got, want)
    assert got[0] == 0.0 and 0 < got.max() <= 1.0
