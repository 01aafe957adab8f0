"""The durable queue: ordering per unit, exclusive leases, retries, dead letters, reclaim."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypeVar

import pytest

from cypher.statements import Statement
from graph.db import Database, Row, Tx
from graph.errors import Conflict, NotFound, Unavailable
from graph.repo import job_admin, jobs, queue_status
from graph.repo.jobs import ClaimedUnit, JobRecord, JobResult, NewJob
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.peers import purge
from reasoners.peers.restructure_steps import StepHandler
from reasoners.peers.splits import SPLIT
from reasoners.peers.starts import RESTRUCTURE
from reasoners.queue.worker import Prepared, Worker, WorkerConfig, alone_kinds
from resolvers.graphql.context import Context
from resolvers.graphql.schema import build_schema
from resolvers.runtime import build_handlers
from resolvers.services import Services
from resolvers.shared_look import queue_statuses
from tests import statements
from tests.conftest import GraphQLClient
from tests.fakes.db import CountsReads, SlowAnswers
from tests.integration.derive_helpers import make_peers, make_session, post
from tests.integration.profiling import index_seek_rows

T = TypeVar("T")

pytestmark = pytest.mark.integration


@dataclass
class RecordingHandler:
    """Records which owner prepared which job, in order; optionally fails some jobs."""

    seen: list[tuple[str, str, int, str]] = field(default_factory=list)  # unit, job, seq, owner
    fail_times: dict[str, int] = field(default_factory=dict)
    delay: float = 0.0

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        for job in unit.jobs:
            self.seen.append((unit.key, job.id, job.seq, unit.owner))
        if self.delay:
            await asyncio.sleep(self.delay)
        for job in unit.jobs:
            if self.fail_times.get(job.id, 0) > 0:
                self.fail_times[job.id] -= 1
                raise ValueError(f"scripted failure of {job.id}")
        return Prepared(results=[JobResult(j.id, tokens_in=3, tokens_out=1) for j in unit.jobs])


async def enqueue(
    services: Services, workspace: str, units: int, per_unit: int, first: int = 0
) -> list[str]:
    """`per_unit` jobs in each of units first, first + 1, ..."""
    batch = [
        NewJob(
            workspace=workspace,
            kind="test",
            work_unit=f"test/{workspace}/{first + u}",
            payload={"n": i},
            run_after=now(),
            session=f"s{u % 3}",
            peer=f"p{u}",
        )
        for i in range(per_unit)
        for u in range(units)
    ]

    async def work(tx: Tx) -> list[str]:
        return await jobs.enqueue(tx, batch)

    return await services.db.write_tx(work)


async def test_two_workers_drain_1000_jobs_once_each_in_order(
    services: Services, workspace: str
) -> None:
    ids = await enqueue(services, workspace, units=40, per_unit=25)
    handler = RecordingHandler()
    config = WorkerConfig(
        concurrency=4, poll_interval=0.05, max_jobs_per_claim=7, workspace=workspace
    )
    workers = [Worker(services.db, {"test": handler}, config, owner=f"w{i}") for i in range(2)]
    stop = asyncio.Event()
    runs = [asyncio.create_task(w.run(stop)) for w in workers]
    for _ in range(600):
        status = await queue_status.status(services.db, workspace, None, None)
        if status.done == len(ids):
            break
        await asyncio.sleep(0.1)
    stop.set()
    await asyncio.gather(*runs)

    assert (await queue_status.status(services.db, workspace, None, None)).done == 1000
    prepared = [job for _, job, _, _ in handler.seen]
    assert sorted(prepared) == sorted(ids), "a job was processed twice or never"
    # Each unit ran its jobs in the order they were queued (one batch: they tied before).
    by_unit: dict[str, list[str]] = defaultdict(list)
    for unit, job, _, _ in handler.seen:
        by_unit[unit].append(job)
    unit_of = {job: unit for unit, job, _, _ in handler.seen}
    assert by_unit == {unit: [j for j in ids if unit_of[j] == unit] for unit in by_unit}, (
        "unit order broken"
    )
    seqs = {seq for _, _, seq, _ in handler.seen}
    assert seqs == set(range(1, 26)), "jobs of a unit share a place"
    assert {owner.split("#")[0] for _, _, _, owner in handler.seen} == {"w0", "w1"}


async def test_a_unit_failing_as_its_workspace_is_deleted_logs_no_traceback(
    services: Services, workspace: str, caplog: pytest.LogCaptureFixture
) -> None:
    """A deletion took a unit's messages from under its read (a TypeError on a node gone
    halfway): the log had a traceback of a bug that was none."""
    [job_id] = await enqueue(services, workspace, units=1, per_unit=1)
    handler = RecordingHandler(fail_times={job_id: 1})
    worker = Worker(services.db, {"test": handler}, WorkerConfig(workspace=workspace))
    await services.db.write("mark_workspace_deleting", workspace=workspace, now=now())
    with caplog.at_level(logging.INFO, logger="beliefgraph.worker"):
        assert await worker.run_once()
    [said] = [r for r in caplog.records if r.getMessage().startswith("unit ")]
    assert "its workspace is being deleted" in said.getMessage()
    assert said.exc_info is None and said.levelno == logging.INFO


async def test_failures_back_off_then_dead_letter_with_the_error(
    services: Services, workspace: str
) -> None:
    [job_id] = await enqueue(services, workspace, units=1, per_unit=1)
    handler = RecordingHandler(fail_times={job_id: 99})
    config = WorkerConfig(
        backoff=timedelta(milliseconds=1),
        max_backoff=timedelta(milliseconds=5),
        workspace=workspace,
    )
    worker = Worker(services.db, {"test": handler}, config)
    for _ in range(5):  # max_attempts
        await asyncio.sleep(0.02)
        assert await worker.run_once()
    await asyncio.sleep(0.02)
    assert not await worker.run_once(), "a dead job must not run again"
    [dead] = await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer=None,
        statuses=["dead"],
        with_errors=True,
        limit=5,
    )
    assert dead.id == job_id and dead.attempts == 5
    # Not ours: its kind, its text to the log only (jobs are read by peer and session keys).
    assert dead.error == "ValueError (details in the server log)"

    assert (
        await job_admin.retry_dead(services.db, workspace, ids=[job_id], session=None, peer=None)
        == 1
    )
    handler.fail_times.clear()
    assert await worker.run_once()
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.done, status.dead) == (1, 0)


async def test_a_failed_head_blocks_its_unit_until_retried(
    services: Services, workspace: str
) -> None:
    first, _second = await enqueue(services, workspace, units=1, per_unit=2)
    handler = RecordingHandler(fail_times={first: 1})
    config = WorkerConfig(backoff=timedelta(seconds=30), max_jobs_per_claim=1, workspace=workspace)
    worker = Worker(services.db, {"test": handler}, config)
    assert await worker.run_once()  # first fails, waits 30 s
    assert not await worker.run_once(), "the second job must not overtake the first"
    assert [job for _, job, _, _ in handler.seen] == [first]


async def test_a_unit_left_running_is_reclaimed_while_others_are_ready(
    services: Services, workspace: str
) -> None:
    """Expired units were looked for only when no unit was ready: a unit whose one job a dead
    worker left running waited for as long as a backlog lasted."""
    await enqueue(services, workspace, units=1, per_unit=1)
    crashed = await jobs.claim(
        services.db, "crashed", lease=timedelta(milliseconds=200), max_jobs=10, workspace=workspace
    )
    assert crashed is not None
    await enqueue(services, workspace, units=5, per_unit=1, first=1)
    await asyncio.sleep(0.3)
    again = await jobs.claim(
        services.db, "alive", lease=timedelta(seconds=30), max_jobs=10, workspace=workspace
    )
    assert again is not None and again.key == crashed.key


async def test_a_job_whose_worker_died_is_not_reported_running(
    services: Services, workspace: str
) -> None:
    """A worker killed mid-unit left its jobs "running" in queueStatus for as long as no worker
    came, while no worker ran them (untilIdle waited for them); `jobs` listed them so after
    queueStatus counted them pending."""
    await enqueue(services, workspace, units=1, per_unit=2)
    crashed = await jobs.claim(
        services.db, "crashed", lease=timedelta(seconds=2), max_jobs=10, workspace=workspace
    )
    assert crashed is not None

    async def listed(*statuses: str) -> list[str]:
        found = await job_admin.list_jobs(
            services.db,
            workspace,
            session=None,
            peer=None,
            statuses=list(statuses) or None,
            with_errors=False,
            limit=10,
        )
        return [job.status for job in found]

    held = await queue_status.status(services.db, workspace, None, None)
    assert (held.running, held.pending) == (2, 0)
    assert (await listed(), await listed("pending")) == (["running"] * 2, [])
    await asyncio.sleep(2.5)
    expired = await queue_status.status(services.db, workspace, None, None)
    assert (expired.running, expired.pending) == (0, 2)
    assert await listed() == await listed("pending") == ["pending"] * 2
    assert await listed("running") == []


class FlakyLeases(Database):
    """A database whose first `failures` lease extensions fail, as during a Neo4j outage."""

    def __init__(self, db: Database, failures: int) -> None:
        super().__init__(db.driver, db.database, timeout=db.timeout, cooldown=db.cooldown)
        self.failures = failures

    async def write_tx(self, work: Callable[[Tx], Awaitable[T]], **options: Any) -> T:
        # The extension runs in a transaction of its own (after the unit's lock): a failure of
        # `write_one` alone no longer reached it.
        async def flaky(tx: Tx) -> T:
            return await work(FlakyLeaseTx(tx, self))

        return await super().write_tx(flaky, **options)


class FlakyLeaseTx(Tx):
    def __init__(self, tx: Tx, db: FlakyLeases) -> None:
        self._inner, self._db = tx, db

    async def rows(self, statement: Statement, /, **params: Any) -> list[Row]:
        if statement == "extend_work_unit_lease" and self._db.failures > 0:
            self._db.failures -= 1
            raise Unavailable("Neo4j is unreachable (a test's outage)")
        return await self._inner.rows(statement, **params)


async def test_a_lease_extension_that_fails_is_tried_again(
    services: Services, workspace: str
) -> None:
    """The heartbeat died at its first failed extension, and the unit's lease ran out under a
    worker still running it: another worker then ran it again."""
    await enqueue(services, workspace, units=1, per_unit=1)
    handler = RecordingHandler(delay=6.0)
    config = WorkerConfig(lease=timedelta(seconds=3), workspace=workspace)  # renewed every 1 s
    flaky = FlakyLeases(services.db, failures=1)
    worker = Worker(flaky, {"test": handler}, config)
    running = asyncio.create_task(worker.run_once())
    # The renewal at 1 s fails; the one at 2 s holds the lease to 5 s. Without the retry the
    # lease ran out at 3 s.
    await asyncio.sleep(4.0)
    other = await jobs.claim(
        services.db, "other", lease=timedelta(seconds=30), max_jobs=10, workspace=workspace
    )
    assert other is None, "the unit's lease ran out while its worker still ran it"
    assert await running
    assert worker.processed_units == 1 and flaky.failures == 0


@dataclass
class TakenOver:
    """Prepares slowly; meanwhile (its worker's renewals failing) another worker claims the
    unit."""

    db: FlakyLeases
    workspace: str

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        while self.db.failures:  # the lease runs out meanwhile
            await asyncio.sleep(0.05)
        thief = await jobs.claim(self.db, "thief", lease=timedelta(seconds=60), max_jobs=5,
                                 workspace=self.workspace)  # fmt: skip
        assert thief is not None
        await asyncio.sleep(2.0)  # the heartbeat finds the lease gone and abandons the unit
        raise AssertionError("an abandoned unit ran on")


async def test_an_abandoned_unit_does_not_cancel_the_caller_of_run_once(
    services: Services, workspace: str
) -> None:
    """The heartbeat cancelled the task running the unit, which for run_once (drain: tests,
    benches, scripts) was its caller's."""
    await enqueue(services, workspace, units=1, per_unit=1)
    config = WorkerConfig(lease=timedelta(seconds=0.6), workspace=workspace)
    flaky = FlakyLeases(services.db, failures=4)  # renewals at 0.2 to 0.8 s
    worker = Worker(flaky, {"test": TakenOver(flaky, workspace)}, config)
    assert await worker.run_once()
    assert worker.processed_units == 0
    status = await queue_status.status(services.db, workspace, None, None)
    assert status.running == 1  # the thief's


async def test_an_expired_lease_is_reclaimed(services: Services, workspace: str) -> None:
    await enqueue(services, workspace, units=1, per_unit=3)
    # A lease long enough to outlast the next check on a loaded machine (200 ms did not once).
    lease = timedelta(seconds=1.5)
    dead_worker_unit = await jobs.claim(
        services.db, "crashed", lease=lease, max_jobs=10, workspace=workspace
    )
    assert dead_worker_unit is not None and len(dead_worker_unit.jobs) == 3
    handler = RecordingHandler()
    worker = Worker(services.db, {"test": handler}, WorkerConfig(workspace=workspace))
    assert not await worker.run_once(), "a live lease must not be taken"
    await asyncio.sleep(lease.total_seconds() + 0.2)
    # The jobs the crashed worker ran are taken up one to a claim (one may be what crashed it).
    for _ in range(3):
        assert await worker.run_once()
    assert len(handler.seen) == 3
    status = await queue_status.status(services.db, workspace, None, None)
    assert status.done == 3

    # The crashed worker's late commit is refused: it no longer holds the lease.
    async def late(tx: Tx) -> None:
        await jobs.complete(tx, dead_worker_unit, [JobResult(j.id) for j in dead_worker_unit.jobs])

    with pytest.raises(jobs.LeaseLost):
        await services.db.write_tx(late)


async def test_units_made_ready_together_run_oldest_first(
    services: Services, workspace: str
) -> None:
    """A flush makes every waiting job ready at one moment; the units then run in the order
    their work was queued, not in the order the store happens to return them. Each unit's job
    is backdated so that the one stored last was queued first."""
    later = now() + timedelta(hours=1)
    ids = []
    for u in range(4):
        job = NewJob(workspace, "test", f"test/{workspace}/{u}", {"n": u}, later)
        ids.append((await services.db.write_tx(lambda tx, j=job: jobs.enqueue(tx, [j])))[0])
    start = now() - timedelta(minutes=1)
    for age, job_id in enumerate(reversed(ids)):
        await statements.write(
            services.db, "backdate_job", id=job_id, created_at=start + timedelta(seconds=age)
        )
    assert await job_admin.flush(services.db, workspace, None, None) == 4
    handler = RecordingHandler()
    worker = Worker(services.db, {"test": handler}, WorkerConfig(workspace=workspace))
    assert await worker.drain() == 4
    assert [unit for unit, *_ in handler.seen] == [f"test/{workspace}/{u}" for u in (3, 2, 1, 0)]


async def test_graceful_shutdown_hands_back_unfinished_work(
    services: Services, workspace: str
) -> None:
    await enqueue(services, workspace, units=1, per_unit=2)
    handler = RecordingHandler(delay=5.0)
    config = WorkerConfig(
        concurrency=1, poll_interval=0.01, shutdown_grace=0.2, workspace=workspace
    )
    worker = Worker(services.db, {"test": handler}, config)
    stop = asyncio.Event()
    run = asyncio.create_task(worker.run(stop))
    while not handler.seen:
        await asyncio.sleep(0.01)
    stop.set()
    await asyncio.wait_for(run, 5)
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.pending, status.running, status.done) == (2, 0, 0)
    [job, _] = await job_admin.list_jobs(
        services.db, workspace, session=None, peer=None, statuses=None, with_errors=False, limit=5
    )
    assert job.attempts == 0, "a handed-back attempt does not count"


