"""The durable work queue, kept in Neo4j (Job and WorkUnit nodes).

Jobs of one work unit run in order, by one worker at a time: a worker leases the unit, runs
its ready jobs, and completes them in the same transaction as the work's own writes. A worker
that dies loses its lease when it expires and the unit is claimed again; nothing it did
without committing is visible, and nothing it committed is redone.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from graph import models
from graph.db import Database, Tx
from graph.errors import Conflict
from graph.props import node_props
from graph.records import load_json, required_datetime, to_datetime
from graph.validation import now

ABANDONED = "its worker stopped (a crash, or a lease not renewed) during its last attempt"


class LeaseLost(Conflict):
    """The worker's lease on a unit expired and another worker took it over, or a job it ran
    was deleted meanwhile (a purge)."""


LOST = "lost the lease on {key} (another worker took it over), or a job of it was deleted"


def payload_json(payload: dict[str, Any]) -> str:
    """A job's payload as stored."""
    return json.dumps(payload, sort_keys=True)


@dataclass(frozen=True)
class NewJob:
    workspace: str
    kind: str
    work_unit: str
    payload: dict[str, Any]
    run_after: datetime
    session: str | None = None
    peer: str | None = None
    tokens: int = 0
    max_attempts: int = 5
    id: str | None = None  # chosen by the caller when something already names the job

    def props(self, stamp: datetime) -> dict[str, Any]:
        return node_props(
            models.Job,
            {
                "uid": self.id or str(uuid.uuid4()),
                "workspace": self.workspace,
                "kind": self.kind,
                "work_unit": self.work_unit,
                "session": self.session,
                "peer": self.peer,
                "tokens": self.tokens,
                "payload": payload_json(self.payload),
                "status": "pending",
                "attempts": 0,
                "max_attempts": self.max_attempts,
                "run_after": self.run_after,
                "created_at": stamp,
                "updated_at": stamp,
            },
        )


@dataclass(frozen=True)
class JobRecord:
    id: str
    workspace: str
    kind: str
    work_unit: str
    seq: int
    status: str
    attempts: int
    max_attempts: int
    payload: dict[str, Any]
    session: str | None
    peer: str | None
    tokens: int
    error: str | None
    run_after: datetime
    created_at: datetime
    updated_at: datetime
    tokens_in: int = 0
    tokens_out: int = 0
    notes: tuple[str, ...] = ()

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> JobRecord:
        return cls(
            id=row["id"],
            workspace=row["workspace"],
            kind=row["kind"],
            work_unit=row["work_unit"],
            seq=int(row.get("seq") or 0),
            status=row["status"],
            attempts=int(row.get("attempts") or 0),
            max_attempts=int(row.get("max_attempts") or 1),
            payload=load_json(row.get("payload")),
            session=row.get("session"),
            peer=row.get("peer"),
            tokens=int(row.get("tokens") or 0),
            error=row.get("error"),
            run_after=required_datetime(row["run_after"]),
            created_at=required_datetime(row["created_at"]),
            updated_at=to_datetime(row.get("updated_at")) or required_datetime(row["created_at"]),
            tokens_in=int(row.get("tokens_in") or 0),
            tokens_out=int(row.get("tokens_out") or 0),
            notes=tuple(str(n) for n in row.get("notes") or ()),
        )


@dataclass(frozen=True)
class ClaimedUnit:
    key: str
    owner: str
    jobs: list[JobRecord]
    lease_until: datetime


@dataclass(frozen=True)
class JobResult:
    id: str
    tokens_in: int = 0
    tokens_out: int = 0


async def enqueue(tx: Tx, jobs: list[NewJob], *, token_target: int | None = None) -> list[str]:
    """Add jobs inside the caller's transaction (the messages' own, for durability)."""
    if not jobs:
        return []
    stamp = now()
    props = [j.props(stamp) for j in jobs]
    units: dict[str, list[dict[str, Any]]] = {}
    for p in props:
        units.setdefault(str(p["work_unit"]), []).append(p)
    await tx.rows(
        "enqueue_jobs",
        units=[
            {"key": key, "workspace": unit[0]["workspace"], "jobs": unit}
            for key, unit in units.items()
        ],
    )
    if token_target is not None:
        await tx.rows(
            "ready_units_at_token_target",
            units=sorted({j.work_unit for j in jobs}),
            token_target=token_target,
            now=stamp,
        )
    return [str(p["id"]) for p in props]


