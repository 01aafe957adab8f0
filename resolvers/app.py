"""The Starlette application: GraphQL (with GraphiQL and subscriptions) and a plain /health."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL

from graph.settings import Settings
from resolvers.graphql.context import Context
from resolvers.graphql.queries import version
from resolvers.graphql.schema import build_schema
from resolvers.runtime import build_worker
from resolvers.services import Services


class BeliefgraphGraphQL(GraphQL[Context, None]):
    def __init__(self, services: Services) -> None:
        super().__init__(build_schema(services.settings), graphql_ide="graphiql")
        self.services = services

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        return Context(services=self.services, authorization=request.headers.get("authorization"))


class BodyLimit:
    """Refuses request bodies over the limit before anything reads them."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and int(length) > self.max_bytes:
            response = JSONResponse(
                {
                    "errors": [
                        {
                            "message": f"request body over {self.max_bytes} bytes",
                            "extensions": {"code": "LIMIT_EXCEEDED", "limit": "body"},
                        }
                    ]
                },
                status_code=413,
            )
            await response(scope, receive, send)
            return
        received = 0

        async def limited_receive() -> Any:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > self.max_bytes:
                raise ValueError("request body over the limit")
            return message

        await self.app(scope, limited_receive, send)


class _LazyGraphQL:
    """ASGI shim: the GraphQL app exists only once the services are open (at lifespan start)."""

    def __init__(self) -> None:
        self.app: BeliefgraphGraphQL | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.app is not None, "services not open yet"
        await self.app(scope, receive, send)


def create_app(
    settings: Settings,
    services: Services | None = None,
    *,
    open_services: Callable[[], Awaitable[Services]] | None = None,
    close_services: Callable[[Services], Awaitable[None]] | None = None,
    run_worker: bool = False,
) -> ASGIApp:
    """An app over given services, or one that opens them at start-up and closes them after.

    With `run_worker`, a background worker runs in the same process for the app's lifetime
    and is stopped gracefully (finishing or handing back its jobs) at shutdown.
    """
    state: dict[str, Services] = {}
    graphql = _LazyGraphQL()
    if services is not None:
        state["services"] = services
        graphql.app = BeliefgraphGraphQL(services)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if "services" not in state:
            assert open_services is not None
            state["services"] = await open_services()
            graphql.app = BeliefgraphGraphQL(state["services"])
        stop = asyncio.Event()
        worker_task = None
        if run_worker:
            worker_task = asyncio.create_task(build_worker(state["services"]).run(stop))
        try:
            yield
        finally:
            stop.set()
            if worker_task is not None:
                await worker_task
            if close_services is not None:
                await close_services(state["services"])

    async def health(_: Request) -> Response:
        ok = await state["services"].db.ping()
        return JSONResponse(
            {"ok": ok, "neo4j": ok, "version": version()}, status_code=200 if ok else 503
        )

    app = Starlette(
        routes=[
            Route("/health", health),
            Route("/graphql", graphql, methods=["GET", "POST"]),
            WebSocketRoute("/graphql", graphql),
        ],
        lifespan=lifespan,
    )
    return BodyLimit(app, settings.max_request_bytes)
