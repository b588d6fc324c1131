"""Mutation-gate tests of leaderboard.privacy.disclosure (issue 26 item 4, issue 29 item 1): exact reasons, exact
plans and exact public records on small asymmetric fixtures, so that each planted one-line bug in the
suppression plan, the leak search or the publishing step changes an asserted value."""
from __future__ import annotations

import pytest

from leaderboard.privacy.disclosure import Policy, why_hidden


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

    from leaderboard.privacy.disclosure import Cells, metric_key

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


# ----------------------------------------------------------------------------- keyed fingerprint and noise
SECRET = b"k-\xe9"


def _gauss(salt: str, label: str) -> float:
    """The keyed standard normal draw, written out independently of the module."""
    import hashlib
    import hmac
    from statistics import NormalDist

    digest = hmac.new(SECRET, f"{salt}\x00{label}".encode(), hashlib.sha256).digest()
    return NormalDist().inv_cdf((int.from_bytes(digest[:8], "big") + 0.5) / 2 ** 64)


def test_keyed_fingerprint_is_the_first_16_hex_of_the_hmac():
    import hashlib
    import hmac

    from leaderboard.privacy.disclosure import keyed_fingerprint

    expected = hmac.new(b"s3", "sha:é".encode("utf-8"), hashlib.sha256).hexdigest()
    assert keyed_fingerprint(b"s3", "sha:é") == "hmac-sha256:" + expected[:16]


def test_noise_sd_is_items_worth_of_the_span():
    from leaderboard.privacy.disclosure import noise_sd

    assert noise_sd(2.0, 50) == 4.0  # 2 items of a x100 mean over 50 items
    assert noise_sd(2.0, 50, span=1.0) == 0.04
    assert noise_sd(3.0, 1) == 300.0 and noise_sd(3.0, 0) == 300.0  # never divides by less than one item


