"""The pace of the subscriptions that poll the store (dreamEvents, queueStatus)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Annotated

import strawberry

MIN_INTERVAL = 0.2  # seconds: a socket's 100 subscriptions then poll 500 times a second at most
MAX_INTERVAL = 60.0  # seconds: a longer wait would leave the stream and its socket idle for good

Interval = Annotated[
    float,
    strawberry.argument(
        description="Seconds between two reports: how often the stream checks for news, "
        f"kept between {MIN_INTERVAL} and {MAX_INTERVAL:.0f}. What it checks is read from the "
        "store by one look all such streams of the server share, every 0.2 seconds (a "
        "dreamEvents stream reads its new runs itself once their count has moved)."
    ),
]


def pause(requested: float) -> float:
    """Seconds to wait between polls: the requested interval, kept within the bounds."""
    return min(max(requested, MIN_INTERVAL), MAX_INTERVAL)


async def wait(requested: float, done: Callable[[], bool]) -> None:
    """Wait out the interval between polls (`pause`), ending early once `done()` says so: a
    stream whose peer went ends within a look of the shared watcher, not a minute later."""
    deadline = time.monotonic() + pause(requested)
    while not done():
        left = deadline - time.monotonic()
        if left <= 0:
            return
        await asyncio.sleep(min(left, MIN_INTERVAL))
