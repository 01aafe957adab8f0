"""GraphQL subscriptions over WebSocket: graphql-transport-ws on /graphql, and nothing else.

Strawberry runs the protocol. What is set here rather than left at its defaults: only
graphql-transport-ws is spoken (the older graphql-ws protocol answers errors in another shape
and nothing here uses it); a socket that sends no `connection_init` within
CONNECTION_INIT_SECONDS is closed (4408), not after a minute, and with auth on one whose
`connection_init` carries no valid key is closed (4403); frames are parsed as strictly as HTTP
bodies, and a frame that is not a well-formed message closes the socket (4400), as does one over
MAX_FRAME_BYTES (1009); a document of several operations must name the one to run; and the
errors strawberry answers by itself (over MAX_SUBSCRIPTIONS operations on one socket) carry an
`extensions.code` like every other error. A key is checked again at every operation and every
poll of a subscription, so one that expires stops working on an open socket, and the socket is
closed (4403) when it expires; with auth on, the keys of one holder hold at most
MAX_SOCKETS_PER_KEY sockets, and the keys of one workspace MAX_SOCKETS_PER_WORKSPACE. A socket
sending frames faster than its FrameBudget allows, or more than MAX_FRAMES_BEFORE_INIT before
its connection_init, is closed (1008).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import Counter
from collections.abc import AsyncGenerator, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from graphql import GraphQLFormattedError
from starlette.requests import Request
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.exceptions import ConnectionRejectionError
from strawberry.http.async_base_view import AsyncWebSocketAdapter
from strawberry.http.exceptions import WebSocketDisconnected
from strawberry.subscriptions import GRAPHQL_TRANSPORT_WS_PROTOCOL
from strawberry.subscriptions.protocols.graphql_transport_ws.handlers import (
    BaseGraphQLTransportWSHandler,
)
from strawberry.subscriptions.protocols.graphql_transport_ws.types import (
    ConnectionInitMessage,
    ErrorMessage,
    Message,
)
from strawberry.types.unset import UnsetType

from graph.errors import BeliefgraphError, ErrorCode
from resolvers.auth import Principal
from resolvers.cross_site import cross_site
from resolvers.graphql.context import Context
from resolvers.graphql.errors import COMPLEX
from resolvers.graphql.limits import (
    SEVERAL_OPERATIONS,
    document_refusal,
    unnamed_among_several,
)
from resolvers.graphql.schema import build_schema
from resolvers.hosts import origin_allowed
from resolvers.json_body import parse_json
from resolvers.services import Services

CONNECTION_INIT_SECONDS = 10
MAX_SUBSCRIPTIONS = 100  # operations at once on one socket
# A frame's size (uvicorn's limit, in resolvers/serve.py): a subscription's document and variables
# fit in far less, and a frame sent before connection_init is parsed before any key is seen.
MAX_FRAME_BYTES = 64 * 1024
MAX_ID_CHARS = 128  # an operation's id, echoed in each of its results
# Sockets open at once for one key holder (auth on: its scope, workspace, peer or session): each
# holds a descriptor and memory whether or not it runs anything, and one leaked key should not
# be able to hold the server's.
MAX_SOCKETS_PER_KEY = 50
# And for all the keys of one workspace together: a workspace key may issue a key for each of
# its peers and sessions, each with its own 50.
MAX_SOCKETS_PER_WORKSPACE = 200
LIMIT_MESSAGE = "Subscription limit reached"  # strawberry's words for MAX_SUBSCRIPTIONS
ABORTED = "Validation aborted."  # graphql-core's, past its budget for checking a document
# Frames are answered on the event loop every request shares: 8 keyless sockets sending pings
# as fast as they could stalled /health for 20 s. Before connection_init a client has nothing
# to send but it; after, a socket may send FRAME_BURST frames at once (a client subscribing
# all it may), then FRAMES_PER_SECOND. Past either, the socket is closed (1008).
MAX_FRAMES_BEFORE_INIT = 4
FRAME_BURST = 200
FRAMES_PER_SECOND = 100.0
TOO_MANY = 1008  # policy violation


@dataclass
class FrameBudget:
    """A token bucket of frames: FRAME_BURST at once, refilled at FRAMES_PER_SECOND."""

    tokens: float = FRAME_BURST
    at: float = 0.0

    def take(self, stamp: float) -> bool:
        """Spend one frame at `stamp` (monotonic seconds); False when none is left."""
        if self.at:
            self.tokens = min(FRAME_BURST, self.tokens + (stamp - self.at) * FRAMES_PER_SECOND)
        self.at = stamp
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def with_codes(message: Message) -> Message:
    """`message` with a code on each error strawberry wrote without one."""
    if message["type"] != "error":
        return message
    errors: list[GraphQLFormattedError] = []
    for error in message["payload"]:
        extensions = dict(error.get("extensions") or {})
        if "code" not in extensions and error["message"] == ABORTED:
            error = {**error, "message": COMPLEX}  # graphql-core's budget (errors.coded)
            extensions.update(code=ErrorCode.LIMIT_EXCEEDED.value, limit="complexity")
        if "code" not in extensions:
            limited = error["message"] == LIMIT_MESSAGE
            code = ErrorCode.LIMIT_EXCEEDED if limited else ErrorCode.INVALID_INPUT
            extensions["code"] = code.value
            if limited:
                extensions["limit"] = "subscriptions"
        errors.append({**error, "extensions": extensions})
    return ErrorMessage(id=message["id"], type="error", payload=errors)


def malformed(message: object) -> str | None:
    """What is wrong with a client's message's shape, or None. Strawberry reads fields of what
    it takes to be an object and answers only a missing key: a list, a number or a subscribe
    payload that is not an object raised inside the ASGI app instead (a logged traceback and a
    dropped socket, for a frame anyone may send before connection_init)."""
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        return "a message is a JSON object with a string `type`"
    if message["type"] in ("subscribe", "complete") or "id" in message:
        operation = message.get("id")
        if not isinstance(operation, str) or not 0 < len(operation) <= MAX_ID_CHARS:
            return f"an operation's `id` is a string of 1 to {MAX_ID_CHARS} characters"
    if message["type"] == "subscribe":
        payload = message.get("payload")
        if not isinstance(payload, dict):
            return "a subscribe message has an object `payload`"
        if not isinstance(payload.get("query"), str):
            return "a subscribe payload has a string `query`"
        if not isinstance(payload.get("variables") or {}, dict):
            return "a subscribe payload's `variables` is an object"
        if not isinstance(payload.get("operationName") or "", str):
            return "a subscribe payload's `operationName` is a string"
    return None


class Reasoned(AsyncWebSocketAdapter):
    """A socket whose refusal at connection_init says why: the protocol handler closes it with
    4403 "Forbidden" alone, and a client sending no key, or an invalid one, was not told."""

    def __init__(self, socket: AsyncWebSocketAdapter, context: Context) -> None:
        super().__init__(socket.view)
        self.socket = socket
        self.context = context

    def iter_json(self, *, ignore_parsing_errors: bool = False) -> AsyncGenerator[object, None]:
        return self.socket.iter_json(ignore_parsing_errors=ignore_parsing_errors)

    async def send_json(self, message: Mapping[str, object]) -> None:
        await self.socket.send_json(message)

    async def close(self, code: int, reason: str) -> None:
        if code == 4403 and reason == "Forbidden" and self.context.refusal:
            # A close frame's reason holds at most 123 bytes.
            reason = self.context.refusal.encode()[:123].decode(errors="ignore")
        await self.socket.close(code=code, reason=reason)


class CodedHandler(BaseGraphQLTransportWSHandler[Context, None]):
    view: GraphQLWebSocket
    expiry: asyncio.Task[None] | None = None
    frames_before_init: int = 0
    budget: FrameBudget | None = None
    closing: bool = False

    async def _over_budget(self) -> bool:
        """Count a frame; close the socket (1008) and True once it is one too many."""
        if self.closing:
            return True
        if not self.connection_init_received:
            self.frames_before_init += 1
            allowed = self.frames_before_init <= MAX_FRAMES_BEFORE_INIT
            reason = "too many messages before connection_init"
        else:
            self.budget = self.budget or FrameBudget()
            allowed = self.budget.take(time.monotonic())
            reason = f"more than {FRAMES_PER_SECOND:.0f} messages a second"
        if allowed:
            return False
        self.closing = True
        with contextlib.suppress(Exception):  # closed meanwhile
            await self.websocket.close(code=TOO_MANY, reason=reason)
        return True

    async def handle_task_exception(self, error: Exception) -> None:
        # An operation that finished after its socket closed has no one to answer: not an
        # error worth a traceback (a client that left mid-stream logged one per operation).
        if isinstance(error, WebSocketDisconnected):
            return
        await super().handle_task_exception(error)

    async def handle_connection_init(self, message: ConnectionInitMessage) -> None:
        self.websocket = Reasoned(self.websocket, self.context)
        await super().handle_connection_init(message)
        if not self.connection_acknowledged or self.expiry is not None:
            return
        try:
            expires = self.context.principal.expires
        except BeliefgraphError:
            expires = time.time()  # it expired since the acknowledgement
        if expires is not None:
            self.expiry = asyncio.create_task(self._close_at(expires))

    async def _close_at(self, expires: float) -> None:
        """Close the socket when its key expires: an idle socket would otherwise stay open
        for good with a key that no longer opens anything."""
        await asyncio.sleep(max(0.0, expires - time.time()))
        with contextlib.suppress(Exception):  # closed meanwhile
            await self.websocket.close(code=4403, reason="API key expired")

    async def shutdown(self) -> None:
        if self.expiry is not None:
            self.expiry.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.expiry
        self.view.forget_socket(self.context)
        await super().shutdown()

    async def handle_message(self, message: Message) -> None:
        if await self._over_budget():
            return
        problem = malformed(message)
        if problem is not None:
            await self.handle_invalid_message(problem)  # closes the socket with 4400
            return
        # Before it is acknowledged, or under an id in use, strawberry closes the socket (4401,
        # 4409), as the protocol says: a refusal frame here would name a live operation's id.
        if (
            message["type"] == "subscribe"
            and self.connection_acknowledged
            and message["id"] not in self.operations
        ):
            refused = self._refusal(message["payload"]["query"], message["payload"].get(
                "operationName"))  # fmt: skip
            if refused is not None:
                await self.send_message(
                    ErrorMessage(id=message["id"], type="error", payload=[refused])
                )
                return
        await super().handle_message(message)

    def _refusal(self, query: str, operation: str | None) -> GraphQLFormattedError | None:
        """What HTTP would refuse of the document before parsing it, as an error frame."""
        max_tokens = self.view.services.settings.max_query_tokens
        limited = document_refusal(query, max_tokens)
        if limited is not None:
            return limited.formatted
        if unnamed_among_several(query, operation, max_tokens):
            return {
                "message": SEVERAL_OPERATIONS,
                "extensions": {"code": ErrorCode.INVALID_INPUT.value},
            }
        return None

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
        # Acknowledged sockets per key holder (auth on).
        self.open_sockets: Counter[Principal] = Counter()
        self.workspace_sockets: Counter[str] = Counter()

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        return Context(services=self.services, authorization=request.headers.get("authorization"))

    def decode_json(self, data: str | bytes) -> object:
        """Frames are read as strictly as HTTP bodies (resolvers/json_body.py): no NaN or
        Infinity, no nesting past its limit, no lone surrogates. A frame refused closes the
        socket with 4400, as malformed JSON does."""
        try:
            return parse_json(data, "the message")
        except BeliefgraphError as exc:
            raise json.JSONDecodeError(exc.message, "", 0) from exc

    async def on_ws_connect(self, context: Context) -> UnsetType | dict[str, object] | None:
        """With auth on, connection_init must carry a valid key (its `Authorization`, or the
        handshake's header): a socket without one is closed with 4403 at once, rather than
        held open, accepted, with nothing it may do. So is one past MAX_SOCKETS_PER_KEY
        sockets open for its key's holder."""
        try:
            # Read once: a key that expired between two reads would escape as an error (1011).
            holder = context.principal
        except BeliefgraphError as exc:
            raise self._refused(context, exc.message) from exc
        if self.services.settings.auth_enabled:
            # Counted by whom the key names, not by its text: the same key spelled with more
            # spaces, or another key minted for the same peer, shares the count.
            if self.open_sockets[holder] >= MAX_SOCKETS_PER_KEY:
                raise self._refused(
                    context, f"{MAX_SOCKETS_PER_KEY} sockets are open for this key's holder"
                )
            workspace = holder.workspace
            if workspace is not None and (
                self.workspace_sockets[workspace] >= MAX_SOCKETS_PER_WORKSPACE
            ):
                raise self._refused(
                    context,
                    f"{MAX_SOCKETS_PER_WORKSPACE} sockets are open for the keys of this workspace",
                )
            self.open_sockets[holder] += 1
            if workspace is not None:
                self.workspace_sockets[workspace] += 1
            context.socket_holder = holder
        return await super().on_ws_connect(context)

    @staticmethod
    def _refused(context: Context, why: str) -> ConnectionRejectionError:
        """The refusal of a connection_init; its socket closes (4403) saying why."""
        context.refusal = why
        return ConnectionRejectionError({"message": why})

    def forget_socket(self, context: Context) -> None:
        """A socket counted by on_ws_connect has closed."""
        holder, context.socket_holder = context.socket_holder, None
        if holder is not None:
            self.open_sockets[holder] -= 1
            if self.open_sockets[holder] <= 0:
                del self.open_sockets[holder]
            if holder.workspace is not None:
                self.workspace_sockets[holder.workspace] -= 1
                if self.workspace_sockets[holder.workspace] <= 0:
                    del self.workspace_sockets[holder.workspace]

    def is_websocket_origin_allowed(self, request: WebSocket, origin: str) -> bool:
        # Called for cross-origin handshakes only. With auth on, a page may connect if its host
        # is allowed (its socket still needs a key). With auth off, a socket runs mutations for
        # anyone: only an operator-listed name behind a proxy may, never another local port.
        if self.services.settings.auth_enabled:
            return origin_allowed(origin, self.hosts)
        headers = {
            k.lower().encode("latin-1"): v.encode("latin-1") for k, v in request.headers.items()
        }
        return cross_site(headers, self.hosts) is None
