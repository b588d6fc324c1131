"""Mutation-gate tests of leaderboard.scoring.judge.safety and the judge cache key (issue 29 item 1): sentence
cuts, redaction and quoting, exactly."""
from __future__ import annotations

from leaderboard.scoring.judge.safety import split_sentences


def test_sentences_are_cut_after_their_ends_and_rejoin_to_the_text():
    text = "Dose 3.5 mmol. Stop!  Next?\nok e.g. here"
    pieces = split_sentences(text)
    assert pieces == ["Dose 3.5 mmol.", " Stop!", "  Next?\n", "ok e.g.", " here"]
    assert "".join(pieces) == text
    assert split_sentences("") == [] and split_sentences("one") == ["one"]


def test_the_judge_key_orders_the_items_own_variables_by_name():
    from leaderboard.scoring.judge.cache import judge_key, key_prefix

    header, item = "k3\nsettings\nprompt\nsha", "digest"
    two = judge_key(header, item, {"b": "1", "a": "2"})
    assert two == judge_key(header, item, {"a": "2", "b": "1"})
    assert two != judge_key(header, item, {"a": "1", "b": "2"})
    assert judge_key(header, item, {"a": "2"}, prefix=key_prefix(header, item)) == judge_key(header, item, {"a": "2"})
