"""Honcho v3 REST routes, so existing Honcho clients work against beliefgraph unchanged.

Each module adapts one resource to the same repositories and reasoners the GraphQL API calls;
`routes` mounts them all under /v3 on the app.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.routing import Route

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
from resolvers.rest.http import endpoint
from resolvers.services import Services

MODULES = (workspaces, peers, sessions, messages, chat, representation, conclusions, members, files)
PREFIX = "/v3"


def routes(services: Callable[[], Services]) -> list[Route]:
    """Every route, each calling `services()` per request (they exist once the app starts)."""
    return [
        Route(f"{PREFIX}{path}", endpoint(handler, services), methods=[method])
        for module in MODULES
        for method, path, handler in module.ROUTES
    ]
