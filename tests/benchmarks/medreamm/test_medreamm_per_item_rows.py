"""Per-item rows built once per distinct row and copied: the same dicts as building each case's own."""
import math

import numpy as np

from benchmarks.medreamm.scorer import _per_item_rows


def _by_hand(ids, per_item):
    return {i: {n: float(per_item[n][k]) for n in per_item} for k, i in enumerate(ids)}


def test_rows_equal_building_each_case_and_are_independent_copies():
    ids = ["a", "b", "c", "d", "e"]
    per_item = {"top1": np.array([1.0, 0.0, 1.0, 0.0, 1.0]), "mrr": np.array([1.0, 0.25, 1.0, 0.0, 1 / 3]),
                "hits": np.array([1, 0, 1, 0, 1])}  # integer column: values become floats, as before
    rows = _per_item_rows(ids, per_item)
    assert rows == _by_hand(ids, per_item)
    assert list(rows) == ids and list(rows["b"]) == ["top1", "mrr", "hits"]
    assert rows["e"]["mrr"] == 1 / 3 and all(type(v) is float for r in rows.values() for v in r.values())
    rows["a"]["top1"] = 0.5  # "a" and "c" share a distinct row: changing one case leaves the other alone
    assert rows["c"]["top1"] == 1.0


def test_negative_zero_and_nan_are_kept_as_given():
    ids = ["a", "b", "c"]
    per_item = {"x": np.array([-0.0, 0.0, np.nan]), "y": np.array([1.0, 1.0, 2.0])}
    rows = _per_item_rows(ids, per_item)
    assert math.copysign(1.0, rows["a"]["x"]) == -1.0 and math.copysign(1.0, rows["b"]["x"]) == 1.0
    assert math.isnan(rows["c"]["x"]) and rows["c"]["y"] == 2.0
    assert _per_item_rows(["a"], {}) == {"a": {}}
