"""Reads that warm a freshly started Neo4j for search (reasoners/search/warmup.py)."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database, Row


@dataclass(frozen=True)
class SentBy:
    workspace: str
    peer: str
    sent: int  # messages the peer sent


@dataclass(frozen=True)
class Observes:
    workspace: str
    observer: str
    observed: str
    beliefs: int  # beliefs written into the representation


async def largest_peers(db: Database, limit: int, seconds: float) -> list[SentBy] | None:
    """The `limit` peers that sent the most messages, most first; None if `seconds` ran out."""
    rows = await db.read_within(seconds, "largest_peers", limit=limit)
    if rows is None:
        return None
    return [SentBy(r["workspace"], r["peer"], int(r["sent"])) for r in rows]


async def largest_views(db: Database, limit: int, seconds: float) -> list[Observes] | None:
    """The `limit` representations holding the most beliefs, most first; None if `seconds` ran
    out."""
    rows = await db.read_within(seconds, "largest_views", limit=limit)
    if rows is None:
        return None
    return [Observes(r["workspace"], r["observer"], r["observed"], int(r["beliefs"])) for r in rows]


async def sample_message_vector(
    db: Database, workspace: str, peer: str | None, start: str, scan: int
) -> list[float] | None:
    """The vector of the first message of the scope among the `scan` whose ids sort from
    `start` on; None if none of them is in scope."""
    row = await db.read_one(
        "sample_message_vector", workspace=workspace, peer=peer, scan=scan, start=start
    )
    return None if row is None else [float(x) for x in row["embedding"]]


async def sample_observation_vector(
    db: Database, key: str, start: str, scan: int
) -> list[float] | None:
    """The vector of the first belief of the representation `key` among the `scan` whose ids
    sort from `start` on; None if none of them is in it."""
    row = await db.read_one("sample_observation_vector", key=key, scan=scan, start=start)
    return None if row is None else [float(x) for x in row["embedding"]]


def _counted(rows: list[Row] | None, column: str) -> int | None:
    if rows is None:
        return None
    return int(rows[0][column]) if rows else 0


async def read_message_properties(db: Database, seconds: float) -> int | None:
    """Reads every message's searched properties and vectors; how many messages, None if
    `seconds` ran out first."""
    return _counted(await db.read_within(seconds, "read_message_properties"), "messages")


async def read_observation_properties(db: Database, seconds: float) -> int | None:
    """Reads every belief's searched properties and vectors; how many beliefs, None if
    `seconds` ran out first."""
    return _counted(await db.read_within(seconds, "read_observation_properties"), "observations")
