"""A start-up that fails with the service's own error (Neo4j unreachable, a refused password,
an embedding size that disagrees) ends `serve` with that error's one line, as the CLI prints
any other, not with the traceback uvicorn logs for a failed lifespan."""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.errors import BeliefgraphError


class StartupErrors:
    """The app, with the error its start-up failed with kept in `error` (None: none, or not
    the service's own, whose traceback uvicorn logs as before)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.error: BeliefgraphError | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        held: list[Message] = []

        async def holding(message: Message) -> None:
            # Held until the error is known: its text is the traceback uvicorn would log.
            if message["type"] == "lifespan.startup.failed":
                held.append(message)
                return
            await send(message)

        try:
            await self.app(scope, receive, holding)
        except BeliefgraphError as exc:
            self.error = exc
            raise
        finally:
            for message in held:
                await send({**message, "message": ""} if self.error is not None else message)
