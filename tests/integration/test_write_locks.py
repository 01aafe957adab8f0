"""Concurrent belief writes into the same representations do not deadlock.

The deriver's workers write explicit beliefs side by side, often into the same view of a peer,
and each write counts what it added on the view's OBSERVES edge. Neo4j takes a lock against a
relationship's deletion before a write of it; merged and counted once per belief, an edge the
write had already counted was merged again while a concurrent write held that lock and waited
for the count, and Neo4j found a deadlock, which the driver retried after about a second. These
writes run without the driver's retries, so a deadlock fails them (11 to 15 of 24 did before).

A second write of the edge in the same transaction, the dream counters by a statement of their
own after the count, deadlocked the same way in the bench (19 retries over 8 LongMemEval
conversations, none since the count and the counters are one write; the dream claim, a later
statement then too, has since joined that write). No two-transaction schedule found here
reproduces it, so the third test checks that a derivation waiting on another completes, that
both are counted, and that only the first claims a dream.
The next ones make two derivations of one fact race: the second's duplicate probe runs before
the first commits. Then a derivation races another wording of its fact in a view too large to
scan, a split's or a merge's move of the fact into its view, and a correction that states it;
the race check finds each by the number of the write that put the belief there. The last one
finishes dreams while derivations write into the same view and count again beliefs the dreams
read: a dream wrote the edge once per belief it created and again as it finished, and the
derivations waiting on it were reported deadlocked (47 and 56 of 150 in two runs of 30
rounds); once it wrote the edge only as it finished, the dreams were (29 and 30 of 30 rounds,
when the derivations also counted the beliefs the dream had cited), as a dream took those
beliefs before the edge and a derivation the edge before them.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

import pytest
from neo4j.exceptions import TransientError

from graph.db import Tx
from graph.errors import Conflict
from graph.keys import Representation, scope_key
from graph.records import DreamClaim
from graph.repo import dreams, job_admin, observations, stated_observations
from graph.repo import messages as message_repo
from graph.repo.dream_runs import ProcessedBelief, RunRecord, finish, lock
from graph.repo.dream_writes import DerivedWrite, create_derived
from graph.repo.invalidation import correct_observation
from graph.repo.observation_search import ObservationQuery
from graph.repo.observation_writes import ExplicitFact, write_explicit
from graph.repo.retrieval import OBSERVATIONS
from graph.repo.sessions import MemberSettings
from graph.repo.stated_observations import StatedBelief
from graph.validation import now
from reasoners.deriver.dedup import exact_key
from reasoners.dreamer import scheduling
from reasoners.peers.merges import Operation, _step_source
from reasoners.peers.splits import Part, _step_part
from resolvers.services import Services
from tests import statements
from tests.integration.derive_helpers import (
    make_peers,
    make_session,
    observes_counts,
    post,
    stated_belief,
)
from tests.integration.tx_helpers import while_held

pytestmark = pytest.mark.integration

WRITERS = 6
ROUNDS = 4
ITEMS = 24
SCOPES = [("alice", "alice"), ("bob", "alice")]
T = TypeVar("T")


def explicit_items(workspace: str, message_ids: list[str], reverse: bool) -> list[dict[str, Any]]:
    """ITEMS beliefs alternating between the two views, in one order or the other."""
    scopes = SCOPES[::-1] if reverse else SCOPES
    items = []
    for i in range(ITEMS):
        observer, observed = scopes[i % 2]
        items.append(
            {
                "message_id": message_ids[i % len(message_ids)],
                "span": "x",
                "props": {
                    "id": str(uuid.uuid4()),
                    "workspace": workspace,
                    "observer": observer,
                    "observed": observed,
                    "scope_key": scope_key(workspace, observer, observed),
                    "content": f"fact {i}",
                    "level": "explicit",
                    "created_at": now(),
                    "dream_pending": True,  # as the deriver writes them: no dream read them yet
                },
            }
        )
    return items


async def run_unretried(services: Services, work: Callable[[Tx], Awaitable[object]]) -> None:
    """`work` in one write transaction that the driver does not retry."""
    db = services.db
    async with db.driver.session(database=db.database) as session:
        tx = await session.begin_transaction()
        try:
            await work(Tx(tx))
            await tx.commit()
        finally:
            if not tx.closed():
                await tx.rollback()


async def unretried(services: Services, statement: str, **params: Any) -> None:
    """One statement in a write transaction that the driver does not retry."""
    await run_unretried(services, lambda tx: tx.rows(statement, **params))  # type: ignore[arg-type]


async def deadlocked(*writes: Awaitable[object]) -> list[str]:
    """Run the writes at once: what Neo4j said of each it reported deadlocked (any other error
    is raised). Its message names the locks in the cycle, which is what a failure must show."""
    results = await asyncio.gather(*writes, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException) and not isinstance(result, TransientError):
            raise result
    return [str(r.message) for r in results if isinstance(r, TransientError)]


async def bob_on_alice(services: Services, workspace: str) -> list[tuple[str, int]]:
    """(content, times derived) of bob's current beliefs about alice."""
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("bob", "alice"), after=None, limit=5
    )
    return [(o.content, o.times_derived) for o in page.items]


