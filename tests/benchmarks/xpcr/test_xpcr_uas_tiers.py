"""X-PCR's UAS end to end with tiers A and S that differ in both raw score and item count, so swapping
any two of the module's TIER_WEIGHTS changes the result (the main fixture has equal A and S sums)."""
import json

import pytest

from benchmarks.xpcr.taxonomy import TIER_WEIGHTS
from dataset_builders.stage import build
from leaderboard.scoring import registry
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.metrics.calibration import BASE_SCORES
from leaderboard.scoring.score_file import score_file
from xpcr_release import SCORING_CASES, SCORING_ROWS, write_release

# tiers of the chain items (tests/xpcr_release.py): R img1-1/2, img2-1/2, img3-1/2; A img1-3/4, img2-3/4/5, img3-3;
# S img1-5/6, img2-6/7. (id, letter, confidence); gold is B everywhere, so C is wrong.
PREDICTIONS = [
    ("img1-1", "B", 0.95), ("img1-2", "B", 0.9), ("img2-1", "B", 1.0), ("img2-2", "B", 0.5),  # R: CC x4
    ("img3-1", "B", 0.6), ("img3-2", "C", 0.2),                                            # R: CC, IU
    ("img1-3", "B", 0.85), ("img1-4", "B", None), ("img2-3", "C", 0.7), ("img2-4", "B", None),  # A: CC, IC
    ("img2-5", "B", 0.65),                                                                 # A: CC
    ("img1-5", "B", 0.9), ("img1-6", "B", 0.3), ("img2-6", "B", 0.55), ("img2-7", "B", 0.75),  # S: CC, CU, CC, CC
]


@pytest.fixture(scope="module")
def uas(tmp_path_factory):
    root = tmp_path_factory.mktemp("xpcr-uas")
    write_release(root / "raw", SCORING_ROWS, SCORING_CASES)
    build(registry.adapter("xpcr"), root / "raw", root / "hub", progress=False)
    lines = [{"id": i, "answer": a, **({"confidence": c} if c is not None else {})} for i, a, c in PREDICTIONS]
    path = root / "p.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n", encoding="utf-8")
    return score_file("xpcr", path, root / "hub" / "xpcr", ScoringContext(resamples=0))[1].metrics["UAS"]


def test_uas_weights_each_tier_by_the_modules_tier_weights(uas):
    b = BASE_SCORES
    raw = {"R": 5 * b["CC"] + b["IU"],          # 5.25 over 6 items
           "A": 2 * b["CC"] + b["IC"],          # 2.0 over 3 items (img1-4, img2-4 have no confidence)
           "S": 3 * b["CC"] + b["CU"]}          # 3.5 over 4 items
    n = {"R": 6, "A": 3, "S": 4}
    w = TIER_WEIGHTS
    expected = 100 * sum(w[t] * raw[t] for t in raw) / sum(w[t] * n[t] for t in n)
    assert uas == pytest.approx(expected, abs=1e-4)
    # with this project's weights R 1, A 1.5, S 2: 100 x (5.25 + 3 + 7) / (6 + 4.5 + 8) = 82.4324
    assert uas == pytest.approx(100 * 15.25 / 18.5, abs=1e-4)


@pytest.mark.parametrize("swap", [("A", "S"), ("R", "A"), ("R", "S")])
def test_swapping_two_tier_weights_would_change_the_uas(uas, swap):
    """The fixture is asymmetric enough: every swap of two weights gives another number."""
    w = dict(TIER_WEIGHTS)
    w[swap[0]], w[swap[1]] = w[swap[1]], w[swap[0]]
    raw, n = {"R": 5.25, "A": 2.0, "S": 3.5}, {"R": 6, "A": 3, "S": 4}
    swapped = 100 * sum(w[t] * raw[t] for t in raw) / sum(w[t] * n[t] for t in n)
    assert abs(swapped - uas) > 0.1  # the closest, R <-> S, gives 82.9268
