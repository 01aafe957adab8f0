"""Runs catalog statements on the async driver.

Every call names a statement from `cypher/` and passes its parameters by keyword; the runner
checks that the keywords are exactly the statement's `$params`, so a caller and its statement
cannot drift apart silently (a missing parameter would otherwise become null).
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from neo4j import (
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncTransaction,
    unit_of_work,
)
from neo4j.exceptions import (
    AuthError,
    ClientError,
    ConnectionAcquisitionTimeoutError,
    ConstraintError,
    DatabaseError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
    TransientError,
)

import cypher
from cypher.statements import Statement
from graph.errors import Conflict, RaceLost, Unavailable
from graph.server.layout import ADMIN_USER
from graph.settings import Settings

T = TypeVar("T")
Row = dict[str, Any]
log = logging.getLogger(__name__)
# Runs of a write after the driver's own retries of a deadlock or lock timeout gave up.
BUSY_RETRIES = 8
# What Neo4j raises when a statement reaches a node another transaction deleted meanwhile.
ENTITY_NOT_FOUND = "Neo.ClientError.Statement.EntityNotFound"
UNAVAILABLE = "Neo4j is unavailable; try again shortly"
BUSY = "every Neo4j connection is in use; try again shortly"
# What the driver raises when it cannot reach, keep or get a connection.
NEO4J_AWAY = (ServiceUnavailable, SessionExpired, OSError, ConnectionAcquisitionTimeoutError)
FAILED = "Neo4j could not run this (the server log says why); try again shortly"
# Neo4j's own failures, whatever the statement: its transaction log, its store, its database.
NEO4J_FAILURES = (
    "Neo.DatabaseError.Transaction.",
    "Neo.DatabaseError.Database.",
    "Neo.DatabaseError.General.StorageDamageDetected",
)
SILENT = (
    "Neo4j did not answer within {seconds:.0f} s; try again shortly (a write may have been "
    "stored: send it again with the same clientId)"
)
BUSY_LOG_SECONDS = 10.0  # one warning per this long while the pool stays exhausted
POOL_SIZE = 50  # connections for the service's work
PROBE_POOL_SIZE = 2  # connections for /health's pings, apart from that work


class ParameterMismatch(AssertionError):
    """A caller passed parameters that differ from its statement's `$params` (a bug)."""


def check_params(name: str, params: dict[str, Any]) -> None:
    expected = cypher.parameters(name)
    given = frozenset(params)
    if given != expected:
        raise ParameterMismatch(
            f"cypher/{name}.cypher expects {sorted(expected)}; got {sorted(given)}"
        )


class Tx:
    """A transaction handle that only runs catalog statements."""

    def __init__(self, tx: AsyncManagedTransaction | AsyncTransaction) -> None:
        self._tx = tx

    async def rows(self, statement: Statement, /, **params: Any) -> list[Row]:
        check_params(statement, params)
        result = await self._tx.run(cypher.statement(statement), params)
        return [record.data() for record in await result.fetch(1_000_000)]

    async def one(self, statement: Statement, /, **params: Any) -> Row | None:
        rows = await self.rows(statement, **params)
        return rows[0] if rows else None


