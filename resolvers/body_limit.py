"""Request body limits, enforced before the app reads a body (ASGI middleware).

Every body is held to the configured limit. With auth on, a request whose key does not verify
(missing, malformed, expired or forged) is held to `KEYLESS_MAX_BYTES`, and refused with 401
past it: the body is never read. Without that, anyone could make the server parse megabytes of
JSON per request before learning it has no key, and a few such clients kept /health waiting.
The only answers a request without a key can get are small ones (health, introspection).
A request's path and query string are held to the same limits, since a GET carries its
document and variables in the query string, which the server does not bound. (Headers are not
counted: nothing here parses them beyond the key, and a browser's cookies for localhost can
pass 16 KB.)
A body must arrive within BODY_SECONDS (KEYLESS_BODY_SECONDS without a valid key), else 408.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graph.errors import ErrorCode
from resolvers.refusals import refusal

# Far more than a keyless request needs (GraphiQL's introspection query is about 2 KB).
KEYLESS_MAX_BYTES = 16 * 1024
# How long a body may take to arrive: with a key, 4 MB at 70 KB/s; without one, a small body
# has no reason to take long, and connections that stop mid-body must not pile up (400 such
# stayed open for good).
BODY_SECONDS = 60.0
KEYLESS_BODY_SECONDS = 10.0

# The header's refusal (a message), or None when the key verifies.
KeyProblem = Callable[[str | None], str | None]


def closing(
    scope: Scope,
    status: int,
    code: ErrorCode,
    message: str,
    headers: dict[str, str] | None = None,
    **more: Any,
) -> Response:
    """A coded refusal that closes the connection: the rest of the body is never read."""
    return refusal(scope, status, code, message, {"Connection": "close", **(headers or {})}, **more)


class BodyLimit:
    """Reads each HTTP request body before the app does, refusing it with 413 (and a code) once
    it passes the limit, whether or not it announced a Content-Length; 401 instead when a
    request without a valid key passes `KEYLESS_MAX_BYTES` (`key_problem` given: auth is on)."""

    def __init__(self, app: ASGIApp, max_bytes: int, key_problem: KeyProblem | None) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.key_problem = key_problem

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        raw: list[tuple[bytes, bytes]] = list(scope.get("headers") or [])
        limit, problem = self.max_bytes, None
        if self.key_problem is not None:
            # The first Authorization header, as the handlers read it (a later one is ignored).
            header = next((value for name, value in raw if name == b"authorization"), None)
            problem = self.key_problem(header.decode("latin-1") if header is not None else None)
            if problem is not None:
                limit = min(limit, KEYLESS_MAX_BYTES)
        if request_target_bytes(scope) > limit:
            what = "the request's path and query string"
            await self.over(scope, problem, limit, what, "target")(scope, receive, send)
            return
        length = dict(raw).get(b"content-length")
        too_big = length is not None and (not length.isdigit() or int(length) > limit)
        chunks: list[bytes] = []
        received = 0
        more = not too_big
        seconds = BODY_SECONDS if problem is None else KEYLESS_BODY_SECONDS
        refused: Response | None = None
        try:
            async with asyncio.timeout(seconds):
                while more:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return
                    chunk = message.get("body", b"")
                    received += len(chunk)
                    if received > limit:
                        too_big = True
                        break
                    chunks.append(chunk)
                    more = bool(message.get("more_body"))
        except TimeoutError:
            refused = closing(
                scope,
                408,
                ErrorCode.LIMIT_EXCEEDED,
                f"the request body did not arrive within {seconds:.0f} seconds",
                limit="body_seconds",
            )
        if too_big:
            refused = self.over(scope, problem, limit, "a request body", "body")
        if refused is not None:
            await refused(scope, receive, send)
            return
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect

        await self.app(scope, replay, send)

    def over(self, scope: Scope, problem: str | None, limit: int, what: str, name: str) -> Response:
        """The refusal of `what` over `limit`: 401 when the key was the reason for the limit."""
        if problem is not None and limit < self.max_bytes:
            return closing(
                scope,
                401,
                ErrorCode.UNAUTHENTICATED,
                f"{problem}; without a valid key {what} may have at most {limit} bytes",
                {"WWW-Authenticate": "Bearer"},
            )
        return closing(
            scope,
            413,
            ErrorCode.LIMIT_EXCEEDED,
            f"{what} may have at most {limit} bytes",
            limit=name,
        )


def request_target_bytes(scope: Scope) -> int:
    """The size of a request's path and query string (pure)."""
    path = scope.get("raw_path") or scope.get("path", "").encode("utf-8", "surrogateescape")
    query: bytes = scope.get("query_string") or b""
    return len(path) + len(query)
