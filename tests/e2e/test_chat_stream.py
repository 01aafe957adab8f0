"""The chatStream subscription over a real WebSocket (graphql-transport-ws).

The app runs under uvicorn inside the test's event loop, over the test services with a scripted
LLM (the served `beliefgraph serve` of test_served_app has no way to take one), and a
`websockets` client talks to it as an app would.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import uvicorn

from graph.repo import messages
from graph.repo.sessions import MemberSettings
from reasoners.llm.interface import ChatMessage, ToolCall
from resolvers.app import create_app
from resolvers.services import Services
from tests.e2e.conftest import free_port
from tests.e2e.graphql_ws import subscribe
from tests.fakes.llm import ScriptedLLM, word_deltas
from tests.integration.derive_helpers import (
    echo_deriver,
    flush_and_drain,
    make_peers,
    make_session,
    post,
    worker_for,
)

pytestmark = pytest.mark.e2e
MADE_UP = "00000000-0000-0000-0000-000000000000"  # an id no tool showed

CHAT_STREAM = """
subscription($w: String!, $q: String!, $l: ReasoningLevel! = LOW) {
  chatStream(workspace: $w, peer: "bob", target: "alice", query: $q, reasoningLevel: $l) {
    delta done mode answer
    citations { observations { id content } messages { id span message { content } } }
  }
}"""


@asynccontextmanager
async def served(services: Services) -> AsyncIterator[str]:
    """The app over `services` on a free port; yields its WebSocket URL."""
    port = free_port()
    config = uvicorn.Config(
        create_app(services.settings, services),
        host="127.0.0.1",
        port=port,
        lifespan="off",
        ws="websockets-sansio",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()  # start-up failed: raise its error
            await asyncio.sleep(0.02)
        yield f"ws://127.0.0.1:{port}/graphql"
    finally:
        server.should_exit = True
        await task


@pytest.fixture
async def world(services: Services, workspace: str) -> str:
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(
        services,
        workspace,
        "s1",
        ("alice", "I play the cello every Sunday with a quartet."),
        ("bob", "Which piece are you rehearsing?"),
        ("alice", "Elgar's cello concerto, slowly."),
    )
    await flush_and_drain(
        services, workspace, worker_for(services, workspace, ScriptedLLM({"deriver": echo_deriver}))
    )
    return workspace


def events(received: list[dict[str, Any]]) -> list[dict[str, Any]]:
    assert received[-1] == {"id": "1", "type": "complete"}, received[-1]
    body = received[:-1]
    assert all(m["type"] == "next" and not m["payload"].get("errors") for m in body), body
    return [m["payload"]["data"]["chatStream"] for m in body]


async def test_chat_stream_sends_deltas_then_citations_then_completes(
    services: Services, world: str
) -> None:
    answer = {"text": ""}

    def final(messages: list[ChatMessage], schema: Any) -> str:
        tool_text = next(str(m["content"]) for m in reversed(messages) if m["role"] == "tool")
        [message_id] = re.findall(r"\[msg:([0-9a-f-]+)\]", tool_text)
        answer["text"] = (
            f"alice is rehearsing Elgar's cello concerto [msg:{message_id}] [obs:{MADE_UP}]."
        )
        return answer["text"]

    llm = ScriptedLLM(
        {
            # Two tool turns spend the low budget; the third reply is the streamed answer.
            "dialectic-low": [
                [ToolCall("a", "search_observations", {"query": "cello practice"})],
                [ToolCall("b", "grep_messages", {"text": "elgar"})],
                final,
            ]
        }
    )
    async with served(dataclasses.replace(services, llm=llm)) as url:
        received = await subscribe(url, CHAT_STREAM, {"w": world, "q": "What is alice rehearsing?"})
    stream = events(received)

    *deltas, last = stream
    assert len(deltas) == len(word_deltas(answer["text"])) > 1
    assert all(not d["done"] and d["citations"] is None for d in deltas)
    assert "".join(d["delta"] for d in deltas) == answer["text"]
    assert last["done"] is True and last["delta"] is None and last["mode"] == "scripted"
    # The last event's answer is the text without the marker no tool showed.
    assert last["answer"] == answer["text"].replace(f" [obs:{MADE_UP}]", "")
    assert all(d["answer"] is None for d in deltas)
    [cited] = last["citations"]["messages"]
    assert cited["message"]["content"] == "Elgar's cello concerto, slowly."
    stored = await messages.get(
        services.db, world, re.findall(r"msg:([0-9a-f-]+)", answer["text"])[0]
    )
    assert cited["id"] == stored.id and cited["span"] in stored.content
    assert [c.kind for c in llm.calls] == ["chat", "chat", "stream"]


async def test_chat_stream_without_a_model_streams_the_evidence(
    services: Services, world: str
) -> None:
    async with served(services) as url:
        received = await subscribe(url, CHAT_STREAM, {"w": world, "q": "Does alice play music?"})
    [delta, last] = events(received)
    assert delta["delta"].startswith("No language model is configured; here is the evidence")
    assert last["done"] is True and last["mode"] == "extractive"
    cited = last["citations"]["observations"]
    assert cited and all(f"[obs:{o['id']}]" in delta["delta"] for o in cited)


async def test_chat_stream_reports_errors_with_their_code(services: Services, world: str) -> None:
    async with served(services) as url:
        too_long = await subscribe(url, CHAT_STREAM, {"w": world, "q": "x" * 10_001})
        unknown = await subscribe(url, CHAT_STREAM, {"w": f"{world}-gone", "q": "Anything?"})
    for received, code, text in (
        (too_long, "INVALID_INPUT", "10001 characters; the limit is 10000"),
        (unknown, "NOT_FOUND", "does not exist"),
    ):
        [error_event, done] = received
        assert done == {"id": "1", "type": "complete"}
        [error] = error_event["payload"]["errors"]
        assert error["extensions"]["code"] == code and text in error["message"]
