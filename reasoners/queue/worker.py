"""The job worker: leases ready work units and runs their jobs through per-kind handlers.

A handler prepares its work outside any transaction (LLM calls, embeddings) and returns the
writes to make; the worker commits those writes and the jobs' completion in one transaction,
so a crash at any point either leaves the jobs to be retried or has finished them, never half.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Protocol

from graph.db import Database, Tx
from graph.errors import BeliefgraphError, Unavailable
from graph.repo import jobs, workspaces
from graph.repo.jobs import ClaimedUnit, JobResult, LeaseLost
from reasoners.llm.interface import Usage

log = logging.getLogger("beliefgraph.worker")
# Longest wait between two claims while claiming fails (Neo4j away): the wait doubles from the
# poll interval, so an outage costs a few tries a second at first, then one every few seconds.
MAX_CLAIM_WAIT = 5.0


def job_error(error: BaseException) -> str:
    """What a failed attempt records on its jobs, which keys of their peer or session read: our
    own errors' messages, which are written for clients; of anything else, its kind only (the
    traceback and text, which may quote the store or the model, go to the server log)."""
    if isinstance(error, BeliefgraphError):
        return f"{type(error).__name__}: {error.message}"
    return f"{type(error).__name__} (details in the server log)"


@dataclass(frozen=True)
class Prepared:
    """What a handler wants committed, with each job's token usage."""

    results: list[JobResult]
    write: Callable[[Tx], Awaitable[None]] | None = None
    # Jobs that made progress and go on in a later claim (jobs.complete); read after `write`,
    # which may set them. A failure charges them with `results`.
    again: list[str] = field(default_factory=list)
    # Called once the write has committed. `write` may run more than once (a deadlock or a lost
    # race runs the transaction again), so what should count once (stats) is recorded here.
    committed: Callable[[], None] | None = None


class PreparationFailed(Exception):
    """A handler's `prepare` failed having taken only some of its unit's jobs (the rest wait
    for a later run): raised from the failure, so only the jobs it took are charged."""

    def __init__(self, taken: set[str]) -> None:
        super().__init__(f"failed preparing {len(taken)} job(s)")
        self.taken = taken


def _billed(error: BaseException, prepared: Prepared | None) -> tuple[int, int]:
    """The LLM tokens a failed attempt was billed: those the failure reports (invalid output
    re-asked to the end), and a prepared result's when its commit is what failed (a change
    meanwhile, a lost lease), which its jobs would have recorded had it committed."""
    usage = getattr(error, "usage", None)
    billed = (usage.input_tokens, usage.output_tokens) if isinstance(usage, Usage) else (0, 0)
    if prepared is None:
        return billed
    return (
        billed[0] + sum(r.tokens_in for r in prepared.results),
        billed[1] + sum(r.tokens_out for r in prepared.results),
    )


def _taken(prepared: Prepared | None) -> set[str] | None:
    """The jobs a failed commit charges: those the handler took (None: all of the unit's)."""
    if prepared is None:
        return None
    return {r.id for r in prepared.results} | set(prepared.again)


class Handler(Protocol):
    async def prepare(self, unit: ClaimedUnit) -> Prepared: ...


def alone_kinds(handlers: Mapping[str, Handler]) -> frozenset[str]:
    """The job kinds claimed one to a claim: those whose handler says so (`one_per_claim`)."""
    return frozenset(k for k, h in handlers.items() if getattr(h, "one_per_claim", False))


@dataclass(frozen=True)
class WorkerConfig:
    concurrency: int = 2
    lease: timedelta = timedelta(seconds=120)
    poll_interval: float = 0.5
    max_jobs_per_claim: int = 20
    backoff: timedelta = timedelta(seconds=5)
    max_backoff: timedelta = timedelta(minutes=10)
    shutdown_grace: float = 30.0
    workspace: str | None = None  # only this workspace's jobs (None: all)


@dataclass(frozen=True)
class Periodic:
    """Work a worker runs every `every` seconds beside its slots (a scheduler's scan)."""

    name: str
    every: float
    run: Callable[[], Awaitable[object]]


def default_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


