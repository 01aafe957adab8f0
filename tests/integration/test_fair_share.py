"""With auth on, one key holder's GraphQL operations and REST requests run a few at a time, so
one key cannot take every Neo4j connection of the process (2 sockets of 100 operations each
did: every other client's writes, the worker's claims and /health failed until it stopped)."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import httpx
import pytest

from graph.db import Database, Tx
from resolvers.app import create_app
from resolvers.auth import KeyScope, Principal, issue_key
from resolvers.fair_share import HOLDER_AT_ONCE, HOLDER_WAITING, share_of
from resolvers.graphql.context import Context
from resolvers.graphql.schema import build_schema
from resolvers.services import Services
from tests.fakes.db import Wrapping
from tests.integration.derive_helpers import make_peers
from tests.integration.dream_helpers import conversation, derive, dream_now, say, with_dreams

pytestmark = pytest.mark.integration

T = TypeVar("T")
SECRET = "fair-share-secret-0123456789abcdef"
PEERS = "query($w: String!) { peers(workspace: $w, first: 5) { nodes { name } } }"


class SlowReads(Wrapping):
    """Each read transaction takes `delay` seconds longer; counts how many run at once."""

    def __init__(self, db: Database, delay: float) -> None:
        super().__init__(db)
        self.delay = delay
        self.now = 0
        self.most = 0

    async def read(self, statement: str, /, **params: Any) -> Any:
        return await self.read_tx(lambda tx: tx.rows(statement, **params))  # type: ignore[arg-type]

    async def read_tx(self, work: Callable[[Tx], Awaitable[T]], **options: Any) -> T:
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            await asyncio.sleep(self.delay)
            return await self._db.read_tx(work, **options)
        finally:
            self.now -= 1


async def test_one_key_runs_a_few_operations_at_once(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "alice")
    slow = SlowReads(services.db, 0.2)
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    secured = dataclasses.replace(services, settings=settings, db=slow)  # type: ignore[arg-type]
    key = issue_key(SECRET, Principal(KeyScope.WORKSPACE, workspace=workspace))
    app = create_app(settings, secured)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1", timeout=60
    ) as http:

        async def ask() -> dict[str, Any]:
            r = await http.post(
                "/graphql",
                json={"query": PEERS, "variables": {"w": workspace}},
                headers={"Authorization": f"Bearer {key}"},
            )
            body: dict[str, Any] = r.json()
            return body

        answers = await asyncio.gather(*(ask() for _ in range(3 * HOLDER_AT_ONCE)))
        assert all(a.get("errors") is None for a in answers), answers
        assert 1 < slow.most <= HOLDER_AT_ONCE, slow.most
        # Past what may wait, an operation is refused at once.
        slow.most = 0
        many = await asyncio.gather(*(ask() for _ in range(HOLDER_AT_ONCE + HOLDER_WAITING + 5)))
        refused = [a["errors"][0] for a in many if a.get("errors")]
        codes = [e["extensions"]["code"] for e in refused]
        assert codes and set(codes) == {"UNAVAILABLE"} and len(codes) <= 5 + 1, codes
    assert len(secured.shares) == 0  # nothing left behind once all is done


async def test_one_key_runs_a_few_rest_requests_at_once(services: Services, workspace: str) -> None:
    """The REST routes took no share: one key's requests could take every connection."""
    await make_peers(services, workspace, "alice")
    slow = SlowReads(services.db, 0.2)
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    secured = dataclasses.replace(services, settings=settings, db=slow)  # type: ignore[arg-type]
    key = issue_key(SECRET, Principal(KeyScope.PEER, workspace=workspace, peer="alice"))
    app = create_app(settings, secured)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(
        transport=transport, base_url="http://127.0.0.1/v3", timeout=60
    ) as http:

        async def ask() -> httpx.Response:
            return await http.post(
                f"/workspaces/{workspace}/peers/alice/sessions",
                json={},
                headers={"Authorization": f"Bearer {key}"},
            )

        answers = await asyncio.gather(*(ask() for _ in range(3 * HOLDER_AT_ONCE)))
        assert {r.status_code for r in answers} == {200}, answers[0].text
        assert 1 < slow.most <= HOLDER_AT_ONCE, slow.most
        many = await asyncio.gather(*(ask() for _ in range(HOLDER_AT_ONCE + HOLDER_WAITING + 5)))
        refused = [r for r in many if r.status_code != 200]
        assert refused and {r.status_code for r in refused} == {503}, refused[0].text
        assert refused[0].headers["retry-after"] == "1"
        assert len(refused) <= 5 + 1 and "operations of a key" in refused[0].text
    assert len(secured.shares) == 0


