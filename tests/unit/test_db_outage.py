"""Neo4j going away while many requests are in flight: one warning, not one per request."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from neo4j.exceptions import Neo4jError, ServiceUnavailable

from graph.db import Database
from graph.errors import Unavailable

pytestmark = pytest.mark.unit


class GoesAway:
    """Every transaction waits until `gone` is set, then fails as a lost server does."""

    def __init__(self) -> None:
        self.gone = asyncio.Event()

    @asynccontextmanager
    async def session(self, database: str) -> AsyncIterator[GoesAway]:
        yield self

    async def execute_read(self, work: Callable[..., Awaitable[Any]]) -> Any:
        await self.gone.wait()
        raise ServiceUnavailable("Couldn't connect to 127.0.0.1:7687 (reason [Errno 111])")


async def test_requests_in_flight_when_neo4j_goes_log_it_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """About 75 s of outage logged 86 'Neo4j is unavailable' warnings, up to 8 a second."""
    driver = GoesAway()
    db = Database(driver, "neo4j", cooldown=5.0)  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="beliefgraph"):
        reads = [asyncio.ensure_future(db.read("ping")) for _ in range(8)]
        await asyncio.sleep(0.05)
        driver.gone.set()
        results = await asyncio.gather(*reads, return_exceptions=True)
    assert all(isinstance(r, Unavailable) for r in results), results
    said = [r for r in caplog.records if "unavailable" in r.getMessage()]
    assert len(said) == 1, [r.getMessage() for r in said]


class Hangs:
    """A Neo4j that accepted the connection and then stopped answering (SIGSTOP, say)."""

    def __init__(self) -> None:
        self.cancelled = 0

    @asynccontextmanager
    async def session(self, database: str) -> AsyncIterator[Hangs]:
        yield self

    async def _forever(self) -> Any:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            self.cancelled += 1
            raise

    async def execute_read(self, work: Callable[..., Awaitable[Any]]) -> Any:
        return await self._forever()

    async def execute_write(self, work: Callable[..., Awaitable[Any]]) -> Any:
        return await self._forever()


async def test_a_neo4j_that_stops_answering_is_unavailable_in_bounded_time() -> None:
    """Requests running when Neo4j froze never answered (a client gave up after 60 s)."""
    driver = Hangs()
    db = Database(driver, "neo4j", answer_timeout=0.2)  # type: ignore[arg-type]
    started = asyncio.get_running_loop().time()
    for call in (db.read("ping"), db.write("ping")):
        with pytest.raises(Unavailable, match="did not answer within"):
            await call
    assert asyncio.get_running_loop().time() - started < 2
    assert driver.cancelled == 2
    # Not an outage pause: the next call is tried (and waits its own bound).
    with pytest.raises(Unavailable, match="did not answer within"):
        await db.read("ping")


class Fails:
    def __init__(self, error: Exception) -> None:
        self.error = error

    @asynccontextmanager
    async def session(self, database: str) -> AsyncIterator[Fails]:
        yield self

    async def execute_write(self, work: Callable[..., Awaitable[Any]]) -> Any:
        raise self.error


async def test_a_failure_of_neo4j_itself_is_unavailable_and_says_to_restart(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A full disk: every write answered INTERNAL with a traceback each (122 in one run), and
    nothing told the operator Neo4j had to be restarted."""
    error = Neo4jError._hydrate_neo4j(
        code="Neo.DatabaseError.Transaction.TransactionStartFailed",
        message="The database has encountered a critical error, and needs to be restarted.",
    )
    db = Database(Fails(error), "neo4j")  # type: ignore[arg-type]
    with caplog.at_level(logging.WARNING, logger="beliefgraph"):
        for _ in range(5):
            with pytest.raises(Unavailable, match="could not run this"):
                await db.write("ping")
    assert all(r.exc_info is None for r in caplog.records)
    assert sum("must be restarted" in r.getMessage() for r in caplog.records) == 1


async def test_a_statement_that_fails_in_neo4j_is_not_taken_for_an_outage() -> None:
    """A failure of one statement says "try again shortly" to no purpose: it stays an error
    of ours (INTERNAL, with its traceback in the log)."""
    error = Neo4jError._hydrate_neo4j(
        code="Neo.DatabaseError.Statement.ExecutionFailed", message="scripted"
    )
    db = Database(Fails(error), "neo4j")  # type: ignore[arg-type]
    with pytest.raises(Neo4jError, match="scripted"):
        await db.write("ping")
