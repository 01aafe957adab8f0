"""The start-up warm-up on a real Neo4j: what it reads and searches, and how `serve`'s app runs
it in the background (reasoners/search/warmup.py)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from starlette.types import ASGIApp, Message

from graph.keys import scope_key
from graph.repo import message_search, observation_search
from graph.repo import warmup as warmup_repo
from graph.repo.messages import MessageFilter
from graph.repo.observation_search import ObservationQuery
from reasoners.search.warmup import Neo4jWarmup, warm_up
from resolvers.app import create_app
from resolvers.services import Services
from tests.integration.test_read_path import FACTS, seed_beliefs
from tests.integration.test_retrieval_core import seed_messages


async def test_largest_peers_counts_what_each_peer_sent(services: Services, workspace: str) -> None:
    await seed_messages(services, workspace)
    peers = await warmup_repo.largest_peers(services.db, 100_000, 30.0)
    assert peers is not None
    assert [p.sent for p in peers] == sorted((p.sent for p in peers), reverse=True)
    mine = {p.peer: p.sent for p in peers if p.workspace == workspace}
    assert mine == {"alice": 3, "bob": 1, "carol": 1}


async def test_largest_views_count_the_beliefs_written_into_each(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    views = await warmup_repo.largest_views(services.db, 100_000, 30.0)
    assert views is not None
    assert [v.beliefs for v in views] == sorted((v.beliefs for v in views), reverse=True)
    mine = {(v.observer, v.observed): v.beliefs for v in views if v.workspace == workspace}
    assert mine == {pair: len(facts) for pair, facts in FACTS.items()}


async def test_the_warm_up_searches_then_reads_every_message_and_belief(
    services: Services, workspace: str
) -> None:
    await seed_messages(services, workspace)
    await seed_beliefs(services, workspace)
    report = await warm_up(
        Neo4jWarmup(services.db),
        services.settings.embedding_dim,
        60.0,
        searches=6,
        belief_searches=4,
    )
    m, o = report.messages, report.observations
    assert m.searches == 6 and o.searches == 4
    # Every scope searched holds messages or beliefs, so each search could draw one (ids from a
    # random start on: where none is in scope after it, a random direction stands in).
    assert 0 < m.drawn <= 6 and 0 < o.drawn <= 4
    assert report.complete and m.read is not None and m.read >= 5
    assert o.read is not None and o.read >= sum(len(f) for f in FACTS.values())


async def test_a_drawn_belief_is_one_of_the_view(services: Services, workspace: str) -> None:
    await seed_beliefs(services, workspace)
    db = services.db
    first = "00000000-0000-4000-8000-000000000000"
    key = scope_key(workspace, "carol", "alice")
    vector = await warmup_repo.sample_observation_vector(db, key, first, 1_000_000)
    [(belief, score)] = await observation_search.exact(
        db, workspace, vector or [], ObservationQuery("carol", "alice"), 1
    )
    assert belief.content == FACTS[("carol", "alice")][0] and score > 0.999
    # No belief of a view among the ids looked at, or none at all: nothing drawn.
    nobody = scope_key(workspace, "alice", "nobody")
    assert await warmup_repo.sample_observation_vector(db, nobody, first, 1_000_000) is None
    last = "ffffffff-ffff-4fff-bfff-ffffffffffff"
    assert await warmup_repo.sample_observation_vector(db, key, last, 1_000_000) is None


async def test_a_drawn_vector_is_a_message_of_the_scope(services: Services, workspace: str) -> None:
    await seed_messages(services, workspace)
    db = services.db
    # From the lowest id on, within a scan as large as the database: the scope's first message.
    first = "00000000-0000-4000-8000-000000000000"
    vector = await warmup_repo.sample_message_vector(db, workspace, "bob", first, 1_000_000)
    [bob] = await message_search.exact_scan(
        db, workspace, vector or [], MessageFilter(peer="bob"), 1
    )
    assert bob[0].content == "My bicycle has a flat tyre again." and bob[1] > 0.999
    # A scope with no message among the ids looked at, or none at all: nothing drawn.
    assert (
        await warmup_repo.sample_message_vector(db, workspace, "nobody", first, 1_000_000) is None
    )
    last = "ffffffff-ffff-4fff-bfff-ffffffffffff"
    assert await warmup_repo.sample_message_vector(db, workspace, None, last, 1_000_000) is None


@asynccontextmanager
async def lifespan(app: ASGIApp) -> AsyncIterator[None]:
    """Runs the app's start-up and, on exit, its shutdown, as a server would."""
    messages: asyncio.Queue[Message] = asyncio.Queue()
    started = asyncio.Event()
    stopped = asyncio.Event()
    await messages.put({"type": "lifespan.startup"})

    async def send(message: Message) -> None:
        if message["type"].startswith("lifespan.startup"):
            assert message["type"] == "lifespan.startup.complete", message
            started.set()
        elif message["type"].startswith("lifespan.shutdown"):
            stopped.set()

    task = asyncio.create_task(
        app({"type": "lifespan", "asgi": {"version": "3.0"}}, messages.get, send)
    )
    await asyncio.wait_for(started.wait(), 30)
    try:
        yield
    finally:
        await messages.put({"type": "lifespan.shutdown"})
        await asyncio.wait_for(stopped.wait(), 30)
        await task


async def health(app: ASGIApp) -> dict[str, Any]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        response = await http.get("/health")
    assert response.status_code == 200
    body: dict[str, Any] = response.json()
    return body


async def test_serve_warms_up_in_the_background_and_says_so(
    services: Services, workspace: str, caplog: pytest.LogCaptureFixture
) -> None:
    await seed_messages(services, workspace)
    settings = dataclasses.replace(services.settings, warmup_seconds=60.0)
    app = create_app(settings, dataclasses.replace(services, settings=settings), warm_up=True)
    with caplog.at_level(logging.INFO, logger="resolvers.app"):
        async with lifespan(app):
            # Start-up did not wait for it: the app answers while it runs.
            assert (await health(app))["warming"] is True
            for _ in range(600):
                if not (await health(app))["warming"]:
                    break
                await asyncio.sleep(0.1)
            assert (await health(app))["warming"] is False
    [done] = [r.getMessage() for r in caplog.records if "search warm-up" in r.getMessage()]
    assert "200 message searches" in done and "messages read" in done
    assert "belief searches" in done and "beliefs read" in done


async def test_shutdown_stops_a_warm_up_in_progress(services: Services) -> None:
    settings = dataclasses.replace(services.settings, warmup_seconds=3600.0)
    app = create_app(settings, dataclasses.replace(services, settings=settings), warm_up=True)
    async with lifespan(app):
        assert (await health(app))["warming"] is True
    # Leaving the block ran the shutdown, which cancelled the warm-up instead of awaiting it.


@pytest.mark.parametrize("seconds", [0.0, 60.0])
async def test_apps_not_asked_to_warm_up_never_do(services: Services, seconds: float) -> None:
    settings = dataclasses.replace(services.settings, warmup_seconds=seconds)
    app = create_app(
        settings, dataclasses.replace(services, settings=settings), warm_up=seconds == 0
    )
    async with lifespan(app):
        assert (await health(app))["warming"] is False
