"""Purge: hard-delete given messages, or a whole peer, with everything derived from them.

Unlike a deletion (a tombstone that reads skip and dreams reconcile), a purge erases: it is
what a data-erasure request needs. One transaction removes
- the messages (a peer's: every message it sent, tombstoned ones included);
- every belief taken from them and every belief built on those (for a peer, also every belief
  it holds or that is held about it), through DERIVED_FROM up to 64 levels;
- the files of a purged peer, the cards it wrote of others, and every card with a line resting
  on a purged belief (a dream writes it again from what is left), with their chunks;
- the summaries that covered a purged message (from its position in the session on);
- the derive jobs that only name purged messages, and for a peer its own jobs and dreams;
- the dream runs whose record names a purged belief (for a peer, all of its representations');
- the peer itself, with its memberships and links.
The report counts each kind; it equals the node counts before minus after.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graph.db import Database, Tx
from graph.errors import InvalidInput, NotFound
from graph.repo import peers
from graph.repo.invalidation import Scope

LEVELS = ("explicit", "deductive", "inductive", "contradiction")


@dataclass(frozen=True)
class PurgeReport:
    messages: int = 0
    observations: dict[str, int] = field(default_factory=dict)  # by level
    files: int = 0
    file_chunks: int = 0
    cards: int = 0
    summaries: int = 0
    jobs: int = 0
    dream_runs: int = 0
    peers: int = 0


def jobs_to_purge(
    rows: Sequence[dict[str, Any]], message_ids: set[str], peer: str | None
) -> list[str]:
    """Which candidate jobs go (pure): a derive job whose messages are all purged; with a
    peer, the peer's jobs and the dreams of its representations. Other jobs stay: a derive job
    naming a purged message among live ones simply finds it gone."""
    chosen = []
    for row in rows:
        payload = json.loads(row.get("payload") or "{}")
        named = set(payload.get("message_ids") or [])
        if (
            peer is not None
            and (
                row.get("peer") == peer
                or peer in (payload.get("observer"), payload.get("observed"))
            )
        ) or (row.get("kind") == "derive" and named and named <= message_ids):
            chosen.append(str(row["id"]))
    return chosen


def _count(row: dict[str, Any] | None) -> int:
    return int(row["deleted"]) if row else 0


async def _erase(
    tx: Tx,
    workspace: str,
    messages: list[dict[str, Any]],
    derived: list[dict[str, Any]],
    peer: str | None,
) -> PurgeReport:
    message_ids = [str(m["id"]) for m in messages]
    observation_ids = [str(d["id"]) for d in derived]
    levels = Counter(str(d["level"]) for d in derived)
    scopes: set[Scope] = {(str(d["observer"]), str(d["observed"])) for d in derived}
    sessions: dict[str, int] = {}
    for m in messages:
        session, seq = str(m["session"]), int(m["seq"])
        sessions[session] = min(seq, sessions.get(session, seq))
    candidates = await tx.rows(
        "list_purge_jobs",
        workspace=workspace,
        sessions=sorted(sessions),
        peer=peer,
        dream_prefix=f"dream/{workspace}/{peer}/" if peer else "\x00",
        dream_suffix=f"/{peer}" if peer else "\x00",
    )
    job_ids = jobs_to_purge(candidates, set(message_ids), peer)
    files = await tx.one(
        "delete_purged_files", workspace=workspace, peer=peer, observation_ids=observation_ids
    )
    assert files is not None  # an aggregation always answers one row
    runs = _count(
        await tx.one(
            "delete_purged_dream_runs",
            workspace=workspace,
            peer=peer,
            scopes=[{"observer": o, "observed": d} for o, d in sorted(scopes)],
            observation_ids=observation_ids,
        )
    )
    summaries = 0
    for session, seq in sorted(sessions.items()):
        summaries += _count(
            await tx.one(
                "delete_stale_summaries", workspace=workspace, session=session, from_seq=seq
            )
        )
    observations = _count(
        await tx.one("delete_observations_hard", workspace=workspace, ids=observation_ids)
    )
    assert observations == len(observation_ids)
    return PurgeReport(
        messages=_count(await tx.one("delete_messages_hard", workspace=workspace, ids=message_ids)),
        observations={level: levels.get(level, 0) for level in LEVELS},
        files=int(files["files"]),
        file_chunks=int(files["chunks"]),
        cards=int(files["cards"]),
        summaries=summaries,
        jobs=_count(await tx.one("delete_jobs", workspace=workspace, ids=job_ids)),
        dream_runs=runs,
        peers=_count(await tx.one("delete_peer", workspace=workspace, peer=peer)) if peer else 0,
    )


async def purge_messages(db: Database, workspace: str, ids: list[str]) -> PurgeReport:
    if not ids:
        raise InvalidInput("name at least one message id to purge")

    async def work(tx: Tx) -> PurgeReport:
        messages = await tx.rows("list_messages_to_purge", workspace=workspace, ids=ids)
        if not messages:
            raise NotFound(f"no message with id {ids[0]!r} in workspace {workspace!r}")
        derived = await tx.rows("find_message_derivations", workspace=workspace, ids=ids)
        return await _erase(tx, workspace, messages, derived, None)

    return await db.write_tx(work)


async def purge_peer(db: Database, workspace: str, peer: str) -> PurgeReport:
    await peers.get(db, workspace, peer)

    async def work(tx: Tx) -> PurgeReport:
        messages = await tx.rows("list_peer_messages", workspace=workspace, peer=peer)
        derived = await tx.rows("find_peer_derivations", workspace=workspace, peer=peer)
        return await _erase(tx, workspace, messages, derived, peer)

    return await db.write_tx(work)
