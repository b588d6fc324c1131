"""MedReaMM ICD matching at its boundaries, end to end: postcoordinated codes are compared as whole strings
(`X&Y` never matches `X&Z` nor the bare stem `X`), and a primary matched only at rank 10 earns MRR 0.1."""
import json

import pytest

from conftest import raw_case, write_release
from dataset_builders.stage import build
from leaderboard.scoring import registry
from leaderboard.scoring.benchmark import ScoringContext
from leaderboard.scoring.score_file import score_file

STEM, RIGHT_EYE, LEFT_EYE = "9B71.0", "9B71.0&XK9K", "9B71.0&XK8G"  # diabetic macular oedema; laterality extensions


class DictCoder:
    identity = {"coder": "test-dictionary", "approximate": False}
    table = {"macular oedema, left eye": LEFT_EYE, "macular oedema": STEM, "macular oedema, right eye": RIGHT_EYE,
             "pneumonia": "CA40", "retinal haemorrhage": "9B78.1&XK9K"}

    def code(self, term):
        return self.table.get(term.strip().lower())


CASES = [
    raw_case("1", [("Macular oedema, right eye", RIGHT_EYE, True), ("Retinal haemorrhage", "9B78.1&XK8G", False)]),
    raw_case("2", [("Pneumonia", "CA40", True)]),
]
PREDICTIONS = [
    # X&Z at rank 1, the stem X at rank 2, X&Y at rank 3; the haemorrhage code differs only after "&"
    {"id": "1", "diagnoses": ["Macular oedema, left eye", "Macular oedema", "Macular oedema, right eye",
                              "Retinal haemorrhage"]},
    {"id": "2", "diagnoses": [f"uncodable guess {k}" for k in range(1, 10)] + ["Pneumonia"]},  # primary at rank 10
]


@pytest.fixture
def per_item(tmp_path):
    write_release(tmp_path / "raw", CASES)
    build(registry.adapter("medreamm"), tmp_path / "raw", tmp_path / "hub", progress=False)
    path = tmp_path / "p.jsonl"
    path.write_text("\n".join(json.dumps(p) for p in PREDICTIONS) + "\n", encoding="utf-8")
    context = ScoringContext(icd_coder=DictCoder(), resamples=0, keep_per_item=True)
    return score_file("medreamm", path, tmp_path / "hub" / "medreamm", context)[1].per_item


def test_postcoordinated_codes_match_only_as_whole_strings(per_item):
    case = per_item["1"]
    assert case["top1_icd"] == 0.0  # X&Z is not X&Y
    assert case["mrr_icd"] == pytest.approx(1 / 3)  # neither is the stem X at rank 2; X&Y at rank 3 is the match
    assert case["top5_complete_icd"] == 0.0  # 9B78.1&XK9K is not 9B78.1&XK8G: the secondary stays unmatched


def test_primary_matched_exactly_at_rank_ten(per_item):
    case = per_item["2"]
    assert case["mrr_icd"] == pytest.approx(0.1)
    assert (case["top10_primary_icd"], case["top5_primary_icd"], case["top1_icd"]) == (1.0, 0.0, 0.0)