@dataclass
class HeldUntilCancelled:
    """Works on its unit until cancelled, then takes a moment to clean up."""

    started: asyncio.Event = field(default_factory=asyncio.Event)
    cleaned: asyncio.Event = field(default_factory=asyncio.Event)

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        self.started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            await asyncio.sleep(0.1)  # a cleanup that awaits (a child process reaped)
            self.cleaned.set()
        raise AssertionError("never reached")


async def test_a_worker_cancelled_in_its_grace_period_stops_its_unit_first(
    services: Services, workspace: str
) -> None:
    """Stopped, the worker gives its unit the grace period; cancelled then (a second signal,
    the event loop closing), it cancels the unit and returns only once the unit has stopped:
    no handler is left running with nobody to wait for it."""
    await enqueue(services, workspace, units=1, per_unit=1)
    handler = HeldUntilCancelled()
    config = WorkerConfig(concurrency=1, poll_interval=0.01, shutdown_grace=60, workspace=workspace)
    worker = Worker(services.db, {"test": handler}, config)
    stop = asyncio.Event()
    run = asyncio.create_task(worker.run(stop))
    await asyncio.wait_for(handler.started.wait(), 5)
    stop.set()
    await asyncio.sleep(0.2)  # in the grace period now
    assert not run.done()
    run.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await asyncio.wait_for(run, 5)
    assert handler.cleaned.is_set()


