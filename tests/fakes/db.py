"""Databases that wrap a real one: writes that run twice (as a deadlock or lost race makes
them), reads counted, answers that arrive late."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from graph.db import Database, Tx
from graph.errors import RaceLost

T = TypeVar("T")


class Wrapping:
    """Delegates to a real Database whatever a subclass does not change."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def __getattr__(self, name: str) -> Any:
        return getattr(self._db, name)


class RerunsEveryWrite(Wrapping):
    """Each write transaction's first run is rolled back after its work finished (RaceLost,
    which write_tx answers by running the work again)."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.reruns = 0

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


class CountsReads(Wrapping):
    """Counts `read` calls by statement."""

    def __init__(self, db: Database) -> None:
        super().__init__(db)
        self.reads: Counter[str] = Counter()

    async def read(self, statement: str, /, **params: Any) -> Any:
        self.reads[statement] += 1
        return await self._db.read(statement, **params)  # type: ignore[arg-type]


class SlowAnswers(Wrapping):
    """A write transaction's answer arrives `delay` seconds after it committed (a slow
    network), as the caller sees it."""

    def __init__(self, db: Database, delay: float) -> None:
        super().__init__(db)
        self.delay = delay

    async def write_tx(self, work: Callable[[Tx], Awaitable[T]], **options: Any) -> T:
        result = await self._db.write_tx(work, **options)
        await asyncio.sleep(self.delay)
        return result


class BeforeFirstWrite(Wrapping):
    """Runs `change` once, just before the first write of `statement` (a concurrent writer
    that committed in between)."""

    def __init__(self, db: Database, statement: str, change: Callable[[], Awaitable[None]]):
        super().__init__(db)
        self.statement = statement
        self.change = change
        self.ran = False

    async def write(self, statement: str, /, **params: Any) -> Any:
        if statement == self.statement and not self.ran:
            self.ran = True
            await self.change()
        return await self._db.write(statement, **params)  # type: ignore[arg-type]