STREAMS = {
    "chatStream": 'chatStream(workspace: $w, peer: "alice", query: "pets?") { done }',
    # Its opening reads find no such observer: the refusal comes once they ran.
    "dreamEvents": 'dreamEvents(workspace: $w, observer: "nobody", observed: "alice") '
    "{ runNumber }",
    "queueStatus": 'queueStatus(workspace: $w, peer: "alice") { pending }',
}


@pytest.mark.parametrize("stream_name", list(STREAMS))
async def test_a_stream_waits_for_its_holders_turn(
    services: Services, workspace: str, stream_name: str
) -> None:
    """chatStream took no share: one key's streams ran beside its 8 other operations; nor did
    the opening reads of the other streams (thousands of dreamEvents replaying at once)."""
    await make_peers(services, workspace, "alice")
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    secured = dataclasses.replace(services, settings=settings)
    alice = Principal(KeyScope.PEER, workspace=workspace, peer="alice")
    context = Context(secured, f"Bearer {issue_key(SECRET, alice)}")
    query = f"subscription($w: String!) {{ {STREAMS[stream_name]} }}"
    busy, free = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with share_of(secured.shares, alice):
            busy.set()
            await free.wait()

    # The streams wait however many wait (probe H: opened 330 at once, 66 ended UNAVAILABLE);
    # chatStream, an operation, is refused past the queue as any other.
    queued = 0 if stream_name == "chatStream" else HOLDER_WAITING
    holders = [asyncio.ensure_future(hold()) for _ in range(HOLDER_AT_ONCE + queued)]
    await busy.wait()
    await asyncio.sleep(0.1)  # the rest queued
    stream: Any = await build_schema(settings).subscribe(
        query, variable_values={"w": workspace}, context_value=context
    )
    first = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.5)
    assert not first.done(), first.result() if first.done() else None  # waits its turn
    free.set()
    await asyncio.gather(*holders)
    result = await asyncio.wait_for(first, 30)
    if stream_name == "dreamEvents":
        assert result.errors and "'nobody'" in result.errors[0].message, result.errors
    else:
        assert not result.errors, result.errors
    await stream.aclose()


async def test_a_dream_stream_waits_out_a_full_share(services: Services, workspace: str) -> None:
    """A live dreamEvents stream whose key had every turn taken and its queue full ended with
    UNAVAILABLE when a run came (the diff review): it reads the run at a later look."""
    dreaming = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(dreaming, workspace, "s1", "s2")
    await say(dreaming, workspace, "s1", "2024-01-05", "I live in Paris.")
    await say(dreaming, workspace, "s2", "2024-06-01", "I moved to Lisbon last month.")
    await derive(dreaming, workspace)
    settings = dataclasses.replace(dreaming.settings, auth="on", auth_secret=SECRET)
    secured = dataclasses.replace(dreaming, settings=settings)
    holder = Principal(KeyScope.WORKSPACE, workspace=workspace)
    context = Context(secured, f"Bearer {issue_key(SECRET, holder)}")
    query = (
        'subscription($w: String!) { dreamEvents(workspace: $w, observer: "agent", '
        'observed: "alice", intervalSeconds: 0.2) { runNumber } }'
    )
    stream: Any = await build_schema(settings).subscribe(
        query, variable_values={"w": workspace}, context_value=context
    )
    first = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.5)  # it has read the run count
    free, started = asyncio.Event(), asyncio.Event()

    async def hold() -> None:
        async with share_of(secured.shares, holder):
            started.set()
            await free.wait()

    holders = [asyncio.ensure_future(hold()) for _ in range(HOLDER_AT_ONCE + HOLDER_WAITING)]
    await started.wait()
    await asyncio.sleep(0.1)  # every turn taken, every place in the queue too
    await dream_now(dreaming, workspace, "agent", "alice")
    await asyncio.sleep(1.5)  # looks that found the count moved and the share full
    assert not first.done(), first.result() if first.done() else None
    free.set()
    await asyncio.gather(*holders)
    result = await asyncio.wait_for(first, 30)
    assert not result.errors and result.data["dreamEvents"]["runNumber"] == 1, result
    await stream.aclose()