@dataclass
class FirstJobThenConflict:
    """Takes only a unit's first job, and its write finds the data changed (as a deriver does
    when a merge moved a message it read)."""

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        async def write(tx: Tx) -> None:
            raise Conflict("changed while read")

        # The model was called (and billed) before the write found the change.
        return Prepared(results=[JobResult(unit.jobs[0].id, 120, 30)], write=write)


async def test_a_failed_write_charges_only_the_jobs_its_handler_took(
    services: Services, workspace: str
) -> None:
    """Every job of the unit was charged an attempt (and a backoff), the ones the handler had
    left for a later run too."""
    first, second = await enqueue(services, workspace, units=1, per_unit=2)
    worker = Worker(
        services.db, {"test": FirstJobThenConflict()}, WorkerConfig(workspace=workspace)
    )
    assert await worker.run_once()
    listed = await job_admin.list_jobs(
        services.db, workspace, session=None, peer=None, statuses=None, with_errors=False, limit=5
    )
    by_id = {j.id: j for j in listed}
    assert (by_id[first].attempts, by_id[first].error) == (1, "Conflict: changed while read")
    # What the attempt was billed is recorded, though its commit failed.
    assert (by_id[first].tokens_in, by_id[first].tokens_out) == (120, 30)
    assert (by_id[second].attempts, by_id[second].error) == (0, None)
    assert {j.status for j in listed} == {"pending"}


