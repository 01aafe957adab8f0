"""A request cancelled before it answered gets a coded 503 rather than uvicorn's plain 500.

At shutdown uvicorn gives requests SHUTDOWN_SECONDS (resolvers/serve.py) to finish, then cancels
the ones still running (one waiting on a Neo4j that hangs, say): each logged a traceback and its
client read "Internal Server Error". The cancellation reaches this outermost layer only when
the request's task itself was cancelled (the cancel scopes inside the app catch their own), so
it is answered UNAVAILABLE, to be sent again, and the task ends. A response already started is
cut off as before.
"""

from __future__ import annotations

import asyncio
import logging

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.errors import ErrorCode
from resolvers.refusals import is_rest, refusal

log = logging.getLogger("beliefgraph")
RETRY_SECONDS = 5


class AnswerCancelled:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except asyncio.CancelledError:
            if started:
                raise
            log.warning("%s %s was cancelled before it answered", scope["method"], scope["path"])
            # A GraphQL write is sent again safely with its clientId; REST writes have none.
            stored = "resend it with the same clientId" if not is_rest(scope) else "look first"
            answer = refusal(
                scope,
                503,
                ErrorCode.UNAVAILABLE,
                "the server stopped before this request finished; send it again shortly "
                f"(a write may have been stored: {stored})",
                {"Retry-After": str(RETRY_SECONDS), "Connection": "close"},
            )
            await answer(scope, receive, send)
