"""The Starlette application: GraphQL over HTTP and WebSocket, GraphiQL, the Neo4j Browser
guide, the Honcho v3 REST routes (resolvers/rest/) and a plain /health.

Around every request, outermost first: the Host allow-list (a page served from another name
that resolves here, as in DNS rebinding, is refused), then the body limit (resolvers/body_limit.py:
much lower for a request without a valid key). Every answer the
app gives to a malformed request carries an error code, whatever the route.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

from neo4j.exceptions import Neo4jError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.types import ASGIApp, Receive, Scope, Send

from graph.errors import BeliefgraphError, ErrorCode, Unauthenticated
from graph.settings import Settings
from reasoners.search.warmup import Neo4jWarmup, warm_up
from resolvers.auth import principal_from_header
from resolvers.body_limit import BodyLimit
from resolvers.cancelled import AnswerCancelled
from resolvers.cross_site import CrossSiteRefusal
from resolvers.graphql.http import GraphQLHTTP, error_response
from resolvers.graphql.queries import version
from resolvers.graphql.schema import build_schema
from resolvers.graphql.websocket import GraphQLWebSocket
from resolvers.hosts import HostAllowList
from resolvers.rest import routes as rest_routes
from resolvers.runtime import build_worker
from resolvers.services import Services
from resolvers.web.pages import WebPages

log = logging.getLogger(__name__)

HEALTH_TIMEOUT = 1.0  # seconds: /health answers within about this, Neo4j up or not


class _Lazy:
    """ASGI shim for what exists only once the services are open (at lifespan start)."""

    def __init__(self) -> None:
        self.app: ASGIApp | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert self.app is not None, "services not open yet"
        await self.app(scope, receive, send)


def _coded(status: int, code: ErrorCode, message: str) -> Callable[..., Awaitable[Response]]:
    async def handler(request: Request, exc: Exception) -> Response:
        headers = getattr(exc, "headers", None)
        text = exc.detail if isinstance(exc, HTTPException) and status != 500 else message
        return error_response(status, code, str(text), headers=headers)

    return handler


def _count(read: int | None) -> str:
    return "no" if read is None else f"{read:,}"


async def _warm_up(state: dict[str, Any]) -> None:
    """The start-up warm-up, logged; it never stops the app: a failure only ends it early."""
    services: Services = state["services"]
    try:
        report = await warm_up(
            Neo4jWarmup(services.db),
            services.settings.embedding_dim,
            services.settings.warmup_seconds,
        )
        m, o = report.messages, report.observations
        log.info(
            "search warm-up: %d message searches (%d with a stored message's vector), %s "
            "messages read; %d belief searches (%d with a stored belief's vector), %s beliefs "
            "read; %.1f s%s",
            m.searches,
            m.drawn,
            _count(m.read),
            o.searches,
            o.drawn,
            _count(o.read),
            report.seconds,
            "" if report.complete else " (budget spent first)",
        )
    except (BeliefgraphError, Neo4jError, OSError) as exc:
        log.warning("search warm-up stopped early: %s", exc)
    finally:
        state["warming"] = False


def create_app(
    settings: Settings,
    services: Services | None = None,
    *,
    open_services: Callable[[], Awaitable[Services]] | None = None,
    close_services: Callable[[Services], Awaitable[None]] | None = None,
    run_worker: bool = False,
    warm_up: bool = False,
) -> ASGIApp:
    """An app over given services, or one that opens them at start-up and closes them after.

    With `run_worker`, a background worker runs in the same process for the app's lifetime
    and is stopped gracefully (finishing or handing back its jobs) at shutdown. With `warm_up`,
    Neo4j is warmed for search in the background after start (reasoners/search/warmup.py) for
    up to `warmup_seconds`; /health says `warming` meanwhile.
    """
    state: dict[str, Any] = {}
    websocket = _Lazy()
    pages = WebPages(settings.home_path)

    def install(opened: Services) -> None:
        state["services"] = opened
        state["http"] = GraphQLHTTP(build_schema(settings), opened, pages.graphiql)
        websocket.app = GraphQLWebSocket(opened)

    if services is not None:
        install(services)

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        if "services" not in state:
            assert open_services is not None
            install(await open_services())
        stop = asyncio.Event()
        worker_task = None
        if run_worker:
            worker_task = asyncio.create_task(build_worker(state["services"]).run(stop))
        warm_task = None
        if warm_up and settings.warmup_seconds > 0:
            state["warming"] = True
            warm_task = asyncio.create_task(_warm_up(state))
        try:
            yield
        finally:
            stop.set()
            if warm_task is not None:
                warm_task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await warm_task
            if worker_task is not None:
                await worker_task
            if close_services is not None:
                await close_services(state["services"])

    async def health(_: Request) -> Response:
        ok = await state["services"].db.ping(HEALTH_TIMEOUT)
        body = {"ok": ok, "neo4j": ok, "warming": state.get("warming", False), "version": version()}
        return JSONResponse(body, status_code=200 if ok else 503)

    async def graphql(request: Request) -> Response:
        handler: GraphQLHTTP = state["http"]
        return await handler.handle(request)

    app = Starlette(
        routes=[
            Route("/health", health),
            Route("/graphql", graphql, methods=["GET", "POST", "PUT", "PATCH", "DELETE"]),
            WebSocketRoute("/graphql", websocket),
            Route("/graphiql/static/{name}", pages.static),
            Route("/browser/guide.html", pages.guide, methods=["GET", "OPTIONS"]),
            Route("/browser/style.grass", pages.style, methods=["GET", "OPTIONS"]),
            *rest_routes(lambda: state["services"]),  # Honcho v3 REST, for Honcho clients
        ],
        lifespan=lifespan,
        exception_handlers={
            404: _coded(404, ErrorCode.NOT_FOUND, "no such path"),
            405: _coded(405, ErrorCode.INVALID_INPUT, "method not allowed"),
            500: _coded(500, ErrorCode.INTERNAL, "internal error; the server log has details"),
        },
    )

    def key_problem(header: str | None) -> str | None:
        try:
            principal_from_header(header, enabled=True, secret=settings.auth_secret)
        except Unauthenticated as refused:
            return refused.message
        return None

    limited = BodyLimit(
        app, settings.max_request_bytes, key_problem if settings.auth_enabled else None
    )
    guarded = limited if settings.auth_enabled else CrossSiteRefusal(limited, settings.host_names)
    return AnswerCancelled(HostAllowList(guarded, settings.host_names))