async def test_a_job_that_stops_its_worker_every_time_is_dead_lettered(
    services: Services, workspace: str
) -> None:
    """A job whose worker died while running it (out of memory, say) was claimed again with
    its attempts counted past the maximum, for ever, and the unit's later jobs waited behind
    it. Now the jobs a stopped worker was running run one to a claim, and one whose every
    attempt ended so is dead-lettered."""
    poison, second, third = await enqueue(services, workspace, units=1, per_unit=3)
    db = services.db

    async def crash() -> list[str]:
        """A claim whose worker dies: its lease runs out, nothing written."""
        unit = await jobs.claim(db, "dies", lease=timedelta(seconds=0.05), max_jobs=5,
                                workspace=workspace)  # fmt: skip
        assert unit is not None
        await asyncio.sleep(0.15)
        return [j.id for j in unit.jobs]

    assert await crash() == [poison, second, third]
    for _ in range(4):  # attempts 2 to 5, alone
        assert await crash() == [poison]
    # Its fifth attempt ended so too: dead-lettered; the next job left running runs alone.
    assert await crash() == [second]
    listed = await job_admin.list_jobs(
        db, workspace, session=None, peer=None, statuses=["dead"], with_errors=True, limit=5
    )
    assert [(j.id, j.attempts, j.error) for j in listed] == [(poison, 5, jobs.ABANDONED)]
    # Once none is left running, the unit is claimed whole again.
    worker = Worker(db, {"test": CountsCommits()}, WorkerConfig(workspace=workspace))
    assert await worker.run_once() and await worker.run_once()
    status = await queue_status.status(db, workspace, None, None)
    assert (status.done, status.dead, status.pending, status.running) == (2, 1, 0, 0)


