"""Pages of list results: opaque cursors (base64 of a small JSON list, validated on the way
back in) and the one way a list statement's rows become a `Page`.

List statements are asked for one row more than the page: that row only says whether there is
a next page."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable
from datetime import datetime
from typing import Any, Protocol, TypeVar

from graph.errors import InvalidInput
from graph.records import Page
from graph.validation import aware, is_text

T = TypeVar("T")
Row = dict[str, Any]

# The most items a list read whole (not a page at a time) returns; past it, LIMIT_EXCEEDED.
MAX_LISTED = 10_000


def encode(kind: str, *parts: Any) -> str:
    """A cursor of the list `kind`: one of another list is refused, not read as a place here."""
    raw = json.dumps(
        [kind, *(p.isoformat() if isinstance(p, datetime) else p for p in parts)],
        ensure_ascii=False,
    )
    return base64.urlsafe_b64encode(raw.encode("utf-8", "surrogatepass")).decode().rstrip("=")


MALFORMED = "malformed cursor: pass back an endCursor you received"
# Our cursors hold a list's name and a time, a number and an id, or a name or a file's path
# (512 characters, each up to 4 bytes in UTF-8, 4/3 that in base64); anything much longer was
# not made here.
MAX_CURSOR_CHARS = 4_000


def decode(cursor: str, kind: str, arity: int) -> list[Any]:
    """The `arity` parts of a cursor `encode(kind, ...)` made."""
    if len(cursor) > MAX_CURSOR_CHARS:
        raise InvalidInput(MALFORMED)
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        parts = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise InvalidInput(MALFORMED) from exc
    if not isinstance(parts, list) or len(parts) != arity + 1:
        raise InvalidInput(MALFORMED)
    # JSON may spell a lone surrogate ("\ud800"), which no text holds: the driver failed on it.
    if not all(is_text(part) for part in parts if isinstance(part, str)):
        raise InvalidInput(MALFORMED)
    if parts[0] != kind:
        raise InvalidInput(f"this cursor pages another list than {kind}: {MALFORMED}")
    return parts[1:]


def _time(stamp: Any) -> datetime:
    try:
        # aware(): a time UTC cannot hold (year 9999 at -23:59) would fail in the driver.
        taken = aware(datetime.fromisoformat(str(stamp)))
    except (ValueError, InvalidInput) as exc:
        raise InvalidInput(MALFORMED) from exc
    assert taken is not None  # fromisoformat makes a time or fails
    return taken


def decode_time_id(cursor: str | None, kind: str) -> tuple[datetime | None, str | None]:
    """A (time, id) keyset cursor of the list `kind`."""
    if cursor is None:
        return None, None
    stamp, ident = decode(cursor, kind, 2)
    return _time(stamp), str(ident)


def decode_time_seq_id(
    cursor: str | None, kind: str
) -> tuple[datetime | None, int | None, str | None]:
    """A (time, seq, id) keyset cursor of the list `kind`."""
    if cursor is None:
        return None, None, None
    stamp, seq, ident = decode(cursor, kind, 3)
    # A number Neo4j's integers cannot hold failed in the driver, as an internal error.
    if not isinstance(seq, int) or isinstance(seq, bool) or not -(2**63) <= seq < 2**63:
        raise InvalidInput(MALFORMED)
    return _time(stamp), seq, str(ident)


def decode_time_name_id(
    cursor: str | None, kind: str
) -> tuple[datetime | None, str | None, str | None]:
    """A (time, name, id) keyset cursor of the list `kind`."""
    if cursor is None:
        return None, None, None
    stamp, name, ident = decode(cursor, kind, 3)
    if not isinstance(name, str) or not isinstance(ident, str):
        raise InvalidInput(MALFORMED)
    return _time(stamp), name, ident


class Timed(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def created_at(self) -> datetime: ...


class Named(Protocol):
    @property
    def name(self) -> str: ...


def name_cursor(kind: str) -> Callable[[Named], str]:
    """The cursor of the list `kind`, ordered by name (names are unique)."""

    def cursor(record: Named) -> str:
        return encode(kind, record.name)

    return cursor


def decode_name(cursor: str | None, kind: str) -> str | None:
    """The name a cursor of the list `kind` holds (name_cursor; a file's path likewise)."""
    if cursor is None:
        return None
    (name,) = decode(cursor, kind, 1)
    if not isinstance(name, str):
        raise InvalidInput(MALFORMED)
    return name


def time_id_cursor(kind: str) -> Callable[[Timed], str]:
    """The keyset cursor of the list `kind`, ordered by (created_at, id)."""

    def cursor(record: Timed) -> str:
        return encode(kind, record.created_at, record.id)

    return cursor


def page(
    rows: list[Row], limit: int, to_record: Callable[[Row], T], cursor: Callable[[T], str]
) -> Page[T]:
    """The first `limit` rows as records; a row past them means there is a next page."""
    items = [to_record(row) for row in rows[:limit]]
    return Page(items, cursor(items[-1]) if items else None, len(rows) > limit)
