"""Start-up warm-up: searches and one read that bring a freshly started Neo4j up to speed.

The first searches on a restarted server are several times slower than later ones: the plans,
the JIT and Lucene's structures are cold, and the page cache lacks the message properties a
search reads. In a lab on 1M messages (1,000 sessions, 100 peers; the operating system's file
cache warm; 60 fresh vector searches of each kind) the first whole-workspace searches took
117 ms at p95 and those of peers above 10,000 messages 627 ms. 200 searches of random
directions brought the workspace's to 49 ms but left peers at 95; a read of the properties
checked after the index brought peers to 81 but left the workspace at 125; both gave 47 and
55. Searching with the vectors of stored messages drawn at random instead (real queries land
near the data, random directions do not), then reading the vectors too, which the exact scan of
a small session compares, gave 40 and 43 (70 s in all; after 300 warm-up queries, the bench
measured 41 and 39: docs/BENCHMARKS.md, bench:api-warm).
So the warm-up does that, within a time budget, in the API's background: searches are answered
meanwhile, only slower. Each warm-up search runs both halves, as `searchMessages` does: the
fulltext index is as cold as the vector index. Beliefs (what the dialectic, `context` and
`searchObservations` search) get the same treatment after the messages, with what the budget
leaves: the largest representations searched with drawn beliefs' vectors, then a read.
"""

from __future__ import annotations

import math
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from graph.db import Database
from graph.keys import scope_key
from graph.repo import message_search, observation_search, warmup
from graph.repo.messages import MessageFilter
from graph.repo.observation_search import ObservationQuery
from graph.repo.warmup import Observes, SentBy
from reasoners.search.hybrid import pool_size

# The largest senders and their workspaces are searched in turn: the slowest scopes when cold.
WARMUP_PEERS = 20
# At most this many message searches (half whole workspaces, half peers); the budget may stop
# them first.
WARMUP_SEARCHES = 200
# The largest representations, and at most this many belief searches over them.
WARMUP_VIEWS = 20
WARMUP_BELIEF_SEARCHES = 100
SEARCH_LIMIT = 10
TEXT_WORDS = 12
# Messages or beliefs looked at, in id order, to draw one of the scope (graph/repo/warmup.py).
SAMPLE_SCAN = 10_000

Scope = TypeVar("Scope")


class WarmupTarget(Protocol):
    async def largest_peers(self, limit: int, seconds: float) -> list[SentBy] | None: ...

    async def search_messages(
        self, scope: tuple[str, str | None], sample_from: str, fallback: list[float]
    ) -> bool:
        """One search of the scope (a workspace, or a peer in it) with the vector of a stored
        message drawn from `sample_from` on, or `fallback` if none was found; True if drawn."""
        ...

    async def read_messages(self, seconds: float) -> int | None: ...

    async def largest_views(self, limit: int, seconds: float) -> list[Observes] | None: ...

    async def search_observations(
        self, view: Observes, sample_from: str, fallback: list[float]
    ) -> bool:
        """One belief search of the representation, as `search_messages` does for messages."""
        ...

    async def read_observations(self, seconds: float) -> int | None: ...


def _words(content: str) -> str:
    return " ".join(content.split()[:TEXT_WORDS])


@dataclass(frozen=True)
class Neo4jWarmup:
    db: Database

    async def largest_peers(self, limit: int, seconds: float) -> list[SentBy] | None:
        return await warmup.largest_peers(self.db, limit, seconds)

    async def search_messages(
        self, scope: tuple[str, str | None], sample_from: str, fallback: list[float]
    ) -> bool:
        workspace, peer = scope
        drawn = await warmup.sample_message_vector(
            self.db, workspace, peer, sample_from, SAMPLE_SCAN
        )
        vector = fallback if drawn is None else drawn
        filters = MessageFilter(peer=peer)
        found = await message_search.vector_candidates(
            self.db, workspace, vector, filters, SEARCH_LIMIT
        )
        if found:
            # The fulltext half too, as every search runs both: with the words of the nearest
            # message found, so that the query's terms are in the index.
            await message_search.text_candidates(
                self.db,
                workspace,
                _words(found[0][0].content),
                filters,
                pool_size(SEARCH_LIMIT),
                embedding=vector,
            )
        return drawn is not None

    async def read_messages(self, seconds: float) -> int | None:
        return await warmup.read_message_properties(self.db, seconds)

    async def largest_views(self, limit: int, seconds: float) -> list[Observes] | None:
        return await warmup.largest_views(self.db, limit, seconds)

    async def search_observations(
        self, view: Observes, sample_from: str, fallback: list[float]
    ) -> bool:
        key = scope_key(view.workspace, view.observer, view.observed)
        drawn = await warmup.sample_observation_vector(self.db, key, sample_from, SAMPLE_SCAN)
        vector = fallback if drawn is None else drawn
        query = ObservationQuery(view.observer, view.observed)
        found = await observation_search.vector_candidates(
            self.db, view.workspace, vector, query, SEARCH_LIMIT
        )
        if found:
            await observation_search.text_candidates(
                self.db,
                view.workspace,
                _words(found[0][0].content),
                query,
                pool_size(SEARCH_LIMIT),
                embedding=vector,
            )
        return drawn is not None

    async def read_observations(self, seconds: float) -> int | None:
        return await warmup.read_observation_properties(self.db, seconds)