@dataclass
class Steps(StepHandler):
    """An operation of `steps` steps whose step number `fail_at` fails once."""

    steps: int = 3
    fail_at: int | None = None
    ran: int = 0

    async def _run(self, tx: Tx, job: JobRecord) -> bool:
        self.ran += 1
        if self.ran == self.fail_at:
            raise Conflict("the step failed")
        return self.ran >= self.steps


async def test_a_failed_step_is_charged_and_a_step_done_clears_the_count(
    services: Services, workspace: str
) -> None:
    """A step that failed went back to waiting uncharged, with no error and no backoff: the
    next claim ran it again at once, for ever. And each step that went on counted an attempt
    for good, so a long operation's crashes and failures added up to dead-lettering."""
    await make_peers(services, workspace, "alice")  # the workspace the step checks for
    [op] = await enqueue(services, workspace, units=1, per_unit=1)
    handler = Steps(services.db, services.settings, steps=4, fail_at=2)
    config = WorkerConfig(workspace=workspace, backoff=timedelta(seconds=60))
    worker = Worker(services.db, {"test": handler}, config)

    async def job() -> JobRecord:
        [found] = await job_admin.list_jobs(
            services.db, workspace, session=None, peer=None, statuses=None, with_errors=False,
            limit=5,
        )  # fmt: skip
        assert found.id == op
        return found

    assert await worker.run_once()  # step 1 goes on: waiting again, as new
    first = await job()
    assert (first.status, first.attempts, first.error, handler.ran) == ("pending", 0, None, 1)
    assert await worker.run_once()  # step 2 fails: charged, with its error and a backoff
    failed = await job()
    assert (failed.status, failed.attempts, failed.error) == (
        "pending", 1, "Conflict: the step failed"
    )  # fmt: skip
    assert not await worker.run_once(), "a failed step ran again at once"
    await statements.write(services.db, "backdate_run_after", id=op, run_after=now())
    assert await worker.run_once()  # step 2 again: it goes on, its failure behind it
    again = await job()
    assert (again.status, again.attempts, again.error) == ("pending", 0, None)
    assert await worker.run_once() and (await job()).status == "done"
    assert handler.ran == 4


async def test_a_flush_reaches_the_jobs_a_claim_took_before_they_were_due(
    services: Services, workspace: str
) -> None:
    """A flush while the unit ran left out its later jobs, claimed with its first though not
    due: handed back unrun, they waited out their time (the deriver's max age, 5 minutes)."""
    db = services.db
    due, later = await enqueue(services, workspace, units=1, per_unit=2)
    await statements.write(db, "backdate_run_after", id=later, run_after=now() + timedelta(hours=1))
    unit = await jobs.claim(db, "w1", lease=timedelta(seconds=60), max_jobs=5,
                            workspace=workspace)  # fmt: skip
    assert unit is not None and [j.id for j in unit.jobs] == [due, later]
    assert await job_admin.flush(db, workspace, None, None) == 1
    # The handler does the first job only; the other is handed back, and runs now.
    await db.write_tx(lambda tx: jobs.complete(tx, unit, [JobResult(due)]))
    again = await jobs.claim(db, "w1", lease=timedelta(seconds=60), max_jobs=5,
                             workspace=workspace)  # fmt: skip
    assert again is not None and [j.id for j in again.jobs] == [later]


