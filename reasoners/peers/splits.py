"""Splitting a peer into sub-peers by session, as a resumable job on the durable queue.

Each part names a new sub-peer (MEMBER_OF the peer, created at once with the peer's metadata
and settings) and a set of sessions. The sub-peer takes the peer's place in those sessions: their
messages (sender, peer_key), the beliefs taken in them in every representation the peer is part
of (observer or observed, with the representation key), the OBSERVES counts, the memberships and
waiting derive jobs. Beliefs derived from moved ones turn stale (their premises left their
representation), with everything built on them; dreams reconcile them. The peer's own files and
cards stay with it, and aggregated reads of the peer still reach what moved through MEMBER_OF.

Steps, batching and resumption are those of merges.py: each job moves at most
BELIEFGRAPH_RESTRUCTURE_BATCH nodes per step, and waits again in its place until it is done.
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.db import Database, Tx
from graph.errors import InvalidInput
from graph.keys import peer_key
from graph.repo import invalidation, jobs, members, peers, sessions
from graph.repo.jobs import JobRecord, NewJob
from graph.settings import Settings
from graph.validation import check_id_count, check_name, check_peer_count, now
from reasoners.peers.merges import copy_peer, dream_target, scope_moves
from reasoners.peers.restructure_steps import StepHandler, restructure_job
from reasoners.peers.starts import SPLIT, check_not_purged, check_not_queued, lock_starts


@dataclass(frozen=True)
class Part:
    child: str
    sessions: list[str]


@dataclass(frozen=True)
class Split:
    peer: str
    parts: list[Part]

    def payload(self, operation_id: str) -> dict[str, Any]:
        return {
            "operation": operation_id,
            "peer": self.peer,
            "parts": [{"child": p.child, "sessions": p.sessions} for p in self.parts],
        }

    @classmethod
    def of(cls, payload: dict[str, Any]) -> Split:
        parts = [Part(str(p["child"]), list(p["sessions"])) for p in payload["parts"]]
        return cls(str(payload["peer"]), parts)


async def _step_part(
    tx: Tx, workspace: str, peer: str, part: Part, batch: int, stamp: datetime
) -> bool:
    """Move the next batch of the part's sessions to its sub-peer; True once none is left."""
    keyed = {
        "workspace": workspace,
        "peer": peer,
        "child": part.child,
        "sessions": part.sessions,
        "batch": batch,
        "peer_key": peer_key(workspace, part.child),
    }
    row = await tx.one("split_peer_messages", **keyed)
    if row and int(row["moved"]) >= batch:
        return False
    pairs = [
        (str(r["observer"]), str(r["observed"]))
        for r in await tx.rows("list_peer_scopes", workspace=workspace, peer=peer)
    ]
    moves = scope_moves(workspace, peer, part.child, pairs)
    if moves:
        moved_row = await tx.one(
            "split_scope_observations",
            workspace=workspace,
            moves=moves,
            sessions=part.sessions,
            batch=batch,
        )
        moved = list((moved_row or {}).get("moved", []))
        if moved:
            await _count_moves(tx, workspace, moves, moved)
            reason = f"a premise moved to sub-peer {part.child}"
            ids = [str(m["id"]) for m in moved]
            await invalidation.propagate(tx, workspace, ids, reason, stamp)
        if len(moved) >= batch:
            return False
    # The sessions' locks first, as a join takes them: see lock_sessions_of_peer.cypher.
    await tx.rows("lock_sessions_of_peer", workspace=workspace, peer=peer, sessions=part.sessions)
    await tx.rows(
        "split_peer_links",
        workspace=workspace,
        peer=peer,
        child=part.child,
        sessions=part.sessions,
    )
    return True


