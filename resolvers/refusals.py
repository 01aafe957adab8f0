"""Refusals written by the middleware in front of every route (body limits, hosts), shaped as the
refused route answers its own errors: `{"detail": ...}` under the Honcho-compatible routes, whose
clients read that field, and a coded error (`errors[0].extensions.code`) everywhere else."""

from __future__ import annotations

from typing import Any

from starlette.responses import JSONResponse
from starlette.types import Scope

from graph.errors import ErrorCode
from resolvers.graphql.http import error_response

REST_PREFIX = "/v3"


def is_rest_path(path: str) -> bool:
    """Whether a request's path (or its target, path and query string) is a REST route's."""
    return path == REST_PREFIX or path.startswith(REST_PREFIX + "/")


def is_rest(scope: Scope) -> bool:
    return is_rest_path(str(scope.get("path", "")))


def refusal(
    scope: Scope,
    status: int,
    code: ErrorCode,
    message: str,
    headers: dict[str, str] | None = None,
    **more: Any,
) -> JSONResponse:
    if is_rest(scope):
        return JSONResponse({"detail": message}, status_code=status, headers=headers)
    return error_response(status, code, message, headers, **more)