def stated_items(workspace: str, message_ids: list[str], reverse: bool) -> list[dict[str, Any]]:
    """The same beliefs as an app states them: their properties, no source message."""
    return [item["props"] for item in explicit_items(workspace, message_ids, reverse)]


@pytest.mark.parametrize(
    ("statement", "items"),
    [
        ("create_explicit_observations", explicit_items),
        ("create_stated_observations", stated_items),
    ],
)
async def test_concurrent_writes_into_two_views_do_not_deadlock(
    services: Services,
    workspace: str,
    statement: str,
    items: Callable[[str, list[str], bool], list[dict[str, Any]]],
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    # A message of its own per item: each gets WRITERS * ROUNDS = 24 DERIVED_FROM edges, under
    # the 50 at which Neo4j makes a node dense. With 8 messages (72 edges each) this failed about
    # once in 40 runs on a loaded machine, Neo4j naming a node lock against a relationship lock
    # (a dense-node conversion is the suspect, unconfirmed; the product retries a deadlock).
    # The edges this test is about are the OBSERVES ones.
    await post(services, workspace, "s1", *[("alice", f"Turn {i}.") for i in range(ITEMS)])
    ids = [m.id for m in await message_repo.recent(services.db, workspace, "s1", ITEMS)]
    deadlocks: list[str] = []
    for _ in range(ROUNDS):
        deadlocks += await deadlocked(
            *[
                unretried(
                    services,
                    statement,
                    workspace=workspace,
                    observations=items(workspace, ids, w % 2 == 1),
                    # Every explicit write claims a dream too: no job is enqueued here.
                    **(
                        {"idle_at": None, "dream_threshold": 1, "dream_triggers": True}
                        if statement == "create_explicit_observations"
                        else {}
                    ),
                )
                for w in range(WRITERS)
            ]
        )
    assert deadlocks == [], "\n".join(deadlocks)  # in full: the locks of each cycle
    written = ROUNDS * WRITERS * ITEMS // 2
    assert await observes_counts(services, workspace) == {scope: written for scope in SCOPES}


async def test_a_derivation_waiting_on_another_completes_and_one_dream_is_claimed(
    services: Services, workspace: str
) -> None:
    """A derivation's write claims a dream as it counts (both reach the threshold), with a
    second derivation into the same view waiting on the first's lock until the first has
    enqueued the dream and committed: both complete, both count, and only the first claims."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", "I keep bees."), ("alice", "I row too."))
    [first, second] = await message_repo.recent(services.db, workspace, "s1", 2)
    settings = replace(services.settings, dream_mode="rules", dream_threshold=1)

    def facts(message_id: str, content: str) -> list[ExplicitFact]:
        return [
            ExplicitFact(
                "bob", "alice", content, exact_key(content), [1.0] + [0.0] * 383,
                message_id, "I", now(), "s1",
            )
        ]  # fmt: skip

    async def derive(tx: Tx, message_id: str, content: str) -> list[DreamClaim]:
        outcome = await write_explicit(
            tx,
            workspace,
            facts(message_id, content),
            threshold=1.01,
            dream_threshold=scheduling.threshold(settings),
        )
        await scheduling.after_derivation(tx, settings, outcome.claims)
        return outcome.claims

    claimed: list[DreamClaim] = []
    later: list[DreamClaim] = []

    async def first_derivation(tx: Tx) -> None:
        claimed.extend(await derive(tx, first.id, "Alice keeps bees."))

    async def second_derivation(tx: Tx) -> None:
        later.extend(await derive(tx, second.id, "Alice rows."))

    await while_held(services, first_derivation, lambda: run_unretried(services, second_derivation))
    assert [(c.observer, c.observed) for c in claimed] == [("bob", "alice")]
    assert later == [], "a dream already waits: the second derivation claims none"
    assert await observes_counts(services, workspace) == {("bob", "alice"): 2}
    pending = await job_admin.list_jobs(
        services.db, workspace, session=None, peer=None, statuses=None, with_errors=False, limit=10
    )
    assert [(j.id, j.kind) for j in pending if j.kind == scheduling.DREAM] == [
        (claimed[0].job_id, scheduling.DREAM)
    ]


def unit_vector(*head: float) -> list[float]:
    vector = [*head, *[0.0] * (384 - len(head))]
    norm = sum(x * x for x in vector) ** 0.5
    return [x / norm for x in vector]


def bob_fact(observed: str, content: str, vector: list[float], message_id: str) -> ExplicitFact:
    """A fact of bob's about `observed`, as the deriver takes it from a message."""
    return ExplicitFact(
        "bob", observed, content, exact_key(content), vector, message_id, "I", now(), "s1"
    )


@dataclass
class Deriving:
    """A derivation of one fact, for write_tx: it counts how often it ran, and returns how many
    facts it counted as derived again."""

    workspace: str
    fact: ExplicitFact
    runs: int = 0

    async def __call__(self, tx: Tx) -> int:
        self.runs += 1
        return (await write_explicit(tx, self.workspace, [self.fact], threshold=0.95)).reinforced


async def test_a_belief_two_derivations_write_at_once_is_stored_once(
    services: Services, workspace: str
) -> None:
    """Two derivations of the same fact into one view, the second probing for duplicates before
    the first commits: it finds the first's belief once it holds the view, runs again, and
    counts the fact as derived again instead of storing it twice."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", "I keep bees."), ("alice", "Bees, yes."))
    [first, second] = await message_repo.recent(services.db, workspace, "s1", 2)
    content = "Alice keeps bees."
    early = Deriving(workspace, bob_fact("alice", content, unit_vector(1.0), first.id))
    late = Deriving(workspace, bob_fact("alice", content, unit_vector(1.0), second.id))
    assert await while_held(services, early, lambda: services.db.write_tx(late)) == 1
    assert late.runs == 2, "the second derivation probed before the first committed"
    assert await bob_on_alice(services, workspace) == [(content, 2)]
    assert await observes_counts(services, workspace) == {("bob", "alice"): 1}


@pytest.mark.parametrize(
    ("late_content", "late_vector", "attempts", "beliefs"),
    [
        # Another wording of the first (cosine 0.99): counted as derived again.
        ("Alice keeps honey bees.", unit_vector(1.0, 0.14), 2, [("Alice keeps bees.", 2)]),
        # Another fact (cosine 0): the race check finds no repeat and keeps it.
        ("Alice rows.", unit_vector(0.0, 1.0), 1, [("Alice keeps bees.", 1), ("Alice rows.", 1)]),
    ],
)
async def test_a_concurrent_repeat_in_a_view_too_large_to_scan_is_caught(
    services: Services,
    workspace: str,
    late_content: str,
    late_vector: list[float],
    attempts: int,
    beliefs: list[tuple[str, int]],
) -> None:
    """In a view above the exact scan limit, the duplicate probe goes through the vector index;
    the race check compares the new belief with the beliefs of the writes the probe missed, and
    only with them, exactly."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", "I keep bees."), ("alice", "Bees, yes."))
    [first, second] = await message_repo.recent(services.db, workspace, "s1", 2)
    filler = [
        stated_belief(
            workspace,
            f"Alice owns item {i}.",
            embedding=unit_vector(0.0, 0.0, *[float(j == i % 380) for j in range(380)], 0.5),
        )
        for i in range(OBSERVATIONS.exact_scan_limit + 1)
    ]
    await services.db.write("create_stated_observations", workspace=workspace, observations=filler)
    early = Deriving(workspace, bob_fact("alice", "Alice keeps bees.", unit_vector(1.0), first.id))
    late = Deriving(workspace, bob_fact("alice", late_content, late_vector, second.id))
    await while_held(services, early, lambda: services.db.write_tx(late))
    assert late.runs == attempts
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("bob", "alice"), after=None, limit=1_000
    )
    assert (
        sorted(
            (o.content, o.times_derived)
            for o in page.items
            if not o.content.startswith("Alice owns")
        )
        == beliefs
    )


