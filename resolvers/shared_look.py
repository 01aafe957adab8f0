"""One look at the store for all the streams of a process that poll the same kind of value.

Each dreamEvents or queueStatus stream used to query at its own pace: a hundred streams polling
every 0.2 s made 500 queries a second. Now one task per kind reads the value of every watched
key (a representation's dream count, a scope's queue status) in one query per tick, and each
stream reads the last value.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from typing import Generic, TypeVar

from graph.db import Database
from graph.errors import NotFound, Unavailable
from graph.keys import Representation
from graph.repo import queue_status

log = logging.getLogger(__name__)

# How often a shared look runs: the shortest interval a stream may ask for, so that no stream
# waits longer for its value than for its own poll.
TICK_SECONDS = 0.2
# Looks that may fail in a row before the streams end with the error: one failed look (a
# blip of a fifth of a second) would otherwise end every stream of the process at once.
FAILURES_TOLERATED = 10
WARN_EVERY = 50  # failed looks in a row between warnings (10 s at the tick)
GONE = -1  # the dream count of a view whose observer or observed peer no longer exists

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SharedLook(Generic[K, V]):
    """Reads the values of every watched key with `read` once per tick, while any is watched."""

    def __init__(
        self, read: Callable[[list[K]], Awaitable[dict[K, V]]], what: str, tick: float
    ) -> None:
        self._read = read
        self._what = what
        self._tick = tick
        self._watchers: Counter[K] = Counter()
        self._values: dict[K, tuple[float, V]] = {}  # key -> (when its read began, value)
        self._error: Exception | None = None
        self._failures = 0  # in a row
        self._failed_reads = 0  # in all
        self._task: asyncio.Task[None] | None = None

    @contextlib.asynccontextmanager
    async def watching(
        self, key: K, since: float | None = None
    ) -> AsyncIterator[Callable[[], V | None]]:
        """While open, `key`'s value is read at every tick; yields a function giving the last
        value read (None before the first, and for a read begun before `since`, a
        time.monotonic() the caller read the value itself after), which raises Unavailable
        once the look has failed more than FAILURES_TOLERATED times in a row."""
        self._watchers[key] += 1
        task = self._task
        if task is None or task.done() or task.get_loop() is not asyncio.get_running_loop():
            # A new look has not failed yet: the count of the last one (its streams ended on
            # it) ended every new stream at once, for good, after Neo4j came back.
            self._error, self._failures = None, 0
            self._task = asyncio.create_task(self._poll())
        # A stream ends on failures that go on after it began, not on those before it.
        joined = self._failed_reads
        try:
            yield lambda: self._latest(key, since, joined)
        finally:
            self._watchers[key] -= 1
            if self._watchers[key] <= 0:
                del self._watchers[key]
                self._values.pop(key, None)

    def _latest(self, key: K, since: float | None, joined: int) -> V | None:
        failing = self._error is not None and self._failures > FAILURES_TOLERATED
        if failing and self._failed_reads > joined:
            raise Unavailable(f"{self._what} could not be read: {self._error}")
        entry = self._values.get(key)
        if entry is None or (since is not None and entry[0] < since):
            return None
        return entry[1]

    async def _poll(self) -> None:
        while self._watchers:
            keys = list(self._watchers)
            began = time.monotonic()
            try:
                values = await self._read(keys)
            except Exception as exc:  # past FAILURES_TOLERATED in a row, the streams end
                # Once when a run of failures begins, then every WARN_EVERY looks: five a
                # second during an outage filled the log.
                if self._failures % WARN_EVERY == 0:
                    log.warning("reading %s failed: %s", self._what, exc)
                self._error = exc
                self._failures += 1
                self._failed_reads += 1
            else:
                if self._failures:
                    log.info("reading %s works again", self._what)
                self._error, self._failures = None, 0
                for key, value in values.items():
                    if key in self._watchers:
                        self._values[key] = (began, value)
            await asyncio.sleep(self._tick)


def dream_counts(db: Database, tick: float = TICK_SECONDS) -> SharedLook[Representation, int]:
    """The dream count of each watched representation (GONE once a peer of it is gone): a
    dreamEvents stream reads its runs only when its count has moved."""

    async def read(views: list[Representation]) -> dict[Representation, int]:
        rows = await db.read("count_dream_runs", views=[v.params() for v in views])
        return {
            Representation(r["workspace"], r["observer"], r["observed"]): (
                int(r["dream_runs"]) if r["present"] else GONE
            )
            for r in rows
        }

    return SharedLook(read, "the dream counts", tick)


QueueLook = SharedLook[queue_status.QueueScope, queue_status.QueueStatus | NotFound]


def queue_statuses(db: Database, tick: float = TICK_SECONDS) -> QueueLook:
    """The queue status of each watched scope (NotFound once it names what does not exist)."""

    async def read(
        scopes: list[queue_status.QueueScope],
    ) -> dict[queue_status.QueueScope, queue_status.QueueStatus | NotFound]:
        return await queue_status.statuses(db, scopes)

    return SharedLook(read, "the queue statuses", tick)
