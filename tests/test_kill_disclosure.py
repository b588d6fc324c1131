"""Mutation-gate tests of leaderboard.disclosure (issue 26 item 4, issue 29 item 1): exact reasons, exact
plans and exact public records on small asymmetric fixtures, so that each planted one-line bug in the
suppression plan, the leak search or the publishing step changes an asserted value."""
from __future__ import annotations

import pytest

from leaderboard.disclosure import Policy, why_hidden


def test_every_reason_text_is_exact_and_names_k():
    assert why_hidden("k-rule", 7) == ("computed from fewer than 7 items; kept private so individual answers "
                                       "cannot be read back")
    assert why_hidden("complementary", 3) == ("complementary suppression: together with the public numbers it "
                                              "would reveal a group of fewer than 3 items")
    assert why_hidden("held-out", 5) == "built from held-out labels; not public"
    assert why_hidden("derived", 5) == "a mean over a suppressed number"
    assert why_hidden("no-item-sets", 5) == ("the scorer gave no item set for it, so its disclosure cannot be "
                                             "checked")


def test_policy_bounds_are_inclusive_at_one_item_and_zero_noise():
    assert Policy(min_cell=1, noise_items=0.0).min_cell == 1
    with pytest.raises(ValueError, match=r"^the minimum public cell must be >= 1 item and the noise >= 0 items$"):
        Policy(min_cell=0)
    with pytest.raises(ValueError):
        Policy(noise_items=-0.01)


def test_policy_from_settings_carries_every_setting():
    from leaderboard.settings import Settings

    policy = Policy.from_settings(Settings.from_env({"LEADERBOARD_MIN_CELL": "4", "LEADERBOARD_SECRET": "é",
                                                     "LEADERBOARD_PUBLIC_NOISE": "0.5",
                                                     "LEADERBOARD_BREAKDOWNS": "7"}))
    assert policy == Policy(min_cell=4, secret="é".encode("utf-8"), noise_items=0.5, breakdowns_per_month=7)
    assert Policy.from_settings(Settings.from_env({})).secret is None


def test_cells_from_labels_without_labels_keep_the_given_universe():
    import numpy as np

    from leaderboard.disclosure import Cells, metric_key

    cells = Cells.from_labels({}, ["all"], n=4)  # n given: 4 items, one whole-set metric
    assert cells.masks.shape == (4, 1) and cells.masks.all() and cells.keys == [metric_key("all")]
    empty = Cells.from_labels({}, n=3)  # no column at all over 3 items
    assert empty.masks.shape == (3, 0) and empty.keys == []
    none = Cells.from_labels({})
    assert none.masks.shape == (0, 0)
    # list labels put an item in each of its values; None is '(missing)'; n is the labels' length
    cells = Cells.from_labels({"s": ["a", ["a", "b"], None]})
    assert cells.keys == [("stratum", "s", "a"), ("stratum", "s", "b"), ("stratum", "s", "(missing)")]
    assert cells.masks.tolist() == [[True, False, False], [True, True, False], [False, False, True]]
    assert cells.sources == {key: "s" for key in cells.keys} and cells.masks.dtype == np.bool_
