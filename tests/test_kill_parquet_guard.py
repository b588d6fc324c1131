"""Mutation-gate tests of leaderboard.parquet_guard (issue 29 item 1): each limit at and one past its
bound, each refused type with its message."""
from __future__ import annotations

import pyarrow as pa

from leaderboard.parquet_guard import _type_problem


def test_prediction_column_types():
    for t in (pa.string(), pa.large_string(), pa.int8(), pa.float32(), pa.bool_(), pa.null(), pa.binary(),
              pa.large_binary(), pa.dictionary(pa.int32(), pa.string()), pa.list_(pa.string()),
              pa.large_list(pa.int64()), pa.list_(pa.dictionary(pa.int32(), pa.string()))):
        assert _type_problem("c", t) is None, t
    assert _type_problem("when", pa.date32()) == ("column 'when' has type date32[day]; prediction columns hold "
                                                  "text, numbers or lists of text")
    assert _type_problem("x" * 50, pa.struct([("a", pa.int8())])) == (
        f"column '{'x' * 40}' has type struct<a: int8> (nested); prediction columns hold text, numbers or lists "
        "of text")
    assert _type_problem("n", pa.list_(pa.list_(pa.string()))) == (
        "column 'n' has type list<item: list<item: string>> (nested); prediction columns hold text, numbers or "
        "lists of text")
