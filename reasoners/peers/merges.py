"""Renaming and merging peers, as resumable jobs on the durable queue.

A merge moves each source peer's data into the target, then deletes the source: its messages
(sender, peer_key), its representations' beliefs (observer, observed, scope_key; a merge also
marks moved derived beliefs stale for reconciliation), its OBSERVES edges, files and cards,
session memberships, sub-peer links, materialized dreams, dream runs and waiting jobs. A rename
is a merge into a new, empty peer that copies the source's metadata and settings.

A merge resolves duplicates by the deriver's dedup rule (the same probe: the same normalized
text, or an embedding cosine of at least BELIEFGRAPH_DEDUP_THRESHOLD, in one representation).
Each moved explicit belief is marked dedup_pending; once the source's beliefs have moved, steps
check the marked ones, oldest first: of a belief and the one it repeats, the older stays and
takes the other's sources and counts, and the other is tombstoned. A mark is cleared when its
belief repeats nothing, in the step that finds it, so a resumed merge checks exactly what is
left.

Each step moves at most BELIEFGRAPH_RESTRUCTURE_BATCH nodes. A job runs steps in order until
one fills its batch; it then commits what it moved, and the job waits again in its place at
the head of the workspace's unit, until a step finds the operation finished. Every step selects
what is still to move, so a worker killed mid-step leaves nothing half-done: the job's lease
runs out, it is claimed again, and the step is redone from the committed graph. When every
source is gone, dreams are scheduled for the target's representations (reconciliation runs
first in each).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.db import Database, Tx
from graph.errors import Conflict, InvalidInput, NotFound
from graph.keys import Representation, peer_key, scope_key
from graph.repo import jobs, members, peers
from graph.repo.jobs import JobRecord, NewJob
from graph.repo.repeats import Candidate, find_repeats
from graph.settings import Settings
from graph.validation import MAX_PATH_CHARS, check_name, check_peer_count, now
from reasoners.dreamer import scheduling
from reasoners.embeddings.model import Embedder
from reasoners.peers.renamed_words import RENAMED_PER_STEP, write_new_name
from reasoners.peers.restructure_steps import StepHandler, restructure_job
from reasoners.peers.starts import (
    RESTRUCTURE,
    check_not_purged,
    check_not_queued,
    lock_starts,
)
from reasoners.text.sense import same_claim

log = logging.getLogger("beliefgraph.restructure")

STALE_REASON = "its representation was merged into another peer's"


def scope_moves(
    workspace: str, source: str, target: str, pairs: Sequence[tuple[str, str]]
) -> list[dict[str, str]]:
    """For each representation of the source, where its beliefs go (pure)."""

    def swap(name: str) -> str:
        return target if name == source else name

    return [
        {
            "from_scope": scope_key(workspace, observer, observed),
            "from_observer": observer,
            "from_observed": observed,
            "observer": swap(observer),
            "observed": swap(observed),
            "scope": scope_key(workspace, swap(observer), swap(observed)),
        }
        for observer, observed in pairs
    ]


@dataclass(frozen=True)
class Operation:
    sources: list[str]
    target: str
    merge: bool  # False for a rename: nothing turns stale

    def payload(self, operation_id: str) -> dict[str, Any]:
        return {
            "operation": operation_id,
            "sources": self.sources,
            "target": self.target,
            "merge": self.merge,
        }

    @classmethod
    def of(cls, payload: dict[str, Any]) -> Operation:
        return cls(list(payload["sources"]), str(payload["target"]), bool(payload["merge"]))


async def copy_peer(tx: Tx, workspace: str, source: str, target: str) -> None:
    """A new peer `target` with `source`'s properties; Conflict when `target` exists."""
    if await tx.one("get_peer", workspace=workspace, name=target) is not None:
        raise Conflict(f"peer {target!r} already exists in {workspace!r}")
    if await tx.one("copy_peer", workspace=workspace, source=source, target=target) is None:
        raise NotFound(f"peer {source!r} does not exist in workspace {workspace!r}")


def _moved(row: dict[str, Any] | None) -> int:
    return int(row["moved"]) if row else 0


def pair_repeats(
    checked: Sequence[tuple[str, bool]], repeats: Sequence[str | None]
) -> tuple[list[dict[str, str]], list[str]]:
    """One round of the dedup rule over moved beliefs (pure). `checked`: (id, live), oldest
    first; `repeats`: for each, the belief it repeats or None. Returns the pairs to make one,
    no belief in two of them, and the beliefs that repeat nothing (or are no longer live). A
    belief whose repeat is already paired this round waits for the next."""
    pairs: list[dict[str, str]] = []
    settled: list[str] = []
    paired: set[str] = set()
    for (belief, live), other in zip(checked, repeats, strict=True):
        if not live or other is None:
            if belief not in paired:
                settled.append(belief)
        elif belief not in paired and other not in paired:
            pairs.append({"a": belief, "b": other})
            paired |= {belief, other}
    return pairs, settled


