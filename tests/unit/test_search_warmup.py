"""The start-up warm-up's plan and budget, against a scripted target and clock; and how a
server-side transaction timeout reaches `Database.read_within`."""

from __future__ import annotations

import math
import random
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from neo4j.exceptions import Neo4jError

from graph.db import Database
from graph.errors import InvalidInput
from graph.repo.warmup import Observes, SentBy
from graph.settings import Settings
from reasoners.search.warmup import random_direction, search_plan, view_plan, warm_up

PEERS = [SentBy("w1", "ann", 900), SentBy("w2", "bob", 500), SentBy("w1", "cy", 100)]
VIEWS = [Observes("w1", "ann", "bob", 300), Observes("w1", "bob", "bob", 20)]


@dataclass
class Clock:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now


@dataclass
class ScriptedTarget:
    clock: Clock
    peers: list[SentBy] | None = field(default_factory=lambda: list(PEERS))
    views: list[Observes] | None = field(default_factory=lambda: list(VIEWS))
    search_seconds: float = 0.0
    read_result: int | None = 42
    beliefs_read: int | None = 7
    searches: list[tuple[str, str | None]] = field(default_factory=list)
    belief_searches: list[Observes] = field(default_factory=list)
    starts: list[str] = field(default_factory=list)
    read_budgets: list[float] = field(default_factory=list)
    belief_read_budgets: list[float] = field(default_factory=list)

    def searched(self, sample_from: str, fallback: list[float]) -> None:
        assert math.isclose(sum(x * x for x in fallback), 1.0)
        assert uuid.UUID(sample_from).version == 4
        self.starts.append(sample_from)
        self.clock.now += self.search_seconds

    async def largest_peers(self, limit: int, seconds: float) -> list[SentBy] | None:
        assert limit > 0 and seconds > 0
        return self.peers

    async def search_messages(
        self, scope: tuple[str, str | None], sample_from: str, fallback: list[float]
    ) -> bool:
        self.searched(sample_from, fallback)
        self.searches.append(scope)
        return scope[1] is not None  # scripted: only peers' scopes have a message to draw

    async def read_messages(self, seconds: float) -> int | None:
        self.read_budgets.append(seconds)
        return self.read_result

    async def largest_views(self, limit: int, seconds: float) -> list[Observes] | None:
        assert limit > 0 and seconds > 0
        return self.views

    async def search_observations(
        self, view: Observes, sample_from: str, fallback: list[float]
    ) -> bool:
        self.searched(sample_from, fallback)
        self.belief_searches.append(view)
        return True

    async def read_observations(self, seconds: float) -> int | None:
        self.belief_read_budgets.append(seconds)
        return self.beliefs_read


def test_plan_alternates_workspaces_and_peers_largest_first() -> None:
    assert search_plan(PEERS, 7) == [
        ("w1", None),
        ("w1", "ann"),
        ("w2", None),
        ("w2", "bob"),
        ("w1", None),
        ("w1", "cy"),
        ("w2", None),
    ]
    assert search_plan([], 10) == []


def test_belief_searches_take_the_largest_views_in_turn() -> None:
    assert view_plan(VIEWS, 3) == [VIEWS[0], VIEWS[1], VIEWS[0]]
    assert view_plan([], 10) == []


def test_random_directions_are_unit_and_seeded() -> None:
    a = random_direction(random.Random(3), 384)
    assert len(a) == 384 and math.isclose(sum(x * x for x in a), 1.0)
    assert a == random_direction(random.Random(3), 384)
    assert a != random_direction(random.Random(4), 384)


async def test_messages_then_beliefs_each_searched_then_read_within_the_budget() -> None:
    clock = Clock()
    target = ScriptedTarget(clock, search_seconds=0.1)
    report = await warm_up(target, 384, 60.0, searches=10, belief_searches=4, clock=clock)
    m, o = report.messages, report.observations
    assert m.searches == 10 and len(target.searches) == 10
    assert m.drawn == 5  # the peers' searches
    assert o.searches == o.drawn == 4 and target.belief_searches == view_plan(VIEWS, 4)
    assert len(set(target.starts)) == 14  # a new random start each time
    assert m.read == 42 and o.read == 7 and report.complete
    # Each read gets what the searches before it left of the budget.
    assert target.read_budgets == [pytest.approx(59.0)]
    assert target.belief_read_budgets == [pytest.approx(58.6)]
    assert report.seconds == pytest.approx(1.4)


