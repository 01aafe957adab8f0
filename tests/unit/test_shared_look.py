"""The looks that dreamEvents and queueStatus streams share: a blip ends no stream; a store that
stays away ends them all."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from graph.errors import Unavailable
from graph.keys import Representation
from resolvers.shared_look import FAILURES_TOLERATED, dream_counts

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


async def test_a_store_that_stays_away_ends_the_streams() -> None:
    db: Any = FlakyCounts(fail=1_000)
    async with dream_counts(db, tick=0.01).watching(VIEW) as latest:
        while db.calls <= FAILURES_TOLERATED:
            assert latest() is None
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)
        with pytest.raises(Unavailable, match="Neo4j is away"):
            latest()