async def _resolve_duplicates(
    tx: Tx, workspace: str, scopes: list[str], batch: int, threshold: float
) -> bool:
    """Check up to `batch` moved beliefs of `scopes` by the deriver's dedup rule; False once
    none is left to check."""
    rows = await tx.rows("list_dedup_pending", workspace=workspace, scopes=scopes, batch=batch)
    if not rows:
        return False
    checked = [(str(r["id"]), bool(r["live"])) for r in rows]
    probes = [
        Candidate(
            str(r["observer"]),
            str(r["observed"]),
            str(r["content_key"]),
            list(r["embedding"]),
            exclude=str(r["id"]),
            content=str(r["content"] or ""),
        )
        for r in rows
        if r["live"]
    ]
    found = iter(await find_repeats(tx, workspace, probes, threshold, same_claim))
    repeats = [next(found) if live else None for _, live in checked]
    # Two beliefs this operation moved from one view are not repeats of each other: they
    # passed the dedup rule together there already.
    moved_by = {str(r["id"]): r["moved_by"] for r in rows}
    others = [o for o in repeats if o is not None and o not in moved_by]
    if others:
        for r in await tx.rows("get_moved_by", workspace=workspace, ids=others):
            moved_by[str(r["id"])] = r["moved_by"]
    repeats = [
        None
        if other is not None
        and moved_by.get(other) is not None
        and moved_by.get(other) == moved_by[belief]
        else other
        for (belief, _), other in zip(checked, repeats, strict=True)
    ]
    pairs, settled = pair_repeats(checked, repeats)
    await tx.rows(
        "merge_duplicate_observations",
        workspace=workspace,
        pairs=pairs,
        settled=settled,
    )
    return True


async def _count_writes(tx: Tx, workspace: str, moved: list[dict[str, Any]]) -> None:
    """Count a write of each of the target's representations that explicit beliefs moved into,
    stamping them with it (count_merged_writes.cypher)."""
    by_view: dict[tuple[str, str], list[str]] = {}
    for belief in moved:
        by_view.setdefault((str(belief["observer"]), str(belief["observed"])), []).append(
            str(belief["id"])
        )
    if by_view:
        scopes = [{"observer": a, "observed": b, "ids": ids} for (a, b), ids in by_view.items()]
        await tx.rows("count_merged_writes", workspace=workspace, scopes=scopes)


async def move_links(tx: Tx, workspace: str, source: str, target: str) -> None:
    """The source's session windows and dreams become the target's (move_peer_links.cypher),
    under the locks of the sessions the windows are in, which a join takes first."""
    await tx.rows("lock_sessions_of_peer", workspace=workspace, peer=source, sessions=None)
    await tx.rows("move_peer_links", workspace=workspace, source=source, target=target)


async def _step_source(
    tx: Tx,
    workspace: str,
    op: Operation,
    source: str,
    settings: Settings,
    stamp: datetime,
    job_id: str,
    embedder: Embedder,
) -> bool:
    """Move the next batch of `source` into the target; True once the source is gone (what
    could not move is noted on the job `job_id`). Moved beliefs about the source say the
    target's name (embedded anew by `embedder`, in the step)."""
    batch, threshold = settings.restructure_batch, settings.dedup_threshold
    base = {"workspace": workspace, "source": source, "target": op.target}
    target_key = peer_key(workspace, op.target)
    keyed = {**base, "batch": batch, "peer_key": target_key}
    await tx.rows("lock_peer", workspace=workspace, peer=source)
    if _moved(await tx.one("move_peer_messages", **keyed)) >= batch:
        return False
    pairs = [
        (str(r["observer"]), str(r["observed"]))
        for r in await tx.rows("list_peer_scopes", workspace=workspace, peer=source)
    ]
    moves = scope_moves(workspace, source, op.target, pairs)
    if moves:
        renaming = any(m["from_observed"] != m["observed"] for m in moves)
        row = await tx.one(
            "move_scope_observations",
            workspace=workspace,
            moves=moves,
            batch=min(batch, RENAMED_PER_STEP) if renaming else batch,
            merge=op.merge,
            reason=STALE_REASON,
            now=stamp,
            moved_by=f"{job_id}:{source}",
        )
        if row and int(row["moved"]):
            await _count_writes(tx, workspace, list(row["explicit"]))
            await write_new_name(tx, embedder, workspace, source, op.target, row["renamed"])
            # A merge checks moved beliefs from the next step on: its duplicate probe may go
            # through the vector index, which need not see this transaction's moves. The
            # edges move in a step of their own: this one has written the target's edges.
            return False
        # A rename checks too: its new peer takes writes while the rename runs, and a belief
        # derived for it then may repeat one still to move.
        scopes = sorted({m["scope"] for m in moves})
        if await _resolve_duplicates(tx, workspace, scopes, batch, threshold):
            return False  # the next step checks what is left
        await tx.rows("move_observes_edges", **base)
    if _moved(await tx.one("move_peer_files", **keyed, max_path=MAX_PATH_CHARS)) >= batch:
        return False
    dropped = await members.move_links_in(
        tx, workspace, source, op.target, max_depth=settings.max_peer_depth
    )
    for reason in dropped:
        log.warning("merge %s into %s dropped a sub-peer link: %s", source, op.target, reason)
    await jobs.note(tx, job_id, [f"sub-peer link not moved: {reason}" for reason in dropped])
    await move_links(tx, workspace, source, op.target)
    await tx.rows(
        "move_peer_jobs",
        **base,
        dream_prefix=f"{scheduling.DREAM}/{workspace}/{source}/",
        dream_suffix=f"/{source}",
    )
    await tx.rows("delete_peer", workspace=workspace, peer=source)
    return True


