"""Observations, read side: the deriver and dreamer write them (see reasoners/)."""

from __future__ import annotations

from dataclasses import dataclass

from graph.cursor import decode_time_id, encode
from graph.db import Database
from graph.errors import NotFound
from graph.records import (
    MessageRecord,
    ObservationDetail,
    ObservationRecord,
    Page,
    SourceSpan,
)


@dataclass(frozen=True)
class ObservationFilter:
    observer: str
    observed: str
    levels: list[str] | None = None
    include_stale: bool = False
    include_superseded: bool = False


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
        after_time=after_time,
        after_id=after_id,
        limit=limit + 1,
    )
    items = [ObservationRecord.from_row(r["observation"]) for r in rows[:limit]]
    cursor = encode(items[-1].created_at, items[-1].id) if items else None
    return Page(items, cursor, len(rows) > limit)


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
    )