def test_every_public_value_gets_its_own_keyed_draw_clamped_to_its_declared_range():
    from leaderboard.privacy.disclosure import Cells, Disclosure, publish

    n, noise = 100, 30.0
    cells = Cells.from_labels({"s": ["a"] * 60 + ["b"] * 40, "t": ["x"] * 50 + ["y"] * 50}, ["acc"])
    bounds = {"acc": (0.0, 100.0), "ece": (0.0, 1.0), "free": (None, None), "low_only": (-5.0, None),
              "p1": (0.0, 100.0), "p2": (0.0, 100.0), "macro": (None, None)}
    disclosure = Disclosure(cells=[cells], bounds=bounds, item_span={"ece": 1.0, "free": 10.0},
                            derived={"macro": ["p1", "p2", "p3"]})
    metrics = {"acc": 95.0, "ece": 0.02, "free": -3.0, "low_only": -4.0, "undeclared": 97.0, "und_low": 2.0, "p1": 40.0,
               "p2": 60.0, "p3": 50.0, "macro": 50.0}
    data = {"benchmark": "nope", "metrics": metrics, "n_items": n,
            "ci": {"acc": [90.0, 99.0], "ece": [0.0, 0.05], "free": [-4.0, -2.0], "macro": [45.0, 55.0]},
            "metric_n": {"ece": 80, "free": 7, "low_only": 9, "undeclared": 12, "und_low": 12, "p1": 20, "p2": 30},
            # z has no item set: hidden, and passed over by the noise; t's cell x gives no n (a foreign record)
            "strata": {"s": {"z": {"n": 50, "metrics": {"acc": 1.0}},
                             "a": {"n": 60, "metrics": {"acc": 97.0, "ece": 0.98, "free": -3.0},
                                   "ci": {"acc": [93.0, 99.5], "free": [-4.0, -2.0]}},
                             "b": {"n": 40, "metrics": {"acc": 3.0}}},
                       "t": {"x": {"metrics": {"free": 5.0}}}},
            "protocol": {"answers_held_out": True, "held_out_columns": []}}
    # a salt whose draws push values past each end of their ranges (so a wrong range shows)
    salt = next(salt for salt in (f"sub-{i}" for i in range(500))
                if _gauss(salt, "s:s:b:acc") < -0.1 and _gauss(salt, "m:undeclared") > 0.1 and _gauss(salt, "m:und_low") < -0.1
                and _gauss(salt, "s:s:a:ece") > 0.1 and _gauss(salt, "m:free") < -0.1)
    public = publish(data, disclosure, Policy(secret=SECRET, noise_items=noise), salt=salt)

    def expect(value, label, items, span=100.0, low=0.0, high=100.0):
        value = value + _gauss(salt, label) * noise * span / items
        value = value if low is None else max(low, value)
        return round(value if high is None else min(high, value), 4)

    assert public["metrics"] == {
        "acc": expect(95.0, "m:acc", 100), "ece": expect(0.02, "m:ece", 80, 1.0, 0.0, 1.0),
        "free": expect(-3.0, "m:free", 7, 10.0, None, None), "low_only": expect(-4.0, "m:low_only", 9, low=-5.0, high=None),
        "undeclared": expect(97.0, "m:undeclared", 12), "und_low": expect(2.0, "m:und_low", 12), "p1": expect(40.0, "m:p1", 20), "p2": expect(60.0, "m:p2", 30),
        "p3": expect(50.0, "m:p3", 100),  # no n of its own: the split's
        # a mean of subset metrics moves span/(T n_t) per item of subset t: its n is T min(n_t) = 2 x 20 (p3 has none)
        "macro": expect(50.0, "m:macro", 40, low=None, high=None)}
    assert public["ci"] == {"acc": [expect(90.0, "lo:acc", 100), expect(99.0, "hi:acc", 100)],
                            "ece": [expect(0.0, "lo:ece", 80, 1.0, 0.0, 1.0), expect(0.05, "hi:ece", 80, 1.0, 0.0, 1.0)],
                            "free": [expect(-4.0, "lo:free", 7, 10.0, None, None),
                                     expect(-2.0, "hi:free", 7, 10.0, None, None)],
                            "macro": [expect(45.0, "lo:macro", 40, low=None, high=None),
                                      expect(55.0, "hi:macro", 40, low=None, high=None)]}
    assert public["strata"] == {"s": {
        "z": {"n": 50, "metrics": {}, "suppressed": True,
              "reason": "the scorer gave no item set for it, so its disclosure cannot be checked"},
        "a": {"n": 60, "metrics": {"acc": expect(97.0, "s:s:a:acc", 60), "ece": expect(0.98, "s:s:a:ece", 60, 1.0, 0.0, 1.0),
                                   "free": expect(-3.0, "s:s:a:free", 60, 10.0, None, None)},
              "ci": {"acc": [expect(93.0, "slo:s:a:acc", 60), expect(99.5, "shi:s:a:acc", 60)],
                     "free": [expect(-4.0, "slo:s:a:free", 60, 10.0, None, None),
                              expect(-2.0, "shi:s:a:free", 60, 10.0, None, None)]}},
        "b": {"n": 40, "metrics": {"acc": expect(3.0, "s:s:b:acc", 40)}}},
        "t": {"x": {"metrics": {"free": expect(5.0, "s:t:x:free", 1, 10.0, None, None)}}}}
    # the salt did what it was chosen for: undeclared metrics stop at 0 and 100, a fraction at 1, an open range nowhere
    assert public["metrics"]["undeclared"] == 100.0 and public["metrics"]["und_low"] == 0.0
    assert public["strata"]["s"]["b"]["metrics"]["acc"] == 0.0 and public["strata"]["s"]["a"]["metrics"]["ece"] == 1.0
    assert public["metrics"]["free"] < -5.0 and public["metrics"]["low_only"] not in (-4.0, 100.0)
    assert public["protocol"]["disclosure"] == {"min_cell": 5, "noise_items": 30.0}


