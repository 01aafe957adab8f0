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
from resolvers.refusals import refusal


def host_name(header: str) -> str:
    """The name part of a Host header ("[::1]:8000" -> "::1", "Example.org:80" -> "example.org")."""
    value = header.strip().lower()
    if value.startswith("["):
        name, _, port = value[1:].partition("]")
        return name if not port or (port[0] == ":" and port[1:].isdigit()) else value
    if value.count(":") == 1:
        # "localhost:1@evil.com" is no port: the whole header is the name, and not allowed.
        name, port = value.split(":")
        return name if port.isdigit() or not port else value
    return value


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
        # Every Host header: with two, this check and the app could each read another one.
        hosts = [v for k, v in scope.get("headers") or [] if k == b"host"]
        raw = hosts[0].decode("latin-1") if len(hosts) == 1 else ""
        if len(hosts) == 1 and host_name(raw) in self.allowed:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": "host not allowed"})
            return
        if len(hosts) > 1:
            message = "a request names one host: it sent several Host headers"
        else:
            message = (
                f"this server does not answer to host {raw[:200]!r}: add it to "
                "BELIEFGRAPH_ALLOWED_HOSTS"
            )
        status, code = (
            (400, ErrorCode.INVALID_INPUT) if len(hosts) > 1 else (403, ErrorCode.FORBIDDEN)
        )
        # Closed after it: the request's body is not read, and its bytes must not be taken
        # for the next request on a kept-alive connection.
        response = refusal(scope, status, code, message, {"Connection": "close"})
        await response(scope, receive, send)
