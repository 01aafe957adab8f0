"""Purge records: what a purge erases, kept until it has finished, so that a purge that
stopped half-way (its process died, or Neo4j failed it) is finished by a worker."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from graph.db import Database, Tx
from graph.errors import Conflict, NotFound
from graph.records import to_datetime
from graph.validation import now


@dataclass(frozen=True)
class Held:
    """A purge record as one run holds it: renewing and releasing its lease take effect only
    while this run is still its owner (a run whose lease ran out must not take it back)."""

    id: str
    owner: str


@dataclass(frozen=True)
class PurgeRecord:
    id: str
    owner: str
    workspace: str
    peer: str | None  # a peer's purge; None for messages
    message_ids: list[str]
    attempts: int  # how many times a worker resumed it
    peer_marked: bool  # the peer of that name is still the one the purge began erasing

    @property
    def held(self) -> Held:
        return Held(self.id, self.owner)


async def _create(
    tx: Tx, workspace: str, peer: str | None, message_ids: list[str], lease: timedelta
) -> Held:
    stamp, owner = now(), str(uuid.uuid4())
    row = await tx.one(
        "begin_purge",
        id=str(uuid.uuid4()),
        workspace=workspace,
        peer=peer,
        message_ids=message_ids,
        now=stamp,
        lease_until=stamp + lease,
        owner=owner,
    )
    assert row is not None  # CREATE always returns its row
    return Held(str(row["id"]), owner)


def _since(record: dict[str, Any]) -> str:
    started = to_datetime(record["started_at"])
    return started.isoformat(timespec="seconds") if started else "earlier"


async def begin_messages(
    db: Database, workspace: str, message_ids: list[str], *, lease: timedelta
) -> Held:
    """The record of a purge of messages about to run, leased for `lease` to this run. One
    while another purge runs that names any of them is a CONFLICT (an interrupted one, whose
    lease ran out, is finished by a worker beside it)."""

    async def work(tx: Tx) -> Held:
        ids = sorted(set(message_ids))
        await tx.rows("lock_messages", workspace=workspace, ids=ids)
        running = await tx.one("find_message_purge", workspace=workspace, ids=ids, now=now())
        if running is not None:
            raise Conflict(
                f"some of these messages are already being purged (since {_since(running)}); "
                "that purge finishes on its own"
            )
        return await _create(tx, workspace, None, message_ids, lease)

    return await db.write_tx(work)


async def begin_peer(db: Database, workspace: str, peer: str, *, lease: timedelta) -> Held:
    """begin_peer_in, in a transaction of its own."""
    return await db.write_tx(lambda tx: begin_peer_in(tx, workspace, peer, lease=lease))


async def begin_peer_in(tx: Tx, workspace: str, peer: str, *, lease: timedelta) -> Held:
    """The record of a peer's purge about to run: a new one, or the record of an earlier purge
    of the peer whose lease ran out (its process died), leased to this caller, which finishes
    it. A purge of the peer still running is a CONFLICT: two at once would each count what the
    other deleted."""
    [locked] = await tx.rows("lock_peer", workspace=workspace, peer=peer)
    if not locked["locked"]:
        raise NotFound(f"no peer {peer!r} in workspace {workspace!r}")
    stamp = now()
    running = await tx.one("find_peer_purge", workspace=workspace, peer=peer)
    if running is None:
        return await _create(tx, workspace, peer, [], lease)
    await tx.rows("lock_purge", id=running["id"], now=stamp)
    # Leased only if its lease has still run out (a worker may have just taken it up).
    owner = str(uuid.uuid4())
    taken = await tx.one(
        "lease_purge", id=running["id"], now=stamp, lease_until=stamp + lease, owner=owner
    )
    if taken is None:
        raise Conflict(
            f"peer {peer!r} is already being purged (since {_since(running)}); the purge "
            "finishes on its own"
        )
    return Held(str(taken["id"]), owner)


async def extend(db: Database, held: Held, lease: timedelta) -> None:
    await db.write("extend_purge", id=held.id, owner=held.owner, lease_until=now() + lease)


async def release(db: Database, held: Held, *, retry_in: timedelta | None = None) -> None:
    """Give up the lease of a purge that failed here: purging again takes the record over, and
    a worker takes it up after `retry_in` (None: at its next look)."""
    stamp = now()
    retry_after = None if retry_in is None else stamp + retry_in
    await db.write(
        "release_purge", id=held.id, owner=held.owner, now=stamp, retry_after=retry_after
    )


@dataclass(frozen=True)
class FollowUps:
    """What a purge does once it has erased everything (note_purge_followups.cypher)."""

    rederive: list[str]  # message ids
    card_views: list[tuple[str, str]]  # (observer, observed)
    # session -> kind -> the last message the latest summary of that kind deleted covered
    summaries: dict[str, dict[str, int]] = field(default_factory=dict)


async def note_followups(
    tx: Tx,
    purge_id: str,
    *,
    rederive: Collection[str] = (),
    card_views: Collection[tuple[str, str]] = (),
    summaries: Collection[tuple[str, str, int]] = (),
) -> None:
    """Note what the purge's end does: derive `rederive` again, dream the `card_views` again,
    write the deleted `summaries` (session, kind, up_to) again."""
    views = sorted({f"{observer}/{observed}" for observer, observed in card_views})
    await tx.rows(
        "note_purge_followups",
        id=purge_id,
        messages=sorted(set(rederive)),
        views=views,
        summaries=sorted({f"{session}/{kind}/{up_to}" for session, kind, up_to in summaries}),
    )


async def finish_in(tx: Tx, purge_id: str) -> FollowUps:
    """Delete the record of a purge that has finished; what it noted to do now."""
    row = await tx.one("get_purge_followups", id=purge_id)
    await tx.rows("finish_purge", id=purge_id)
    if row is None:
        return FollowUps([], [])
    views = [tuple(str(v).split("/", 1)) for v in row["card_views"]]
    summaries: dict[str, dict[str, int]] = {}
    for noted in row["summaries"]:  # names hold no "/"
        session, kind, up_to = str(noted).split("/")
        kinds = summaries.setdefault(session, {})
        kinds[kind] = max(int(up_to), kinds.get(kind, -1))
    return FollowUps(
        [str(m) for m in row["rederive"]],
        [(observer, observed) for observer, observed in views],
        summaries,
    )


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
            owner = str(uuid.uuid4())
            row = await tx.one(
                "lease_purge", id=found["id"], now=stamp, lease_until=stamp + lease, owner=owner
            )
            if row is not None:
                return PurgeRecord(
                    id=str(row["id"]),
                    owner=owner,
                    workspace=str(row["workspace"]),
                    peer=None if row["peer"] is None else str(row["peer"]),
                    message_ids=[str(m) for m in row["message_ids"] or []],
                    attempts=int(row["attempts"]),
                    peer_marked=bool(row["peer_marked"]),
                )
        return None

    return await db.write_tx(work)