def test_at_chance_uses_the_metrics_own_n_and_its_standard_error():
    from leaderboard.privacy.disclosure import Disclosure, at_chance

    coin = Disclosure(chance={"acc": 50.0})
    # p = 0.5 over 100 items: se 5 points, z = 3: up to 65.0 is "at chance" (inclusive)
    assert at_chance({"metrics": {"acc": 65.0}, "n_items": 7}, coin, {"acc": 100})
    assert not at_chance({"metrics": {"acc": 65.01}, "n_items": 7}, coin, {"acc": 100})
    # without its own n the split's n stands in: 400 items, se 2.5, up to 57.5
    assert at_chance({"metrics": {"acc": 57.5}, "n_items": 400}, coin, {})
    assert not at_chance({"metrics": {"acc": 57.6}, "n_items": 400}, coin, {})
    # its own n wins over the split's: 25 % over 400 items is up to 31.5, over 20 items up to 54.0
    quarter = Disclosure(chance={"acc": 25.0})
    assert not at_chance({"metrics": {"acc": 40.0}, "n_items": 20}, quarter, {"acc": 400})
    assert at_chance({"metrics": {"acc": 40.0}, "n_items": 20}, quarter, {"acc": 20})
    # no value, or no n at all: not evidence of a constant answer
    assert not at_chance({"metrics": {"acc": None}, "n_items": 50}, coin, {})
    assert not at_chance({"metrics": {"acc": 10.0}}, coin, {})
    assert not at_chance({"metrics": {"acc": 90.0}, "n_items": 400}, coin, {})
    # a chance of 0 or 100 is clamped, never a zero standard error that no real value could sit inside
    assert at_chance({"metrics": {"acc": 0.0}, "n_items": 10}, Disclosure(chance={"acc": 0.0}), {})
    assert at_chance({"metrics": {"acc": 100.0}, "n_items": 10}, Disclosure(chance={"acc": 100.0}), {})
    # any metric at chance is enough
    two = Disclosure(chance={"acc": 50.0, "f1": 50.0})
    assert at_chance({"metrics": {"acc": 90.0, "f1": 50.0}, "n_items": 100}, two, {})
    assert at_chance({"metrics": {"acc": 50.0, "f1": 90.0}, "n_items": 100}, two, {})
    # a metric without a value does not end the search
    assert at_chance({"metrics": {"acc": None, "f1": 50.0}, "n_items": 100}, two, {})


# ----------------------------------------------------------------------------- the structured leak shapes
def _split_cells(n, spec, left):
    """A total, the given cells, and an "eye" stratum L/R that splits the small group, so that no membership
    group (atom) of it is derivable alone: only a structured shape (or the exhaustive search) sees the group."""
    import numpy as np

    from leaderboard.privacy.disclosure import Cells, metric_key

    columns, keys = [np.ones(n, dtype=bool)], [metric_key("all")]
    for key, items in spec:
        mask = np.zeros(n, dtype=bool)
        mask[list(items)] = True
        columns.append(mask)
        keys.append(key)
    eye = np.zeros(n, dtype=bool)
    eye[list(left)] = True
    columns += [eye, ~eye]
    keys += [("stratum", "eye", "L"), ("stratum", "eye", "R")]
    return Cells(np.column_stack(columns), keys)


@pytest.mark.parametrize("shape, spec, left, expected", [
    # A + B - (A u B) = A n B, items 7-9: the smaller of A and B (a tie: the later one) goes
    ("intersection", [(("stratum", "a", "A"), range(0, 10)), (("stratum", "b", "B"), range(7, 17)),
                      (("stratum", "c", "C"), range(0, 17))], [9, *range(25, 40)], {("stratum", "b", "B")}),
    # an intersection of exactly k items is allowed
    ("intersection of k", [(("stratum", "a", "A"), range(0, 10)), (("stratum", "b", "B"), range(5, 15)),
                           (("stratum", "c", "C"), range(0, 15))], [9, *range(25, 40)], set()),
    # A - B + (B minus A) = A minus B, items 0-2: E (5 items) is the smallest part of the derivation
    ("difference", [(("stratum", "a", "A"), range(0, 10)), (("stratum", "b", "B"), range(3, 15)),
                    (("stratum", "e", "E"), range(10, 15))], [0, *range(25, 40)], {("stratum", "e", "E")}),
    # a parent minus its public cells of two strata: P - t1 - v1 = items 17-19
    ("parent minus cells inside it", [(("stratum", "p", "P"), range(0, 20)), (("stratum", "t", "t1"), range(0, 10)),
                                      (("stratum", "v", "v1"), range(10, 17))], [17, *range(25, 40)],
     {("stratum", "v", "v1")}),
])
def test_each_structured_shape_is_found_without_the_exhaustive_search(monkeypatch, shape, spec, left, expected):
    from test_disclosure import audit, small_groups_derivable

    from leaderboard.privacy import disclosure
    from leaderboard.privacy.disclosure import suppression_plan

    cells = _split_cells(40, spec, left)
    monkeypatch.setattr(disclosure, "MAX_SUBSETS", 0)  # structured shapes only
    plan = suppression_plan(cells, 5)
    assert plan == {key: "complementary" for key in expected}
    assert audit(cells, set(plan), 5) == [] and small_groups_derivable(cells, set(plan), 5) == []
    if expected:  # the shape is what finds it: without it the group leaks
        monkeypatch.setattr(disclosure, "_structured_leak", lambda *args: None)
        assert suppression_plan(cells, 5) == {} and small_groups_derivable(cells, set(), 5) != []