async def test_kinds_that_run_alone_are_claimed_one_to_a_claim(
    services: Services, workspace: str
) -> None:
    """A claim took a restructuring operation with those queued behind it: they showed as
    running while only the first ran, and a worker killed meanwhile charged them an attempt."""
    first, _ = await enqueue(services, workspace, units=1, per_unit=2)
    unit = await jobs.claim(services.db, "w1", lease=timedelta(seconds=60), max_jobs=5,
                            workspace=workspace, alone={"test"})  # fmt: skip
    assert unit is not None and [j.id for j in unit.jobs] == [first]
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.running, status.pending) == (1, 1)
    handlers = build_handlers(
        services.db, services.embedder, services.tokens, None, services.settings
    )
    assert {RESTRUCTURE, SPLIT} <= alone_kinds(handlers)
    assert "derive" not in alone_kinds(handlers)


@dataclass
class PurgesTheSecondJob:
    """Deletes the unit's second job while the first is prepared, as a purge would."""

    db: Database

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        await self.db.write("delete_jobs", workspace=unit.jobs[0].workspace,
                            ids=[unit.jobs[1].id])  # fmt: skip
        return Prepared(results=[JobResult(j.id) for j in unit.jobs])


async def test_a_unit_whose_job_a_purge_deleted_is_given_up_at_once(
    services: Services, workspace: str
) -> None:
    """The commit found one job gone and the unit was left leased and its other job running
    until the lease ran out (a minute), though its worker was alive and done with it."""
    first, _ = await enqueue(services, workspace, units=1, per_unit=2)
    config = WorkerConfig(workspace=workspace, lease=timedelta(seconds=60))
    worker = Worker(services.db, {"test": PurgesTheSecondJob(services.db)}, config)
    assert await worker.run_once()
    [job] = await job_admin.list_jobs(
        services.db, workspace, session=None, peer=None, statuses=None, with_errors=True, limit=5
    )
    assert (job.id, job.status, job.attempts) == (first, "pending", 1)
    assert job.error is not None and "lost the lease" in job.error


@dataclass
class CountsCommits:
    committed: int = 0

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        def committed() -> None:
            self.committed += 1

        return Prepared(results=[JobResult(j.id) for j in unit.jobs], committed=committed)


async def test_a_unit_whose_commit_answers_late_is_not_abandoned(
    services: Services, workspace: str
) -> None:
    """The heartbeat found the unit released by the commit (whose answer had not arrived yet),
    logged its lease as expired and cancelled the unit: its result was lost to the worker."""
    await enqueue(services, workspace, units=1, per_unit=1)
    handler = CountsCommits()
    slow = SlowAnswers(services.db, delay=0.8)
    config = WorkerConfig(workspace=workspace, lease=timedelta(seconds=0.6))
    worker = Worker(slow, {"test": handler}, config)  # type: ignore[arg-type]
    assert await worker.run_once()
    assert (worker.processed_units, handler.committed) == (1, 1)
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.done, status.pending, status.running) == (1, 0, 0)


async def test_a_lease_extended_while_the_unit_is_released_leaves_it_free(
    services: Services, workspace: str
) -> None:
    """The extension read the owner before the releasing commit's lock, then set its lease on
    the released unit: nobody could claim the unit until that lease ran out."""
    await enqueue(services, workspace, units=1, per_unit=1)
    unit = await jobs.claim(services.db, "w1", lease=timedelta(seconds=60), max_jobs=5,
                            workspace=workspace)  # fmt: skip
    assert unit is not None
    db = services.db
    async with db.driver.session(database=db.database) as session:
        release = await session.begin_transaction()
        await Tx(release).rows("release_work_unit", key=unit.key, owner=unit.owner)
        extending = asyncio.ensure_future(jobs.extend_lease(db, unit, timedelta(seconds=60)))
        await asyncio.sleep(1.0)
        await release.commit()
    assert await asyncio.wait_for(extending, 30) is False
    await enqueue(services, workspace, units=1, per_unit=1)
    again = await jobs.claim(services.db, "w2", lease=timedelta(seconds=60), max_jobs=5,
                             workspace=workspace)  # fmt: skip
    assert again is not None and again.key == unit.key


