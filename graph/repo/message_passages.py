"""Message passages: finding messages stored without passage vectors, and storing them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.db import Database


@dataclass(frozen=True)
class Unsplit:
    """A live message stored before its passages were embedded."""

    workspace: str
    id: str
    content: str


async def without_passages(
    db: Database, limit: int, workspace: str | None, after: str = ""
) -> list[Unsplit]:
    """The next `limit` messages without passages whose id sorts after `after`, in id order."""
    rows = await db.read(
        "list_messages_without_passages", limit=limit, workspace=workspace, after=after
    )
    return [Unsplit(str(r["workspace"]), str(r["id"]), str(r["content"])) for r in rows]


async def set_passages(db: Database, passages: Sequence[tuple[Unsplit, list[float]]]) -> int:
    """Store each message's passage vectors unless its content changed since it was listed;
    returns how many were stored."""
    row = await db.write_one(
        "set_message_passages",
        rows=[
            {"workspace": m.workspace, "id": m.id, "content": m.content, "passages": vectors}
            for m, vectors in passages
        ],
    )
    return int(row["updated"]) if row else 0