async def test_a_write_that_also_moves_beliefs_out_does_not_hide_its_belief(
    services: Services, workspace: str
) -> None:
    """A concurrent transaction that states the fact and moves a belief out of the view (as a
    split does) leaves the view's belief count where the derivation read it; the derivation
    still sees that another write came in between, and counts the fact as derived again."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", "I keep bees."))
    [message] = await message_repo.recent(services.db, workspace, "s1", 1)
    content = "Alice keeps bees."
    stated = stated_belief(workspace, content)
    moved_out = {"observer": "bob", "observed": "alice", "ids": [], "left": 1}
    derive = Deriving(workspace, bob_fact("alice", content, unit_vector(1.0), message.id))

    async def state_and_move(tx: Tx) -> None:
        await tx.rows("create_stated_observations", workspace=workspace, observations=[stated])
        await tx.rows("split_observes_edges", workspace=workspace, edges=[moved_out])

    assert await while_held(services, state_and_move, lambda: services.db.write_tx(derive)) == 1
    assert derive.runs == 2, "the derivation probed before the other transaction committed"
    assert await bob_on_alice(services, workspace) == [(content, 2)]


@pytest.mark.parametrize("merge", [False, True], ids=["split", "merge"])
async def test_a_belief_a_split_or_merge_moves_in_at_once_is_stored_once(
    services: Services, workspace: str, merge: bool
) -> None:
    """A split moving a belief into the sub-peer's view (or a merge into the target's) while a
    derivation writes the same fact there: the moved belief carries the number of the split's
    or merge's write of the view, so the derivation's race check finds it and the fact is
    counted as derived again."""
    await make_peers(services, workspace, "alice", "bob", "alice-work")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", "I keep bees."))
    [message] = await message_repo.recent(services.db, workspace, "s1", 1)
    # Not led by alice's name, which a merge writes anew: the words stay as they are.
    content = "Bees are kept by Alice."
    stated = stated_belief(workspace, content, embedding=unit_vector(1.0), session="s1")
    # Its view's third write: the number it keeps is none the sub-peer's view will have given.
    for other in ("Alice rows.", "Alice sings."):
        earlier = stated_belief(workspace, other, embedding=unit_vector(0.0, 1.0), session="s2")
        await services.db.write(
            "create_stated_observations", workspace=workspace, observations=[earlier]
        )
    await services.db.write(
        "create_stated_observations", workspace=workspace, observations=[stated]
    )
    derive = Deriving(workspace, bob_fact("alice-work", content, unit_vector(1.0), message.id))

    async def move(tx: Tx) -> None:
        if merge:
            merging = Operation(["alice"], "alice-work", merge=True)
            stepping = replace(services.settings, restructure_batch=10, dedup_threshold=0.95)
            assert not await _step_source(
                tx, workspace, merging, "alice", stepping, now(), "no-job", services.embedder
            )
        else:
            assert await _step_part(tx, workspace, "alice", Part("alice-work", ["s1"]), 10, now())

    assert await while_held(services, move, lambda: services.db.write_tx(derive)) == 1
    assert derive.runs == 2, "the derivation probed before the move committed"
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("bob", "alice-work"), after=None, limit=5
    )
    assert [(o.id, o.times_derived) for o in page.items if o.content == content] == [
        (stated["id"], 2)
    ]


async def test_a_belief_a_correction_writes_at_once_is_stored_once(
    services: Services, workspace: str
) -> None:
    """A correction whose new version states the fact a derivation writes at once into the same
    view: the new version carries the number of the correction's write of the view, so the
    derivation's race check finds it and counts the fact as derived again."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", "I keep bees."))
    [message] = await message_repo.recent(services.db, workspace, "s1", 1)
    content = "Alice keeps bees."
    wrong = stated_belief(workspace, "Alice keeps wasps.", embedding=unit_vector(0.0, 1.0))
    sings = stated_belief(workspace, "Alice sings.", embedding=unit_vector(0.0, 0.0, 1.0))
    for stated in (sings, wrong):
        await services.db.write(
            "create_stated_observations", workspace=workspace, observations=[stated]
        )
    fixed = stated_belief(workspace, content, embedding=unit_vector(1.0), origin="correction")
    derive = Deriving(workspace, bob_fact("alice", content, unit_vector(1.0), message.id))

    async def correct(tx: Tx) -> None:
        await correct_observation(tx, workspace, wrong["id"], fixed, now())

    assert await while_held(services, correct, lambda: services.db.write_tx(derive)) == 1
    assert derive.runs == 2, "the derivation probed before the correction committed"
    assert await bob_on_alice(services, workspace) == [("Alice sings.", 1), (content, 2)]


