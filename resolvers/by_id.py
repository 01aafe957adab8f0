"""What a key is told about a message or belief it looked up by id.

A key that may not see the thing is told that it does not exist, in the very words of an id
that does not: told FORBIDDEN, a narrow key learnt which ids exist beyond its reach, and whose.
A peer key sees, besides its own peer's, what is about a peer below its own (a sub-peer, or one
of theirs): its aggregated reads list those, so their ids open too.
"""

from __future__ import annotations

from collections.abc import Callable

from graph.db import Database
from graph.errors import Forbidden, NotFound
from graph.repo import members
from resolvers.auth import KeyScope, Principal


async def below_key_peer(principal: Principal, db: Database, workspace: str, peer: str) -> bool:
    """Whether `peer` is below the peer of `principal`, a peer key of `workspace`."""
    own = principal.peer
    if principal.scope is not KeyScope.PEER or principal.workspace != workspace or own is None:
        return False
    return peer != own and await members.is_below(db, workspace, peer, own)


async def read_by_id(
    principal: Principal,
    db: Database,
    workspace: str,
    *,
    check: Callable[[], object],
    missing: NotFound,
    about: str,
) -> None:
    """Let `principal` read a thing about peer `about` when the key check `check` passes, or
    when `about` is below the key's peer; else raise `missing`."""
    try:
        check()
    except Forbidden:
        if not await below_key_peer(principal, db, workspace, about):
            raise missing from None


async def change_by_id(
    principal: Principal,
    db: Database,
    workspace: str,
    *,
    check: Callable[[], object],
    missing: NotFound,
    about: str,
) -> None:
    """Let `principal` change a thing about peer `about` when `check` passes. Refused, a key
    that may read the thing (it is below the key's peer) is told FORBIDDEN; any other key is
    told `missing`."""
    try:
        check()
    except Forbidden:
        if await below_key_peer(principal, db, workspace, about):
            raise
        raise missing from None
