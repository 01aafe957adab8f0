"""Runs catalog statements on the async driver.

Every call names a statement from `cypher/` and passes its parameters by keyword; the runner
checks that the keywords are exactly the statement's `$params`, so a caller and its statement
cannot drift apart silently (a missing parameter would otherwise become null).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from neo4j import AsyncDriver, AsyncGraphDatabase, AsyncManagedTransaction
from neo4j.exceptions import ConstraintError, Neo4jError, ServiceUnavailable, SessionExpired

import cypher
from cypher.statements import Statement
from graph.errors import Conflict, Unavailable
from graph.settings import Settings

T = TypeVar("T")
Row = dict[str, Any]


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

    def __init__(self, tx: AsyncManagedTransaction) -> None:
        self._tx = tx

    async def rows(self, statement: Statement, /, **params: Any) -> list[Row]:
        check_params(statement, params)
        result = await self._tx.run(cypher.statement(statement), params)
        return [record.data() for record in await result.fetch(1_000_000)]

    async def one(self, statement: Statement, /, **params: Any) -> Row | None:
        rows = await self.rows(statement, **params)
        return rows[0] if rows else None


class Database:
    def __init__(self, driver: AsyncDriver, database: str) -> None:
        self.driver = driver
        self.database = database

    @classmethod
    def connect(cls, settings: Settings, password: str) -> Database:
        driver = AsyncGraphDatabase.driver(
            settings.bolt_uri,
            auth=(settings.neo4j_user, password),
            max_connection_pool_size=50,
            # Our statements legitimately read properties that may not exist yet (left_at,
            # deleted_at...); the server's notifications about them are noise in the logs.
            notifications_min_severity="OFF",
        )
        return cls(driver, settings.neo4j_database)

    async def close(self) -> None:
        await self.driver.close()

    async def read(self, statement: Statement, /, **params: Any) -> list[Row]:
        return await self.read_tx(lambda tx: tx.rows(statement, **params))

    async def read_one(self, statement: Statement, /, **params: Any) -> Row | None:
        rows = await self.read(statement, **params)
        return rows[0] if rows else None

    async def write(self, statement: Statement, /, **params: Any) -> list[Row]:
        return await self.write_tx(lambda tx: tx.rows(statement, **params))

    async def write_one(self, statement: Statement, /, **params: Any) -> Row | None:
        rows = await self.write(statement, **params)
        return rows[0] if rows else None

    async def read_tx(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        async with self.driver.session(database=self.database) as session:
            try:
                return await session.execute_read(lambda tx: work(Tx(tx)))
            except (ServiceUnavailable, SessionExpired) as exc:
                raise Unavailable(f"Neo4j is unavailable: {exc}") from exc

    async def write_tx(self, work: Callable[[Tx], Awaitable[T]], *, retries: int = 3) -> T:
        """Run `work` in one write transaction.

        Two concurrent MERGEs of one unique key can both miss and one then fails its
        constraint; running the work again makes it MERGE onto the winner's node.
        """
        for attempt in range(retries + 1):
            async with self.driver.session(database=self.database) as session:
                try:
                    return await session.execute_write(lambda tx: work(Tx(tx)))
                except ConstraintError as exc:
                    if attempt == retries:
                        raise Conflict(f"conflicting write: {exc.message}") from exc
                    await asyncio.sleep(0.01 * (attempt + 1))
                except (ServiceUnavailable, SessionExpired) as exc:
                    raise Unavailable(f"Neo4j is unavailable: {exc}") from exc
        raise AssertionError("unreachable")

    async def ping(self) -> bool:
        try:
            row = await self.read_one("ping")
        except (Unavailable, Neo4jError, OSError):
            return False
        return row is not None and row["ok"] == 1
