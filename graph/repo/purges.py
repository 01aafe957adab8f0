"""Purge records: what a purge erases, kept until it has finished, so that a purge that
stopped half-way (its process died, or Neo4j failed it) is finished by a worker."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from graph.db import Database, Tx
from graph.validation import now


@dataclass(frozen=True)
class PurgeRecord:
    id: str
    workspace: str
    peer: str | None  # a peer's purge; None for messages
    message_ids: list[str]
    attempts: int  # how many times a worker resumed it
    peer_marked: bool  # the peer of that name is still the one the purge began erasing


async def begin(
    db: Database, workspace: str, *, peer: str | None, message_ids: list[str], lease: timedelta
) -> str:
    """A record of the purge about to run, leased for `lease`; its id."""
    stamp = now()
    row = await db.write_one(
        "begin_purge",
        id=str(uuid.uuid4()),
        workspace=workspace,
        peer=peer,
        message_ids=message_ids,
        now=stamp,
        lease_until=stamp + lease,
    )
    assert row is not None  # CREATE always returns its row
    return str(row["id"])


async def extend(db: Database, purge_id: str, lease: timedelta) -> None:
    await db.write("extend_purge", id=purge_id, lease_until=now() + lease)


async def finish(db: Database, purge_id: str) -> None:
    await db.write("finish_purge", id=purge_id)


async def claim_interrupted(
    db: Database, lease: timedelta, *, workspace: str | None = None, scan: int = 20
) -> PurgeRecord | None:
    """Lease the oldest purge whose lease ran out (of `workspace`, or of any), or None."""

    async def work(tx: Tx) -> PurgeRecord | None:
        stamp = now()
        for found in await tx.rows(
            "find_interrupted_purges", now=stamp, limit=scan, workspace=workspace
        ):
            await tx.rows("lock_purge", id=found["id"], now=stamp)
            row = await tx.one("lease_purge", id=found["id"], now=stamp, lease_until=stamp + lease)
            if row is not None:
                return PurgeRecord(
                    id=str(row["id"]),
                    workspace=str(row["workspace"]),
                    peer=None if row["peer"] is None else str(row["peer"]),
                    message_ids=[str(m) for m in row["message_ids"] or []],
                    attempts=int(row["attempts"]),
                    peer_marked=bool(row["peer_marked"]),
                )
        return None

    return await db.write_tx(work)
