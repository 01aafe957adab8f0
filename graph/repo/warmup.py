"""Reads that warm a freshly started Neo4j for search (reasoners/search/warmup.py)."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database


@dataclass(frozen=True)
class SentBy:
    workspace: str
    peer: str
    sent: int  # messages the peer sent


async def largest_peers(db: Database, limit: int, seconds: float) -> list[SentBy] | None:
    """The `limit` peers that sent the most messages, most first; None if `seconds` ran out."""
    rows = await db.read_within(seconds, "largest_peers", limit=limit)
    if rows is None:
        return None
    return [SentBy(r["workspace"], r["peer"], int(r["sent"])) for r in rows]


async def sample_vector(
    db: Database, workspace: str, peer: str | None, start: str, scan: int
) -> list[float] | None:
    """The vector of the first message of the scope among the `scan` whose ids sort from
    `start` on; None if none of them is in scope."""
    row = await db.read_one(
        "sample_message_vector", workspace=workspace, peer=peer, scan=scan, start=start
    )
    return None if row is None else [float(x) for x in row["embedding"]]


async def read_message_properties(db: Database, seconds: float) -> int | None:
    """Reads every message's searched properties and vectors; how many messages, None if
    `seconds` ran out first."""
    rows = await db.read_within(seconds, "read_message_properties")
    if rows is None:
        return None
    return int(rows[0]["messages"]) if rows else 0
