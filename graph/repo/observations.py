"""Observations, read side (the deriver writes them through observation_writes.py)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from graph.db import Database
from graph.errors import NotFound
from graph.keys import Representation
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
from graph.validation import aware


@dataclass(frozen=True)
class ObservationFilter:
    observer: str
    observed: str
    levels: list[str] | None = None
    include_stale: bool = False
    include_superseded: bool = False
    as_of: datetime | None = None  # the beliefs as they stood then


async def list_page(
    db: Database, workspace: str, filters: ObservationFilter, *, after: str | None, limit: int
) -> Page[ObservationRecord]:
    after_time, after_id = decode_time_id(after)
    rows = await db.read(
        "list_observations",
        workspace=workspace,
        observer=filters.observer,
        observed=filters.observed,
        levels=filters.levels,
        include_stale=filters.include_stale,
        include_superseded=filters.include_superseded,
        as_of=aware(filters.as_of),
        after_time=after_time,
        after_id=after_id,
        limit=limit + 1,
    )
    return page(rows, limit, lambda r: ObservationRecord.from_row(r["observation"]), time_id_cursor)


async def get_detail(db: Database, workspace: str, observation_id: str) -> ObservationDetail:
    row = await db.read_one("get_observation", workspace=workspace, id=observation_id)
    if row is None:
        raise NotFound(f"observation {observation_id!r} does not exist in workspace {workspace!r}")
    return ObservationDetail(
        observation=ObservationRecord.from_row(row["observation"]),
        premises=[ObservationRecord.from_row(p) for p in row["premises"]],
        sources=[
            SourceSpan(MessageRecord.from_row(s["message"]), s["span"] or "")
            for s in row["sources"]
        ],
        dependents=[ObservationRecord.from_row(d) for d in row["dependents"]],
        replaces=[ObservationRecord.from_row(r) for r in row["replaces"]],
        replaced_by=[ObservationRecord.from_row(r) for r in row["replaced_by"]],
    )


async def in_view(
    db: Database,
    view: Representation,
    session: str | None,
    ids: list[str],
    *,
    as_of: datetime | None = None,
) -> list[SourcedObservation]:
    """The observations among `ids` that belong to `view` (and `session`, if given), with their
    premises and sources; an id from anywhere else is simply absent. With `as_of`, as they
    stood at that time."""
    if not ids:
        return []
    rows = await db.read(
        "get_observations_in_view", **view.params(), session=session, ids=ids, as_of=as_of
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
                    Replaced(r["id"], r["content"], to_datetime(r.get("superseded_at")))
                    for r in row["replaces"]
                ],
                sorted(row["replaced_by"]),
            )
        )
    return found
