"""A Database whose write transactions each run twice, as a deadlock or lost race makes them."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from graph.db import Database, Tx
from graph.errors import RaceLost

T = TypeVar("T")


class RerunsEveryWrite:
    """Delegates to a real Database; each write transaction's first run is rolled back after
    its work finished (RaceLost, which write_tx answers by running the work again)."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self.reruns = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)

    async def write_tx(self, work: Callable[[Tx], Awaitable[T]], **options: Any) -> T:
        first = True

        async def twice(tx: Tx) -> T:
            nonlocal first
            result = await work(tx)
            if first:
                first = False
                self.reruns += 1
                raise RaceLost("rolled back by the test to run the work again")
            return result

        return await self._db.write_tx(twice, **options)
