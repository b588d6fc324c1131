"""Mutation-gate tests of leaderboard.breakdowns (issue 26 item 4, issue 29 item 1): every empty cell's
reason, row order, labels, the overall column and the radar notes, exactly."""
from __future__ import annotations

from leaderboard.breakdowns import HIDDEN, NOT_REPORTED, PENDING, Cell, _cell


def test_each_kind_of_cell_and_its_gap():
    assert _cell(None, "acc") == Cell(None, gap=NOT_REPORTED)
    assert _cell({"n": 3, "suppressed": True, "reason": "complementary x"}, "acc") == Cell(None, 3,
                                                                                         gap="hidden: complementary x")
    assert _cell({"n": 2, "suppressed": True}, "acc") == Cell(None, 2, gap=HIDDEN)
    assert _cell({"n": 9, "metrics": {"acc": None}}, "acc") == Cell(None, 9, gap=PENDING)
    assert _cell({"n": 9, "metrics": {"f1": 1.0}}, "acc") == Cell(None, 9, gap=NOT_REPORTED)
    assert _cell({"n": 9, "metrics": None}, "acc") == Cell(None, 9, gap=NOT_REPORTED)
    assert _cell({"n": 9, "metrics": {"acc": 40}, "ci": {"acc": [30.0, 50.0]}, "flags": {"acc": "copy?"}},
                 "acc") == Cell(40.0, 9, (30.0, 50.0), flag="copy?")
    assert _cell({"n": 9, "metrics": {"acc": 40}}, "acc") == Cell(40.0, 9, None, flag=None)
