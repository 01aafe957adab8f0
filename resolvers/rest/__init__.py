"""Honcho v3 REST routes, so existing Honcho clients work against beliefgraph unchanged.

Each module adapts one resource to the same repositories and reasoners the GraphQL API calls;
`routes` mounts them all under /v3 on the app.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route

from resolvers.rest import (
    chat,
    conclusions,
    files,
    members,
    messages,
    peers,
    representation,
    sessions,
    workspaces,
)
from resolvers.rest.http import detail, endpoint
from resolvers.services import Services

MODULES = (workspaces, peers, sessions, messages, chat, representation, conclusions, members, files)
PREFIX = "/v3"
# The methods HTTP defines, for the route that answers the rest: OPTIONS or TRACE on a /v3
# path fell through to the app's GraphQL-shaped 405 (as an unregistered method still does).
# Deleting a workspace again finishes a deletion cut short: the one route a workspace being
# deleted still answers.
DELETION = ("DELETE", "/workspaces/{workspace}")
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT")


def routes(services: Callable[[], Services]) -> list[Route]:
    """Every route, each calling `services()` per request (they exist once the app starts),
    then one that answers any other /v3 path or method the way the routes answer errors."""
    served = [
        Route(
            f"{PREFIX}{path}",
            endpoint(handler, services, finishes_deletion=(method, path) == DELETION),
            methods=[method],
        )
        for module in MODULES
        for method, path, handler in module.ROUTES
    ]

    async def unknown(request: Request) -> Response:
        if any(route.matches(request.scope)[0] is Match.PARTIAL for route in served):
            return detail(405, f"{request.method} is not allowed on {request.url.path}")
        return detail(404, f"no route {request.url.path}")

    return [*served, Route(f"{PREFIX}/{{rest:path}}", unknown, methods=list(METHODS))]
