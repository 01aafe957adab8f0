"""The worker's CPU-bound pure steps run on threads of their own, off the event loop: `serve`
runs the worker in its process, and on the loop the zero-key dreamer's plan of a large view
and the deriver's checks of a long batch's facts stalled every request for seconds (/health
took up to 7 s). A thread still shares the GIL, but the loop gets it back every few
milliseconds instead of once the step is done."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol, TypeVar

T = TypeVar("T")

# Not the default pool: embedding calls hold its threads while they wait for the model.
_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="offload")


class Offload(Protocol):
    """Runs `work` (pure: it touches no event-loop state) and returns what it returned."""

    async def __call__(self, work: Callable[[], T]) -> T: ...


async def off_loop(work: Callable[[], T]) -> T:
    return await asyncio.get_running_loop().run_in_executor(_THREADS, work)
