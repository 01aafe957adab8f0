"""Refusal of cross-site requests while auth is off (defence against request forgery).

The API sends no CORS headers, so a page in a browser uses it from its own origin only
(GraphiQL), except for "simple" requests (a form post, a text/plain or multipart body, an image
or a link), which a browser sends to any site without asking first. With auth off, any page
the user opened could so post messages into the memory, create workspaces, or spend LLM tokens
through a GraphQL query in a link. So a request is refused, 403 `FORBIDDEN`, when the browser
says it comes from another site (`Sec-Fetch-Site: cross-site` or `same-site`: another port of
the same host is another origin) or, from a browser that does not send that header, when its
`Origin` names a host other than the one the request asks for and not on the allow-list
(graph/settings.py `host_names`). A link followed to a page (a navigation) still opens
GraphiQL or a REST read, but not a GraphQL query. Neo4j Browser, on its own port, still reads
the guide and style under /browser/. Clients that are not browsers send neither header. With
auth on, a request needs a key, which no other site's page has: nothing is refused here.
"""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import parse_qs, urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from graph.errors import ErrorCode
from graph.settings import LOOPBACK_NAMES
from resolvers.hosts import host_name
from resolvers.refusals import refusal

OTHER_SITES = frozenset({"cross-site", "same-site"})
# Neo4j Browser, on another port, fetches its guide and style; /health is a cheap read.
OPEN_PATHS = ("/browser/", "/health")


def cross_site(headers: dict[bytes, bytes], allowed: Collection[str] | None) -> str | None:
    """Why a request with these headers comes from another site; None if it does not."""
    fetch_site = headers.get(b"sec-fetch-site", b"").decode("latin-1").strip().lower()
    if fetch_site:
        return (
            f"the browser sent it from another site ({fetch_site})"
            if fetch_site in OTHER_SITES
            else None
        )
    if b"origin" not in headers:
        return None
    origin = headers[b"origin"].decode("latin-1").strip()
    try:
        parts = urlsplit(origin)
        name, port = parts.hostname, parts.port
    except ValueError:
        return f"its Origin {origin[:200]!r} cannot be read"
    if name is None:  # "null": a sandboxed frame, a file, a redirect
        return f"its Origin {origin[:200]!r} names no site"
    asked = headers.get(b"host", b"").decode("latin-1")
    default = {"http": 80, "https": 443}.get(parts.scheme)
    # A Host with no port asks for the scheme's own, as an Origin with none names it.
    same = name.lower() == host_name(asked) and (_port(asked) or default) == (port or default)
    if same or named_elsewhere(name, allowed):
        return None
    return f"its Origin {origin[:200]!r} is another site than the host it asked for"


def named_elsewhere(name: str, allowed: Collection[str] | None) -> bool:
    """Whether an Origin's host name is one the operator listed for this API behind a proxy
    (whose port the request's Host need not show). A loopback name is not: any local server,
    on any port, has it."""
    lowered = name.lower()
    loopback = lowered in LOOPBACK_NAMES or lowered.endswith(".localhost")
    return allowed is not None and lowered in allowed and not loopback


def _port(host: str) -> int | None:
    """The port of a Host header ("localhost:8000" -> 8000), None when it names none."""
    tail = host.rpartition("]")[2] if host.startswith("[") else host
    _, colon, port = tail.rpartition(":")
    return int(port) if colon and port.isdigit() else None


def exempt(scope: Scope, headers: dict[bytes, bytes]) -> bool:
    """Requests another site may make: a preflight, Neo4j Browser's reads of its guide, and a
    navigation (a link followed) that runs no GraphQL query."""
    method, path = scope.get("method", "GET"), str(scope.get("path", ""))
    if method == "OPTIONS" or path.startswith(OPEN_PATHS):
        return True
    navigation = headers.get(b"sec-fetch-mode", b"").lower() == b"navigate"
    if method not in ("GET", "HEAD") or not navigation:
        return False
    query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
    return not (path.rstrip("/") == "/graphql" and "query" in query)


class CrossSiteRefusal:
    def __init__(self, app: ASGIApp, allowed: Collection[str] | None) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        # Lower-cased by the server; a browser sends each of these once.
        headers = dict(scope.get("headers") or [])
        reason = None if exempt(scope, headers) else cross_site(headers, self.allowed)
        if reason is None:
            await self.app(scope, receive, send)
            return
        message = (
            f"a cross-site request is refused while auth is off: {reason}. Call this API from "
            "a server, or from a page it serves"
        )
        # Closed after it: the body is not read, and must not be taken for a next request.
        response = refusal(scope, 403, ErrorCode.FORBIDDEN, message, {"Connection": "close"})
        await response(scope, receive, send)
