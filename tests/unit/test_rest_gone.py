"""A REST request whose client left while it waited (for its turn, or its body) is not run: a
message batch stored for a client that gave up was stored again by its resend."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, cast

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message

from graph.settings import Settings
from reasoners.slots import SlotsByOwner
from resolvers.rest.http import Call, endpoint
from resolvers.services import Services


class NoDeletion:
    """The database as the deletion check reads it: no workspace is being deleted."""

    async def read_one(self, statement: str, /, **params: Any) -> None:
        assert statement == "get_workspace"
        return None


@dataclass
class Stub:
    settings: Settings = field(default_factory=lambda: Settings.from_env({}))
    shares: SlotsByOwner = field(default_factory=SlotsByOwner)
    db: NoDeletion = field(default_factory=NoDeletion)


def request(*messages: Message) -> Request:
    waiting = list(messages)

    async def receive() -> Message:
        if waiting:
            return waiting.pop(0)
        await asyncio.Event().wait()  # connected, nothing more to say
        raise AssertionError("unreachable")

    scope: dict[str, Any] = {
        "type": "http",
        "method": "POST",
        "path": "/v3/workspaces/w/sessions/s/messages",
        "path_params": {"workspace": "w"},
        "headers": [],
        "query_string": b"",
    }
    return Request(scope, receive)


async def answer(req: Request) -> tuple[Response, list[Any]]:
    ran: list[Any] = []

    async def handler(call: Call) -> Response:
        ran.append(await call.raw())
        return Response(status_code=201)

    response = await endpoint(handler, lambda: cast(Services, Stub()))(req)
    return response, ran


BODY: Message = {"type": "http.request", "body": b'{"messages": []}', "more_body": False}


async def test_a_request_whose_client_left_is_not_run() -> None:
    response, ran = await answer(request(BODY, {"type": "http.disconnect"}))
    assert (response.status_code, ran) == (503, [])
    assert response.headers["retry-after"] == "1"


async def test_a_connected_client_is_served_with_its_body() -> None:
    response, ran = await answer(request(BODY))
    assert (response.status_code, ran) == (201, [{"messages": []}])
