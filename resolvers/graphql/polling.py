"""The pace of the subscriptions that poll the store (dreamEvents, queueStatus)."""

from __future__ import annotations

from typing import Annotated

import strawberry

MIN_INTERVAL = 0.2  # seconds: a socket's 100 subscriptions then poll 500 times a second at most
MAX_INTERVAL = 60.0  # seconds: a longer wait would leave the stream and its socket idle for good

Interval = Annotated[
    float,
    strawberry.argument(
        description=f"Seconds between two looks at the store, kept between {MIN_INTERVAL} "
        f"and {MAX_INTERVAL:.0f}."
    ),
]


def pause(requested: float) -> float:
    """Seconds to wait between polls: the requested interval, kept within the bounds."""
    return min(max(requested, MIN_INTERVAL), MAX_INTERVAL)