# ----------------------------------------------------------------------------- the whole public record
K_TEXT = "suppressed: computed from fewer than 5 items; kept private so individual answers cannot be read back"
COMPLEMENT_TEXT = ("complementary suppression: together with the public numbers it would reveal a group of fewer "
                   "than 5 items")
HELD_TEXT = "built from held-out labels; not public"


def _record_fixture():
    import numpy as np

    from leaderboard.privacy.disclosure import Cells, Disclosure, cell_key, metric_key

    labels = ["a"] * 3 + ["b"] * 6 + ["c"] * 21
    cells = Cells.from_labels({"s": labels}, ["all"])
    a, c = np.array([v == "a" for v in labels]), np.array([v == "c" for v in labels])
    # X is the metric over stratum cell a (its twin); C the one over cell c
    cells = Cells(np.column_stack([cells.masks, a, c]), [*cells.keys, metric_key("X"), metric_key("C")],
                  {**cells.sources})
    assert cell_key("s", "a") in cells.keys
    disclosure = Disclosure(cells=[cells], sources={"held": "hk"},
                            derived={"macro2": ["macro"], "macro": ["X", "all"]})  # macro2 listed first on purpose
    cell = {"metrics": {"acc": 1.0}}
    data = {"benchmark": "nope", "n_items": 30,
            "metrics": {"all": 50.0, "part": 25.0, "X": 40.0, "C": 60.0, "macro": 45.0, "macro2": 44.0, "held": 10.0,
                        "nullm": None},
            "ci": {"all": [40.0, 60.0], "part": [20.0, 30.0], "held": [1.0, 2.0], "C": [55.0, 65.0]},
            "pending": {"nullm": "waiting for the judge at https://judge.internal:8443/v1?key=abc"},
            "metric_n": {"part": 4},
            "strata": {"s": {"a": {"n": 3, **cell}, "b": {"n": 6, **cell}, "c": {"n": 21, **cell}},
                       "hk": {"x": {"n": 30, **cell}},
                       "nosets": {"big": {"n": 10, **cell}, "five": {"n": 5, **cell}, "tiny": {"n": 2, **cell},
                                  "non": {"metrics": {}}}},
            "protocol": {"held_out_columns": ["hk"], "dataset_fingerprint": "df", "public_fingerprint": "pf",
                         "api_key": "sk-live-123456789"},
            "notes": ["ran with token=abc123"]}
    return data, disclosure


def test_the_public_record_field_by_field():
    from leaderboard.privacy.disclosure import publish

    data, disclosure = _record_fixture()
    public = publish(data, disclosure, Policy())
    assert public["metrics"] == {"all": 50.0, "part": None, "X": None, "C": 60.0, "macro": None, "macro2": None,
                                 "held": None, "nullm": None}
    assert public["ci"] == {"all": [40.0, 60.0], "C": [55.0, 65.0]}
    assert public["pending"] == {"part": K_TEXT, "X": K_TEXT, "macro": "suppressed: a mean over a suppressed number",
                                 "macro2": "suppressed: a mean over a suppressed number", "held": HELD_TEXT,
                                 "nullm": "waiting for the judge at self-hosted"}
    assert public["metric_n"] == {"all": 30, "X": 3, "C": 21, "part": 4}
    hidden = {"metrics": {}, "suppressed": True}
    assert public["strata"] == {
        "s": {"a": {"n": 3, **hidden, "reason": K_TEXT.removeprefix("suppressed: ")},
              "b": {"n": 6, **hidden, "reason": COMPLEMENT_TEXT},  # all - c - b = a: b tops up
              "c": {"n": 21, "metrics": {"acc": 1.0}}},
        "nosets": {"big": {"n": 10, **hidden, "reason": "the scorer gave no item set for it, so its disclosure cannot be "
                                                        "checked"},
                   "five": {"n": 5, **hidden, "reason": "the scorer gave no item set for it, so its disclosure cannot "
                                                        "be checked"},
                   "tiny": {"n": 2, **hidden, "reason": K_TEXT.removeprefix("suppressed: ")},
                   "non": {"n": 0, **hidden, "reason": K_TEXT.removeprefix("suppressed: ")}}}
    assert public["protocol"] == {"held_out_columns": ["hk"], "dataset_fingerprint": "df",
                                  "disclosure": {"min_cell": 5, "noise_items": 0}}
    assert public["notes"] == ["ran with token=[hidden]"]
    assert data["metrics"]["X"] == 40.0 and data["pending"]["nullm"].startswith("waiting")  # the input is left alone


