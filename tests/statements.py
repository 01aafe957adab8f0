"""Statements only tests and benches use (tests/cypher/), run like the shipped ones.

They live outside the shipped catalog so production code cannot call them; the runner checks
each call's parameters against the statement's `$params` as graph/db.py does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from neo4j import AsyncManagedTransaction, AsyncTransaction, Session

from cypher import Catalog
from graph.db import Database, ParameterMismatch

CATALOG = Catalog(Path(__file__).resolve().parent / "cypher")
Row = dict[str, Any]


def checked(name: str, params: dict[str, Any]) -> str:
    expected = CATALOG.parameters(name)
    if frozenset(params) != expected:
        raise ParameterMismatch(
            f"tests/cypher/{name}.cypher expects {sorted(expected)}; got {sorted(params)}"
        )
    return CATALOG.statement(name)


async def _run(
    tx: AsyncManagedTransaction | AsyncTransaction, text: str, params: dict[str, Any]
) -> list[Row]:
    result = await tx.run(text, params)
    return [record.data() for record in await result.fetch(1_000_000)]


async def read(db: Database, name: str, /, **params: Any) -> list[Row]:
    text = checked(name, params)
    async with db.driver.session(database=db.database) as session:
        return await session.execute_read(_run, text, params)


async def read_one(db: Database, name: str, /, **params: Any) -> Row | None:
    rows = await read(db, name, **params)
    return rows[0] if rows else None


async def write(db: Database, name: str, /, **params: Any) -> list[Row]:
    text = checked(name, params)
    async with db.driver.session(database=db.database) as session:
        return await session.execute_write(_run, text, params)


async def rows(tx: AsyncTransaction, name: str, /, **params: Any) -> list[Row]:
    """Run a statement in a transaction the test holds open (to stand for a concurrent one)."""
    return await _run(tx, checked(name, params), params)


def autocommit(session: Session, name: str, /, **params: Any) -> None:
    """Run a statement in its own implicit transaction, as `CALL ... IN TRANSACTIONS` needs;
    synchronous, for session fixtures."""
    session.run(checked(name, params), params).consume()