async def dream_target(tx: Tx, settings: Settings, workspace: str, target: str) -> None:
    """Schedule a dream now for each of the target's representations."""
    if not scheduling.enabled(settings):
        return
    stamp = now()
    for row in await tx.rows("list_peer_scopes", workspace=workspace, peer=target):
        view = Representation(workspace, str(row["observer"]), str(row["observed"]))
        await scheduling.on_demand_in(tx, settings, view, at=stamp, trigger=scheduling.RECONCILE)


@dataclass
class RestructureHandler(StepHandler):
    # Embeds the words of moved beliefs that now name another peer.
    embedder: Embedder = field(kw_only=True)

    async def _run(self, tx: Tx, job: JobRecord) -> bool:
        """One step of the job's operation; True when the operation is finished."""
        op = Operation.of(job.payload)
        stamp = now()
        if not await tx.rows("get_peer", workspace=job.workspace, name=op.target):
            # Its target went away after it was queued: moving into nothing would orphan the
            # sources' data, so the operation ends here with the sources as they are.
            log.warning(
                "operation %s: target %r no longer exists in %r; nothing moved",
                job.payload.get("operation"), op.target, job.workspace,
            )  # fmt: skip
            return True
        for source in op.sources:
            present = await tx.rows("get_peer", workspace=job.workspace, name=source)
            if not present:
                continue  # moved and deleted by an earlier step
            step = _step_source(
                tx, job.workspace, op, source, self.settings, stamp, job.id, self.embedder
            )
            if not await step:
                return False
        await dream_target(tx, self.settings, job.workspace, op.target)
        return True


def new_job(settings: Settings, workspace: str, op: Operation, operation_id: str) -> NewJob:
    return restructure_job(settings, workspace, RESTRUCTURE, op.payload(operation_id), op.target)


async def start(db: Database, settings: Settings, workspace: str, op: Operation) -> str:
    """Check the operation and queue its first job; returns the operation's id."""
    if not op.sources:
        raise InvalidInput("name at least one source peer")
    check_peer_count(op.sources)
    if not op.merge and op.target in op.sources:
        raise InvalidInput(f"peer {op.target!r} already has that name: give it another")
    if op.target in op.sources or len(set(op.sources)) != len(op.sources):
        raise InvalidInput("the sources must be distinct and differ from the target")
    if not op.merge:
        check_name(op.target, "newName")
    for source in op.sources:
        await peers.get(db, workspace, source)
    operation_id = str(uuid.uuid4())

    async def work(tx: Tx) -> None:
        await lock_starts(tx, workspace)
        await check_not_queued(tx, workspace, {*op.sources, op.target})
        await check_not_purged(tx, workspace, {*op.sources, op.target})
        if op.merge:
            if await tx.one("get_peer", workspace=workspace, name=op.target) is None:
                raise NotFound(f"peer {op.target!r} does not exist in workspace {workspace!r}")
        else:  # the new peer and its job together: never one without the other
            (source,) = op.sources
            try:
                await copy_peer(tx, workspace, source, op.target)
            except Conflict as exc:
                raise Conflict(f"{exc.message}: merge instead") from exc
        await jobs.enqueue(tx, [new_job(settings, workspace, op, operation_id)])

    await db.write_tx(work)
    return operation_id
