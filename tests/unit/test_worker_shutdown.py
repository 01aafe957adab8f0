"""A worker stops in bounded time, whatever its periodic work is doing."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph.errors import Unavailable
from graph.repo.jobs import ClaimedUnit, JobRecord
from reasoners.queue.worker import Periodic, Prepared, Worker, WorkerConfig


async def test_periodic_work_gets_the_grace_period_then_stops() -> None:
    """A periodic task that ran long (a purge resumed by the worker) held the shutdown until
    it finished."""
    started, stopped = asyncio.Event(), asyncio.Event()

    async def forever() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            stopped.set()

    periodic = [Periodic("forever", 0.01, forever)]
    config = WorkerConfig(concurrency=0, shutdown_grace=0.3)
    db: Any = None  # no slot: nothing is claimed
    worker = Worker(db, {}, config, periodic=periodic)
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run(stop))
    await asyncio.wait_for(started.wait(), 5)
    began = time.monotonic()
    stop.set()
    await asyncio.wait_for(running, 5)
    assert 0.3 <= time.monotonic() - began < 2.0
    assert stopped.is_set()


async def test_periodic_work_that_fails_runs_again() -> None:
    calls = 0

    async def failing() -> None:
        nonlocal calls
        calls += 1
        raise RuntimeError("down")

    await run_for(0.2, Periodic("f", 0.01, failing))
    assert calls >= 3


async def test_periodic_work_meeting_an_outage_logs_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Neo4j away: each periodic task logged an ERROR with a traceback every time it ran."""

    async def away() -> None:
        raise Unavailable("Neo4j is unavailable; try again shortly")

    with caplog.at_level(logging.INFO, logger="beliefgraph"):
        await run_for(0.2, Periodic("idle dream scan", 0.01, away))
    said = [r for r in caplog.records if "idle dream scan" in r.getMessage()]
    assert len(said) == 1, "once per outage, not at every run"
    assert said[0].levelno == logging.WARNING and said[0].exc_info is None


async def test_periodic_work_cancelled_from_within_runs_again() -> None:
    """A CancelledError from inside the work (a timeout in a library, say) was taken for the
    shutdown: the periodic work stopped for good."""
    calls = 0

    async def cancelled_once() -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise asyncio.CancelledError

    await run_for(0.2, Periodic("c", 0.01, cancelled_once))
    assert calls >= 3


async def test_a_cancelled_worker_has_stopped_its_periodic_work_when_it_returns() -> None:
    """Cancelled itself (not stopped), the worker cancelled a running periodic task but did not
    wait for it: the task's cleanup still ran after the worker had returned."""
    started, cleaned = asyncio.Event(), asyncio.Event()

    async def slow_cleanup() -> None:
        started.set()
        try:
            await asyncio.sleep(3600)
        finally:
            await asyncio.sleep(0.1)  # an outer `finally` that awaits (a record released)
            cleaned.set()

    db: Any = None
    worker = Worker(
        db, {}, WorkerConfig(concurrency=0), periodic=[Periodic("s", 0.01, slow_cleanup)]
    )
    running = asyncio.create_task(worker.run(asyncio.Event()))
    await asyncio.wait_for(started.wait(), 5)
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running
    assert cleaned.is_set()


async def run_for(seconds: float, *periodic: Periodic) -> None:
    """A worker with only `periodic` work (no slot claims anything), run then stopped."""
    db: Any = None
    worker = Worker(db, {}, WorkerConfig(concurrency=0), periodic=list(periodic))
    stop = asyncio.Event()
    running = asyncio.create_task(worker.run(stop))
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.wait_for(running, 5)


class AwayDb:
    """Every write fails as when Neo4j is away."""

    async def write_tx(self, work: Any, **options: Any) -> Any:
        raise Unavailable("Neo4j is unavailable; try again shortly")


def a_unit() -> ClaimedUnit:
    """One running job's unit, claimed by "me"."""
    stamp = datetime.now(UTC)
    job = JobRecord(
        "j1", "w", "test", "test/w/0", 0, "running", 1, 5, {}, None, None, 0, None,
        stamp, stamp, stamp,
    )  # fmt: skip
    return ClaimedUnit("test/w/0", "me", [job], stamp + timedelta(minutes=1))


class Prepares:
    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        return Prepared(results=[])


async def test_a_unit_whose_failure_cannot_be_recorded_ends_quietly() -> None:
    """The commit failed and so did recording the failure: the error escaped the unit's task
    ("Task exception was never retrieved", with a traceback). The lease runs out instead."""
    unit = a_unit()
    db: Any = AwayDb()
    worker = Worker(db, {"test": Prepares()}, WorkerConfig(concurrency=0))
    await worker._process(unit)  # returns: nothing escapes
    assert worker.failed_units == 1


async def test_a_unit_that_cannot_be_released_at_shutdown_does_not_fail_the_shutdown() -> None:
    """Neo4j hung at shutdown: releasing the unit raised, and the whole shutdown failed
    ("Application shutdown failed", with a traceback). Its lease runs out instead."""
    unit = a_unit()
    db: Any = AwayDb()
    worker = Worker(db, {}, WorkerConfig(concurrency=0, shutdown_grace=0.05))
    stop = asyncio.Event()
    stop.set()
    task = asyncio.create_task(asyncio.sleep(3600))
    await worker._until_done_or_stopped(stop, task, unit)  # returns: nothing escapes
    assert task.cancelled()
