"""A GraphQL read whose client left is stopped (a chat for nobody spent a language model's
tokens and a share of the database to its end); a mutation runs to its end."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message
from strawberry import Schema
from strawberry.types import ExecutionResult

from graph.settings import Settings
from resolvers.graphql.http import GraphQLHTTP
from resolvers.services import Services


@dataclass
class Stub:
    settings: Settings = field(default_factory=lambda: Settings.from_env({}, auth="off"))


@dataclass
class SlowSchema:
    """Executes anything in `seconds`, noting how each execution ended."""

    seconds: float
    ended: list[str] = field(default_factory=list)

    async def execute(self, query: str, **_: Any) -> ExecutionResult:
        try:
            await asyncio.sleep(self.seconds)
        except asyncio.CancelledError:
            self.ended.append("cancelled")
            raise
        self.ended.append("done")
        return ExecutionResult(data={"ok": True}, errors=None)


def leaving(query: str, after: float) -> Request:
    """A POST of `query` whose client disconnects `after` seconds once its body is read."""
    body = json.dumps({"query": query}).encode()
    messages: list[Message] = [{"type": "http.request", "body": body, "more_body": False}]

    loop = asyncio.get_running_loop()
    gone_at = loop.time() + after

    async def receive() -> Message:
        if messages:
            return messages.pop(0)
        if loop.time() < gone_at:  # still there: nothing to say (a disconnect check moves on)
            await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    scope: dict[str, Any] = {
        "type": "http",
        "method": "POST",
        "path": "/graphql",
        "headers": [(b"content-type", b"application/json")],
        "query_string": b"",
    }
    return Request(scope, receive)


async def answer(schema: SlowSchema, query: str) -> Response:
    async def graphiql(_: Request) -> Response:
        return Response()

    http = GraphQLHTTP(cast(Schema, schema), cast(Services, Stub()), graphiql)
    return await http.handle(leaving(query, after=0.1))


async def test_a_read_whose_client_left_is_stopped() -> None:
    schema = SlowSchema(seconds=30)
    response = await asyncio.wait_for(answer(schema, "query { chat }"), timeout=5)
    assert response.status_code == 503
    assert schema.ended == ["cancelled"]


async def test_a_mutation_runs_to_its_end_though_its_client_left() -> None:
    schema = SlowSchema(seconds=0.8)
    response = await answer(schema, "query A { a } mutation B { b }")
    assert response.status_code == 400  # several operations, none named: nothing runs
    response = await answer(schema, "mutation { addMessages }")
    assert (response.status_code, schema.ended) == (200, ["done"])
