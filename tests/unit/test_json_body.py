"""Request JSON read strictly, and metadata stored only as JSON can answer it again."""

from __future__ import annotations

import json
import math

import pytest

from graph.errors import ErrorCode, InvalidInput, LimitExceeded
from graph.props import dump_json, meta_kv
from graph.records import load_json
from resolvers.json_body import MAX_JSON_DEPTH, json_depth, parse_json

pytestmark = pytest.mark.unit


def test_json_depth_skips_strings() -> None:
    assert json_depth('{"a": "[[[[", "b": [[1]]}') == 3
    assert json_depth("[" * 50) == 50
    assert json_depth('"\\\\"') == 0


def test_plain_json_is_read_as_it_is() -> None:
    text = '{"n": 1.5, "big": 1e308, "i": 12345678901234567890, "s": "caf\\u00e9", "l": [null]}'
    assert parse_json(text.encode(), "the body") == {
        "n": 1.5,
        "big": 1e308,
        "i": 12345678901234567890,
        "s": "café",
        "l": [None],
    }


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999", "-1e400"])
def test_numbers_json_cannot_carry_are_not_json(number: str) -> None:
    with pytest.raises(InvalidInput, match="the body is not valid JSON"):
        parse_json(f'{{"n": [{number}]}}', "the body")


def test_a_whole_number_too_long_to_read_says_so_in_our_words() -> None:
    """Python's own message advised `sys.set_int_max_str_digits()`."""
    with pytest.raises(InvalidInput, match="5000 digits is too long") as refused:
        parse_json('{"n": ' + "9" * 5000 + "}", "the body")
    assert "sys." not in refused.value.message
    assert parse_json('{"n": -' + "9" * 4300 + "}", "the body")["n"] < 0


@pytest.mark.parametrize(
    ("raw", "error", "words"),
    [
        (b"[" * (MAX_JSON_DEPTH + 1), LimitExceeded, "deeper than 64 levels"),
        (b'{"s": "\\ud800"}', InvalidInput, "lone surrogate"),
        (b'{"s": "\xff"}', InvalidInput, "not UTF-8"),
        (b'{"s": }', InvalidInput, "not valid JSON"),
    ],
)
def test_bodies_the_parser_cannot_take_say_why(
    raw: bytes, error: type[Exception], words: str
) -> None:
    with pytest.raises(error, match=words):
        parse_json(raw, "the body")


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_metadata_with_a_number_json_cannot_carry_is_refused(value: float) -> None:
    with pytest.raises(InvalidInput, match="NaN or infinity") as caught:
        dump_json({"a": {"b": [value]}}, limit=1000, what="metadata")
    assert caught.value.code == ErrorCode.INVALID_INPUT
    with pytest.raises(InvalidInput, match="NaN or infinity"):
        meta_kv({"n": value})
    assert dump_json({"n": 1.5}, limit=1000, what="metadata") == '{"n":1.5}'
    assert meta_kv({"n": 1.5, "a": "x"}) == ['a="x"', "n=1.5"]


def test_what_earlier_versions_could_store_reads_as_what_an_answer_can_carry() -> None:
    stored = '{"k":1,"m":[Infinity,-Infinity],"n":NaN}'
    assert load_json(stored) == {"k": 1, "m": [None, None], "n": None}
    stored = '{"a\\ud800":["x\\udfffy","\\ud83d\\ude00"]}'  # as dump_json escapes them
    assert load_json(stored) == {"a\ufffd": ["x\ufffdy", "\U0001f600"]}


def test_the_metadata_limit_counts_the_utf8_a_client_sends() -> None:
    """It counted the stored ASCII escapes: 3,000 "é" (6,011 bytes) were counted as 18,011."""
    accented = {"note": "é" * 3000}
    assert dump_json(accented, limit=6011, what="configuration")
    with pytest.raises(LimitExceeded, match="configuration is 6011 bytes; the limit is 6010"):
        dump_json(accented, limit=6010, what="configuration")
    assert json.loads(dump_json(accented, limit=6011, what="configuration")) == accented
    emoji = {"n": "🙂" * 1000}  # four bytes each in UTF-8, twelve escaped
    assert dump_json(emoji, limit=4008, what="metadata").isascii()
