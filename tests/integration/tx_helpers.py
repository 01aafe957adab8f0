"""Two transactions in a chosen order: the first holds its locks while the second starts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from graph.db import Tx
from graph.props import NO_META
from resolvers.services import Services

T = TypeVar("T")


async def while_held(
    services: Services,
    first: Callable[[Tx], Awaitable[object]],
    second: Callable[[], Coroutine[Any, Any, T]],
) -> T:
    """Run `first` in a transaction, start `second` (which must wait for its locks), and commit
    the first a second later; returns what the second returned."""
    db = services.db
    async with db.driver.session(database=db.database) as session:
        tx = await session.begin_transaction()
        try:
            await first(Tx(tx))
            other = asyncio.create_task(second())
            await asyncio.sleep(1.0)
            assert not other.done(), "the second transaction waits for the first's lock"
            await tx.commit()
        finally:
            if not tx.closed():
                await tx.rollback()
    return await other


def closing(workspace: str, session: str) -> Callable[[Tx], Awaitable[object]]:
    """Work that closes the session (as REST's delete does), for `while_held`."""

    async def close(tx: Tx) -> None:
        await tx.rows(
            "update_session",
            workspace=workspace,
            name=session,
            **NO_META.updated(),
            active=False,
            context=None,
            set_context=False,
        )

    return close
