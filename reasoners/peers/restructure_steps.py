"""The resumable step job that renames, merges and splits run as: queueing, pacing, claims."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol

from graph.db import Database, Tx
from graph.records import WorkspaceRecord
from graph.repo.jobs import ClaimedUnit, JobRecord, JobResult, NewJob
from graph.settings import Settings
from graph.validation import now
from reasoners.peers.starts import restructure_unit
from reasoners.queue.worker import Prepared

log = logging.getLogger("beliefgraph.restructure")


def restructure_job(
    settings: Settings, workspace: str, kind: str, payload: dict[str, Any], peer: str
) -> NewJob:
    """The next step of a rename, merge or split, queued in the workspace's one unit."""
    return NewJob(
        workspace=workspace,
        kind=kind,
        work_unit=restructure_unit(workspace),
        payload=payload,
        run_after=now(),
        peer=peer,
        max_attempts=settings.job_max_attempts,
    )


class Pace(Protocol):
    """Called before each job of an operation runs (the crash test pauses here)."""

    async def before(self, job: JobRecord) -> None: ...


class NoPause:
    async def before(self, job: JobRecord) -> None:
        return None


async def _orphaned(tx: Tx, job: JobRecord) -> bool:
    """Whether the job outlived its workspace: deleted while a step ran (its job then waiting
    again, or a follow-up job an earlier release queued after the deletion had passed),
    perhaps created again since under the same name. Such a job ends without running: its
    peers are another workspace's now."""
    row = await tx.one("get_workspace", workspace=job.workspace)
    if row is not None and WorkspaceRecord.from_row(row["workspace"]).created_at <= job.created_at:
        return False
    log.warning(
        "operation %s outlived workspace %r; dropped", job.payload.get("operation"), job.workspace
    )
    return True


@dataclass
class StepHandler:
    """A resumable restructuring job: each claim runs one bounded step of its operation in one
    transaction, and the job, until its operation is finished, waits again in its place at the
    head of the unit, as new (`Prepared.again`), so the operations queued behind it, of any
    kind, wait their turn. (A follow-up job queued at the unit's end let two operations take
    turns, step by step.)"""

    db: Database
    settings: Settings
    pace: Pace = field(default_factory=NoPause)
    # One job to a claim (jobs.claim): the operations queued behind the one that runs wait,
    # neither shown running nor charged an attempt by its claims.
    one_per_claim: ClassVar[bool] = True

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        for job in unit.jobs:
            await self.pace.before(job)
        results = [JobResult(j.id) for j in unit.jobs]
        again: list[str] = []  # read by the worker after `write`, as `results` is

        async def write(tx: Tx) -> None:
            finished: list[JobResult] = []
            for job in unit.jobs:
                # A failure from here charges this job alone: the ones before it are undone
                # with it and run again, uncharged, and those after it never ran.
                results[:], again[:] = [], [job.id]
                if not await _orphaned(tx, job) and not await self._run(tx, job):
                    # It goes on later; the claim's later jobs keep their places behind it.
                    results[:] = finished
                    return
                finished.append(JobResult(job.id))
            results[:], again[:] = finished, []

        return Prepared(results=results, write=write, again=again)

    async def _run(self, tx: Tx, job: JobRecord) -> bool:
        raise NotImplementedError
