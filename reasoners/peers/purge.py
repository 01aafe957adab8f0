"""Purge: hard-delete given messages, or a whole peer, with everything derived from them.

Unlike a deletion (a tombstone that reads skip and dreams reconcile), a purge erases: it is
what a data-erasure request needs. It removes
- the messages (a peer's: every message it sent, tombstoned ones included);
- every belief taken from them and every belief built on those (for a peer, also every belief
  it holds or that is held about it), through DERIVED_FROM up to 64 levels;
- the files of a purged peer, the cards it wrote of others, and every card with a line resting
  on a purged belief, with their chunks;
- the summaries that covered a purged message (from its position in the session on);
- the derive jobs that only name purged messages, and for a peer its own jobs and dreams, and
  a dead-lettered rename, merge or split naming it;
- the dream runs whose record names a purged belief (for a peer, all of its representations');
- the peer itself, with its memberships and links.
The report counts each kind; it equals the node counts before minus after, but for the jobs
the purge queues at its end (Eraser.finish): the live messages an erased belief was also taken
from are derived again, so what they state comes back from them alone, and a dream writes
each deleted card again from what is left. What the end is to do is noted on the purge's
record in the transactions that make it due, so an interrupted purge keeps it.

It deletes in transactions of at most BELIEFGRAPH_PURGE_BATCH nodes (files: with their
chunks), so a huge peer needs no huge transaction, in an order that keeps every committed state
consistent. A round first tombstones the beliefs and messages it will erase (they leave every
read, and nothing new is derived from them), with the beliefs a dream built on them after the
round read its plan; then deletes what quotes them (cards and files,
dream runs, summaries, jobs); then the beliefs, each after every belief built on it, so none
loses a premise; then the messages, once no belief cites them. The peer goes last. An
interrupted purge thus leaves nothing half-linked, and what is left is still found from the
messages or the peer: running the purge again finishes it, and a worker does so on its own (a
purge's record, graph/repo/purges.py, outlives an interrupted purge). Rounds repeat until one
finds nothing left, which also catches a derivation that committed while the purge ran.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Any, Protocol, TypeVar

from graph.db import Database, Tx
from graph.errors import Conflict, InvalidInput, NotFound
from graph.repo import invalidation, members, peers, purges
from graph.repo import summaries as summary_repo
from graph.settings import Settings
from graph.validation import check_id_count, now
from reasoners.peers import purge_end
from reasoners.peers.purge_leases import under_record
from reasoners.peers.purge_order import chunks, dependents_first, jobs_to_purge
from reasoners.peers.purge_plan import Plan, PlanLeft, messages_left, peer_left
from reasoners.peers.starts import check_not_queued, lock_starts, restructure_unit

LEVELS = ("explicit", "deductive", "inductive", "contradiction")
# A purge's record is leased this long, renewed while the purge runs; once a purge's process
# has died (or Neo4j failed it), a worker finishes it after the lease runs out. Short, because
# until then what the purge had not yet erased (cards, summaries) can still be read: the timer
# renews it every 12 seconds (each try given as long), so a Neo4j out of reach for about a
# minute is what lets a worker in beside it.
PURGE_LEASE = timedelta(minutes=1)
# A round normally erases everything and the next finds nothing left; more rounds only run
# while derivations from the purged data keep committing.
ROUNDS = 5
Row = dict[str, Any]
T = TypeVar("T")


@dataclass
class PurgeReport:
    """What a purge deleted; it adds up batch by batch."""

    messages: int = 0
    observations: Counter[str] = field(default_factory=Counter)  # by level
    files: int = 0
    file_chunks: int = 0
    cards: int = 0
    summaries: int = 0
    jobs: int = 0
    dream_runs: int = 0
    peers: int = 0
    # The (observer, observed) of each card deleted: a dream writes it again from what is left.
    card_views: set[tuple[str, str]] = field(default_factory=set)
    # Live messages an erased belief was also taken from, queued to be derived again.
    rederived: set[str] = field(default_factory=set)


class Checkpoint(Protocol):
    """Called after each committed batch (the interruption test stops the purge there)."""

    async def committed(self) -> None: ...


class NoCheckpoint:
    async def committed(self) -> None:
        return None


def _count(rows: list[Row]) -> int:
    return sum(int(r["deleted"]) for r in rows)


@dataclass
class Eraser:
    """The batches of one purge (`peer` is None when only messages are purged)."""

    db: Database
    settings: Settings
    record: str  # the purge's record, which keeps what is to be done at the end
    workspace: str
    peer: str | None
    checkpoint: Checkpoint
    tally: PurgeReport = field(default_factory=PurgeReport)

    @property
    def batch(self) -> int:
        return self.settings.purge_batch

    async def _commit(self, work: Awaitable[T]) -> T:
        """One batch: `work` runs in its own transaction."""
        rows = await work
        await self.checkpoint.committed()
        return rows

    async def _until_done(self, work: Callable[[], Awaitable[list[Row]]]) -> list[Row]:
        """Repeat a statement that deletes up to `batch` nodes until it deletes fewer."""
        done: list[Row] = []
        while True:
            rows = await self._commit(work())
            done += rows
            if _count(rows) < self.batch:
                return done

    # Each statement is named at its call (db.write("name", ...)), where the catalog test finds
    # it and checks its parameters.
    async def round(self, plan: Plan) -> None:
        db, ws, stamp = self.db, self.workspace, now()
        message_ids = [str(m["id"]) for m in plan.messages]
        plan = await self._tombstone_beliefs(plan, stamp)
        observation_ids = [str(d["id"]) for d in plan.derived]
        for part in chunks(message_ids, self.batch):
            await self._commit(
                db.write(
                    "tombstone_purged",
                    workspace=ws,
                    now=stamp,
                    observation_ids=[],
                    message_ids=part,
                )
            )
        await self._quoting(plan, observation_ids)
        premises = {str(d["id"]): [str(p) for p in d["premises"]] for d in plan.derived}
        for part in chunks(dependents_first(premises), self.batch):
            rows = await self._commit(db.write_tx(partial(self._delete_beliefs, part)))
            for row in rows:
                self.tally.observations[str(row["level"])] += int(row["deleted"])
        for part in chunks(message_ids, self.batch):
            rows = await self._commit(db.write("delete_messages_hard", workspace=ws, ids=part))
            self.tally.messages += _count(rows)

    async def _tombstone_beliefs(self, plan: Plan, stamp: datetime) -> Plan:
        """Tombstone the plan's beliefs, and those a dream built on them after the plan was
        read (the plan with them): found by no later round (their premises gone, nothing led
        to them from the messages), they stayed current with none."""
        derived, fresh = list(plan.derived), list(plan.derived)
        while fresh:
            for part in chunks([str(d["id"]) for d in fresh], self.batch):
                await self._commit(
                    self.db.write(
                        "tombstone_purged",
                        workspace=self.workspace,
                        now=stamp,
                        observation_ids=part,
                        message_ids=[],
                    )
                )
            fresh = await self.db.read(
                "find_purge_dependents",
                workspace=self.workspace,
                ids=[str(d["id"]) for d in derived],
            )
            derived += fresh
        return dataclasses.replace(plan, derived=derived)

    async def _delete_beliefs(self, ids: list[str], tx: Tx) -> list[Row]:
        """Delete beliefs (rows by level), noting on the record the live messages they were
        also taken from: the purge's end derives them again."""
        ws, peer = self.workspace, self.peer
        sources = await tx.rows("list_surviving_sources", workspace=ws, ids=ids, peer=peer)
        # What replaced them replaces what they replaced; what they replaced is current again
        # unless a belief left still replaces it (their tombstones are in place: the first
        # round's or an interrupted one's).
        await tx.rows("bridge_purged_supersessions", workspace=ws, ids=ids)
        back = await invalidation.reinstate(tx, ws, ids)
        rows = await tx.rows("delete_observations_hard", workspace=ws, ids=ids)
        # The views of what came back get a dream at the purge's end, which writes their cards.
        await purges.note_followups(
            tx,
            self.record,
            rederive=[str(r["id"]) for r in sources],
            card_views=[v for v in back if peer not in v],
        )
        return rows

    async def _delete_files(self, ids: list[str], tx: Tx) -> list[Row]:
        """Delete a batch of files and cards, noting on the record the representations whose
        cards went (but the purged peer's): the purge's end schedules their dreams."""
        ws, peer = self.workspace, self.peer
        rows = await tx.rows(
            "delete_purged_files", workspace=ws, batch=self.batch, peer=peer, observation_ids=ids
        )
        views = {(str(o), str(d)) for row in rows for o, d in row["card_views"]}
        await purges.note_followups(tx, self.record, card_views=[v for v in views if peer not in v])
        return rows

    async def finish(self) -> None:
        """Delete the record, doing what the purge noted on it (purge_end.py)."""
        done = await self.db.write_tx(
            lambda tx: purge_end.finish_in(tx, self.settings, self.workspace, self.record)
        )
        self.tally.rederived = set(done.rederive)
        self.tally.card_views = set(done.card_views)

    async def _files_and_runs(self, ids: list[str], scopes: list[dict[str, str]]) -> None:
        """The files and cards, then the dream runs, that quote these beliefs (or the peer)."""
        db, ws, batch, peer = self.db, self.workspace, self.batch, self.peer
        files = await self._until_done(lambda: db.write_tx(partial(self._delete_files, ids)))
        for row in files:
            self.tally.files += int(row["files"])
            self.tally.file_chunks += int(row["chunks"])
            self.tally.cards += int(row["cards"])
        runs = await self._until_done(
            lambda: db.write(
                "delete_purged_dream_runs",
                workspace=ws,
                batch=batch,
                peer=peer,
                scopes=scopes,
                observation_ids=ids,
            )
        )
        self.tally.dream_runs += _count(runs)

    async def _summaries(self, session: str, from_seq: int) -> None:
        db, ws, batch = self.db, self.workspace, self.batch

        async def delete(tx: Tx) -> list[Row]:
            # Counted first: a summarizer that read the purged messages then writes nothing.
            await summary_repo.reset(tx, ws, session)
            rows = await tx.rows(
                "delete_purged_summaries",
                workspace=ws,
                batch=batch,
                session=session,
                from_seq=from_seq,
            )
            covered = [str(c).split("/") for r in rows for c in r["covered"]]
            if covered:  # written again from what is left, at the end
                await purges.note_followups(
                    tx,
                    self.record,
                    summaries=[(session, kind, int(up_to)) for kind, up_to in covered],
                )
            return rows

        deleted = await self._until_done(lambda: db.write_tx(delete))
        self.tally.summaries += _count(deleted)

    async def _quoting(self, plan: Plan, observation_ids: list[str]) -> None:
        """Delete what quotes the purged data: files and cards, dream runs, summaries, jobs."""
        db, ws, batch, peer = self.db, self.workspace, self.batch, self.peer
        scopes = [
            {"observer": o, "observed": d}
            for o, d in sorted({(str(d["observer"]), str(d["observed"])) for d in plan.derived})
        ]
        for ids in list(chunks(observation_ids, batch)) or [[]]:
            await self._files_and_runs(ids, scopes)
        sessions: dict[str, int] = {}
        for m in plan.messages:
            session, seq = str(m["session"]), int(m["seq"])
            sessions[session] = min(seq, sessions.get(session, seq))
        for session, seq in sorted(sessions.items()):
            await self._summaries(session, seq)
        candidates = await db.read(
            "list_purge_jobs",
            workspace=ws,
            sessions=sorted(sessions),
            peer=peer,
            dream_prefix=f"dream/{ws}/{peer}/" if peer else "\x00",
            dream_suffix=f"/{peer}" if peer else "\x00",
            restructure_unit=restructure_unit(ws) if peer else "\x00",
        )
        chosen = jobs_to_purge(candidates, {str(m["id"]) for m in plan.messages}, peer)
        for part in chunks(chosen, batch):
            rows = await self._commit(db.write("delete_jobs", workspace=ws, ids=part))
            self.tally.jobs += _count(rows)

    async def run(self, plan_left: PlanLeft, first: Plan | None = None) -> PurgeReport:
        """Rounds until one finds nothing left, then the peer (`first`: the first round's plan,
        when the caller has read it)."""
        for _ in range(ROUNDS):
            plan = await self.db.read_tx(plan_left) if first is None else first
            first = None
            await self.round(plan)
            if plan.empty and (self.peer is None or await self._delete_peer(plan_left)):
                return self.tally
        raise Conflict("data derived from the purged data kept arriving; purge again")

    async def _delete_peer(self, plan_left: PlanLeft) -> bool:
        """Delete the peer, under its lock, if nothing of it is left; False when something
        arrived since the last look (a message it sent, a file, a card: written while the
        purge ran, it would be orphaned), for another round."""
        db, ws, peer = self.db, self.workspace, self.peer
        assert peer is not None

        async def work(tx: Tx) -> list[Row] | None:
            await tx.rows("lock_peer", workspace=ws, peer=peer)
            files = await tx.one("count_peer_files", workspace=ws, peer=peer)
            if not (await plan_left(tx)).empty or (files and files["files"]):
                return None
            return await tx.rows("delete_peer", workspace=ws, peer=peer)

        rows = await db.write_tx(work)
        await self.checkpoint.committed()
        if rows is None:
            return False
        self.tally.peers += _count(rows)
        return True


