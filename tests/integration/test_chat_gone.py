"""A REST chat whose client leaves is stopped: its tool loop went on calling the language
model for nobody (plain or streamed: a stream's first event waits for the tool loop)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from typing import Any

import pytest
from starlette.requests import Request
from starlette.types import Message

from graph.errors import Unavailable
from reasoners.llm.interface import ChatMessage, ChatTurn, ToolCall, ToolSpec
from resolvers.rest.chat import chat
from resolvers.rest.http import Call
from resolvers.services import Services
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import make_peers

pytestmark = pytest.mark.integration


class SlowLLM(ScriptedLLM):
    """Asks for the peer card, slowly, on every call; `called` is set once the first began."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.called = asyncio.Event()

    async def chat(
        self,
        role: str,
        messages: list[ChatMessage],
        *,
        tools: list[ToolSpec] | None = None,
        max_tokens: int | None = None,
    ) -> ChatTurn:
        turn = await super().chat(role, messages, tools=tools, max_tokens=max_tokens)
        self.called.set()
        await asyncio.sleep(1.5)
        return turn


def leaving(workspace: str, body: dict[str, Any], once: asyncio.Event) -> Request:
    """A POST of `body` to bob's chat whose client disconnects `once` it is set (a fixed
    delay ran out before the first model call on a loaded machine)."""
    messages: list[Message] = [
        {"type": "http.request", "body": json.dumps(body).encode(), "more_body": False}
    ]

    async def receive() -> Message:
        if messages:
            return messages.pop(0)
        await once.wait()
        return {"type": "http.disconnect"}

    scope: dict[str, Any] = {
        "type": "http",
        "method": "POST",
        "path": f"/v3/workspaces/{workspace}/peers/bob/chat",
        "path_params": {"workspace": workspace, "peer": "bob"},
        "headers": [(b"content-type", b"application/json")],
        "query_string": b"",
    }
    return Request(scope, receive)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_chat_whose_client_left_calls_the_model_no_more(
    services: Services, workspace: str, stream: bool
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    card = ChatTurn(content=None, tool_calls=[ToolCall("c", "peer_card", {})])
    llm = SlowLLM({"dialectic-low": lambda messages, schema: card})
    slow = dataclasses.replace(services, llm=llm)
    body = {"query": "What does alice like?", "target": "alice", "stream": stream}
    request = leaving(workspace, body, once=llm.called)
    with pytest.raises(Unavailable, match="left before its answer"):
        await asyncio.wait_for(chat(Call(request, slow)), timeout=10)
    await asyncio.sleep(2)  # a call still going would have finished and asked again
    assert len(llm.calls_for("dialectic-low")) == 1