@pytest.mark.parametrize("outcome", ["fail", "complete"])
async def test_a_worker_whose_lease_lapsed_leaves_the_next_claim_alone(
    services: Services, workspace: str, outcome: str
) -> None:
    """A worker whose lease had lapsed read its jobs as its own before the lock that a new
    claim held, then wrote over that claim: its failure set the jobs another worker had just
    started back to waiting (or dead-lettered them), its commit marked them done."""
    await enqueue(services, workspace, units=1, per_unit=1)
    db = services.db
    first = await jobs.claim(db, "w1", lease=timedelta(seconds=0.1), max_jobs=5,
                             workspace=workspace)  # fmt: skip
    assert first is not None
    await asyncio.sleep(0.3)
    stamp, lease = now(), timedelta(seconds=60)
    ids = [j.id for j in first.jobs]
    async with db.driver.session(database=db.database) as session:
        open_tx = await session.begin_transaction()
        claiming = Tx(open_tx)
        await claiming.rows("lock_work_unit", key=first.key, owner="w2")
        leased = await claiming.one(
            "lease_work_unit", key=first.key, owner="w2", now=stamp, lease_until=stamp + lease
        )
        started = await claiming.rows(
            "start_jobs", ids=ids, owner="w2", lease_until=stamp + lease, now=stamp
        )
        assert leased is not None and len(started) == 1
        if outcome == "fail":
            late = asyncio.ensure_future(
                jobs.fail(db, first, "boom", backoff=lease, max_backoff=lease)
            )
        else:
            done = [JobResult(i) for i in ids]
            late = asyncio.ensure_future(db.write_tx(lambda tx: jobs.complete(tx, first, done)))
        await asyncio.sleep(1.0)
        await open_tx.commit()
    with contextlib.suppress(jobs.LeaseLost):
        await asyncio.wait_for(late, 30)
    # The second claim still holds its job, and its commit goes through.
    second = ClaimedUnit(first.key, "w2", [JobRecord.from_row(r["job"]) for r in started],
                         stamp + lease)  # fmt: skip
    await db.write_tx(lambda tx: jobs.complete(tx, second, [JobResult(i) for i in ids]))
    status = await queue_status.status(db, workspace, None, None)
    assert (status.done, status.pending, status.dead, status.running) == (1, 0, 0, 0)


