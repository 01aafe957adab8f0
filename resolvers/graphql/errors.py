"""The one place where errors become GraphQL errors with `extensions.code`.

Our own errors keep their code and message. GraphQL syntax and validation errors become
INVALID_INPUT (limit rules set LIMIT_EXCEEDED themselves). Anything unexpected is logged and
masked as INTERNAL so internals never leak to clients. Only that is logged: strawberry's own
logging of every error, with its traceback at ERROR, is turned off (QuietSchema), so a client
sending bad input cannot fill the server log.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import strawberry
from graphql import GraphQLError
from graphql.validation.validate import ValidationAbortedError
from strawberry.extensions import SchemaExtension
from strawberry.types import ExecutionContext

from graph.errors import BeliefgraphError, ErrorCode

log = logging.getLogger("beliefgraph.api")

# graphql-core's own introspection limit, which says no more than this.
INTROSPECTION_REFUSED = "Maximum introspection depth exceeded"
INTROSPECTION = (
    "the introspection nests `fields`, `inputFields`, `interfaces` or `possibleTypes` 3 "
    "levels deep or more; ask for 2 levels at a time (a type's fields, then those types by "
    "name with `__type`)"
)
COMPLEX = (
    "the document is too complex to validate: too many fields of one selection to compare "
    "(a field repeated many times, say), or fragments its operations share; send a smaller one"
)


def coded(error: GraphQLError) -> GraphQLError:
    original = error.original_error
    extensions = dict(error.extensions or {})
    if isinstance(original, BeliefgraphError):
        extensions["code"] = original.code.value
        extensions.update({k: v for k, v in original.details.items() if _plain(v)})
        return _with(error, original.message, extensions)
    if "code" in extensions:
        return error
    if isinstance(error, ValidationAbortedError):
        # graphql-core's budget for checking a document (its fields that must merge, its
        # fragments): past it, it gave up with "Validation aborted." and no reason.
        extensions.update(code=ErrorCode.LIMIT_EXCEEDED.value, limit="complexity")
        return _with(error, COMPLEX, extensions)
    if original is None and error.message == INTROSPECTION_REFUSED:
        extensions.update(code=ErrorCode.LIMIT_EXCEEDED.value, limit="introspection")
        return _with(error, INTROSPECTION, extensions)
    if original is None or isinstance(original, GraphQLError):
        extensions["code"] = ErrorCode.INVALID_INPUT.value
        return _with(error, error.message, extensions)
    log.error("unexpected error in %s", error.path, exc_info=original)
    extensions["code"] = ErrorCode.INTERNAL.value
    return _with(error, "internal error; the server log has the details", extensions)


def _plain(value: object) -> bool:
    return isinstance(value, str | int | float | bool | list) or value is None


def _with(error: GraphQLError, message: str, extensions: dict[str, object]) -> GraphQLError:
    return GraphQLError(
        message,
        nodes=error.nodes,
        source=error.source,
        positions=error.positions,
        path=error.path,
        original_error=error.original_error,
        extensions=extensions,
    )


class ErrorCodes(SchemaExtension):
    def on_operation(self) -> Iterator[None]:
        yield
        context = self.execution_context
        if context.pre_execution_errors:
            context.pre_execution_errors = [coded(e) for e in context.pre_execution_errors]
        result = context.result
        if result is not None and result.errors:
            result.errors = [coded(e) for e in result.errors]

    def on_stream_result(self, result: Any) -> Iterator[None]:
        # Subscription events (and their errors) pass here rather than through on_operation.
        errors = getattr(result, "errors", None)
        if errors:
            result.errors = [coded(e) for e in errors]
        yield


class QuietSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Nothing: errors are the client's to read; an unexpected one was logged by `coded`."""
