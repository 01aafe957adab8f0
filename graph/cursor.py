"""Opaque pagination cursors: base64 of a small JSON list, validated on the way back in."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime
from typing import Any

from graph.errors import InvalidInput


def encode(*parts: Any) -> str:
    raw = json.dumps([p.isoformat() if isinstance(p, datetime) else p for p in parts])
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode(cursor: str, arity: int) -> list[Any]:
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        parts = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput("malformed cursor: pass back an endCursor you received") from exc
    if not isinstance(parts, list) or len(parts) != arity:
        raise InvalidInput("malformed cursor: pass back an endCursor you received")
    return parts


def decode_time_id(cursor: str | None) -> tuple[datetime | None, str | None]:
    """A (created_at, id) keyset cursor."""
    if cursor is None:
        return None, None
    stamp, ident = decode(cursor, 2)
    try:
        return datetime.fromisoformat(str(stamp)), str(ident)
    except ValueError as exc:
        raise InvalidInput("malformed cursor: pass back an endCursor you received") from exc
