"""A bounded number of requests doing one kind of heavy work at once, and a bounded number
waiting for a turn; past both, a request is refused at once (UNAVAILABLE, 503 over REST) rather
than queued without end. Each kind of work has its own (uploads and requests without a key in
Services, PDF readers per event loop)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable

from graph.errors import Unavailable


class Slots:
    def __init__(self, running: int, waiting: int, what: str) -> None:
        self.running, self.waiting, self.what = running, waiting, what
        self._free: asyncio.Semaphore | None = None  # made on first use, on the serving loop
        self._queued = 0  # waiting callers that may be refused
        self._patient = 0  # waiting callers that may not (not counted against `waiting`)
        self._running = 0

    @property
    def idle(self) -> bool:
        """Nothing runs or waits: the limiter may be dropped and made again."""
        return self._queued == 0 and self._patient == 0 and self._running == 0

    @contextlib.asynccontextmanager
    async def take(self, *, may_refuse: bool = True) -> AsyncIterator[None]:
        """A turn; with `may_refuse` false, waited for however many wait (for callers whose
        number is bounded elsewhere), and not counted among those `waiting` bounds: counted,
        they had every other caller refused."""
        if self._free is None:
            self._free = asyncio.Semaphore(self.running)
        if may_refuse and self._free.locked() and self._queued >= self.waiting:
            raise Unavailable(
                f"{self.running} {self.what} are in progress and {self._queued} wait; "
                "send this one again shortly"
            )
        if may_refuse:
            self._queued += 1
        else:
            self._patient += 1
        try:
            await self._free.acquire()
        finally:
            if may_refuse:
                self._queued -= 1
            else:
                self._patient -= 1
        self._running += 1
        try:
            yield
        finally:
            self._running -= 1
            self._free.release()


class SlotsByOwner:
    """One `Slots` per owner (a key holder, say), kept only while something runs or waits."""

    def __init__(self) -> None:
        self._slots: dict[Hashable, Slots] = {}

    def of(self, owner: Hashable, at_once: int, waiting: int, what: str) -> Slots:
        slots = self._slots.get(owner)
        if slots is None:
            slots = self._slots[owner] = Slots(at_once, waiting, what)
        return slots

    def prune(self) -> None:
        """Forget the limiters nothing uses, so the table holds only the busy ones."""
        for owner in [o for o, slots in self._slots.items() if slots.idle]:
            del self._slots[owner]

    def __len__(self) -> int:
        return len(self._slots)
