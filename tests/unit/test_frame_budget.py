"""A socket's frame budget: a burst at once, then a steady rate."""

from __future__ import annotations

import pytest

from resolvers.graphql.websocket import FRAME_BURST, FRAMES_PER_SECOND, FrameBudget

pytestmark = pytest.mark.unit


def test_a_burst_then_the_rate() -> None:
    budget = FrameBudget()
    assert all(budget.take(10.0) for _ in range(FRAME_BURST))
    assert not budget.take(10.0)
    # A second later, a second's worth is back, and no more than the burst ever is.
    assert sum(budget.take(11.0) for _ in range(FRAME_BURST)) == FRAMES_PER_SECOND
    assert sum(budget.take(1_000.0) for _ in range(FRAME_BURST * 2)) == FRAME_BURST
