"""GraphQL subscriptions over WebSocket: graphql-transport-ws on /graphql, and nothing else.

Strawberry runs the protocol. Three things are set here rather than left at its defaults: only
graphql-transport-ws is spoken (the older graphql-ws protocol answers errors in another shape
and nothing here uses it); a socket that sends no `connection_init` within
CONNECTION_INIT_SECONDS is closed (4408), not after a minute, so idle sockets cannot pile up;
and the errors strawberry answers by itself (over MAX_SUBSCRIPTIONS operations on one socket)
carry an `extensions.code` like every other error.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from graphql import GraphQLFormattedError
from starlette.requests import Request
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import ErrorMessage, Message

from graph.errors import ErrorCode
from resolvers.graphql.context import Context
from resolvers.graphql.schema import build_schema
from resolvers.hosts import origin_allowed
from resolvers.services import Services

CONNECTION_INIT_SECONDS = 10
MAX_SUBSCRIPTIONS = 100  # operations at once on one socket
LIMIT_MESSAGE = "Subscription limit reached"  # strawberry's words for MAX_SUBSCRIPTIONS


def with_codes(message: Message) -> Message:
    """`message` with a code on each error strawberry wrote without one."""
    if message["type"] != "error":
        return message
    errors: list[GraphQLFormattedError] = []
    for error in message["payload"]:
        extensions = dict(error.get("extensions") or {})
        if "code" not in extensions:
            limited = error["message"] == LIMIT_MESSAGE
            code = ErrorCode.LIMIT_EXCEEDED if limited else ErrorCode.INVALID_INPUT
            extensions["code"] = code.value
            if limited:
                extensions["limit"] = "subscriptions"
        errors.append({**error, "extensions": extensions})
    return ErrorMessage(id=message["id"], type="error", payload=errors)


class CodedHandler(BaseGraphQLTransportWSHandler[Context, None]):
    async def send_message(self, message: Message) -> None:
        await super().send_message(with_codes(message))


class GraphQLWebSocket(GraphQL[Context, None]):
    """Subscriptions (graphql-transport-ws) on /graphql; HTTP is GraphQLHTTP's."""

    graphql_transport_ws_handler_class = CodedHandler

    def __init__(self, services: Services) -> None:
        super().__init__(
            build_schema(services.settings),
            graphql_ide=None,
            subscription_protocols=(GRAPHQL_TRANSPORT_WS_PROTOCOL,),
            connection_init_wait_timeout=timedelta(seconds=CONNECTION_INIT_SECONDS),
            max_subscriptions_per_connection=MAX_SUBSCRIPTIONS,
        )
        self.services = services
        self.hosts = services.settings.host_names

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        return Context(services=self.services, authorization=request.headers.get("authorization"))

    def is_websocket_origin_allowed(self, request: WebSocket, origin: str) -> bool:
        # Called for cross-origin handshakes only: a page may connect if its host is allowed.
        return origin_allowed(origin, self.hosts)
