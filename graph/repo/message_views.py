"""Messages as a view may read them: the observed peers' messages that their observers could
see (the sessions they were in, while they were in them). The dialectic's tools and scoped
searches read through these."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from graph.db import Database
from graph.records import MessageRecord
from graph.repo.observation_search import ObservationQuery
from graph.validation import aware


def _view_params(workspace: str, query: ObservationQuery) -> dict[str, Any]:
    """What the message-in-view statements take: the query's (observer, observed) pairs and its
    session filters."""
    return {
        "workspace": workspace,
        "scopes": [{"observer": o, "observed": p} for o, p in query.pairs],
        "session_ids": query.session_ids,
        "exclude_session_ids": query.exclude_session_ids,
    }


async def grep_in_view(
    db: Database, workspace: str, query: ObservationQuery, text: str, limit: int
) -> list[MessageRecord]:
    """The observed peers' messages their observers could see that contain `text` (any
    case), newest first."""
    rows = await db.read(
        "grep_messages_in_view", **_view_params(workspace, query), text=text, limit=limit
    )
    return [MessageRecord.from_row(r["message"]) for r in rows]


async def visible_in_view(
    db: Database, workspace: str, query: ObservationQuery, ids: Sequence[str]
) -> set[str]:
    """Which of `ids` the query's observers could see (the same visibility and session
    filters as grep_in_view)."""
    if not ids:
        return set()
    rows = await db.read("filter_messages_in_view", **_view_params(workspace, query), ids=list(ids))
    return {str(r["id"]) for r in rows}


async def in_view_by_date(
    db: Database,
    workspace: str,
    query: ObservationQuery,
    since: datetime | None,
    until: datetime | None,
    limit: int,
) -> list[MessageRecord]:
    """The observed peers' messages their observers could see in [since, until), oldest
    first."""
    rows = await db.read(
        "list_messages_in_view_by_date",
        **_view_params(workspace, query),
        since=aware(since),
        until=aware(until),
        limit=limit,
    )
    return [MessageRecord.from_row(r["message"]) for r in rows]


async def around_in_view(
    db: Database, observer: str, workspace: str, session: str, from_seq: int, to_seq: int
) -> list[MessageRecord]:
    """A session's messages with seq in [from_seq, to_seq] that `observer` was present for."""
    rows = await db.read(
        "list_messages_in_view_by_seq",
        workspace=workspace,
        session=session,
        observer=observer,
        from_seq=from_seq,
        to_seq=to_seq,
    )
    return [MessageRecord.from_row(r["message"]) for r in rows]
