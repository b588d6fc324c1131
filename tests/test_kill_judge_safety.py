"""Mutation-gate tests of leaderboard.judge.safety and the judge cache key (issue 29 item 1): sentence
cuts, redaction and quoting, exactly."""
from __future__ import annotations

from leaderboard.judge.safety import split_sentences


def test_sentences_are_cut_after_their_ends_and_rejoin_to_the_text():
    text = "Dose 3.5 mmol. Stop!  Next?\nok e.g. here"
    pieces = split_sentences(text)
    assert pieces == ["Dose 3.5 mmol.", " Stop!", "  Next?\n", "ok e.g.", " here"]
    assert "".join(pieces) == text
    assert split_sentences("") == [] and split_sentences("one") == ["one"]