async def _count_moves(
    tx: Tx, workspace: str, moves: list[dict[str, str]], moved: list[dict[str, Any]]
) -> None:
    """Carry the moved beliefs' counts from the peer's OBSERVES edges to the sub-peer's. Two of
    the peer's representations can move into one of the sub-peer's, so what each edge received
    and what each lost are added up per edge."""
    names = {mv["scope"]: (mv["observer"], mv["observed"]) for mv in moves}
    names |= {mv["from_scope"]: (mv["from_observer"], mv["from_observed"]) for mv in moves}
    received: dict[str, list[str]] = {}
    left: Counter[str] = Counter()
    for m in moved:
        received.setdefault(str(m["scope"]), []).append(str(m["id"]))
        left[str(m["from"])] += 1
    edges = [
        {
            "observer": names[scope][0],
            "observed": names[scope][1],
            "ids": received.get(scope, []),
            "left": left[scope],
        }
        for scope in received.keys() | left.keys()  # the statement orders them
    ]
    await tx.rows("split_observes_edges", workspace=workspace, edges=edges)


@dataclass
class SplitHandler(StepHandler):
    async def _run(self, tx: Tx, job: JobRecord) -> bool:
        split = Split.of(job.payload)
        stamp = now()
        # The peer's lock before reading its messages, as a merge step takes its source's: a
        # post of the peer's into a session moving commits before the reads, or waits for the
        # step (a message read after its post committed was left behind with the peer). The
        # sessions' locks first, in the order a post takes them (its session's, then its
        # sender's): the other way round, the two could deadlock.
        for name in sorted({s for part in split.parts for s in part.sessions}):
            await sessions.lock(tx, job.workspace, name)
        await tx.rows("lock_peer", workspace=job.workspace, peer=split.peer)
        for part in split.parts:
            batch = self.settings.restructure_batch
            if not await _step_part(tx, job.workspace, split.peer, part, batch, stamp):
                return False
        for name in (split.peer, *(p.child for p in split.parts)):
            await dream_target(tx, self.settings, job.workspace, name)
        return True


def new_job(settings: Settings, workspace: str, split: Split, operation_id: str) -> NewJob:
    return restructure_job(settings, workspace, SPLIT, split.payload(operation_id), split.peer)


async def start(db: Database, settings: Settings, workspace: str, split: Split) -> str:
    """Check the split, create the sub-peers and queue the first job, in one transaction;
    returns the operation's id."""
    await peers.get(db, workspace, split.peer)
    if not split.parts:
        raise InvalidInput("name at least one part: a sub-peer and its sessions")
    check_peer_count([p.child for p in split.parts])
    check_id_count([s for p in split.parts for s in p.sessions], "sessions")
    children = [p.child for p in split.parts]
    if len(set(children)) < len(children):
        # It failed as the second copy of the peer: "already exists", of a peer that did not.
        raise InvalidInput("each sub-peer may be named in one part only")
    named = [s for p in split.parts for s in p.sessions]
    joined = await sessions.joined_by(db, workspace, split.peer, named)
    seen: set[str] = set()
    for part in split.parts:
        check_name(part.child, "child")
        if not part.sessions:
            raise InvalidInput(f"part {part.child!r} names no session")
        if seen & set(part.sessions):
            raise InvalidInput("each session may go to one part only")
        seen |= set(part.sessions)
        for session in part.sessions:
            await sessions.get(db, workspace, session)
            if session not in joined:  # it made an empty sub-peer, and moved nothing
                raise InvalidInput(
                    f"peer {split.peer!r} was never in session {session!r}: nothing of it "
                    "would move"
                )
    operation_id = str(uuid.uuid4())

    async def work(tx: Tx) -> None:
        await lock_starts(tx, workspace)
        await check_not_queued(tx, workspace, {split.peer, *(p.child for p in split.parts)})
        await check_not_purged(tx, workspace, {split.peer})
        for part in split.parts:
            await copy_peer(tx, workspace, split.peer, part.child)
            await members.add_in(
                tx, workspace, split.peer, part.child, max_depth=settings.max_peer_depth
            )
        await jobs.enqueue(tx, [new_job(settings, workspace, split, operation_id)])

    await db.write_tx(work)
    return operation_id
