"""Each key holder's share of the process: with auth on, the queries and mutations of one key
holder (the admin, a workspace, a peer or a session) run at most HOLDER_AT_ONCE at a time, and
those of all the keys of one workspace WORKSPACE_AT_ONCE, over HTTP and WebSocket alike; a few
more wait their turn, and past that an operation is UNAVAILABLE at once.

Operations hold Neo4j connections while they read, and the process has 50 (graph/db.py): one
peer key sending 100 operations on each of 2 sockets took them all, and every other client's
writes, the worker's claims and /health failed until it stopped. The shares bound that, not
below the pool: one operation may read several things at once (a `context` up to 7).
Subscriptions are not counted: the dreamEvents and queueStatus streams share their polls, and
chatStream runs in its stream, past this hook. The schema has this extension only with auth on:
without keys, nothing tells clients apart.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

from graphql import ExecutionResult, GraphQLError
from strawberry.extensions import SchemaExtension
from strawberry.types.graphql import OperationType

from graph.errors import BeliefgraphError, Unavailable

HOLDER_AT_ONCE = 8
HOLDER_WAITING = 256  # two sockets' worth of operations (100 a socket)
WORKSPACE_AT_ONCE = 24
WORKSPACE_WAITING = 1024


class FairShare(SchemaExtension):
    async def on_execute(self) -> AsyncIterator[None]:
        context = self.execution_context.context
        services = context.services
        operation = self.execution_context.operation_type
        try:
            holder = context.principal
        except BeliefgraphError:
            holder = None  # refused by the resolvers, with its code
        if holder is None or operation is OperationType.SUBSCRIPTION:
            yield
            return
        shares = services.shares
        try:
            async with AsyncExitStack() as stack:
                try:
                    # The holder's own turn first: waiting for it holds none of the workspace's.
                    own = shares.of(holder, HOLDER_AT_ONCE, HOLDER_WAITING, "operations of a key")
                    await stack.enter_async_context(own.take())
                    if holder.workspace is not None:
                        workspace = shares.of(
                            ("workspace", holder.workspace),
                            WORKSPACE_AT_ONCE,
                            WORKSPACE_WAITING,
                            "operations of a workspace's keys",
                        )
                        await stack.enter_async_context(workspace.take())
                except Unavailable as exc:
                    # A result set here is the answer, and the operation does not run (an
                    # error raised instead would escape the extension that codes errors).
                    error = GraphQLError(exc.message, original_error=exc)
                    self.execution_context.result = ExecutionResult(data=None, errors=[error])
                yield
        finally:
            shares.prune()
