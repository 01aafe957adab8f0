"""The plumbing every Honcho-compatible route shares: the caller, bodies, and error answers.

Errors answer `{"detail": ...}` with the status Honcho clients map to their exception classes;
a body that fails validation answers 422 with the list of problems, each naming its field.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from graph.errors import BeliefgraphError, ErrorCode, SessionClosed, Unavailable
from graph.repo import workspaces
from resolvers.auth import Principal, principal_from_header
from resolvers.fair_share import share_for
from resolvers.json_body import parse_json_body
from resolvers.services import Services

log = logging.getLogger("beliefgraph.rest")

M = TypeVar("M", bound=BaseModel)
RETRY_AFTER_SECONDS = 1

STATUS = {
    ErrorCode.NOT_FOUND: 404,
    ErrorCode.FORBIDDEN: 403,
    ErrorCode.UNAUTHENTICATED: 401,
    ErrorCode.INVALID_INPUT: 422,
    ErrorCode.LIMIT_EXCEEDED: 422,
    ErrorCode.CONFLICT: 409,
    ErrorCode.UNAVAILABLE: 503,
    ErrorCode.INTERNAL: 500,
}


class BadRequest(BeliefgraphError):
    """A request the service understood but will not run as asked (HTTP 400)."""

    code = ErrorCode.INVALID_INPUT


def detail(status: int, message: object) -> JSONResponse:
    return JSONResponse({"detail": message}, status_code=status)


def error_answer(exc: Exception) -> Response:
    if isinstance(exc, BadRequest):
        return detail(400, exc.message)
    if isinstance(exc, SessionClosed):  # REST deletes a session by closing it
        return detail(404, f"session {exc.details.get('session')!r} was deleted")
    if isinstance(exc, BeliefgraphError):
        answer = detail(STATUS[exc.code], exc.message)
        if exc.code is ErrorCode.UNAVAILABLE:  # busy or Neo4j away: worth sending again soon
            answer.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return answer
    if isinstance(exc, ValidationError):
        problems = exc.errors(include_url=False, include_context=False)
        return detail(422, json.loads(json.dumps(problems, default=str)))
    if isinstance(exc, HTTPException) and 400 <= exc.status_code < 500:
        return detail(exc.status_code, exc.detail)  # Starlette's own, e.g. a malformed form
    log.error("unexpected error in a REST route", exc_info=exc)
    return detail(500, "An unexpected error occurred")


def no_content() -> Response:
    return Response(status_code=204)


@dataclass
class Call:
    """One request: its services, its caller (resolved on first use) and its parameters."""

    request: Request
    services: Services
    _principal: Principal | None = field(default=None, repr=False)

    @property
    def principal(self) -> Principal:
        if self._principal is None:
            settings = self.services.settings
            self._principal = principal_from_header(
                self.request.headers.get("authorization"),
                enabled=settings.auth_enabled,
                secret=settings.auth_secret,
            )
        return self._principal

    def path(self, name: str) -> str:
        return str(self.request.path_params[name])

    @property
    def workspace(self) -> str:
        return self.path("workspace")

    @property
    def metadata_limit(self) -> int:
        """The largest metadata, and so the largest metadata filter that can match."""
        return self.services.settings.max_metadata_bytes

    async def raw(self) -> Any:
        """The JSON body, or None when there is none."""
        data = await self.request.body()
        if not data.strip():
            return None
        return await parse_json_body(data, "the body")

    async def body(self, model: type[M], *, empty: dict[str, Any] | None = None) -> M:
        """The body validated by `model`; a missing body is `empty` when given (else 422)."""
        raw = await self.raw()
        if raw is None and empty is not None:
            raw = empty
        return model.model_validate(raw)

    def query(self, model: type[M]) -> M:
        """Query parameters validated by `model` (repeated ones become lists)."""
        params: dict[str, Any] = {}
        for key in self.request.query_params:
            values = self.request.query_params.getlist(key)
            params[key] = values if len(values) > 1 else values[0]
        return model.model_validate(params)


Handler = Callable[[Call], Awaitable[Response]]


async def _unless_gone(handler: Handler, call: Call) -> Response:
    """Run the handler unless the client has left while its request waited (for its body, or
    its turn): a message batch stored for a client that gave up is stored again by its resend,
    and other work done for nobody only makes others wait."""
    await call.request.body()  # read first: the check below would swallow an unread body
    if await call.request.is_disconnected():
        raise Unavailable("the client left before its request ran")
    return await handler(call)


def endpoint(
    handler: Handler, services: Callable[[], Services], *, finishes_deletion: bool = False
) -> Callable[[Request], Any]:
    """The route's Starlette endpoint. A workspace whose deletion has begun is gone to every
    route that names it (404, "is being deleted") but the deletion's own, `finishes_deletion`
    (graph/repo/workspaces.py: refuse_if_being_deleted)."""

    async def run(request: Request) -> Response:
        try:
            call = Call(request, services())
            if "workspace" in request.path_params:
                # A key of another workspace is refused before the body is read, so a bad body
                # tells it nothing about the route; the handler's narrower checks follow.
                call.principal.in_workspace(call.workspace)
            async with share_for(call.services, call.principal):
                # Within the key's share, as every read it makes.
                if "workspace" in request.path_params and not finishes_deletion:
                    await workspaces.refuse_if_being_deleted(call.services.db, call.workspace)
                return await _unless_gone(handler, call)
        except Exception as exc:  # every failure becomes a coded answer, never a traceback
            return error_answer(exc)

    return run
