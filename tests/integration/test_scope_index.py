"""Scopes with a vector index of their own: building, using, growing, and dropping them."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pytest

from graph.db import Database, Tx
from graph.keys import Representation
from graph.records import MessageRecord
from graph.repo import jobs, observation_search, scope_index, workspaces
from graph.repo.jobs import ClaimedUnit, JobResult, NewJob
from graph.repo.messages import by_seq
from graph.repo.observation_search import ObservationQuery
from graph.repo.observation_writes import ExplicitFact, write_explicit
from graph.validation import now
from reasoners.deriver.dedup import exact_key
from reasoners.queue.worker import Prepared, Worker, WorkerConfig
from resolvers.services import Services
from tests import statements
from tests.integration.test_read_path import seed_beliefs

pytestmark = pytest.mark.integration


class RecordingDatabase(Database):
    """The same database, noting the statements each read ran."""

    def __init__(self, inner: Database) -> None:
        super().__init__(inner.driver, inner.database)
        self.reads: list[str] = []

    async def read(self, statement: str, /, **params: Any) -> list[dict[str, Any]]:
        self.reads.append(statement)
        return await super().read(statement, **params)


def fact(observer: str, content: str, vector: list[float], message: MessageRecord) -> ExplicitFact:
    """A fact about alice from `message`, as the deriver would route it to `observer`."""
    return ExplicitFact(
        observer,
        "alice",
        content,
        exact_key(content),
        vector,
        message.id,
        message.content,
        now(),
        message.session,
    )


async def add_fact(services: Services, workspace: str, content: str, session: str) -> list[str]:
    [message] = await by_seq(services.db, workspace, session, 0, 0)
    [vector] = services.embedder.embed([content])
    new = fact("bob", content, vector, message)

    async def work(tx: Tx) -> list[str]:
        return (await write_explicit(tx, workspace, [new], threshold=0.99)).created

    return await services.db.write_tx(work)


async def test_a_scope_index_is_built_used_kept_current_and_dropped(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    scope = Representation(workspace, "bob", "alice")
    assert await scope_index.published_index(services.db, scope) is None

    name = await scope_index.ensure(services.db, scope, dimensions=services.embedder.dimension)
    assert name == scope_index.scope_index_name(scope.key)
    assert await scope_index.published_index(services.db, scope) == name
    state = await services.db.read_one("find_index", name=name)
    assert state is not None and state["state"] == "ONLINE"
    assert await scope_index.ensure(services.db, scope, dimensions=384) == name  # idempotent
    # carol's view of alice is another scope: no index of its own, no label on its beliefs.
    assert (
        await scope_index.published_index(services.db, Representation(workspace, "carol", "alice"))
        is None
    )

    # A belief written after the build takes the label, so the index finds it.
    [new_id] = await add_fact(services, workspace, "Alice keeps three tortoises.", "s1")
    recording = RecordingDatabase(services.db)
    [vector] = services.embedder.embed(["pet reptiles"])
    query = ObservationQuery("bob", "alice")
    hits = await observation_search.vector_candidates(recording, workspace, vector, query, 3)
    assert recording.reads == ["search_observations_scoped"]  # one round trip
    assert hits[0][0].id == new_id
    exact = await observation_search.exact(services.db, workspace, vector, query, 3)
    assert [o.id for o, _ in hits] == [o.id for o, _ in exact]
    assert [round(s, 5) for _, s in hits] == [round(s, 5) for _, s in exact]

    # A small scope without an index: the exact scan, in the same single round trip.
    recording.reads.clear()
    carol = ObservationQuery("carol", "alice")
    small = await observation_search.vector_candidates(recording, workspace, vector, carol, 3)
    assert recording.reads == ["search_observations_scoped"] and len(small) == 1

    # Filters narrower than the page: the index rounds grow, then the exact scan answers.
    recording.reads.clear()
    narrow = ObservationQuery("bob", "alice", exclude_session_ids=["s1"])
    assert await observation_search.vector_candidates(recording, workspace, vector, narrow, 3) == []
    assert recording.reads[-1] == "search_observations_exact"
    assert "search_observations_scope_index" in recording.reads

    await workspaces.delete(services.db, workspace)
    assert await services.db.read_one("find_index", name=name) is None


async def test_scopes_are_flagged_for_an_index_once_they_outgrow_the_exact_scan(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)  # bob→alice: 4 beliefs, carol→alice: 1
    [message] = await by_seq(services.db, workspace, "s1", 0, 0)
    contents = ["Alice collects stamps.", "Alice sails on weekends."]
    vectors = services.embedder.embed(contents)
    facts = [fact("bob", c, v, message) for c, v in zip(contents, vectors, strict=True)]

    async def work(tx: Tx) -> list[tuple[str, str]]:
        outcome = await write_explicit(tx, workspace, facts, threshold=0.99, index_min=5)
        return outcome.to_index

    # The counter on the OBSERVES edge saw 4 + 2 beliefs written by the deriver.
    assert await services.db.write_tx(work) == [("bob", "alice")]
    built = await scope_index.ensure_large(services.db, workspace, dimensions=384)
    assert built == []  # ensure_large uses SCOPE_INDEX_MIN (500): nothing that large here


async def test_scope_keys_are_backfilled_and_restrict_fulltext(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    [vector] = services.embedder.embed(["Alice owns a kayak."])
    legacy = {
        "id": f"{workspace}-legacy",
        "observer": "bob",
        "observed": "alice",
        "level": "explicit",
        "content": "Alice owns a kayak.",
        "embedding": vector,
        "created_at": now(),
        "times_derived": 1,
        "stale": False,
        "facets": [],
    }
    await statements.write(
        services.db, "bench_insert_observations", workspace=workspace, observations=[legacy]
    )
    query = ObservationQuery("bob", "alice")
    before = await observation_search.text_candidates(services.db, workspace, "kayak", query, 5)
    assert before == []  # no scope_key: outside every scope's text search
    assert await scope_index.backfill_scope_keys(services.db) >= 1
    after = await observation_search.text_candidates(services.db, workspace, "kayak", query, 5)
    assert [o.id for o, _ in after] == [legacy["id"]]
    other = ObservationQuery("carol", "alice")
    assert await observation_search.text_candidates(services.db, workspace, "kayak", other, 5) == []


@dataclass
class FollowUpHandler:
    """Commits nothing but asks for follow-up work after each unit."""

    after_ran: list[str] = field(default_factory=list)
    fail: bool = False

    async def prepare(self, unit: ClaimedUnit) -> Prepared:
        async def after() -> None:
            await asyncio.sleep(0.05)
            if self.fail:
                raise RuntimeError("scripted follow-up failure")
            self.after_ran.append(unit.key)

        return Prepared(results=[JobResult(j.id) for j in unit.jobs], after=after)


async def test_follow_up_work_runs_after_the_commit_and_never_fails_the_unit(
    services: Services, workspace: str
) -> None:
    async def enqueue(tx: Tx) -> list[str]:
        job = NewJob(
            workspace=workspace,
            kind="test",
            work_unit=f"test/{workspace}/0",
            payload={},
            run_after=now(),
            session="s",
            peer="p",
        )
        return await jobs.enqueue(tx, [job, job])

    for fail in (False, True):
        await services.db.write_tx(enqueue)
        handler = FollowUpHandler(fail=fail)
        worker = Worker(services.db, {"test": handler}, WorkerConfig(workspace=workspace))
        done = await worker.drain()  # waits for the follow-ups too
        assert done >= 1 and worker.failed_units == 0
        assert handler.after_ran == ([] if fail else [f"test/{workspace}/0"] * done)


async def test_duplicates_in_an_indexed_scope_are_found_through_its_index(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    await scope_index.ensure(services.db, Representation(workspace, "bob", "alice"), dimensions=384)
    [message] = await by_seq(services.db, workspace, "s1", 0, 0)
    known = "Alice plays the bassoon in an amateur orchestra."
    [known_vector, new_vector] = services.embedder.embed([known, "Alice keeps three tortoises."])
    facts = [
        fact("bob", known, known_vector, message),  # same text: the (scope, content_key) index
        fact("bob", "Alice is a bassoonist.", known_vector, message),  # same vector: scope index
        fact("bob", "Alice keeps three tortoises.", new_vector, message),  # new to bob's view
        fact("carol", known, known_vector, message),  # carol's unindexed view: the plain scan
    ]
    recording = RecordingTx()

    async def work(tx: Tx) -> tuple[int, int]:
        recording.inner = tx
        outcome = await write_explicit(recording, workspace, facts, threshold=0.95)  # type: ignore[arg-type]
        return len(outcome.created), outcome.reinforced

    assert await services.db.write_tx(work) == (2, 2)
    assert "find_scope_duplicates_indexed" in recording.statements
    assert "find_scope_duplicates" in recording.statements  # carol's view: the plain scan
    await workspaces.delete(services.db, workspace)


@dataclass
class RecordingTx:
    """A transaction that notes which statements ran through it."""

    inner: Any = None
    statements: list[str] = field(default_factory=list)

    async def rows(self, statement: str, /, **params: Any) -> list[dict[str, Any]]:
        self.statements.append(statement)
        return list(await self.inner.rows(statement, **params))


async def test_fulltext_asks_lucene_for_more_when_filters_empty_the_page(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    [m1] = await by_seq(services.db, workspace, "s1", 0, 0)
    [m2] = await by_seq(services.db, workspace, "s2", 0, 0)
    # 56 short kayak beliefs from s1 outrank (shorter text) the 3 long ones from s2.
    short = [f"Alice kayak {n}." for n in range(56)]
    long = [
        f"Alice said a friend of hers number {n} owns an old kayak far up north." for n in range(3)
    ]
    vectors = services.embedder.embed(short + long)
    facts = [
        fact("bob", c, v, m)
        for c, v, m in zip(short + long, vectors, [m1] * 56 + [m2] * 3, strict=True)
    ]

    async def work(tx: Tx) -> None:
        await write_explicit(tx, workspace, facts, threshold=1.01)  # keep every one

    await services.db.write_tx(work)
    recording = RecordingDatabase(services.db)
    query = ObservationQuery("bob", "alice", exclude_session_ids=["s1"])
    hits = await observation_search.text_candidates(recording, workspace, "kayak", query, 3)
    assert sorted(o.content for o, _ in hits) == sorted(long)
    assert recording.reads == ["search_observations_fulltext"] * 2  # 50 hits, then 200
    everything = ObservationQuery("bob", "alice")
    recording.reads.clear()
    top = await observation_search.text_candidates(recording, workspace, "kayak", everything, 3)
    assert len(top) == 3 and recording.reads == ["search_observations_fulltext"]