async def test_queue_status_streams_share_one_look(services: Services, workspace: str) -> None:
    """Each queueStatus stream counted the jobs at its own pace: twenty streams at 0.2 s made
    100 queries a second. They share one look per tick now."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I live in Paris."))
    counting = CountsReads(services.db)
    look = queue_statuses(counting, tick=0.1)  # type: ignore[arg-type]
    scopes = [queue_status.QueueScope(workspace)] * 20 + [
        queue_status.QueueScope(workspace, session="s1"),
        queue_status.QueueScope(workspace, session="nosuch"),
    ]
    async with contextlib.AsyncExitStack() as stack:
        latest = [await stack.enter_async_context(look.watching(s)) for s in scopes]
        await asyncio.sleep(1.0)
        values = [f() for f in latest]
    whole, s1, missing = values[0], values[-2], values[-1]
    assert isinstance(whole, queue_status.QueueStatus) and whole.pending >= 1
    assert values[:20] == [whole] * 20 and s1 == whole
    assert isinstance(missing, NotFound) and "nosuch" in str(missing)
    looks = counting.reads["count_queue_statuses"]
    assert 5 <= looks <= 12, counting.reads
    await asyncio.sleep(0.3)
    assert counting.reads["count_queue_statuses"] <= looks + 1, "no stream left: the look stops"


async def test_many_scopes_are_counted_by_one_read_of_their_workspace(
    services: Services, workspace: str
) -> None:
    """Each scope of a look read its workspace's jobs again: a key streaming the status of
    many sessions (names it made up, for a peer key) had every look scan the jobs once each."""
    await make_peers(services, workspace, "alice", "bob")
    members = [MemberSettings("alice"), MemberSettings("bob")]
    await make_session(services, workspace, "s1", members)
    await make_session(services, workspace, "s2", members)
    await post(services, workspace, "s1", ("alice", "I live in Paris."), ("bob", "I cook."))
    await post(services, workspace, "s2", ("bob", "I sail."), ("bob", "I fish."))

    async def counted(session: str | None, peer: str | None) -> dict[str, int]:
        rows, _, _ = await services.db.driver.execute_query(
            "MATCH (j:Job {workspace: $w}) WHERE ($s IS NULL OR j.session = $s) "
            "AND ($p IS NULL OR j.peer = $p) RETURN j.status AS status, count(*) AS jobs",
            {"w": workspace, "s": session, "p": peer},
            database_=services.db.database,
        )
        return {r["status"]: r["jobs"] for r in rows}

    Scope = queue_status.QueueScope
    named = [(None, None), ("s1", None), ("s2", None), (None, "alice"), (None, "bob")]
    named += [("s1", "alice"), ("s2", "alice"), ("s2", "bob")]
    scopes = [Scope(workspace, session, peer) for session, peer in named]
    unchecked = Scope(workspace, "made-up", "bob", ("peer",))
    checked = Scope(workspace, "made-up", None)
    found = await queue_status.statuses(services.db, [*scopes, unchecked, checked])
    for scope in scopes:
        status = found[scope]
        assert isinstance(status, queue_status.QueueStatus)
        assert status.by_status == await counted(scope.session, scope.peer), scope
    assert found[scope].by_status  # jobs were counted, not only zeros compared
    assert found[unchecked] == queue_status.QueueStatus()
    assert isinstance(found[checked], NotFound) and "made-up" in str(found[checked])

    async def job_rows(count: int) -> int:
        names = [{"workspace": workspace, "sessions": [f"x{i}" for i in range(count)], "peers": []}]
        return await index_seek_rows(
            services, "count_queue_statuses", "Job", workspaces=names, now=now()
        )

    assert await job_rows(40) == await job_rows(1) > 0
    # Its deletion begun, each scope says so (probe H: "no workspace", the deletion running).
    await services.db.write("mark_workspace_deleting", workspace=workspace, now=now())
    gone = await queue_status.statuses(services.db, [Scope(workspace), Scope("no-such-w")])
    assert [str(v) for v in gone.values()] == [
        f"workspace {workspace!r} is being deleted",
        "workspace 'no-such-w' does not exist",
    ]


JOBS_PAGE = """query($w: String!, $after: String, $statuses: [String!]) {
  jobs(workspace: $w, first: 3, after: $after, statuses: $statuses) { id cursor }
}"""


async def test_jobs_page_on_from_where_the_last_job_stood(
    services: Services, gql: GraphQLClient, workspace: str
) -> None:
    ids = await enqueue(services, workspace, units=7, per_unit=1)
    first = (await gql.ok(JOBS_PAGE, {"w": workspace}))["jobs"]
    assert len(first) == 3
    # A listed job changes and moves to the front: the next pages neither repeat nor skip.
    await statements.write(
        services.db, "touch_job", id=first[0]["id"], updated_at=now() + timedelta(seconds=5)
    )
    seen = [job["id"] for job in first]
    after = first[-1]["cursor"]
    while True:
        page = (await gql.ok(JOBS_PAGE, {"w": workspace, "after": after}))["jobs"]
        if not page:
            break
        seen += [job["id"] for job in page]
        after = page[-1]["cursor"]
    assert sorted(seen) == sorted(ids)
    again = (await gql.ok(JOBS_PAGE, {"w": workspace}))["jobs"]
    assert again[0]["id"] == first[0]["id"]


async def test_jobs_refuse_unknown_statuses_and_foreign_cursors(
    gql: GraphQLClient, workspace: str
) -> None:
    code = await gql.error_code(JOBS_PAGE, {"w": workspace, "statuses": ["dead", "failed"]})
    assert code == "INVALID_INPUT"
    assert await gql.error_code(JOBS_PAGE, {"w": workspace, "after": "not-a-cursor"}) == (
        "INVALID_INPUT"
    )
    assert (await gql.ok(JOBS_PAGE, {"w": workspace, "statuses": ["dead"]}))["jobs"] == []


async def test_a_workspace_being_deleted_has_no_queue_status(
    services: Services, workspace: str
) -> None:
    """Its jobs go in the first batches of a deletion: a stream then sent all zeros (and one
    with untilIdle completed as if drained) before NOT_FOUND."""
    await enqueue(services, workspace, units=2, per_unit=2)
    assert (await queue_status.status(services.db, workspace, None, None)).pending == 4
    await services.db.write("mark_workspace_deleting", workspace=workspace, now=now())
    with pytest.raises(NotFound):
        await queue_status.status(services.db, workspace, None, None)


async def test_a_peer_scoped_status_stream_ends_soon_after_its_peer_is_purged(
    services: Services, workspace: str
) -> None:
    """Polling every 30 s, it ended up to 30 s after the purge, where dreamEvents ends within a
    look of the shared watcher."""
    await make_peers(services, workspace, "alice")
    schema = build_schema(services.settings)
    stream: Any = await schema.subscribe(
        'subscription($w: String!) { queueStatus(workspace: $w, peer: "alice", '
        "intervalSeconds: 30) { pending } }",
        variable_values={"w": workspace},
        context_value=Context(services, None),
    )
    first = await asyncio.wait_for(anext(stream), 10)
    assert not first.errors, first.errors
    waiting = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.5)
    await purge.purge_peer(services.db, services.settings, workspace, "alice")
    ended = await asyncio.wait_for(waiting, 5)
    assert ended.errors and ended.errors[0].extensions["code"] == "NOT_FOUND", ended