@dataclass
class Worker:
    db: Database
    handlers: Mapping[str, Handler]
    config: WorkerConfig = field(default_factory=WorkerConfig)
    owner: str = field(default_factory=default_owner)
    processed_units: int = 0
    failed_units: int = 0
    periodic: list[Periodic] = field(default_factory=list)

    @property
    def _alone(self) -> frozenset[str]:
        return alone_kinds(self.handlers)

    async def run(self, stop: asyncio.Event) -> None:
        """Run `concurrency` slots until `stop` is set, then finish or hand back their work."""
        slots = [
            asyncio.create_task(self._slot(stop, f"{self.owner}#{i}"))
            for i in range(self.config.concurrency)
        ]
        slots += [asyncio.create_task(self._every(stop, task)) for task in self.periodic]
        try:
            await asyncio.gather(*slots)
        finally:
            for slot in slots:
                slot.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*slots, return_exceptions=True)

    async def run_once(self, owner: str | None = None) -> bool:
        """Claim and run one ready unit; False when nothing was ready."""
        unit = await jobs.claim(
            self.db,
            owner or self.owner,
            lease=self.config.lease,
            max_jobs=self.config.max_jobs_per_claim,
            workspace=self.config.workspace,
            alone=self._alone,
        )
        if unit is None:
            return False
        # A task of its own, as in `run`: a unit abandoned when its lease expired is cancelled
        # by its heartbeat, which cancelled the caller (a test, a bench) when it ran inline.
        work = asyncio.create_task(self._process(unit))
        try:
            await work
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # the caller was cancelled (and `work` with it)
        return True

    async def drain(self, *, max_units: int = 100_000) -> int:
        """Run units until none is ready (for tests, benchmarks and small scripts)."""
        done = 0
        while done < max_units and await self.run_once():
            done += 1
        return done

    async def _slot(self, stop: asyncio.Event, owner: str) -> None:
        failures = 0  # claims failed in a row: the wait between tries grows
        while not stop.is_set():
            try:
                unit = await jobs.claim(
                    self.db,
                    owner,
                    lease=self.config.lease,
                    max_jobs=self.config.max_jobs_per_claim,
                    workspace=self.config.workspace,
                    alone=self._alone,
                )
                failures = 0
            except Unavailable:  # Neo4j away: the database logs why, once per cooldown
                failures += 1
                unit = None
            except Exception:
                if failures == 0:
                    log.exception("claiming failed; retrying")
                failures += 1
                unit = None
            if unit is None:
                wait = self.config.poll_interval * 2 ** min(failures, 8)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), min(wait, MAX_CLAIM_WAIT))
                continue
            task = asyncio.create_task(self._process(unit))
            try:
                await self._until_done_or_stopped(stop, task, unit)
            except asyncio.CancelledError:
                # The worker was cancelled, not stopped (in its grace period too): its unit
                # stops with it (the lease runs out and another worker takes the unit up).
                task.cancel()
                await asyncio.wait({task})
                raise

    async def _until_done_or_stopped(
        self, stop: asyncio.Event, task: asyncio.Task[None], unit: ClaimedUnit
    ) -> None:
        stop_wait = asyncio.create_task(stop.wait())
        try:
            await asyncio.wait({task, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stop_wait.cancel()
        if not task.done():
            # Shutting down: give the unit its grace period, then hand it back.
            done, _ = await asyncio.wait({task}, timeout=self.config.shutdown_grace)
            if not done:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
                try:
                    await jobs.release(self.db, unit)
                except Unavailable as exc:
                    # Neo4j away at shutdown: the lease runs out and another worker takes the
                    # unit up, as after a crash (this failed the whole shutdown, with a trace).
                    log.warning("%s not released at shutdown (%s)", unit.key, exc)
                    return
                log.info("released %s at shutdown", unit.key)

    async def _every(self, stop: asyncio.Event, task: Periodic) -> None:
        away = False  # the last run met an outage
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), task.every)
            if stop.is_set():
                return
            running: asyncio.Future[Any] = asyncio.ensure_future(task.run())
            stopping: asyncio.Future[Any] = asyncio.ensure_future(stop.wait())
            try:
                await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
                if not running.done():
                    # Shutting down: the grace period, then it stops (periodic work is safe to
                    # stop: a purge's record, an idle mark or a backfill's gap outlives it).
                    await asyncio.wait({running}, timeout=self.config.shutdown_grace)
            finally:
                stopping.cancel()
                running.cancel()  # nothing when it is done
                # Waited for even when this loop is cancelled itself (the worker was cancelled,
                # not stopped): the work's own cleanup has run when the worker returns.
                await asyncio.wait({running})
            if running.cancelled() and stop.is_set():
                log.info("%s stopped at shutdown", task.name)
                return
            if running.cancelled():  # cancelled from within, not by a shutdown: a failure
                log.error("%s was cancelled; it runs again in %.0f s", task.name, task.every)
                continue
            error = running.exception()
            if isinstance(error, Unavailable):
                # Neo4j away: the database logs why; here once per outage, with no traceback.
                if not away:
                    log.warning("%s: %s; it runs again every %.0f s", task.name, error, task.every)
                away = True
                continue
            away = False
            if error is not None:
                log.error(
                    "%s failed; it runs again in %.0f s", task.name, task.every, exc_info=error
                )

    async def _process(self, unit: ClaimedUnit) -> None:
        committing = asyncio.Event()
        heartbeat = asyncio.create_task(self._heartbeat(unit, asyncio.current_task(), committing))
        prepared: Prepared | None = None
        try:
            handler = self.handlers.get(unit.jobs[0].kind)
            if handler is None:
                raise LookupError(f"no handler for job kind {unit.jobs[0].kind!r}")
            prepared = await handler.prepare(unit)

            async def commit(tx: Tx) -> None:
                if prepared.write is not None:
                    await prepared.write(tx)
                await jobs.complete(tx, unit, prepared.results, prepared.again)

            committing.set()
            await self.db.write_tx(commit)
            self.processed_units += 1
            if prepared.committed is not None:
                try:
                    prepared.committed()
                except Exception:  # counters only: the unit is done, whatever they do
                    log.exception("after committing %s", unit.key)
        except asyncio.CancelledError:
            raise
        except LeaseLost as exc:
            # Another worker took the unit over (its jobs are that worker's: the failure below
            # changes nothing), or a purge deleted one of its jobs while the lease held: the
            # jobs it took wait out a backoff, not the lease, which nothing would give up.
            log.warning("unit %s: %s", unit.key, exc)
            committing.set()  # as below: the unit is being given up, not abandoned
            await self._fail(unit, exc, _taken(prepared), _billed(exc, prepared))
        except Exception as exc:
            self.failed_units += 1
            # A failure charges the jobs the handler took; the ones it left for a later run (a
            # large unit) wait uncharged, as they would have after a success.
            taken = _taken(prepared)
            error: BaseException = exc
            if isinstance(exc, PreparationFailed):
                taken, error = exc.taken, exc.__cause__ or exc
            # Ours say what to fix; anything else is logged whole, as its jobs record its kind,
            # but a failure of a unit whose workspace a deletion took from under it (a read
            # finding nodes gone halfway): that deletion takes its jobs too.
            ours = isinstance(error, BeliefgraphError)
            if not ours and await self._workspace_going(unit):
                log.info("unit %s stopped: its workspace is being deleted (%s)", unit.key, error)
            else:
                log.warning("unit %s failed: %s", unit.key, error, exc_info=None if ours else error)
            # A renewal that finds the unit released by this failure is not a lost lease.
            committing.set()
            await self._fail(unit, error, taken, _billed(error, prepared))
        finally:
            heartbeat.cancel()

    async def _workspace_going(self, unit: ClaimedUnit) -> bool:
        try:
            return await workspaces.going(self.db, unit.jobs[0].workspace)
        except Exception:  # Neo4j away too: the failure is logged as it is
            return False

    async def _fail(
        self,
        unit: ClaimedUnit,
        error: BaseException,
        taken: set[str] | None,
        tokens: tuple[int, int],
    ) -> None:
        """Record a failed attempt, and the LLM `tokens` (in, out) it was billed. When Neo4j is
        away that cannot be written either: the unit's lease runs out and it is claimed again,
        as after a crash (the attempt goes uncounted)."""
        try:
            await jobs.fail(
                self.db,
                unit,
                job_error(error),
                backoff=self.config.backoff,
                max_backoff=self.config.max_backoff,
                taken=taken,
                # A failure that says retrying cannot help (a rejected API key, a model not
                # found) is dead-lettered at once, not retried into the same refusal.
                give_up=getattr(error, "retryable", True) is False,
                tokens=tokens,
            )
        except Unavailable as exc:
            log.warning("unit %s: its failure could not be recorded (%s)", unit.key, exc)

    async def _heartbeat(
        self, unit: ClaimedUnit, work: asyncio.Task[None] | None, committing: asyncio.Event
    ) -> None:
        interval = self.config.lease.total_seconds() / 3
        while True:
            await asyncio.sleep(interval)
            try:
                extended = await jobs.extend_lease(self.db, unit, self.config.lease)
            except Exception as exc:  # Neo4j briefly unreachable: try again, the lease holds
                log.warning("could not extend the lease on %s (%s); trying again", unit.key, exc)
                continue
            if not extended and committing.is_set():
                # The commit released the unit (or another worker holds it, and the commit
                # fails with LeaseLost): cancelling now would lose a finished unit's result.
                return
            if not extended:
                log.warning("lease on %s expired; abandoning the unit", unit.key)
                if work is not None:
                    work.cancel()
                return
