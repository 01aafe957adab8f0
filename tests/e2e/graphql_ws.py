"""A GraphQL subscription over WebSocket (graphql-transport-ws), as an app would open one."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import websockets


async def subscribe(
    url: str, query: str, variables: dict[str, Any], *, timeout: float = 30.0
) -> list[dict[str, Any]]:
    """Every protocol message after the subscribe, up to and including `complete` (or
    `error`); waits at most `timeout` seconds for each."""
    received: list[dict[str, Any]] = []
    async with websockets.connect(url, subprotocols=["graphql-transport-ws"]) as ws:  # type: ignore[list-item]
        await ws.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await ws.recv())["type"] == "connection_ack"
        payload = {"query": query, "variables": variables}
        await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        while True:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout))
            received.append(message)
            if message["type"] in ("complete", "error"):
                return received
