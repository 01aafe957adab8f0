"""Cursors that were not made here are INVALID_INPUT, however they are built."""

from __future__ import annotations

import base64
from datetime import UTC, datetime

import pytest

from graph.errors import InvalidInput
from graph.paging import decode_name, decode_time_id, decode_time_seq_id, encode, name_cursor

pytestmark = pytest.mark.unit


def b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_a_cursor_made_here_reads_back() -> None:
    stamp = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert decode_time_id(encode("beliefs", stamp, "m1"), "beliefs") == (stamp, "m1")
    cursor = encode("messages", stamp, 7, "m1")
    assert decode_time_seq_id(cursor, "messages") == (stamp, 7, "m1")


def test_a_cursor_of_another_list_is_refused() -> None:
    """It was read as a place in this list: a page of nothing, or of the wrong things."""
    stamp = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    with pytest.raises(InvalidInput, match="pages another list than messages"):
        decode_time_seq_id(encode("beliefs", stamp, 7, "m1"), "messages")
    with pytest.raises(InvalidInput, match="malformed cursor"):
        decode_time_seq_id(encode("messages", stamp, "7", "m1"), "messages")  # not a number
    with pytest.raises(InvalidInput, match="malformed cursor"):
        decode_time_seq_id(encode("messages", stamp, 2**63, "m1"), "messages")  # not an int64


def test_a_name_cursor_names_its_list() -> None:
    """Lists ordered by name took any string as the name to go on after: a cursor of another
    list gave a page of the wrong place instead of an error."""

    class Named:
        name = "alice"

    cursor = name_cursor("peers")(Named())
    assert decode_name(cursor, "peers") == "alice" and decode_name(None, "peers") is None
    with pytest.raises(InvalidInput, match="pages another list than sessions"):
        decode_name(cursor, "sessions")
    stamp = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    # The longest path, in characters of four bytes each, pages on too.
    path = "\U0001f600" * 512
    assert decode_name(encode("files", path), "files") == path
    lone = b64('["files", "\\ud800"]')  # JSON's spelling of a character no text holds
    for other in (encode("messages", stamp, 7, "m1"), "alice", encode("peers", 7), lone):
        with pytest.raises(InvalidInput, match="malformed cursor"):
            decode_name(other, "peers")


@pytest.mark.parametrize(
    "cursor",
    [
        b64("[" * 100_000 + "]" * 100_000),  # a RecursionError in the parser before
        b64("[" * 300 + "]" * 300),  # short enough to read, and nested
        b64('["beliefs", "9999-12-31T23:59:59.999999-23:59", "x"]'),  # year 10000 in UTC
        b64('["beliefs", "0001-01-01T00:00:00+14:00", "x"]'),  # year 0 in UTC
        b64('["beliefs", "not a time", "x"]'),
        b64('["beliefs", "2026-01-01T00:00:00+00:00"]'),
        b64('["2026-01-01T00:00:00+00:00", "x"]'),  # a cursor of before lists were named
        b64('["beliefs", "2026-01-01T00:00:00+00:00", "\\ud800"]'),  # a lone surrogate
        "%%%",
    ],
)
def test_a_cursor_not_made_here_is_invalid_input(cursor: str) -> None:
    with pytest.raises(InvalidInput, match="malformed cursor"):
        decode_time_id(cursor, "beliefs")
