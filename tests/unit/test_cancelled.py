"""A request cancelled at shutdown before it answered: a coded 503, not uvicorn's plain 500 and
a traceback."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import Message, Receive, Scope, Send

from resolvers.cancelled import AnswerCancelled


def http_scope(path: str) -> Scope:
    return {"type": "http", "method": "POST", "path": path, "headers": []}


async def receive() -> Message:
    return {"type": "http.request", "body": b"", "more_body": False}


async def hanging(scope: Scope, receive: Receive, send: Send) -> None:
    await asyncio.Event().wait()  # a request waiting on a Neo4j that hangs


async def started_then_hanging(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await asyncio.Event().wait()


async def run_cancelled(app: Any, path: str) -> tuple[list[Message], BaseException | None]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    task = asyncio.ensure_future(AnswerCancelled(app)(http_scope(path), receive, send))
    await asyncio.sleep(0.01)
    task.cancel(msg="Task cancelled, timeout graceful shutdown exceeded")
    try:
        await task
    except asyncio.CancelledError as exc:
        return sent, exc
    return sent, None


def body(sent: list[Message]) -> dict[str, Any]:
    return json.loads(b"".join(m.get("body", b"") for m in sent[1:]))  # type: ignore[no-any-return]


async def test_a_graphql_request_cancelled_before_answering_is_unavailable() -> None:
    sent, raised = await run_cancelled(hanging, "/graphql")
    assert raised is None
    assert sent[0]["status"] == 503
    headers = dict(sent[0]["headers"])
    assert headers[b"retry-after"] == b"5" and headers[b"connection"] == b"close"
    [error] = body(sent)["errors"]
    assert error["extensions"]["code"] == "UNAVAILABLE" and "send it again" in error["message"]


async def test_a_rest_request_gets_its_routes_shape() -> None:
    sent, _ = await run_cancelled(hanging, "/v3/workspaces")
    assert sent[0]["status"] == 503 and "stopped before" in body(sent)["detail"]


async def test_a_response_already_started_is_cut_off_as_before() -> None:
    sent, raised = await run_cancelled(started_then_hanging, "/graphql")
    assert isinstance(raised, asyncio.CancelledError)
    assert [m["type"] for m in sent] == ["http.response.start"]
