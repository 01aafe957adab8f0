"""The `filters` objects of list and search bodies, mapped onto the repositories' filters.

Only what the repositories can filter on is accepted; any other key is refused with 422
rather than ignored, so a client never mistakes an unfiltered answer for a filtered one.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from graph.errors import InvalidInput
from graph.props import checked_filter
from graph.repo.messages import MessageFilter
from graph.validation import aware

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
    if not value:  # an empty id would match nothing, not (as leaving it out does) everything
        raise InvalidInput(f"filters.{key} must not be empty")
    return value


def _time(value: Any, key: str) -> datetime:
    try:
        parsed = aware(datetime.fromisoformat(str(value)))
    except ValueError as exc:
        raise InvalidInput(f"filters.{key}: not an ISO-8601 time: {value!r}") from exc
    assert parsed is not None
    return parsed


# Stored times are Python's, to the microsecond: after T is from T plus one microsecond, and
# up to T inclusive is before T plus one (the store's bounds: `since` inclusive, `until` not).
TICK = timedelta(microseconds=1)


def _next(moment: datetime) -> datetime | None:
    """The first time after `moment`; None after the last time there is."""
    try:
        return moment + TICK
    except OverflowError:
        return None


def time_bounds(bounds: dict[str, Any]) -> tuple[datetime | None, datetime | None]:
    """`since` (inclusive) and `until` (exclusive) for gte/gt/lte/lt; the tighter bound when
    both of one side are given (pure)."""
    lows, highs = [], []
    if bounds.get("gte") is not None:
        lows.append(_time(bounds["gte"], "created_at.gte"))
    if bounds.get("gt") is not None:
        moment = _time(bounds["gt"], "created_at.gt")
        after = _next(moment)
        # Nothing comes after the last time there is: an empty range, not `gte` it.
        lows.append(moment if after is None else after)
        if after is None:
            highs.append(moment)
    if bounds.get("lt") is not None:
        highs.append(_time(bounds["lt"], "created_at.lt"))
    if bounds.get("lte") is not None:
        after = _next(_time(bounds["lte"], "created_at.lte"))
        if after is not None:  # else every time is at or before it: no upper bound
            highs.append(after)
    return (max(lows) if lows else None, min(highs) if highs else None)


# Honcho's filter operators: as a metadata value they would be compared for equality, as
# an object, and match nothing.
OPERATORS = frozenset(
    {"eq", "ne", "gt", "gte", "lt", "lte", "in", "nin", "contains", "icontains", "not"}
)


def _metadata(value: Any, limit: int) -> dict[str, Any] | None:
    """Equality of top-level keys; an operator object (`{"gte": 2}`) is refused, not compared,
    and one larger than stored metadata may be (`limit`) too."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidInput("filters.metadata must be an object")
    checked_filter(value, limit=limit, what="filters.metadata")
    for key, wanted in value.items():
        if isinstance(wanted, dict) and wanted and set(wanted) <= OPERATORS:
            raise InvalidInput(
                f"filters.metadata.{key}: operators ({sorted(wanted)}) are not supported; "
                "metadata filters compare values for equality"
            )
    return value


@dataclass(frozen=True)
class SessionSelection:
    metadata: dict[str, Any] | None = None
    active: bool | None = None  # None: deleted sessions too


def session_selection(filters: Filters, limit: int) -> SessionSelection:
    """Top-level metadata equality and `is_active` (true: not deleted; false: deleted)."""
    if not filters:
        return SessionSelection()
    _refuse_unknown(filters, {"metadata", "is_active"}, "on sessions")
    active = filters.get("is_active")
    if active is not None and not isinstance(active, bool):
        raise InvalidInput("filters.is_active must be true or false")
    return SessionSelection(_metadata(filters.get("metadata"), limit), active)


def metadata_of(filters: Filters, where: str, limit: int) -> dict[str, Any] | None:
    """Top-level metadata equality, the one filter peer and session lists take."""
    if not filters:
        return None
    _refuse_unknown(filters, {"metadata"}, where)
    return _metadata(filters.get("metadata"), limit)


def messages_of(filters: Filters, session: str | None, limit: int) -> MessageFilter:
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
        since, until = time_bounds(bounds)
    metadata = _metadata(filters.get("metadata"), limit)
    peer = filters.get("peer_id")
    scoped = filters.get("session_id")
    return MessageFilter(
        session=session
        if session is not None
        else (_name(scoped, "session_id") if scoped is not None else None),
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
    # An empty id or list would match nothing rather than, as leaving it out does, everything.
    if isinstance(value, str) and value:
        return [value]
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return value
    raise InvalidInput(
        "filters.session_id must be an id, a list of ids or {in: [ids]}, none of them empty"
    )
