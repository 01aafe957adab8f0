"""When Neo4j goes away: /health says so within a second, requests fail fast with UNAVAILABLE,
and both recover once Neo4j is back. Uses a Neo4j instance of its own, so the suite's server
is never stopped."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import AsyncIterator

import httpx
import pytest

from graph.db import Database
from graph.server.layout import has_jars, instance_paths
from graph.server.process import ManagedNeo4j
from graph.settings import Settings
from reasoners.queue.worker import Worker, WorkerConfig
from resolvers.app import create_app
from resolvers.runtime import close_services, open_services
from resolvers.services import Services
from tests.e2e.conftest import free_port

pytestmark = pytest.mark.integration

WORKSPACE = '{ workspace(name: "w") { name } }'


@pytest.fixture
async def own(
    test_settings: Settings, services: Services
) -> AsyncIterator[tuple[ManagedNeo4j, Services]]:
    settings = dataclasses.replace(
        test_settings,
        neo4j_uri="",
        neo4j_bolt_port=free_port(),
        neo4j_http_port=free_port(),
        neo4j_heap="512m",
        neo4j_pagecache="128m",
    )
    if not has_jars(instance_paths(settings).lib):
        pytest.skip("needs the Neo4j jars (the suite's own server downloads them)")
    server = ManagedNeo4j(settings, "outage")
    server.start()
    opened = await open_services(
        settings, password=server.password(), embedder=services.embedder, tokens=services.tokens
    )
    try:
        yield server, opened
    finally:
        await close_services(opened)
        server.stop()


async def test_an_outage_is_reported_fast_and_recovered_from(
    own: tuple[ManagedNeo4j, Services], caplog: pytest.LogCaptureFixture
) -> None:
    server, services = own
    app = create_app(services.settings, services)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1", timeout=30
    ) as client:
        assert (await client.get("/health")).status_code == 200
        server.stop()

        started = time.monotonic()
        health = await client.get("/health")
        assert health.status_code == 503 and health.json()["neo4j"] is False
        assert time.monotonic() - started < 1.5

        for _ in range(3):
            started = time.monotonic()
            answer = await client.post("/graphql", json={"query": WORKSPACE})
            body = answer.json()
            assert body["errors"][0]["extensions"]["code"] == "UNAVAILABLE", body
            took = time.monotonic() - started
            assert took < services.settings.neo4j_timeout + 1.5, f"UNAVAILABLE after {took:.1f} s"
            # The driver's words (address, port, errno) stay in the log.
            assert body["errors"][0]["message"] == "Neo4j is unavailable; try again shortly"
        rest = await client.get("/v3/workspaces/w/queue/status")
        assert rest.status_code == 503
        assert rest.json() == {"detail": "Neo4j is unavailable; try again shortly"}

        # A worker waits longer between claims while they fail, and logs no traceback for each
        # (69 tracebacks in 20 s: about 15 MB of log an hour of outage).
        worker = Worker(services.db, {}, WorkerConfig(concurrency=2, poll_interval=0.05))
        stop = asyncio.Event()
        running = asyncio.create_task(worker.run(stop))
        caplog.clear()
        await asyncio.sleep(4.0)
        stop.set()
        await running
        assert [r for r in caplog.records if r.levelno >= logging.ERROR] == []
        warned = [r for r in caplog.records if "Neo4j is unavailable" in r.getMessage()]
        assert 1 <= len(warned) <= 8, len(warned)

        server.start()
        deadline = time.monotonic() + 30
        while (await client.get("/health")).status_code != 200:
            assert time.monotonic() < deadline, "no recovery within 30 s of the restart"
        body = (await client.post("/graphql", json={"query": "{ health { ok neo4j } }"})).json()
        assert body["data"]["health"] == {"ok": True, "neo4j": True}


async def test_a_neo4j_that_refuses_says_why(test_settings: Settings, neo4j_password: str) -> None:
    """A wrong password or database read as "Neo4j does not answer", though it answered."""
    cases = [
        (test_settings, "not-the-password", "it refused the user name or password"),
        (
            dataclasses.replace(test_settings, neo4j_database="nosuchdb"),
            neo4j_password,
            "it has no such database (NEO4J_DATABASE)",
        ),
        (test_settings, neo4j_password, None),
    ]
    for settings, password, why in cases:
        db = Database.connect(settings, password)
        try:
            assert await db.refusal(10) == why
        finally:
            await db.close()
