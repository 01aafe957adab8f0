"""One look at the store for all the dreamEvents streams of a process.

Each stream used to query its runs at its own pace: a hundred streams polling every 0.2 s made
500 queries a second. Now one task reads the dream count of every watched representation in
one query per tick, and a stream reads its runs only when its count has moved.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import AsyncIterator, Callable

from graph.db import Database
from graph.errors import Unavailable
from graph.keys import Representation

log = logging.getLogger(__name__)

# How often the shared look runs: the shortest interval a stream may ask for, so that no
# stream waits longer for its count than for its own poll.
TICK_SECONDS = 0.2
# Looks that may fail in a row before the streams end with the error: one failed look (a
# blip of a fifth of a second) would otherwise end every stream of the process at once.
FAILURES_TOLERATED = 10
GONE = -1  # the count of a view whose observer or observed peer no longer exists


class DreamWatch:
    def __init__(self, db: Database, tick: float = TICK_SECONDS) -> None:
        self._db = db
        self._tick = tick
        self._watchers: Counter[Representation] = Counter()
        self._counts: dict[Representation, int] = {}
        self._error: Exception | None = None
        self._failures = 0
        self._task: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def watching(self, view: Representation) -> AsyncIterator[Callable[[], int | None]]:
        """While open, `view`'s dream count is read at every tick; yields a function giving the
        last count read (None before the first, GONE once a peer of the view is gone), which
        raises Unavailable once the look has failed more than FAILURES_TOLERATED times in a row."""
        self._watchers[view] += 1
        task = self._task
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            self._task = asyncio.create_task(self._poll())
        try:
            yield lambda: self._latest(view)
        finally:
            self._watchers[view] -= 1
            if self._watchers[view] <= 0:
                del self._watchers[view]
                self._counts.pop(view, None)

    def _latest(self, view: Representation) -> int | None:
        if self._error is not None and self._failures > FAILURES_TOLERATED:
            raise Unavailable(f"the dream counts could not be read: {self._error}")
        return self._counts.get(view)

    async def _poll(self) -> None:
        while self._watchers:
            views = list(self._watchers)
            try:
                rows = await self._db.read("count_dream_runs", views=[v.params() for v in views])
            except Exception as exc:  # past FAILURES_TOLERATED in a row, the streams end
                log.warning("reading dream counts failed: %s", exc)
                self._error = exc
                self._failures += 1
            else:
                self._error, self._failures = None, 0
                for row in rows:
                    view = Representation(row["workspace"], row["observer"], row["observed"])
                    if view in self._watchers:
                        self._counts[view] = int(row["dream_runs"]) if row["present"] else GONE
            await asyncio.sleep(self._tick)