CLAIM_ROUNDS = 8


@pytest.mark.parametrize("writer", ["claim on demand", "idle claim", "dream"])
async def test_an_edge_writer_waiting_beside_a_derivation_does_not_deadlock(
    services: Services, workspace: str, writer: str
) -> None:
    """A writer of the view's edge and a derivation both wait on a derivation that holds the
    edge, the writer first; when it commits, neither is reported deadlocked. The writers: a
    dream claimed on demand (scheduleDream, a merge's fresh dreams), the worker's scan for idle
    views, and a dream's transaction (its lock, its beliefs, its finish).
    The claim on demand took the edge with a lock item, then set the claim from a read of the
    edge's own dream_job, and was reported deadlocked in 5 of 10 such rounds: once a statement
    holds the edge, a later write whose right-hand side reads the edge takes its lock again,
    and with a derivation waiting for it Neo4j reports a deadlock. The idle scan and a dream's
    finish write the edge more than once too, but no later write of theirs reads it on its
    right-hand side; 10 rounds of each found no deadlock."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", *[("alice", f"Turn {i}.") for i in range(8)])
    ids = [m.id for m in await message_repo.recent(services.db, workspace, "s1", 8)]
    view = Representation(workspace, "bob", "alice")

    def derivation(idle_at: datetime | None = None) -> dict[str, Any]:
        items = explicit_items(workspace, ids, reverse=False)
        return {
            "workspace": workspace,
            "observations": [i for i in items if i["props"]["observer"] == "bob"],
            "idle_at": idle_at,
            "dream_threshold": 0,
            "dream_triggers": True,
        }

    async def claim_on_demand(tx: Tx) -> None:
        assert await dreams.claim_now(tx, view, now=now()) is not None

    async def idle_claim(tx: Tx) -> None:
        [claim] = await dreams.claim_idle(tx, now=now(), workspace=workspace, limit=10)
        assert claim.observer == "bob"

    async def dream(tx: Tx) -> None:
        stamp = now()
        await lock(tx, view)
        page = await observations.list_page(
            services.db, workspace, ObservationQuery("bob", "alice"), after=None, limit=DERIVED
        )
        beliefs = [
            DerivedWrite(str(uuid.uuid4()), "deductive", f"d {i}", unit_vector(1.0), (o.id,))
            for i, o in enumerate(page.items)
        ]
        await create_derived(tx, view, beliefs, origin="dreamer:rules", now=stamp)
        run = RunRecord(str(uuid.uuid4()), "manual", "rules", stamp, stamp, created=len(beliefs))
        read = [ProcessedBelief(o.id, None, None) for o in page.items]
        await finish(tx, view, run, read, job_ids=[], idle_at=None, threshold=1)

    writes = {"claim on demand": claim_on_demand, "idle claim": idle_claim, "dream": dream}
    db = services.db
    deadlocks: list[str] = []
    for _ in range(CLAIM_ROUNDS):
        # Committed first: the idle scan finds the view by this write's idle moment.
        await services.db.write("create_explicit_observations", **derivation(idle_at=now()))
        async with db.driver.session(database=db.database) as session:
            held = await session.begin_transaction()
            try:
                await Tx(held).rows("create_explicit_observations", **derivation())
                first = asyncio.create_task(deadlocked(run_unretried(services, writes[writer])))
                await asyncio.sleep(0.3)
                derive = asyncio.create_task(
                    deadlocked(unretried(services, "create_explicit_observations", **derivation()))
                )
                await asyncio.sleep(0.3)
                assert not first.done() and not derive.done(), "both wait for the held edge"
                await held.commit()
            finally:
                if not held.closed():
                    await held.rollback()
        deadlocks += await first + await derive
    assert deadlocks == [], "\n".join(deadlocks)  # in full: the locks of each cycle


DREAM_ROUNDS = 12
DERIVATIONS = 5  # per round, beside one dream
DERIVED = 6  # beliefs a dream writes


async def test_dreams_finishing_while_derivations_write_do_not_deadlock(
    services: Services, workspace: str
) -> None:
    """A dream's transaction (its derived beliefs, citing and then marking beliefs it read, and
    its finish) and derivations into the same view at once, each also counting one of those
    beliefs again, none retried: none is reported deadlocked, and the view counts every belief
    and every undreamed one."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", *[("alice", f"Turn {i}.") for i in range(8)])
    ids = [m.id for m in await message_repo.recent(services.db, workspace, "s1", 8)]

    async def create(tx: Tx, reverse: bool) -> None:
        await tx.rows(
            "create_explicit_observations",
            workspace=workspace,
            observations=explicit_items(workspace, ids, reverse),
            idle_at=None,
            dream_threshold=0,
            dream_triggers=True,
        )

    await run_unretried(services, lambda tx: create(tx, False))
    view = Representation(workspace, "bob", "alice")
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("bob", "alice"), after=None, limit=DERIVED
    )
    premises = [o.id for o in page.items]

    async def derive(tx: Tx, k: int) -> None:
        await create(tx, k % 2 == 1)
        repeat = {"id": premises[k], "message_id": ids[0], "span": "x"}
        await tx.rows("reinforce_observations", workspace=workspace, repeats=[repeat])

    async def dream(tx: Tx) -> None:
        stamp = now()
        await lock(tx, view)
        beliefs = [
            DerivedWrite(str(uuid.uuid4()), "deductive", f"d {i}", [1.0] + [0.0] * 383, (p,))
            for i, p in enumerate(premises)
        ]
        await create_derived(tx, view, beliefs, origin="dreamer:rules", now=stamp)
        await asyncio.sleep(0.01)  # derivations arrive before the finish
        run = RunRecord(str(uuid.uuid4()), "manual", "rules", stamp, stamp, created=len(beliefs))
        read = [ProcessedBelief(p, None, None) for p in premises]
        await finish(tx, view, run, read, job_ids=[], idle_at=None)

    deadlocks: list[str] = []
    for _ in range(DREAM_ROUNDS):
        deadlocks += await deadlocked(
            run_unretried(services, dream),
            *[run_unretried(services, partial(derive, k=k)) for k in range(DERIVATIONS)],
        )
    assert deadlocks == [], "\n".join(deadlocks)  # in full: the locks of each cycle
    explicit = (1 + DREAM_ROUNDS * DERIVATIONS) * ITEMS // 2
    assert await observes_counts(services, workspace) == {
        ("alice", "alice"): explicit,
        ("bob", "alice"): explicit + DREAM_ROUNDS * DERIVED,
    }
    # A last finish, alone, reads the counters the others left: the beliefs the dreams read
    # came off the count once, when the first dream read them (the later ones read them again,
    # uncounted: taking them off again lost beliefs derived meanwhile from the count).
    stamp = now()
    run = RunRecord(str(uuid.uuid4()), "manual", "rules", stamp, stamp)
    finished = await services.db.write_tx(
        lambda tx: finish(tx, view, run, [], job_ids=[], idle_at=None)
    )
    assert (finished.seq, finished.remaining) == (DREAM_ROUNDS + 1, explicit - DERIVED)