def test_without_breakdowns_subset_numbers_are_withheld_with_the_budget_in_the_reason():
    from leaderboard.privacy.disclosure import publish

    data, disclosure = _record_fixture()
    public = publish(data, disclosure, Policy(breakdowns_per_month=3), breakdowns=False)
    assert public["metrics"]["C"] is None and "C" not in public["ci"] and public["metrics"]["all"] == 50.0
    assert public["pending"]["C"] == ("withheld: breakdowns are published for 3 results per account per 30 days; this "
                                      "one shows whole-set metrics only")
    assert public["pending"]["X"] == K_TEXT  # a suppressed metric keeps its own reason
    assert public["strata"]["s"]["c"] == {"n": 21, "metrics": {}, "withheld": True}
    assert public["strata"]["s"]["a"]["suppressed"] and "withheld" not in public["strata"]["s"]["a"]


def test_a_constant_answer_on_a_held_out_key_gets_no_breakdowns_and_the_ids_fingerprint():
    from leaderboard.privacy.disclosure import publish

    data, disclosure = _record_fixture()
    data["protocol"]["answers_held_out"] = True
    disclosure.chance = {"all": 50.0}  # 50 % is exactly what a constant answer scores
    public = publish(data, disclosure, Policy())
    assert public["metrics"]["C"] is None and public["pending"]["C"] == (
        "withheld: breakdowns are published for results clearly above what a constant answer scores; this one shows "
        "whole-set metrics only")
    assert public["strata"]["s"]["c"] == {"n": 21, "metrics": {}, "withheld": True}
    # no secret: the fingerprint of the public ids only, and exact values (no noise)
    assert public["protocol"]["dataset_fingerprint"] == "pf" and "public_fingerprint" not in public["protocol"]
    assert public["protocol"]["disclosure"] == {"min_cell": 5, "noise_items": 0}
    # with a secret: the keyed fingerprint of the exact one (the disclosure's, else the protocol's)
    from leaderboard.privacy.disclosure import keyed_fingerprint, public_protocol

    keyed = public_protocol(data["protocol"], disclosure, Policy(secret=b"s"))
    assert keyed["dataset_fingerprint"] == keyed_fingerprint(b"s", "df") and keyed["disclosure"]["noise_items"] == 2.0
    disclosure.exact_fingerprint = "exact"
    assert public_protocol(data["protocol"], disclosure, Policy(secret=b"s"))["dataset_fingerprint"] == \
        keyed_fingerprint(b"s", "exact")
    assert "public_fingerprint" in data["protocol"]  # the caller's protocol is not changed


def test_a_split_smaller_than_k_keeps_its_totals_only():
    from leaderboard.privacy.disclosure import Cells, Disclosure, publish

    cells = Cells.from_labels({"s": ["a", "a", "b"]}, ["all"])
    data = {"benchmark": "nope", "n_items": 3, "metrics": {"all": 66.7}, "metric_n": {"all": 3},
            "strata": {"s": {"a": {"n": 2, "metrics": {"acc": 1.0}}, "b": {"n": 1, "metrics": {"acc": 0.0}}}}}
    public = publish(data, Disclosure(cells=[cells]), Policy())
    assert public["metrics"] == {"all": 66.7}
    assert public["strata"]["s"]["a"]["suppressed"] and public["strata"]["s"]["b"]["suppressed"]
    # the same 3 items inside a larger split are not its totals: hidden
    public = publish(dict(data, n_items=40), Disclosure(cells=[cells]), Policy())
    assert public["metrics"] == {"all": None} and public["pending"]["all"] == K_TEXT
