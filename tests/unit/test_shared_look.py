"""The looks that dreamEvents and queueStatus streams share: a blip ends no stream; a store that
stays away ends them all."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from graph.errors import Unavailable
from graph.keys import Representation
from resolvers.shared_look import FAILURES_TOLERATED, WARN_EVERY, SharedLook, dream_counts

VIEW = Representation("w", "agent", "alice")


class FlakyCounts:
    """Fails its first `fail` reads, then counts 4 dreams for every view."""

    def __init__(self, fail: int) -> None:
        self.fail = fail
        self.calls = 0

    async def read(self, statement: str, /, **params: Any) -> list[dict[str, Any]]:
        self.calls += 1
        if self.calls <= self.fail:
            raise Unavailable("Neo4j is away")
        return [{**view, "present": True, "dream_runs": 4} for view in params["views"]]


async def test_a_few_failed_looks_end_no_stream() -> None:
    """One failed look (a fifth of a second) ended every stream of the process."""
    db: Any = FlakyCounts(fail=3)
    async with dream_counts(db, tick=0.01).watching(VIEW) as latest:
        for _ in range(50):
            if latest() == 4:
                break
            await asyncio.sleep(0.01)
        assert latest() == 4


async def test_a_store_that_stays_away_ends_the_streams(caplog: pytest.LogCaptureFixture) -> None:
    db: Any = FlakyCounts(fail=1_000)
    async with dream_counts(db, tick=0.01).watching(VIEW) as latest:
        while db.calls <= FAILURES_TOLERATED:
            assert latest() is None
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        with pytest.raises(Unavailable, match="Neo4j is away"):
            latest()
    # A warning when the failures began, not one a look (five a second filled the log).
    warned = [r for r in caplog.records if "reading the dream counts failed" in r.message]
    assert len(warned) == 1 + (db.calls - 1) // WARN_EVERY < db.calls


async def test_a_stream_begun_after_the_store_came_back_gets_its_values() -> None:
    """The streams ended on a store that stayed away; once it was back, every new stream ended
    at once with the old error, for good: the look it started kept the old failure count and,
    the stream gone, never read again."""
    db: Any = FlakyCounts(fail=1_000)
    look = dream_counts(db, tick=0.01)
    async with look.watching(VIEW) as latest:
        while db.calls <= FAILURES_TOLERATED:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        with pytest.raises(Unavailable):
            latest()
    await asyncio.sleep(0.05)  # the look stops with its last stream
    db.fail = 0  # the store is back
    async with look.watching(VIEW) as latest:
        assert latest() is None
        for _ in range(100):
            if latest() == 4:
                break
            await asyncio.sleep(0.01)
        assert latest() == 4


async def test_a_stream_never_gets_a_value_read_before_its_own() -> None:
    """A stream read its first status itself, then took the look's: one whose read had begun
    earlier (another stream's tick) could say 'idle' after the stream had seen a pending job."""
    gates = [asyncio.Event(), asyncio.Event()]
    reads = 0

    async def read(keys: list[str]) -> dict[str, int]:
        nonlocal reads
        reads += 1
        if reads <= len(gates):
            await gates[reads - 1].wait()
        return dict.fromkeys(keys, reads)

    async def until(value: Callable[[], int | None], wanted: int) -> None:
        for _ in range(500):
            if value() == wanted:
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"never {wanted}: {value()}")

    look: SharedLook[str, int] = SharedLook(read, "numbers", tick=0.01)
    async with look.watching("k") as early:
        await asyncio.sleep(0.05)  # the first look is under way
        async with look.watching("k", time.monotonic()) as late:
            gates[0].set()
            await until(early, 1)
            assert late() is None  # read 1 began before the stream's own
            gates[1].set()
            await until(late, 2)