@dataclass
class PeerGoneBeforeTheWrite:
    """The database, with a peer deleted between a caller's checks and its write."""

    db: Any
    workspace: str
    peer: str

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)

    async def write_tx(self, work: Callable[[Tx], Awaitable[T]]) -> T:
        await statements.write(
            self.db, "delete_peer_node", workspace=self.workspace, name=self.peer
        )
        result: T = await self.db.write_tx(work)
        return result


async def test_stated_beliefs_naming_a_peer_gone_meanwhile_are_refused_whole(
    services: Services, workspace: str
) -> None:
    """The rows of a peer merged away between the check and the write were dropped, and the
    answer listed fewer beliefs than were sent, saying nothing."""
    await make_peers(services, workspace, "agent", "alice", "bob")
    [a, b] = services.embedder.embed(["alice likes tea", "bob likes coffee"])
    beliefs = [
        StatedBelief("agent", "alice", "alice likes tea", exact_key("alice likes tea"), a),
        StatedBelief("agent", "bob", "bob likes coffee", exact_key("bob likes coffee"), b),
    ]
    racing = PeerGoneBeforeTheWrite(services.db, workspace, "bob")
    with pytest.raises(Conflict, match="1 of the beliefs name a peer that no longer exists"):
        await stated_observations.create(racing, workspace, beliefs)
    query = ObservationQuery("agent", "alice")
    page = await observations.list_page(services.db, workspace, query, after=None, limit=10)
    assert page.items == []  # nothing of the batch was kept
