"""A bounded number of requests doing one kind of heavy work at once, and a bounded number
waiting for a turn; past both, a request is refused at once (UNAVAILABLE, 503 over REST) rather
than queued without end. Each kind of work has its own (uploads and requests without a key in
Services, PDF readers per event loop)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from graph.errors import Unavailable


class Slots:
    def __init__(self, running: int, waiting: int, what: str) -> None:
        self.running, self.waiting, self.what = running, waiting, what
        self._free: asyncio.Semaphore | None = None  # made on first use, on the serving loop
        self._queued = 0

    @contextlib.asynccontextmanager
    async def take(self) -> AsyncIterator[None]:
        if self._free is None:
            self._free = asyncio.Semaphore(self.running)
        if self._free.locked() and self._queued >= self.waiting:
            raise Unavailable(
                f"{self.running} {self.what} are in progress and {self._queued} wait; "
                "send this one again shortly"
            )
        self._queued += 1
        try:
            await self._free.acquire()
        finally:
            self._queued -= 1
        try:
            yield
        finally:
            self._free.release()
