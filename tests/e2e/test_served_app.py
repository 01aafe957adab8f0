"""The real `beliefgraph serve` over HTTP and WebSocket: the write path end to end."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from graph.settings import Settings
from tests.e2e.conftest import Served, worker_process
from tests.e2e.graphql_ws import subscribe

pytestmark = pytest.mark.e2e


def gql(url: str, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    response = httpx.post(f"{url}/graphql", json={"query": query, "variables": variables or {}})
    body: dict[str, Any] = response.json()
    assert not body.get("errors"), body
    data: dict[str, Any] = body["data"]
    return data


async def test_messages_to_observations_with_a_status_subscription(
    served: Served, test_settings: Settings, neo4j_password: str
) -> None:
    server = served.url
    workspace = f"e2e-{int(time.time() * 1000)}"
    gql(server, "mutation($w: String!) { createWorkspace(name: $w) { name } }", {"w": workspace})
    with worker_process(test_settings, neo4j_password, workspace):
        await _derive_through_the_api(server, workspace)


async def _derive_through_the_api(server: str, workspace: str) -> None:
    for peer in ("nina", "agent"):
        gql(
            server,
            "mutation($w: String!, $p: String!) { createPeer(workspace: $w, name: $p) { name } }",
            {"w": workspace, "p": peer},
        )
    gql(
        server,
        """mutation($w: String!) {
          createSession(workspace: $w, name: "s", peers: [{peer: "nina"}, {peer: "agent"}]) { name }
        }""",
        {"w": workspace},
    )
    gql(
        server,
        """mutation($w: String!) {
          addMessages(workspace: $w, session: "s", messages: [
            {peer: "nina", content: "I teach chemistry at a high school in Leeds."},
            {peer: "agent", content: "What do you enjoy most about it?"},
            {peer: "nina", content: "I love running the lab experiments with my students."}
          ]) { created }
        }""",
        {"w": workspace},
    )
    gql(server, "mutation($w: String!) { flushQueue(workspace: $w) }", {"w": workspace})

    statuses: list[dict[str, Any]] = []
    ws_url = server.replace("http://", "ws://") + "/graphql"
    received = await subscribe(
        ws_url,
        """subscription($w: String!) {
          queueStatus(workspace: $w, untilIdle: true, intervalSeconds: 0.2) {
            pending running done idle
          }
        }""",
        {"w": workspace},
    )
    assert received[-1]["type"] == "complete", received[-1]
    for message in received[:-1]:
        assert message["type"] == "next", message
        statuses.append(message["payload"]["data"]["queueStatus"])
    assert statuses[-1]["idle"] is True and statuses[-1]["done"] >= 2

    data = gql(
        server,
        """query($w: String!) {
          observations(workspace: $w, observer: "agent", observed: "nina") { nodes { content } }
        }""",
        {"w": workspace},
    )
    contents = [n["content"] for n in data["observations"]["nodes"]]
    assert any("chemistry" in c for c in contents), contents
