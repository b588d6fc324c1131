"""The scorer aligns predictions with the key from the validation's `key_rows` (each prediction's row in the
key) only when they hold for the tables at hand; stale, out-of-range or repeated rows fall back to hashing
the ids, so the alignment is the same whichever way it was found."""
from types import SimpleNamespace

import numpy as np
import pyarrow as pa
import pytest

from benchmarks.xpcr.alignment import _Scored

KEY_IDS = ["a", "b", "c", "d", "e"]
PREDS = pa.table({"id": ["c", "a", "e"]})
WANT = [1, None, 0, None, 2]  # key row -> prediction row


def positions(key_rows, preds=PREDS):
    scored = _Scored.__new__(_Scored)  # only the key's ids are read: no full key needed
    scored.k = SimpleNamespace(ids=pa.chunked_array([KEY_IDS[:2], KEY_IDS[2:]]))
    return scored._positions(preds, len(KEY_IDS), None if key_rows is None else np.array(key_rows)).to_pylist()


@pytest.mark.parametrize("key_rows", [
    [2, 0, 4],  # right: used as they are
    None,  # the line-by-line path gives none
    [0, 2, 4],  # stale (another order): the ids do not match
    [2, 0, 9],  # out of the key
    [2, 0],  # another length
    [-1, 0, 4],  # negative
])
def test_alignment_is_the_same_from_any_key_rows(key_rows):
    assert positions(key_rows) == WANT


def test_repeated_key_rows_are_not_trusted():
    preds = pa.table({"id": ["c", "c"]})  # never a validated table, but the scorer does not rely on that
    assert positions([2, 2], preds) == positions(None, preds) == [None, None, 0, None, None]


def test_no_predictions_align_nothing():
    assert positions([], pa.table({"id": pa.array([], pa.string())})) == [None] * 5