class Database:
    """Runs catalog statements; fails fast while Neo4j is unreachable.

    A connection attempt waits at most `timeout` seconds, and the driver's own retries of a
    failed transaction stop after as long. Once a call found Neo4j unreachable, calls within the
    next `cooldown` seconds fail at once with UNAVAILABLE instead of each waiting out the
    timeout again; the first call after it tries for real, so recovery is noticed within it.
    """

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        *,
        timeout: float = 3.0,
        cooldown: float = 1.0,
        answer_timeout: float = 0.0,
        probe: AsyncDriver | None = None,
    ) -> None:
        self.driver = driver
        # `ping` and `refusal` (/health) run on a driver of their own: on the shared pool they
        # waited behind the workload, and /health told a busy Neo4j from a dead one by nothing.
        self.probe = probe or driver
        self.database = database
        self.timeout = timeout
        self.cooldown = cooldown
        # Connection and acquisition have timeouts, but a query on an open connection to a
        # Neo4j that hangs (stopped, thrashing) waited for good: this bounds each transaction.
        self.answer_timeout = answer_timeout
        self._down_until = 0.0
        self._down_logged = -cooldown
        self._failed_logged = -cooldown
        self._silent_logged = -cooldown
        self._busy_logged = -BUSY_LOG_SECONDS
        self._busy_since_log = 0

    @classmethod
    def connect(cls, settings: Settings, password: str, *, pool_size: int = POOL_SIZE) -> Database:
        def driver(connections: int) -> AsyncDriver:
            return AsyncGraphDatabase.driver(
                settings.bolt_uri,
                # The managed server has the one admin user; NEO4J_USER names your own server's.
                auth=(ADMIN_USER if settings.managed else settings.neo4j_user, password),
                max_connection_pool_size=connections,
                connection_timeout=settings.neo4j_timeout,
                connection_acquisition_timeout=settings.neo4j_timeout,
                # Retries of a transient failure stop well inside the timeout, so a request
                # during an outage answers UNAVAILABLE within about BELIEFGRAPH_NEO4J_TIMEOUT s.
                max_transaction_retry_time=settings.neo4j_timeout / 3,
                # Our statements legitimately read properties that may not exist yet (left_at,
                # deleted_at...); the server's notifications about them are noise in the logs.
                notifications_min_severity="OFF",
            )

        return cls(
            driver(pool_size),
            settings.neo4j_database,
            timeout=settings.neo4j_timeout,
            answer_timeout=settings.neo4j_answer_timeout,
            probe=driver(PROBE_POOL_SIZE),
        )

    def _check_up(self) -> None:
        if time.monotonic() < self._down_until:
            raise Unavailable(UNAVAILABLE)

    def _went_down(self, exc: Exception) -> Unavailable:
        # The driver's reason (addresses, errno) goes to the log, once per cooldown; clients
        # get the same plain answer whatever it was.
        stamp = time.monotonic()
        self._down_until = stamp + self.cooldown
        # Requests in flight when it went each end here: one warning per cooldown for them all.
        if stamp - self._down_logged >= self.cooldown:
            self._down_logged = stamp
            log.warning("Neo4j is unavailable: %s", str(exc) or type(exc).__name__)
        return Unavailable(UNAVAILABLE)

    def _busy(self) -> Unavailable:
        # Neo4j is up but the pool is exhausted (too much at once): no cooldown, which would
        # refuse everyone for a moment, and no traceback per request, which filled the log.
        self._busy_since_log += 1
        stamp = time.monotonic()
        if stamp - self._busy_logged >= BUSY_LOG_SECONDS:
            log.warning(
                "no Neo4j connection came free within %.1f s (%d times since the last warning)",
                self.timeout,
                self._busy_since_log,
            )
            self._busy_logged, self._busy_since_log = stamp, 0
        return Unavailable(BUSY)

    def _unavailable(self, exc: Exception) -> Unavailable | None:
        """What a driver error means to the caller when Neo4j cannot serve (None: it can; the
        error is the statement's own)."""
        if isinstance(exc, ServiceUnavailable | SessionExpired | OSError):
            return self._went_down(exc)
        if isinstance(exc, ConnectionAcquisitionTimeoutError):
            return self._busy()
        if isinstance(exc, DatabaseError):
            return self._failed(exc)
        return None

    def _failed(self, exc: DatabaseError) -> Unavailable | None:
        # Neo4j's own failure (a full disk: TransactionLogError, then TransactionStartFailed
        # until it is restarted): not the client's doing, and not a bug of ours to trace.
        if not (exc.code or "").startswith(NEO4J_FAILURES):
            return None  # a failure of this statement (a bug of ours): INTERNAL, traced
        stamp = time.monotonic()
        if stamp - self._failed_logged >= self.cooldown:
            self._failed_logged = stamp
            log.warning("Neo4j failed a transaction: %s: %s", exc.code, exc.message)
            if "restart" in (exc.message or ""):
                log.error(
                    "Neo4j says it must be restarted: for the managed one, `beliefgraph neo4j "
                    "stop` then `beliefgraph neo4j start`"
                )
        return Unavailable(FAILED)

    async def _answered(self, pending: Awaitable[T], limit: float | None) -> T:
        """`pending` within `limit` seconds (the answer timeout when None; 0: no limit)."""
        seconds = self.answer_timeout if limit is None else limit
        if seconds <= 0:
            return await pending
        try:
            return await asyncio.wait_for(pending, seconds)
        except TimeoutError as exc:
            # Not an outage pause: one slow transaction is not every request's.
            stamp = time.monotonic()
            if stamp - self._silent_logged >= self.cooldown:
                self._silent_logged = stamp
                log.warning("a Neo4j transaction had no answer within %.0f s", seconds)
            raise Unavailable(SILENT.format(seconds=seconds)) from exc

    async def close(self) -> None:
        await self.driver.close()
        if self.probe is not self.driver:
            await self.probe.close()

    async def read(self, statement: Statement, /, **params: Any) -> list[Row]:
        return await self.read_tx(lambda tx: tx.rows(statement, **params))

    async def read_one(self, statement: Statement, /, **params: Any) -> Row | None:
        rows = await self.read(statement, **params)
        return rows[0] if rows else None

    async def read_within(
        self, seconds: float, statement: Statement, /, **params: Any
    ) -> list[Row] | None:
        """Like `read`, but the server ends the transaction after `seconds`: None then.

        For reads worth doing only partly, such as warming caches (whatever a cut-short read
        touched stays cached); the one attempt is not retried.
        """
        try:
            return await self.read_tx(lambda tx: tx.rows(statement, **params), timeout=seconds)
        except ClientError as exc:
            # TransactionTimedOut, or ...ClientConfiguration for a timeout the client set.
            if "TransactionTimedOut" in (exc.code or ""):
                return None
            raise

    async def write(self, statement: Statement, /, **params: Any) -> list[Row]:
        return await self.write_tx(lambda tx: tx.rows(statement, **params))

    async def write_one(self, statement: Statement, /, **params: Any) -> Row | None:
        rows = await self.write(statement, **params)
        return rows[0] if rows else None

    async def read_tx(
        self, work: Callable[[Tx], Awaitable[T]], *, timeout: float | None = None
    ) -> T:
        """Run `work` in one read transaction; with `timeout`, the server ends it after that
        many seconds."""
        self._check_up()

        @unit_of_work(timeout=timeout)
        async def managed(tx: AsyncManagedTransaction) -> T:
            return await work(Tx(tx))

        try:
            async with self.driver.session(database=self.database) as session:
                # A server-side timeout is the one to meet: the client waits a little longer.
                limit = None if timeout is None else max(self.answer_timeout, timeout + 5)
                return await self._answered(session.execute_read(managed), limit)
        except (*NEO4J_AWAY, DatabaseError) as exc:
            if (unavailable := self._unavailable(exc)) is None:
                raise
            raise unavailable from exc

    async def write_tx(
        self, work: Callable[[Tx], Awaitable[T]], *, retries: int = 3, limit: float | None = None
    ) -> T:
        """Run `work` in one write transaction.

        Two concurrent MERGEs of one unique key can both miss and one then fails its
        constraint; running the work again makes it MERGE onto the winner's node. Work that
        raises RaceLost read before a concurrent write committed; it runs again the same way.
        Work that met a node deleted by another transaction after it found it runs again too.
        A deadlock or lock timeout among many concurrent writers that outlasts the driver's
        retries (which stop early, so that an outage answers quickly) runs again after a
        random pause, up to BUSY_RETRIES times, then is UNAVAILABLE.
        """
        self._check_up()
        busy = 0
        attempt = 0
        while True:
            try:
                async with self.driver.session(database=self.database) as session:
                    return await self._answered(
                        session.execute_write(lambda tx: work(Tx(tx))), limit
                    )
            except TransientError as exc:
                if not (exc.code or "").startswith("Neo.TransientError.Transaction."):
                    raise
                busy += 1
                if busy > BUSY_RETRIES:
                    log.warning("write still failing after %d tries: %s", busy, exc.message)
                    raise Unavailable("Neo4j is busy; try again") from exc
                log.info("write failed transiently (%s); running it again", exc.code)
                await asyncio.sleep(random.uniform(0.05, 0.25) * busy)
                continue
            except ConstraintError as exc:
                if attempt == retries:
                    # Neo4j's text (labels, properties, values) goes to the log only.
                    log.warning("write kept breaking a constraint: %s", exc.message)
                    raise Conflict(
                        "a concurrent write conflicted with this one; try again"
                    ) from exc
            except RaceLost as exc:
                if attempt == retries:
                    raise
                log.info("write raced a concurrent one (%s); running it again", exc.message)
            except ClientError as exc:
                # A node or relationship another transaction deleted after this one found it:
                # run again, the work then finds it gone (and answers as for a missing one).
                if exc.code != ENTITY_NOT_FOUND:
                    raise
                if attempt == retries:
                    log.warning("write kept meeting deleted nodes: %s", exc.message)
                    raise Conflict("changed while being written; try again") from exc
                log.info("write met a node deleted meanwhile; running it again")
            except (*NEO4J_AWAY, DatabaseError) as exc:
                if (unavailable := self._unavailable(exc)) is None:
                    raise
                raise unavailable from exc
            attempt += 1
            await asyncio.sleep(0.01 * attempt)

    async def rehearse(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        """Run `work` in a write transaction that is always rolled back: what its writes
        would return, or which check would reject them, with nothing kept."""
        self._check_up()

        async def rehearsed() -> T:
            async with self.driver.session(database=self.database) as session:
                tx = await session.begin_transaction()
                try:
                    return await work(Tx(tx))
                finally:
                    await tx.rollback()

        try:
            return await self._answered(rehearsed(), None)
        except (*NEO4J_AWAY, DatabaseError) as exc:
            if (unavailable := self._unavailable(exc)) is None:
                raise
            raise unavailable from exc

    async def ping(self, timeout: float = 1.0) -> bool:
        """Whether Neo4j answers a trivial statement within `timeout` seconds."""
        return await self.refusal(timeout) is None

    async def _ping(self) -> Row | None:
        async with self.probe.session(database=self.database) as session:
            return await session.execute_read(lambda tx: Tx(tx).one("ping"))

    async def refusal(self, timeout: float = 1.0) -> str | None:
        """Why Neo4j does not answer a trivial statement within `timeout` seconds (None: it
        does): it refused the credentials, has no such database, or did not answer."""
        try:
            row = await asyncio.wait_for(self._ping(), timeout)
        except AuthError:
            return "it refused the user name or password"
        except Neo4jError as exc:
            if exc.code == "Neo.ClientError.Database.DatabaseNotFound":
                return "it has no such database (NEO4J_DATABASE)"
            return f"it answered {exc.code}"
        except (TimeoutError, Unavailable, DriverError, OSError):
            return "it does not answer"
        return None if row is not None and row["ok"] == 1 else "it does not answer"
