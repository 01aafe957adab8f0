"""The `filters` objects of list and search bodies, mapped onto the repositories' filters.

Only what the repositories can filter on is accepted; any other key is refused with 422
rather than ignored, so a client never mistakes an unfiltered answer for a filtered one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from graph.errors import InvalidInput
from graph.repo.messages import MessageFilter

Filters = dict[str, Any] | None


def _refuse_unknown(filters: dict[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(filters) - allowed)
    if unknown:
        raise InvalidInput(
            f"filters {unknown} are not supported {where}; supported: {sorted(allowed)}"
        )


def _name(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"filters.{key} must be a string id")
    return value


def _time(value: Any, key: str) -> datetime:
    try:
        return datetime.fromisoformat(str(value))
    except ValueError as exc:
        raise InvalidInput(f"filters.{key}: not an ISO-8601 time: {value!r}") from exc


def metadata_of(filters: Filters, where: str) -> dict[str, Any] | None:
    """Top-level metadata equality, the one filter peer and session lists take."""
    if not filters:
        return None
    _refuse_unknown(filters, {"metadata"}, where)
    value = filters.get("metadata")
    if value is not None and not isinstance(value, dict):
        raise InvalidInput("filters.metadata must be an object")
    return value


def messages_of(filters: Filters, session: str | None) -> MessageFilter:
    """Sender, session, metadata and created_at bounds (gte/gt and lte/lt)."""
    if not filters:
        return MessageFilter(session=session)
    _refuse_unknown(filters, {"peer_id", "session_id", "metadata", "created_at"}, "on messages")
    if session is not None and filters.get("session_id") not in (None, session):
        raise InvalidInput("filters.session_id must be this session")
    since = until = None
    bounds = filters.get("created_at")
    if bounds is not None:
        if not isinstance(bounds, dict) or set(bounds) - {"gte", "gt", "lte", "lt"}:
            raise InvalidInput("filters.created_at takes gte, gt, lte or lt")
        low = bounds.get("gte", bounds.get("gt"))
        high = bounds.get("lte", bounds.get("lt"))
        since = _time(low, "created_at") if low is not None else None
        until = _time(high, "created_at") if high is not None else None
    metadata = filters.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise InvalidInput("filters.metadata must be an object")
    peer = filters.get("peer_id")
    scoped = filters.get("session_id")
    return MessageFilter(
        session=session
        if session is not None
        else (_name(scoped, "session_id") if scoped else None),
        peer=_name(peer, "peer_id") if peer is not None else None,
        since=since,
        until=until,
        metadata=metadata,
    )


def session_allowlist(filters: Filters) -> list[str] | None:
    """The `{session_id: id | [ids] | {in: [ids]}}` allowlist of chat and representation."""
    if not filters:
        return None
    _refuse_unknown(filters, {"session_id"}, "here (only a session_id allowlist)")
    value = filters.get("session_id")
    if isinstance(value, dict):
        _refuse_unknown(value, {"in"}, "on session_id")
        value = value.get("in")
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise InvalidInput("filters.session_id must be an id, a list of ids or {in: [ids]}")
