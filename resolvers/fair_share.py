"""Each key holder's share of the process: with auth on, the queries and mutations of one key
holder (the admin, a workspace, a peer or a session) run at most HOLDER_AT_ONCE at a time, and
those of all the keys of one workspace WORKSPACE_AT_ONCE, over GraphQL (HTTP and WebSocket) and
the REST routes alike; a few more wait their turn, and past that an operation is UNAVAILABLE at
once.

Operations hold Neo4j connections while they read, and the process has 50 (graph/db.py): one
peer key sending 100 operations on each of 2 sockets took them all, and every other client's
writes, the worker's claims and /health failed until it stopped. The shares bound that, not
below the pool: one operation may read several things at once (a `context` up to 7).
Subscriptions are not counted here: the dreamEvents and queueStatus streams share their polls
and take their holder's share themselves for their own reads (their first reads, and each page
of runs a dreamEvents stream reads once its count moved), waiting for it however many wait (the
socket limits bound them), and chatStream takes it until its first event (as a streamed REST
chat holds it until its answer starts), streaming the rest outside it. Shares apply only with
auth on: without keys, nothing tells clients apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager, nullcontext

from graphql import ExecutionResult, GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from graph.errors import BeliefgraphError, Unavailable
from reasoners.slots import SlotsByOwner
from resolvers.auth import Principal
from resolvers.services import Services

HOLDER_AT_ONCE = 8
HOLDER_WAITING = 256  # two sockets' worth of operations (100 a socket)
WORKSPACE_AT_ONCE = 24
WORKSPACE_WAITING = 1024


def share_for(
    services: Services, holder: Principal, *, may_refuse: bool = True
) -> AbstractAsyncContextManager[None]:
    """The holder's share with auth on; without keys, nothing to wait for."""
    if not services.settings.auth_enabled:
        return nullcontext()
    return share_of(services.shares, holder, may_refuse=may_refuse)


@asynccontextmanager
async def share_of(
    shares: SlotsByOwner, holder: Principal, *, may_refuse: bool = True
) -> AsyncIterator[None]:
    """Run in `holder`'s turn and its workspace's; Unavailable at once when too many wait,
    unless `may_refuse` is false (a stream's reads: their number is bounded by the sockets a
    key may hold and the operations of each, and a stream ended UNAVAILABLE because its key
    opened many at once)."""
    try:
        async with AsyncExitStack() as stack:
            # The holder's own turn first: waiting for it holds none of the workspace's.
            own = shares.of(holder, HOLDER_AT_ONCE, HOLDER_WAITING, "operations of a key")
            await stack.enter_async_context(own.take(may_refuse=may_refuse))
            if holder.workspace is not None:
                workspace = shares.of(
                    ("workspace", holder.workspace),
                    WORKSPACE_AT_ONCE,
                    WORKSPACE_WAITING,
                    "operations of a workspace's keys",
                )
                await stack.enter_async_context(workspace.take(may_refuse=may_refuse))
            yield
    finally:
        shares.prune()


class FairShare(SchemaExtension):
    """The GraphQL schema's hook (present with auth on only)."""

    async def on_execute(self) -> AsyncIterator[None]:
        context = self.execution_context.context
        operation = self.execution_context.operation_type
        try:
            holder = context.principal
        except BeliefgraphError:
            holder = None  # refused by the resolvers, with its code
        if holder is None or operation is OperationType.SUBSCRIPTION:
            yield
            return
        async with AsyncExitStack() as stack:
            try:
                await stack.enter_async_context(share_of(context.services.shares, holder))
            except Unavailable as exc:
                # A result set here is the answer, and the operation does not run (an error
                # raised instead would escape the extension that codes errors).
                error = GraphQLError(exc.message, original_error=exc)
                self.execution_context.result = ExecutionResult(data=None, errors=[error])
            yield