@dataclass(frozen=True)
class PartReport:
    """What the warm-up did for one kind of node (messages or beliefs)."""

    searches: int = 0
    drawn: int = 0  # searches with a stored node's vector (the others: a random direction)
    read: int | None = None  # nodes read; None: the budget ended before or during the read


@dataclass(frozen=True)
class WarmupReport:
    messages: PartReport
    observations: PartReport
    seconds: float

    @property
    def complete(self) -> bool:
        return self.messages.read is not None and self.observations.read is not None


def random_direction(rng: random.Random, dimension: int) -> list[float]:
    """A uniformly random unit vector, for a scope where nothing could be drawn."""
    v = [rng.gauss(0.0, 1.0) for _ in range(dimension)]
    norm = math.sqrt(sum(x * x for x in v)) or 1.0
    return [x / norm for x in v]


def search_plan(peers: list[SentBy], searches: int) -> list[tuple[str, str | None]]:
    """(workspace, peer or None) per search: whole workspaces and peers alternate, each list
    taken in turn from the largest."""
    if not peers:
        return []
    workspaces = list(dict.fromkeys(p.workspace for p in peers))
    plan: list[tuple[str, str | None]] = []
    for i in range(searches):
        if i % 2 == 0:
            plan.append((workspaces[(i // 2) % len(workspaces)], None))
        else:
            p = peers[(i // 2) % len(peers)]
            plan.append((p.workspace, p.peer))
    return plan


def view_plan(views: list[Observes], searches: int) -> list[Observes]:
    """The representation of each belief search: in turn from the largest."""
    return [views[i % len(views)] for i in range(searches)] if views else []


async def warm_up(
    target: WarmupTarget,
    dimension: int,
    budget: float,
    *,
    searches: int = WARMUP_SEARCHES,
    belief_searches: int = WARMUP_BELIEF_SEARCHES,
    seed: int = 0,
    clock: Callable[[], float] = time.monotonic,
) -> WarmupReport:
    """Searches of the largest message scopes, the read of every message's searched properties,
    then the same for beliefs, until `budget` seconds have passed (a read under way is then cut
    short by the server)."""
    start = clock()

    def left() -> float:
        return budget - (clock() - start)

    rng = random.Random(seed)

    async def part(
        plan: Sequence[Scope],
        search: Callable[[Scope, str, list[float]], Awaitable[bool]],
        read: Callable[[float], Awaitable[int | None]],
    ) -> PartReport:
        done = drawn = 0
        for scope in plan:
            if left() <= 0:
                break
            # Ids are random UUIDs: a random one to start from draws a node at random.
            sample_from = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            drawn += await search(scope, sample_from, random_direction(rng, dimension))
            done += 1
        return PartReport(done, drawn, await read(left()) if left() > 0 else None)

    messages = observations = PartReport()
    if left() > 0:
        peers = await target.largest_peers(WARMUP_PEERS, left())
        plan = search_plan(peers or [], searches)
        messages = await part(plan, target.search_messages, target.read_messages)
    if left() > 0:
        views = await target.largest_views(WARMUP_VIEWS, left())
        observations = await part(
            view_plan(views or [], belief_searches),
            target.search_observations,
            target.read_observations,
        )
    return WarmupReport(messages, observations, clock() - start)
