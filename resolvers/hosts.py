"""Which host names the API answers to (defence against DNS rebinding).

A web page on an attacker's name that resolves to 127.0.0.1 reaches a loopback API with that
name in its Host header (and as its Origin, so same-origin checks pass). While auth is off on
loopback, such a page could act as admin; answering only to allowed names stops it. The names
come from BELIEFGRAPH_ALLOWED_HOSTS (graph/settings.py `host_names`; None means any).
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from graph.errors import ErrorCode
from resolvers.graphql.http import error_response


def host_name(header: str) -> str:
    """The name part of a Host header ("[::1]:8000" -> "::1", "Example.org:80" -> "example.org")."""
    value = header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def origin_allowed(origin: str, allowed: Collection[str] | None) -> bool:
    if allowed is None:
        return True
    try:
        name = urlsplit(origin).hostname
    except ValueError:
        return False
    return name is not None and name.lower() in allowed


class HostAllowList:
    def __init__(self, app: ASGIApp, allowed: Collection[str] | None) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allowed is None:
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        raw = headers.get(b"host", b"").decode("latin-1")
        if host_name(raw) in self.allowed:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "host not allowed"})
            return
        response = error_response(
            403,
            ErrorCode.FORBIDDEN,
            f"this server does not answer to host {raw!r}: add it to BELIEFGRAPH_ALLOWED_HOSTS",
        )
        await response(scope, receive, send)
