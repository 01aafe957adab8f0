"""Turns at a kind of work: callers that may not be refused wait without crowding out others."""

from __future__ import annotations

import asyncio

import pytest

from graph.errors import Unavailable
from reasoners.slots import Slots

pytestmark = pytest.mark.unit


async def test_patient_waiters_do_not_fill_the_queue_of_those_that_may_be_refused() -> None:
    """A key's 330 stream reads waiting had every one of its queries refused (the review)."""
    slots, release = Slots(2, 3, "operations"), asyncio.Event()

    async def hold(may_refuse: bool) -> None:
        async with slots.take(may_refuse=may_refuse):
            await release.wait()

    running = [asyncio.ensure_future(hold(True)) for _ in range(2)]
    patient = [asyncio.ensure_future(hold(False)) for _ in range(10)]
    queued = [asyncio.ensure_future(hold(True)) for _ in range(3)]
    await asyncio.sleep(0.05)
    with pytest.raises(Unavailable, match="2 operations are in progress and 3 wait"):
        async with slots.take():
            pass
    assert not slots.idle
    release.set()
    await asyncio.gather(*running, *patient, *queued)
    assert slots.idle