async def test_the_budget_stops_the_searches_and_skips_the_reads() -> None:
    clock = Clock()
    target = ScriptedTarget(clock, search_seconds=1.0)
    report = await warm_up(target, 384, 3.5, searches=200, clock=clock)
    assert report.messages.searches == 4  # at 0, 1, 2 and 3 s; none starts at 4 s
    assert target.read_budgets == [] and not report.complete
    assert report.observations.searches == 0 and target.belief_read_budgets == []


async def test_beliefs_get_what_the_messages_leave() -> None:
    clock = Clock()
    target = ScriptedTarget(clock, search_seconds=1.0)
    report = await warm_up(target, 384, 12.5, searches=10, belief_searches=10, clock=clock)
    assert report.messages.searches == 10 and report.messages.read == 42
    assert report.observations.searches == 3  # at 10, 11 and 12 s
    assert report.observations.read is None and not report.complete


async def test_a_read_cut_short_is_reported_incomplete() -> None:
    clock = Clock()
    target = ScriptedTarget(clock, read_result=None)
    report = await warm_up(target, 384, 10.0, searches=2, clock=clock)
    assert report.messages.searches == 2 and report.messages.read is None
    assert report.observations.read == 7 and not report.complete


async def test_an_empty_database_only_reads() -> None:
    clock = Clock()
    target = ScriptedTarget(clock, peers=[], views=[], read_result=0, beliefs_read=0)
    report = await warm_up(target, 384, 10.0, clock=clock)
    assert report.messages.searches == report.observations.searches == 0
    assert target.searches == [] and target.belief_searches == []
    assert report.messages.read == report.observations.read == 0 and report.complete


async def test_no_budget_does_nothing() -> None:
    clock = Clock()
    target = ScriptedTarget(clock)
    report = await warm_up(target, 384, 0.0, clock=clock)
    assert report.messages.searches == report.observations.searches == 0
    assert target.read_budgets == target.belief_read_budgets == [] and not report.complete


# read_within: a server-side timeout needs a statement that runs for seconds (Neo4j checks
# transaction deadlines every couple of seconds), which no small test graph has; so the
# server's error is scripted here, in the form the driver raises it.
def server_error(code: str) -> Neo4jError:
    return Neo4jError._hydrate_neo4j(code=code, message="scripted")


class FailingSession:
    def __init__(self, error: Exception) -> None:
        self.error = error

    async def execute_read(self, work: Callable[..., Awaitable[Any]]) -> Any:
        raise self.error


class FailingDriver:
    def __init__(self, error: Exception) -> None:
        self.error = error

    @asynccontextmanager
    async def session(self, database: str) -> AsyncIterator[FailingSession]:
        yield FailingSession(self.error)


@pytest.mark.parametrize(
    "code",
    [
        "Neo.ClientError.Transaction.TransactionTimedOut",
        "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration",
    ],
)
async def test_read_within_turns_a_timeout_into_none(code: str) -> None:
    db = Database(FailingDriver(server_error(code)), "neo4j")  # type: ignore[arg-type]
    assert await db.read_within(1.0, "read_message_properties") is None


async def test_read_within_raises_other_client_errors() -> None:
    error = server_error("Neo.ClientError.Statement.SyntaxError")
    db = Database(FailingDriver(error), "neo4j")  # type: ignore[arg-type]
    with pytest.raises(Neo4jError):
        await db.read_within(1.0, "read_message_properties")


@pytest.mark.parametrize("raw", ["-1", "3601", "nan", "inf", "soon"])
def test_a_bad_budget_is_refused_at_start(raw: str) -> None:
    with pytest.raises(InvalidInput, match="BELIEFGRAPH_WARMUP_SECONDS"):
        Settings.from_env({"BELIEFGRAPH_WARMUP_SECONDS": raw})


def test_zero_turns_the_warm_up_off_and_the_default_is_ninety_seconds() -> None:
    assert Settings.from_env({"BELIEFGRAPH_WARMUP_SECONDS": "0"}).warmup_seconds == 0.0
    assert Settings.from_env({}).warmup_seconds == 90.0
