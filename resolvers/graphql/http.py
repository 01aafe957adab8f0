"""GraphQL over HTTP: reading a request, refusing what is malformed with a coded error, and
answering with the result.

Every refusal is JSON (`{"errors": [{"message", "extensions": {"code"}}]}`) with a status that
says what went wrong: 400 for a body that is not a GraphQL request (not UTF-8, not JSON, nested
too deep, not an object, a batch, no query, text that is not valid Unicode), 405 for another
method or a mutation over GET, 413 for a body over the limit, 415 for another content type. A
valid request is executed by the schema (limits, validation, error codes: schema.py) and
answered with 200; a query whose client disconnects meanwhile is stopped (503 to nobody).
Subscriptions go over WebSocket (strawberry's graphql-transport-ws); a GET that asks for HTML
gets GraphiQL.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from strawberry import Schema
from strawberry.exceptions import MissingQueryError
from strawberry.schema.exceptions import CannotGetOperationTypeError, InvalidOperationTypeError
from strawberry.types import ExecutionResult
from strawberry.types.graphql import OperationType

from graph.errors import BeliefgraphError, ErrorCode, Unavailable
from graph.validation import is_text
from resolvers import json_body
from resolvers.connected import while_connected
from resolvers.graphql.context import Context
from resolvers.graphql.limits import SEVERAL_OPERATIONS, operations_of
from resolvers.services import Services

JSON_TYPES = ("application/json", "application/graphql-response+json")


class RequestRefused(Exception):
    """A request that is not a GraphQL request we can run: answered with `status` and `code`."""

    def __init__(self, status: int, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_body(code: ErrorCode, message: str, **more: Any) -> dict[str, Any]:
    """A refusal as every answer of the API carries it (pure)."""
    return {"errors": [{"message": message, "extensions": {"code": code.value, **more}}]}


def error_response(
    status: int, code: ErrorCode, message: str, headers: dict[str, str] | None = None, **more: Any
) -> JSONResponse:
    return JSONResponse(error_body(code, message, **more), status_code=status, headers=headers)


async def parse_body(raw: bytes | str, what: str = "the request body") -> Any:
    """The request body's JSON (or a query-string value's), parsed off the event loop when
    long; RequestRefused (400)."""
    try:
        return await json_body.parse_json_body(raw, what)
    except BeliefgraphError as exc:
        raise RequestRefused(400, exc.code, exc.message) from exc


MAX_OPERATION_NAME_CHARS = 1000


def graphql_request(data: Any) -> tuple[str, dict[str, Any] | None, str | None]:
    """(query, variables, operationName) of a decoded request body or query string."""
    if isinstance(data, list):
        raise RequestRefused(
            400, ErrorCode.INVALID_INPUT, "batched requests are not supported: send one at a time"
        )
    if not isinstance(data, dict):
        raise RequestRefused(
            400, ErrorCode.INVALID_INPUT, "the request body must be a JSON object with a query"
        )
    query = data.get("query")
    variables = data.get("variables")
    name = data.get("operationName")
    if not isinstance(query, str) or not query.strip():
        raise RequestRefused(400, ErrorCode.INVALID_INPUT, "`query` must be a non-empty string")
    if variables is not None and not isinstance(variables, dict):
        raise RequestRefused(400, ErrorCode.INVALID_INPUT, "`variables` must be a JSON object")
    if name is not None and not isinstance(name, str):
        raise RequestRefused(400, ErrorCode.INVALID_INPUT, "`operationName` must be a string")
    if name is not None and len(name) > MAX_OPERATION_NAME_CHARS:
        # Error messages name the operation: a megabyte name came back in full.
        raise RequestRefused(
            400,
            ErrorCode.INVALID_INPUT,
            f"`operationName` may have at most {MAX_OPERATION_NAME_CHARS} characters",
        )
    return query, variables, name


class GraphQLHTTP:
    """The HTTP side of /graphql (WebSocket and GraphiQL are delegated)."""

    def __init__(
        self,
        schema: Schema,
        services: Services,
        graphiql: Callable[[Request], Awaitable[Response]],
    ) -> None:
        self.schema = schema
        self.services = services
        self.graphiql = graphiql

    async def handle(self, request: Request) -> Response:
        try:
            if request.method == "GET":
                if "query" not in request.query_params and _wants_html(request):
                    return await self.graphiql(request)
                data: Any = dict(request.query_params)
                if "variables" in data:
                    data["variables"] = await parse_body(data["variables"], "`variables`")
                allowed = {OperationType.QUERY}
            elif request.method == "POST":
                kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
                if kind not in JSON_TYPES:
                    raise RequestRefused(
                        415,
                        ErrorCode.INVALID_INPUT,
                        "send the request as application/json",
                    )
                data = await parse_body(await request.body())
                allowed = {OperationType.QUERY, OperationType.MUTATION}
            else:
                return error_response(
                    405,
                    ErrorCode.INVALID_INPUT,
                    "GraphQL takes GET (queries) and POST requests",
                    headers={"Allow": "GET, POST"},
                )
            query, variables, name = graphql_request(data)
            if not is_text(query):
                raise RequestRefused(
                    400, ErrorCode.INVALID_INPUT, "`query` is not valid Unicode (a lone surrogate)"
                )
            shape = operations_of(query, self.services.settings.max_query_tokens)
            if name is None and shape is not None and shape.operations > 1:
                raise RequestRefused(400, ErrorCode.INVALID_INPUT, SEVERAL_OPERATIONS)
            running = self._execute(request, query, variables, name, allowed)
            if shape is not None and shape.mutations == 0:
                # A read whose client has left is stopped: its answer is of use to nobody, and
                # it holds a share of the database, or a language model's tokens (chat). A
                # mutation runs to its end, so what it changes does not stop half-way.
                result = await while_connected(request, running, "before its answer")
            else:
                result = await running
        except Unavailable as gone:
            return error_response(503, ErrorCode.UNAVAILABLE, gone.message)
        except RequestRefused as refused:
            status = refused.status
            headers = {"Allow": "POST"} if status == 405 else None
            return error_response(status, refused.code, refused.message, headers=headers)
        return JSONResponse(_body(result))

    async def _execute(
        self,
        request: Request,
        query: str,
        variables: dict[str, Any] | None,
        name: str | None,
        allowed: set[OperationType],
    ) -> ExecutionResult:
        context = Context(self.services, request.headers.get("authorization"))
        try:
            if self.services.settings.auth_enabled and not _has_key(context):
                # Without a key a request can only ask for health and the schema, but reading
                # and validating any document costs the event loop: a dozen clients at once
                # kept /health waiting 16 s. They take turns (Services.keyless).
                try:
                    async with self.services.keyless.take():
                        return await self._run(query, variables, name, allowed, context)
                except Unavailable as busy:
                    raise RequestRefused(503, ErrorCode.UNAVAILABLE, busy.message) from busy
            return await self._run(query, variables, name, allowed, context)
        except InvalidOperationTypeError as exc:
            if exc.operation_type is OperationType.SUBSCRIPTION:
                raise RequestRefused(
                    400,
                    ErrorCode.INVALID_INPUT,
                    "subscriptions run over WebSocket (graphql-transport-ws), not HTTP",
                ) from exc
            raise RequestRefused(
                405, ErrorCode.INVALID_INPUT, "mutations are sent with POST, not GET"
            ) from exc
        except CannotGetOperationTypeError as exc:
            raise RequestRefused(400, ErrorCode.INVALID_INPUT, exc.as_http_error_reason()) from exc
        except MissingQueryError as exc:
            raise RequestRefused(400, ErrorCode.INVALID_INPUT, "no query in the request") from exc

    async def _run(
        self,
        query: str,
        variables: dict[str, Any] | None,
        name: str | None,
        allowed: set[OperationType],
        context: Context,
    ) -> ExecutionResult:
        return await self.schema.execute(
            query,
            variable_values=variables,
            context_value=context,
            operation_name=name,
            allowed_operation_types=allowed,
        )


def _has_key(context: Context) -> bool:
    try:
        return context.principal is not None
    except BeliefgraphError:
        return False


def _wants_html(request: Request) -> bool:
    return "text/html" in request.headers.get("accept", "")


def _body(result: ExecutionResult) -> dict[str, Any]:
    body: dict[str, Any] = {"data": result.data}
    if result.errors:
        body["errors"] = [error.formatted for error in result.errors]
    if result.extensions:
        body["extensions"] = result.extensions
    return body