async def purge_messages(
    db: Database,
    settings: Settings,
    workspace: str,
    ids: list[str],
    checkpoint: Checkpoint | None = None,
    *,
    lease: timedelta = PURGE_LEASE,
) -> PurgeReport:
    if not ids:
        raise InvalidInput("name at least one message id to purge")
    check_id_count(ids, "ids")
    left = messages_left(workspace, ids)
    plan = await db.read_tx(left)
    if not plan.messages:
        raise NotFound(f"no message with id {ids[0]!r} in workspace {workspace!r}")
    record = await purges.begin_messages(db, workspace, ids, lease=lease)
    eraser = Eraser(db, settings, record.id, workspace, None, checkpoint or NoCheckpoint())
    return await under_record(db, record, lease, partial(eraser.run, left, plan), eraser.finish)


async def purge_peer(
    db: Database,
    settings: Settings,
    workspace: str,
    peer: str,
    checkpoint: Checkpoint | None = None,
    *,
    lease: timedelta = PURGE_LEASE,
) -> PurgeReport:
    await peers.get(db, workspace, peer)

    async def begin(tx: Tx) -> purges.Held:
        # As a rename, merge or split starts: one at a time per workspace, and not while one
        # of those changes the peer (a merge into it would move data in as the purge erases).
        # One dead-lettered part way runs no more: an erasure is not held up by it, and deletes
        # it with the peer's jobs (jobs_to_purge).
        await lock_starts(tx, workspace)
        await check_not_queued(tx, workspace, {peer}, dead_too=False)
        # A split's sub-peer holds what the peer said in the sessions it took, with a copy of
        # the peer's metadata: erasing the peer alone left those (their links just went).
        below = await members.children_in(tx, workspace, peer)
        if below:
            raise Conflict(
                f"peer {peer!r} has sub-peers ({', '.join(map(repr, below[:5]))}"
                f"{', ...' if len(below) > 5 else ''}): purge them first, or remove their "
                "links (removeSubPeer) to keep them; a purge erases one peer"
            )
        return await purges.begin_peer_in(tx, workspace, peer, lease=lease)

    record = await db.write_tx(begin)
    eraser = Eraser(db, settings, record.id, workspace, peer, checkpoint or NoCheckpoint())
    run = partial(eraser.run, peer_left(workspace, peer))
    return await under_record(db, record, lease, run, eraser.finish)