async def claim(
    db: Database,
    owner: str,
    *,
    lease: timedelta,
    max_jobs: int,
    scan: int = 20,
    workspace: str | None = None,
    alone: Collection[str] = (),
) -> ClaimedUnit | None:
    """Lease one ready unit and start its ready jobs, or return None when nothing is ready.

    `workspace` limits the claim to one workspace (a dedicated worker, or a test's own jobs).
    Jobs of the kinds in `alone` are claimed one to a claim (a restructuring operation's job:
    those queued behind it wait, not running nor charged, until it is done).
    """

    async def work(tx: Tx) -> ClaimedUnit | None:
        stamp = now()
        # Units a dead worker left first (their lease ran out: they waited longest), then the
        # ready ones. Looking for the first only when nothing was ready starved a unit whose
        # one job had been running while a backlog lasted.
        expired = await tx.rows("find_expired_units", now=stamp, limit=scan, workspace=workspace)
        found = await tx.rows("find_ready_units", now=stamp, limit=scan, workspace=workspace)
        keys = list(dict.fromkeys(str(r["key"]) for r in [*expired, *found]))
        for key in keys:
            until = stamp + lease
            await tx.rows("lock_work_unit", key=key, owner=owner)
            leased = await tx.one(
                "lease_work_unit", key=key, owner=owner, now=stamp, lease_until=until
            )
            if leased is None:
                continue
            heads = [
                JobRecord.from_row(r["job"])
                for r in await tx.rows("list_unit_head_jobs", key=key, limit=max_jobs)
            ]
            heads = await _past_abandoned(tx, key, heads, stamp)
            # A ready prefix: stop at a job waiting out a retry backoff, so order holds, and
            # at a job of another kind (a unit may queue a split behind a merge), which goes
            # to its own handler in a later claim. Jobs a worker was running when it stopped
            # run one to a claim: one of them may be what stopped it.
            ready: list[JobRecord] = []
            for job in heads[:1] if heads and heads[0].status == "running" else heads:
                if job.status == "pending" and job.attempts > 0 and job.run_after > stamp:
                    break
                if ready and (job.kind != ready[0].kind or job.kind in alone):
                    break
                ready.append(job)
            if not ready:
                await tx.rows("release_work_unit", key=key, owner=owner)
                continue
            started = await tx.rows(
                "start_jobs",
                ids=[j.id for j in ready],
                owner=owner,
                lease_until=until,
                now=stamp,
            )
            if not started:  # a purge deleted them while this waited: the next unit
                await tx.rows("release_work_unit", key=key, owner=owner)
                continue
            return ClaimedUnit(key, owner, [JobRecord.from_row(r["job"]) for r in started], until)
        return None

    return await db.write_tx(work)


async def _past_abandoned(
    tx: Tx, key: str, heads: list[JobRecord], stamp: datetime
) -> list[JobRecord]:
    """`heads` past the first jobs left running (a worker was running them when its lease ran
    out) whose attempts are spent, which are dead-lettered: a job that stops the worker running
    it would otherwise be claimed again for ever, and the unit's later jobs wait behind it."""
    spent = 0
    while spent < len(heads) and heads[spent].status == "running":
        if heads[spent].attempts < heads[spent].max_attempts:
            break
        spent += 1
    if spent:
        await tx.rows(
            "bury_abandoned_jobs",
            key=key,
            ids=[j.id for j in heads[:spent]],
            now=stamp,
            error=ABANDONED,
        )
    return heads[spent:]


async def extend_lease(db: Database, unit: ClaimedUnit, lease: timedelta) -> bool:
    """Extend the unit's lease, if this owner still holds it."""

    async def work(tx: Tx) -> bool:
        await _lock(tx, unit)
        row = await tx.one(
            "extend_work_unit_lease", key=unit.key, owner=unit.owner, lease_until=now() + lease
        )
        return row is not None

    return await db.write_tx(work)


async def _lock(tx: Tx, unit: ClaimedUnit) -> None:
    """The unit's lock, in a statement of its own, before any owner check: the checks that
    follow then read after a claim that took the unit over meanwhile has committed. In one
    statement the owner was read before the lock: a lease that had lapsed was extended on a
    released unit, and a worker whose lease had lapsed set back to waiting, or dead-lettered,
    the jobs another worker had just claimed."""
    await tx.rows("lock_work_unit", key=unit.key, owner=unit.owner)


