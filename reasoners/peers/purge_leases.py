"""A purge run under its record's lease (graph/repo/purges.py): renewed on a timer while the
purge runs, given up at once when it fails in its process, and the record finished (deleted,
with what the purge noted on it to do at the end) once the purge has erased everything. If the
process dies, the lease runs out and a worker finishes the purge."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import timedelta
from typing import TypeVar

from graph.db import Database
from graph.repo import purges

T = TypeVar("T")
log = logging.getLogger(__name__)


async def under_record(
    db: Database,
    held: purges.Held,
    lease: timedelta,
    run: Callable[[], Awaitable[T]],
    finish: Callable[[], Awaitable[None]],
    *,
    retry_in: timedelta | None = None,
) -> T:
    """`run` under its record, then `finish` (which deletes the record). A failure of either
    leaves the record and gives up its lease (a worker finishes the purge after `retry_in`, or
    purging again does; a cancellation, at shutdown say, is no failure of the purge: at the
    next look)."""
    try:
        async with _leased(db, held, lease):
            result = await run()
        await finish()
    except BaseException as failure:
        wait = None if isinstance(failure, asyncio.CancelledError) else retry_in
        try:
            await purges.release(db, held, retry_in=wait)
        except Exception as exc:  # Neo4j away: the lease runs out instead
            log.warning("could not release purge %s's lease: %s", held.id, exc)
        raise
    return result


@contextlib.asynccontextmanager
async def _leased(db: Database, held: purges.Held, lease: timedelta) -> AsyncIterator[None]:
    """Renew the record's lease every fifth of it while the purge runs, on a timer: a batch
    that waits long on locks must not let a worker take up the purge beside it."""

    every = max(lease.total_seconds() / 5, 0.5)
    clock = asyncio.get_running_loop()

    async def renew() -> None:
        due = clock.time() + every
        while True:
            await asyncio.sleep(max(0.0, due - clock.time()))
            try:
                # At most until the next renewal is due, which keeps its time: one stuck on a
                # slow Neo4j must not hold back the ones after it while the lease runs out.
                await asyncio.wait_for(purges.extend(db, held, lease), timeout=every)
            except Exception as exc:  # Neo4j briefly away: the next renewal tries again
                log.warning("could not renew purge %s's lease: %s", held.id, exc)
            due = max(due + every, clock.time())  # after a stall, one renewal, not a burst

    renewing = asyncio.create_task(renew())
    try:
        yield
    finally:
        renewing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await renewing
