"""Issue 14's open choices are decided in words that reach every result's protocol (via `decisions`)."""
import pytest

from leaderboard.scoring import registry
from leaderboard.scoring.letters import RULE_SUMMARY, parse_letter


@pytest.mark.parametrize("benchmark, phrases", [
    ("medreamm", ["LAST '### Output ###' heading", "crashes when no bracketed list", "blank items"]),
    ("clinmm", ["No prediction, no reasoning", "0 would reward silence"]),
    ("medrealmm", ["a raw ratio of exactly 0, and missing or empty replies alike"]),
    ("xpcr", ["importance scores are unreleased", "calibration step is not applied", RULE_SUMMARY]),
    ("medcmr", ["each 0-10; every criterion is reported x10", RULE_SUMMARY]),
])
def test_decisions_are_stated(benchmark, phrases):
    text = " ".join(registry.scorer(benchmark).decisions)
    for phrase in phrases:
        assert phrase in text, (benchmark, phrase)


def test_the_two_shapes_from_the_issue_parse():
    assert parse_letter("Answer: B\nOption A is less likely because the lesion is bilateral.") == "B"
    assert parse_letter("C\nThe fundus shows a cherry-red spot; A and B would not explain it.") == "C"