async def _held(tx: Tx, unit: ClaimedUnit) -> bool:
    """Whether this owner still holds the unit's lease (after `_lock`)."""
    return await tx.one("held_work_unit", key=unit.key, owner=unit.owner) is not None


async def complete(
    tx: Tx, unit: ClaimedUnit, results: list[JobResult], again: Sequence[str] = ()
) -> None:
    """Mark the unit's jobs in `results` done and free the unit, in the caller's transaction
    (with the work). The jobs in `again` made progress and go on later: they wait again in
    their places, as new (requeue_jobs.cypher), with the tokens `results` gives them. The
    unit's other jobs (a handler that did the first part of a large unit) go back to waiting,
    their attempt not counted."""
    await _lock(tx, unit)
    if not await _held(tx, unit):
        raise LeaseLost(LOST.format(key=unit.key))
    done = {r.id for r in results} | set(again)
    later = [j.id for j in unit.jobs if j.id not in done]
    if later:
        await tx.rows("release_jobs", key=unit.key, owner=unit.owner, ids=later, now=now())
    if again:
        used = {r.id: r for r in results}
        going_on = [used.get(i, JobResult(i)) for i in again]
        row = await tx.one(
            "requeue_jobs",
            key=unit.key,
            owner=unit.owner,
            jobs=[
                {"id": r.id, "tokens_in": r.tokens_in, "tokens_out": r.tokens_out} for r in going_on
            ],
            now=now(),
        )
        if row is None or int(row["requeued"]) != len(again):
            raise LeaseLost(LOST.format(key=unit.key))
        results = [r for r in results if r.id not in set(again)]
    row = await tx.one(
        "complete_jobs",
        key=unit.key,
        owner=unit.owner,
        now=now(),
        results=[
            {"id": r.id, "tokens_in": r.tokens_in, "tokens_out": r.tokens_out} for r in results
        ],
    )
    if row is None or int(row["done"]) != len(results):
        raise LeaseLost(LOST.format(key=unit.key))
    await tx.rows("release_work_unit", key=unit.key, owner=unit.owner)


async def fail(
    db: Database,
    unit: ClaimedUnit,
    error: str,
    *,
    backoff: timedelta,
    max_backoff: timedelta,
    taken: set[str] | None = None,
    give_up: bool = False,
    tokens: tuple[int, int] = (0, 0),
) -> dict[str, str]:
    """Record the error; each job goes back to pending with a backoff, or to dead (at once with
    `give_up`). Nothing, when another worker has taken the unit over. With `taken`, only those
    jobs are charged; the unit's others go back to waiting
    as they were. `tokens` (in, out): what the failed attempt was billed, added to the first
    job charged."""
    charged = [j.id for j in unit.jobs if taken is None or j.id in taken]
    spared = [j.id for j in unit.jobs if taken is not None and j.id not in taken]

    async def work(tx: Tx) -> dict[str, str]:
        await _lock(tx, unit)
        if not await _held(tx, unit):
            return {}  # another worker took the unit over: its jobs are that worker's now
        if spared:
            await tx.rows("release_jobs", key=unit.key, owner=unit.owner, ids=spared, now=now())
        rows = await tx.rows(
            "fail_jobs",
            key=unit.key,
            owner=unit.owner,
            ids=charged,
            error=error[:4000],
            now=now(),
            backoff_ms=int(backoff.total_seconds() * 1000),
            max_backoff_ms=int(max_backoff.total_seconds() * 1000),
            give_up=give_up,
            tokens_in=tokens[0],
            tokens_out=tokens[1],
        )
        await tx.rows("release_work_unit", key=unit.key, owner=unit.owner)
        return {r["id"]: r["status"] for r in rows}

    return await db.write_tx(work)


async def release(db: Database, unit: ClaimedUnit) -> None:
    """Give the unit back untouched (graceful shutdown before the work committed)."""

    async def work(tx: Tx) -> None:
        await _lock(tx, unit)
        await tx.rows(
            "release_jobs", key=unit.key, owner=unit.owner, ids=[j.id for j in unit.jobs], now=now()
        )
        await tx.rows("release_work_unit", key=unit.key, owner=unit.owner)

    await db.write_tx(work)


async def note(tx: Tx, job_id: str, notes: list[str]) -> None:
    """Leave notes on a job, in the transaction of its work (they go if that rolls back)."""
    if notes:
        await tx.rows("note_job", id=job_id, notes=notes)
