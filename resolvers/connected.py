"""Work done only while its client is there: what a client that has left would get is of use
to nobody, and holds a place (a PDF reader, a share of the database, a language model's
tokens) others wait for."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable
from typing import TypeVar

from starlette.requests import Request

from graph.errors import Unavailable

T = TypeVar("T")

# How often a request doing long work checks that its client is still there.
DISCONNECT_POLL_SECONDS = 0.5


async def while_connected(request: Request, work: Awaitable[T], when: str) -> T:
    """`work`, stopped (Unavailable) when the client disconnects meanwhile: a PDF reader (or a
    place in its queue) held for a client that has left only makes others wait, and a message
    batch stored for a client that gave up is stored again when it retries."""
    task = asyncio.ensure_future(work)
    try:
        while not task.done():
            await asyncio.wait({task}, timeout=DISCONNECT_POLL_SECONDS)
            if not task.done() and await request.is_disconnected():
                raise Unavailable(f"the client left {when}")
        return task.result()
    finally:
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
