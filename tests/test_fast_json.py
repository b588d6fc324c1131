"""fast_json.loads gives exactly json.loads' value, orjson or not: integers past 64 bits stay integers,
NaN/Infinity and lone surrogates are read, invalid JSON raises json's error."""
import json
import math

import pytest

from leaderboard.fast_json import dumps, loads, loads_many


@pytest.mark.parametrize("text", [
    '{"seed": 123456789012345678901234567890}',  # past 64 bits: orjson would give a float
    '[18446744073709551616, -9223372036854775809]',  # just past u64 / i64
    '{"n": 18446744073709551615, "m": -9223372036854775808}',  # the largest orjson reads exactly
    '{"id": "0123456789012345678901", "x": 1.5}',  # a long digit run inside a string
    '{"a": 1, "a": 2, "b": [true, null, "\\u00e9\\u4e2d"]}',
    '"\\ud800"',  # a lone surrogate: json reads it, orjson refuses
])
def test_loads_gives_json_loads_value_and_types(text):
    for raw in (text, text.encode()):
        got, want = loads(raw), json.loads(text)
        assert got == want
        assert json.dumps(got) == json.dumps(want)  # same types too: 10**29 is not 1e29


def test_loads_keeps_a_big_integer_an_integer():
    value = loads(b'{"seed": 123456789012345678901234567890}')["seed"]
    assert type(value) is int and value == 123456789012345678901234567890


def test_loads_reads_nan_and_infinity_as_json_does():
    value = loads('{"a": NaN, "b": -Infinity, "c": 1e400}')
    assert math.isnan(value["a"]) and value["b"] == -math.inf and value["c"] == math.inf


def test_loads_raises_json_error_on_invalid_text():
    with pytest.raises(json.JSONDecodeError):
        loads(b'{"a": }')


def test_dumps_round_trips_big_integers_and_text():
    value = {"seed": 2 ** 70, "t": "中文 é", "x": [1.25, None]}
    assert json.loads(dumps(value)) == value
    assert "中文".encode() in dumps(value)  # not \u-escaped


def test_loads_many_gives_json_loads_of_each_text_in_order():
    texts = ['{"met": true, "rationale": "0123456789"}', '[1, 2.5, null]', '"\\u4e2d"', '{"n": -9223372036854775808}']
    for batch in (texts, [t.encode() for t in texts]):
        got = loads_many(batch)
        assert got == [json.loads(t) for t in texts]
        assert [type(v) for v in got] == [dict, list, str, dict]


def test_loads_many_falls_back_to_json_for_what_orjson_cannot_read_exactly():
    # one big integer among plain texts: it stays an int (the one scan sees its digit run), the rest as json
    texts = ['{"a": 1}', '{"seed": 123456789012345678901234567890}', '{"b": NaN}', '{"c": "x"}']
    got = loads_many(texts)
    assert type(got[1]["seed"]) is int and got[1]["seed"] == 123456789012345678901234567890
    assert got[0] == {"a": 1} and math.isnan(got[2]["b"]) and got[3] == {"c": "x"}
    # a NaN alone (no long digits): orjson refuses it, json reads every text instead
    assert math.isinf(loads_many(['{"x": 1}', '{"y": -Infinity}'])[1]["y"])


def test_loads_many_digit_runs_do_not_span_texts():
    # 10 + 9 digits in two texts are two small integers, not one 19-digit run: still exact either way
    assert loads_many(["1234567890", "123456789"]) == [1234567890, 123456789]
    assert loads_many([]) == []


def test_loads_many_raises_json_error_on_invalid_text():
    with pytest.raises(json.JSONDecodeError):
        loads_many(['{"a": 1}', '{"a": }'])


@pytest.mark.parametrize("data, long", [
    (b"", False), (b"1" * 18, False), (b"1" * 19, True), (b"x" + b"0" * 19 + b"y", True),
    (b"123456789012345678 9", False), ("é1234567890123456789".encode(), True),
    ("١٢٣٤٥٦٧٨٩٠١٢٣٤٥٦٧٨٩".encode(), False),  # Arabic-Indic digits: not JSON number digits
    (b'{"a": 1234567890, "b": 123456789}', False), (b'{"seed": 98765432109876543210}', True),
])
def test_the_long_digit_scan_finds_exactly_the_runs_the_regex_finds(data, long):
    import re

    from leaderboard.fast_json import _has_long_digits

    assert _has_long_digits(data) is long
    assert bool(re.search(rb"[0-9]{19}", data)) is long


def test_loads_many_reads_a_long_integer_as_json_does_among_many():
    texts = ['{"met": true}'] * 5 + ['{"n": 12345678901234567890123}'] + ['{"met": false}'] * 5
    got = loads_many(texts)
    assert got == [json.loads(t) for t in texts] and type(got[5]["n"]) is int
