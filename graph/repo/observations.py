"""Observations, read side (the deriver writes them through observation_writes.py)."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from graph.db import Database
from graph.errors import NotFound
from graph.paging import decode_time_id, page, time_id_cursor
from graph.records import (
    MessageRecord,
    ObservationDetail,
    ObservationRecord,
    Page,
    Replaced,
    SourcedObservation,
    SourceSpan,
    to_datetime,
)
from graph.repo import workspaces
from graph.repo.observation_search import ObservationQuery

BELIEFS = "observations"  # the name in its cursors
# Sources of a belief a read returns: its first and its latest (a fact said in hundreds of
# messages quoted each in the dialectic's prompt and citations).
MAX_SOURCES = 10
# A belief read by id shows more, still bounded: a fact said in 5,000 messages read them all.
DETAIL_SOURCES = 50
DETAIL_DEPENDENTS = 500


async def list_page(
    db: Database, workspace: str, query: ObservationQuery, *, after: str | None, limit: int
) -> Page[ObservationRecord]:
    """The query's beliefs, oldest first, a page at a time."""
    after_time, after_id = decode_time_id(after, BELIEFS)
    rows = await db.read(
        "list_observations",
        workspace=workspace,
        **query.params(workspace),
        after_time=after_time,
        after_id=after_id,
        limit=limit + 1,
    )
    return page(
        rows, limit, lambda r: ObservationRecord.from_row(r["observation"]), time_id_cursor(BELIEFS)
    )


async def list_workspace_page(
    db: Database,
    workspace: str,
    *,
    observer: str | None,
    observed: str | None,
    session: str | None,
    levels: list[str] | None,
    after: str | None,
    limit: int,
) -> Page[ObservationRecord]:
    """Current beliefs across the workspace's representations, oldest first, a page at a time;
    each filter left None matches any."""
    after_time, after_id = decode_time_id(after, BELIEFS)
    rows = await db.read(
        "list_workspace_observations",
        workspace=workspace,
        observer=observer,
        observed=observed,
        session=session,
        levels=levels,
        after_time=after_time,
        after_id=after_id,
        limit=limit + 1,
    )
    return page(
        rows, limit, lambda r: ObservationRecord.from_row(r["observation"]), time_id_cursor(BELIEFS)
    )


async def get_detail(
    db: Database,
    workspace: str,
    observation_id: str,
    *,
    max_sources: int = DETAIL_SOURCES,
    max_dependents: int = DETAIL_DEPENDENTS,
) -> ObservationDetail:
    found = await find_detail(
        db, workspace, observation_id, max_sources=max_sources, max_dependents=max_dependents
    )
    if found is None:
        await workspaces.get(db, workspace)  # a missing workspace is named as such
        raise missing(workspace, observation_id)
    return found


async def find_detail(
    db: Database,
    workspace: str,
    observation_id: str,
    *,
    max_sources: int = DETAIL_SOURCES,
    max_dependents: int = DETAIL_DEPENDENTS,
) -> ObservationDetail | None:
    """get_detail's, or None (the workspace not read: a caller looking up many checks it once)."""
    row = await db.read_one(
        "get_observation",
        workspace=workspace,
        id=observation_id,
        max_sources=max_sources,
        max_dependents=max_dependents,
    )
    if row is None:
        return None
    return ObservationDetail(
        observation=ObservationRecord.from_row(row["observation"]),
        premises=[ObservationRecord.from_row(p) for p in row["premises"]],
        sources=[
            SourceSpan(MessageRecord.from_row(s["message"]), s["span"] or "")
            for s in row["sources"]
        ],
        dependents=[ObservationRecord.from_row(d) for d in row["dependents"]],
        source_count=int(row["source_count"]),
        dependent_count=int(row["dependent_count"]),
        replaces=[ObservationRecord.from_row(r) for r in row["replaces"]],
        replaced_by=[ObservationRecord.from_row(r) for r in row["replaced_by"]],
    )


async def current_dependents(
    db: Database, workspace: str, observation_id: str
) -> list[ObservationRecord]:
    """The current beliefs derived from one (none for an unknown id), latest first, all of
    them: get_detail shows the latest DETAIL_DEPENDENTS, current or not."""
    rows = await db.read("list_current_dependents", workspace=workspace, id=observation_id)
    return [ObservationRecord.from_row(r["observation"]) for r in rows]


async def in_view(
    db: Database, workspace: str, query: ObservationQuery, ids: list[str]
) -> list[SourcedObservation]:
    """The observations among `ids` that belong to the query's representations and sessions,
    with their premises and sources; an id from anywhere else is simply absent. With the
    query's `as_of`, as they stood at that time. Stale and superseded beliefs are included:
    a reader following provenance must reach them."""
    if not ids:
        return []
    params = query.params(workspace)
    rows = await db.read(
        "get_observations_in_view",
        workspace=workspace,
        keys=params["keys"],
        session_ids=params["session_ids"],
        exclude_session_ids=params["exclude_session_ids"],
        exclude_derived=params["exclude_derived"],
        ids=ids,
        as_of=params["as_of"],
        max_sources=MAX_SOURCES,
    )
    found = []
    for row in rows:
        sources = [
            SourceSpan(MessageRecord.from_row(src["message"]), src["span"] or "")
            for src in row["sources"]
        ]
        sources.sort(key=lambda src: (src.message.created_at, src.message.seq))
        found.append(
            SourcedObservation(
                ObservationRecord.from_row(row["observation"]),
                sorted(row["premise_ids"]),
                sources,
                [
                    Replaced(
                        r["id"],
                        r["content"],
                        to_datetime(r.get("superseded_at")),
                        to_datetime(r.get("until")),
                    )
                    for r in row["replaces"]
                ],
                sorted(str(r["id"]) for r in row["replaced_by"]),
                _earliest(to_datetime(r.get("valid_at")) for r in row["replaced_by"]),
                int(row["source_count"]),
            )
        )
    return found


def _earliest(times: Iterable[datetime | None]) -> datetime | None:
    known = [t for t in times if t is not None]
    return min(known) if known else None


async def premise_ids(db: Database, workspace: str, ids: list[str]) -> dict[str, list[str]]:
    """Each belief's premises (ids), for those of `ids` that exist; none for explicit ones."""
    if not ids:
        return {}
    rows = await db.read("list_premise_ids", workspace=workspace, ids=ids)
    return {str(r["id"]): sorted(str(p) for p in r["premises"]) for r in rows}


def missing(workspace: str, observation_id: str) -> NotFound:
    return NotFound(f"observation {observation_id!r} does not exist in workspace {workspace!r}")
