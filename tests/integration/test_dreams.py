"""Dreams on the real graph: scheduling, the zero-key and LLM dreamers, provenance checks in the
Cypher writes, time travel, dream runs and their events."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import itertools
import json
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import numpy as np
import pytest

from graph.db import Tx
from graph.keys import Representation, peer_key
from graph.repo import (
    dream_runs,
    dream_writes,
    dreams,
    job_admin,
    jobs,
    messages,
    observations,
    peer_cards,
)
from graph.repo.dream_runs import ProcessedBelief, RunRecord
from graph.repo.dream_writes import DerivedWrite, ProvenanceRejected
from graph.repo.messages import MessageFilter
from graph.repo.observation_search import ObservationQuery
from graph.repo.peer_cards import CardLine, card_path
from graph.validation import now
from reasoners.deriver.dedup import exact_key
from reasoners.dialectic.chat import chat
from reasoners.dialectic.evidence import View
from reasoners.dialectic.levels import DEFAULT_LEVELS
from reasoners.dreamer import scheduling
from reasoners.dreamer.apply import apply_plan
from reasoners.dreamer.handler import LLM_DREAM_BATCH, DreamHandler
from reasoners.dreamer.plan import DreamPlan, NewBelief, Supersession
from reasoners.dreamer.reconcile_rules import BeliefVerdict, ReconcileOutput
from reasoners.embeddings.model import embed_async
from reasoners.ingest.beliefs import BeliefInput, add_beliefs
from reasoners.llm.interface import LLMUnavailable
from reasoners.peers import invalidation, purge
from resolvers.graphql.context import Context
from resolvers.graphql.schema import build_schema
from resolvers.services import Services
from resolvers.shared_look import GONE, dream_counts
from tests import statements
from tests.conftest import GraphQLClient
from tests.fakes.db import CountsReads, RerunsEveryWrite
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import make_peers, post, worker_for
from tests.integration.dream_helpers import (
    all_jobs,
    belief_id,
    call,
    contents,
    conversation,
    day,
    derive,
    dream_now,
    id_of,
    runs,
    say,
    tool_results,
    turn,
    with_dreams,
)
from tests.integration.test_app_switches import configure

pytestmark = pytest.mark.integration

AGENT_ALICE = ("agent", "alice")


async def paris_then_lisbon(services: Services, workspace: str) -> None:
    await conversation(services, workspace, "s1", "s2")
    await say(services, workspace, "s1", "2024-01-05", "I live in Paris.")
    await say(services, workspace, "s2", "2024-06-01", "I moved to Lisbon last month.")
    await derive(services, workspace)


async def meat_then_not(services: Services, workspace: str) -> Services:
    """A fact and its negation from two sessions, derived; the zero-key dreamer, on demand."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1", "s2")
    await say(s, workspace, "s1", "2024-01-05", "I eat meat every day.")
    await say(s, workspace, "s2", "2024-02-05", "I don't eat meat every day.")
    await derive(s, workspace)
    return s


async def test_what_rested_on_superseded_beliefs_is_reconciled(
    services: Services, workspace: str
) -> None:
    """An induction over three "lives in Lisbon" facts stayed current, with no current premise,
    after "I live in Berlin" superseded all three."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1", "s2")
    await say(s, workspace, "s1", "2024-03-01", "I live in Lisbon.")
    await say(s, workspace, "s2", "2024-03-09", "I live in Lisbon with my family.")
    await say(s, workspace, "s2", "2024-03-10", "I live in Lisbon near the river.")
    await derive(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)
    [induction] = await contents(s, workspace, levels=["inductive"])
    assert "Lisbon" in induction
    await say(s, workspace, "s1", "2024-04-01", "I live in Berlin.")
    await derive(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)
    assert not any("Lisbon" in c for c in await contents(s, workspace))
    assert await contents(s, workspace, levels=["inductive"]) == []
    assert any("Berlin" in c for c in await contents(s, workspace))


def no_patterns(messages: Any, schema: Any) -> str:
    return "No pattern is supported."


# --- the zero-key dreamer ------------------------------------------------------------------------


async def test_zero_key_update_supersedes_and_as_of_brings_the_old_belief_back(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    before = now()
    assert any("Paris" in c for c in await contents(s, workspace))
    await dream_now(s, workspace, *AGENT_ALICE)

    current = await contents(s, workspace)
    assert any("Lisbon" in c for c in current) and not any("Paris" in c for c in current)
    assert any("Paris" in c for c in await contents(s, workspace, as_of=before))
    assert any("Paris" in c for c in await contents(s, workspace, include_superseded=True))

    paris = await belief_id(s, workspace, "Paris")
    lisbon = await belief_id(s, workspace, "Lisbon")
    detail = await observations.get_detail(s.db, workspace, lisbon)
    assert [o.id for o in detail.replaces] == [paris]
    old = await observations.get_detail(s.db, workspace, paris)
    assert [o.id for o in old.replaced_by] == [lisbon]
    assert old.observation.superseded_at is not None
    # The dialectic reads when it stopped holding: when Lisbon was stated, not today.
    query = ObservationQuery(*AGENT_ALICE, include_superseded=True)
    [read] = await observations.in_view(s.db, workspace, query, [paris])
    assert (read.replaced_by, read.replaced_on) == ([lisbon], detail.observation.valid_at)
    # As it stood before the dream, it was current: no "SUPERSEDED" then.
    then = dataclasses.replace(query, as_of=before)
    [past] = await observations.in_view(s.db, workspace, then, [paris])
    assert (past.observation.superseded_at, past.replaced_by) == (None, [])
    listed = await observations.list_page(s.db, workspace, then, after=None, limit=10)
    assert [o.superseded_at for o in listed.items if o.id == paris] == [None]
    # Paris was said in s1: a read kept to s2, or leaving s1 out, does not quote it as what
    # Lisbon replaced.
    [whole] = await observations.in_view(s.db, workspace, query, [lisbon])
    assert [r.content for r in whole.replaces] == [old.observation.content]
    for narrowed in (
        dataclasses.replace(query, session_ids=["s2"]),
        dataclasses.replace(query, exclude_session_ids=["s1"]),
    ):
        [kept] = await observations.in_view(s.db, workspace, narrowed, [lisbon])
        assert kept.replaces == []

    (run,) = await runs(s, workspace)
    assert (run.mode, run.trigger, run.superseded, run.seq) == ("rules", "manual", 1, 1)
    assert run.events[0]["kind"] == "superseded"
    assert (run.events[0]["old"]["id"], run.events[0]["new"]["id"]) == (paris, lisbon)
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert card.support == [(lisbon,)] and "Lisbon" in card.entries[0]
    # The other representation (alice's self-model) was not dreamed.
    assert any("Paris" in c for c in await contents(s, workspace, "alice", "alice"))
    # Nothing is left undreamed; dreaming again changes nothing.
    view = Representation(workspace, *AGENT_ALICE)
    assert await dreams.pending(s.db, view, limit=10, with_embeddings=False) == []
    await dream_now(s, workspace, *AGENT_ALICE)
    second, _ = await runs(s, workspace)
    assert (second.seq, second.observations, second.events) == (2, 0, [])


async def test_a_value_stated_again_after_another_holds_from_then(
    services: Services, workspace: str
) -> None:
    """ "I live in Lisbon" (January), "I live in Berlin" (March), "I live in Lisbon" again
    (June), dreamed together: the June repeat joined the January belief, whose date alone the
    dream compared, and Berlin was kept as the later value."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1")
    await say(s, workspace, "s1", "2024-01-10", "I live in Lisbon.")
    await say(s, workspace, "s1", "2024-03-10", "I live in Berlin.")
    await say(s, workspace, "s1", "2024-06-10", "I live in Lisbon.")
    await derive(s, workspace)
    lisbon = await belief_id(s, workspace, "Lisbon")
    berlin = await belief_id(s, workspace, "Berlin")
    detail = await observations.get_detail(s.db, workspace, lisbon)
    assert detail.observation.times_derived == 2  # one belief, stated twice
    await dream_now(s, workspace, *AGENT_ALICE)
    current = await contents(s, workspace)
    assert any("Lisbon" in c for c in current) and not any("Berlin" in c for c in current)
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert card.support == [(lisbon,)]
    # Berlin stopped holding in June, when Lisbon was said again, not in January.
    query = ObservationQuery(*AGENT_ALICE, include_superseded=True)
    [read] = await observations.in_view(s.db, workspace, query, [berlin])
    assert read.replaced_by == [lisbon]
    assert read.replaced_on is not None and read.replaced_on.date().isoformat() == "2024-06-10"
    # And from Lisbon's side: Berlin was current until June.
    [new] = await observations.in_view(s.db, workspace, query, [lisbon])
    [replaced] = new.replaces
    assert replaced.until is not None and replaced.until.date().isoformat() == "2024-06-10"


async def test_a_dream_written_again_counts_once(services: Services, workspace: str) -> None:
    """The dreamer's counters were added to inside its write transaction, so a dream whose
    transaction ran again (a deadlock, a lost race) counted twice."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    await scheduling.on_demand(s.db, s.settings, Representation(workspace, *AGENT_ALICE))
    db = RerunsEveryWrite(s.db)
    worker = worker_for(s, workspace, None, db=db)
    await worker.drain()
    assert db.reruns > 0
    (run,) = await runs(s, workspace)
    dreamer = worker.handlers["dream"]
    assert isinstance(dreamer, DreamHandler)
    stats = dreamer.stats
    assert (stats.runs, stats.superseded, stats.created) == (1, run.superseded, run.created)
    assert run.superseded == 1


async def test_zero_key_contradiction_is_flagged_once_with_both_premises(
    services: Services, workspace: str
) -> None:
    s = await meat_then_not(services, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)
    await dream_now(s, workspace, *AGENT_ALICE)
    contradictions = await contents(s, workspace, levels=["contradiction"])
    assert len(contradictions) == 1 and "conflicts with" in contradictions[0]
    detail = await observations.get_detail(
        s.db, workspace, await belief_id(s, workspace, "Contradiction")
    )
    assert len(detail.premises) == 2 and detail.observation.origin == "dreamer:rules"


@pytest.mark.parametrize("recorded", [True, False], ids=["recorded", "searched"])
async def test_zero_key_induction_from_near_identical_facts_across_sessions(
    services: Services, workspace: str, recorded: bool
) -> None:
    """The deriver records each fact's near neighbours (facts of the same write included) and
    the dream reads them; facts written without that record are searched for instead."""
    deriving = with_dreams(services, dream_mode="rules" if recorded else "off")
    await conversation(deriving, workspace, "s1", "s2")
    await say(
        deriving,
        workspace,
        "s1",
        "2024-03-01",
        "I go running before work.",
        "I run before work most mornings.",
    )
    await derive(deriving, workspace)
    await say(deriving, workspace, "s2", "2024-03-09", "I went running before work today.")
    await derive(deriving, workspace)

    view = Representation(workspace, *AGENT_ALICE)
    pending = await dreams.pending(services.db, view, limit=10, with_embeddings=True)
    running = [b for b in pending if "run" in b.content]
    assert len(running) == 3
    if recorded:
        assert all(b.near is not None and not b.embedding for b in running)
        linked = {frozenset((b.id, other)) for b in running for other, _ in b.near or ()}
        vectors = await embed_async(services.embedder, [b.content for b in running])
        expected = {
            frozenset((running[i].id, running[j].id))
            for i, j in itertools.combinations(range(3), 2)
            if float(np.dot(vectors[i], vectors[j])) >= services.settings.dream_similarity
        }
        assert len(expected) >= 2 and linked == expected
    else:
        assert all(b.near is None and b.embedding for b in running)

    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await dream_now(s, workspace, *AGENT_ALICE)
    (induction,) = await contents(s, workspace, levels=["inductive"])
    assert induction.startswith("A recurring pattern (3 times across 2 sessions)")
    detail = await observations.get_detail(
        s.db, workspace, await belief_id(s, workspace, "A recurring pattern")
    )
    assert {p.id for p in detail.premises} == {b.id for b in running}
    after = await dreams.pending(s.db, view, limit=10, with_embeddings=False)
    assert after == []


# --- the LLM dreamer -----------------------------------------------------------------------------


async def test_llm_knowledge_update_creates_supersedes(services: Services, workspace: str) -> None:
    await paris_then_lisbon(services, workspace)

    def deduction(messages: Any, schema: Any) -> Any:
        if not tool_results(messages):
            return turn(
                call(
                    "update_belief",
                    old_id=id_of(messages, "Paris"),
                    new_id=id_of(messages, "Lisbon"),
                )
            )
        assert tool_results(messages)[-1].startswith("accepted"), tool_results(messages)
        return "alice moved from Paris to Lisbon."

    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": no_patterns})
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)
    current = await contents(services, workspace)
    assert not any("Paris" in c for c in current)
    (run,) = await runs(services, workspace)
    assert (run.mode, run.superseded) == ("llm", 1)
    assert run.tokens_in > 0  # the specialists' usage is recorded


async def test_an_llm_update_written_as_a_new_belief_turns_what_rested_on_the_old_stale(
    services: Services, workspace: str
) -> None:
    """update_belief with content replaced Paris, but a deduction built on Paris stayed current,
    resting on a superseded premise (only update_belief by new_id made it stale)."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    paris = await belief_id(services, workspace, "Paris")
    france = dataclasses.replace(_derived("deductive", paris), content="alice lives in France.")
    await services.db.write_tx(
        lambda tx: dream_writes.create_derived(
            tx, view, [france], origin="dreamer:rules", now=now()
        )
    )

    def deduction(messages: Any, schema: Any) -> Any:
        if not tool_results(messages):
            lisbon = id_of(messages, "Lisbon")
            return turn(
                call(
                    "update_belief",
                    old_id=paris,
                    content="alice moved from Paris to Lisbon.",
                    premise_ids=[lisbon],
                )
            )
        assert tool_results(messages)[-1].startswith("accepted"), tool_results(messages)
        return "Done."

    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": no_patterns})
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)
    detail = await observations.get_detail(services.db, workspace, france.id)
    assert detail.observation.stale, detail.observation


async def test_a_belief_built_on_one_a_dream_prunes_turns_stale(
    services: Services, workspace: str
) -> None:
    """A pruned deduction's dependents stayed current, resting on a premise that no longer
    holds (only a superseded one made them stale: the review)."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    paris = await belief_id(services, workspace, "Paris")
    france = dataclasses.replace(_derived("deductive", paris), content="alice lives in France.")
    europe = dataclasses.replace(_derived("deductive", france.id), content="alice lives in Europe.")
    for wave in ([france], [europe]):
        await services.db.write_tx(
            lambda tx, wave=wave: dream_writes.create_derived(
                tx, view, wave, origin="dreamer:rules", now=now()
            )
        )

    def deduction(messages: Any, schema: Any) -> Any:
        if not tool_results(messages):
            return turn(call("prune_belief", observation_id=france.id, reason="she moved"))
        assert tool_results(messages)[-1].startswith("accepted"), tool_results(messages)
        return "Done."

    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": no_patterns})
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)
    pruned = (await observations.get_detail(services.db, workspace, france.id)).observation
    assert (pruned.stale, pruned.stale_reason) == (True, "she moved")
    built_on = (await observations.get_detail(services.db, workspace, europe.id)).observation
    assert built_on.stale, built_on


async def test_a_pruned_belief_built_on_another_pruned_one_stays_pruned(
    services: Services, workspace: str
) -> None:
    """Pruned together, the one built on the other was marked for reconciliation by the
    other's propagation, and the rules kept it current again (the diff review)."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    paris = await belief_id(services, workspace, "Paris")
    france = dataclasses.replace(_derived("deductive", paris), content="alice lives in France.")
    europe = dataclasses.replace(
        _derived("deductive", france.id, paris), content="alice lives in Europe."
    )
    for wave in ([france], [europe]):
        await services.db.write_tx(
            lambda tx, wave=wave: dream_writes.create_derived(
                tx, view, wave, origin="dreamer:rules", now=now()
            )
        )

    def deduction(messages: Any, schema: Any) -> Any:
        if not tool_results(messages):
            return turn(
                call("prune_belief", observation_id=france.id, reason="moved"),
                call("prune_belief", observation_id=europe.id, reason="moved"),
            )
        return "Done."

    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": no_patterns})
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)
    await worker_for(services, workspace, llm).drain()
    row = await statements.read_one(
        services.db, "get_observation_state", workspace=workspace, id=europe.id
    )
    assert row is not None and row["stale"] and not row["pending"], row


async def test_an_llm_dream_reads_at_most_a_hundred_new_beliefs(
    services: Services, workspace: str
) -> None:
    """Every new belief, up to the dream batch of 1,000, went into one prompt, sent again on
    each turn: past the model's context, the dream failed for good."""
    await conversation(services, workspace, "s1")
    items = [BeliefInput("agent", "alice", f"alice owns item number {i}.") for i in range(101)]
    for part in (items[:100], items[100:]):
        await add_beliefs(services.db, services.embedder, services.settings, workspace, part)
    llm = ScriptedLLM(
        {"dreamer-deduction": lambda m, schema: "Done.", "dreamer-induction": no_patterns}
    )
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)  # and the follow-up it queues
    first = str(llm.calls_for("dreamer-deduction")[0].messages)
    assert first.count("alice owns item number") == LLM_DREAM_BATCH == 100
    read = sorted(run.observations for run in await runs(services, workspace))
    assert read == [1, 100]


@pytest.mark.parametrize("mode", ["llm", "off"])
async def test_a_card_line_on_a_deleted_belief_goes_at_the_next_dream(
    services: Services, workspace: str, mode: str
) -> None:
    """With an LLM that wrote no card, or with dreams off (a dream that only reconciles), a
    line resting on a belief deleted since stayed on the card for good."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    lisbon = await belief_id(services, workspace, "Lisbon")
    paris = await belief_id(services, workspace, "Paris")
    lines = [CardLine("Lives in Lisbon", (lisbon,)), CardLine("Knows Paris", (paris,))]
    await services.db.write_tx(lambda tx: dream_writes.set_card(tx, view, lines, now=now()))
    s = with_dreams(services, dream_mode="llm" if mode == "llm" else "rules")
    if mode == "off":
        await configure(s, workspace, {"dream": {"enabled": False}})
    await invalidation.delete_observation(s.db, s.settings, workspace, lisbon)
    llm = ScriptedLLM(
        {"dreamer-deduction": lambda m, schema: "Done.", "dreamer-induction": no_patterns}
    )
    await derive(s, workspace, llm)  # the dream the deletion scheduled
    card = await peer_cards.get(s.db, workspace, *AGENT_ALICE)
    assert card.entries == ["Knows Paris"], card.entries


async def test_a_specialist_may_build_on_a_stale_belief_its_dreams_reconciliation_keeps(
    services: Services, workspace: str
) -> None:
    """The dream showed the model a stale belief its own reconciliation keeps as current, but
    the rehearsal, run without that reconciliation, rejected it as a premise ("stale"), where
    the commit would have taken it."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    paris = await belief_id(services, workspace, "Paris")
    france = dataclasses.replace(_derived("deductive", paris), content="alice knows France.")
    await services.db.write_tx(
        lambda tx: dream_writes.create_derived(tx, view, [france], origin="dreamer:llm", now=now())
    )
    await invalidation.correct_observation(
        services.db, services.embedder, services.settings, workspace, paris, "I lived in Paris."
    )
    assert (await observations.get_detail(services.db, workspace, france.id)).observation.stale

    def dreamer(messages: Any, schema: Any) -> Any:
        if schema is ReconcileOutput:  # keep it
            return ReconcileOutput(verdicts=[BeliefVerdict(id=france.id, action="confirm")])
        if not tool_results(messages):
            return turn(
                call("add_deduction", content="alice speaks French.", premise_ids=[france.id])
            )
        return "Done."

    llm = ScriptedLLM({"dreamer-deduction": dreamer, "dreamer-induction": no_patterns})
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)
    results = [r for c in llm.calls_for("dreamer-deduction") for r in tool_results(c.messages)]
    assert results and results[0].startswith("accepted"), results
    assert "alice speaks French." in await contents(services, workspace, levels=["deductive"])


async def test_a_belief_pruned_twice_in_one_dream_counts_once(
    services: Services, workspace: str
) -> None:
    """The second prune_belief of one id was accepted: the run counted two prunes and sent two
    events for one belief."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    paris = await belief_id(services, workspace, "Paris")
    france = dataclasses.replace(_derived("deductive", paris), content="alice knows France.")
    await services.db.write_tx(
        lambda tx: dream_writes.create_derived(tx, view, [france], origin="dreamer:llm", now=now())
    )

    def deduction(messages: Any, schema: Any) -> Any:
        if not tool_results(messages):
            twice = [call("prune_belief", observation_id=france.id, reason="stale")] * 2
            return turn(*twice)
        return "Done."

    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": no_patterns})
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)
    results = tool_results(llm.calls_for("dreamer-deduction")[-1].messages)
    assert results[0].startswith("accepted") and "already" in results[1], results
    (run,) = await runs(services, workspace)
    assert run.pruned == 1


async def test_a_dream_that_fails_mid_way_charges_its_job_the_calls_before(
    services: Services, workspace: str
) -> None:
    """The endpoint failing on a dream's later turn lost the tokens of every turn before: the
    job showed 0, and the retry paid for them all again."""
    await paris_then_lisbon(services, workspace)

    def deduction(messages: Any, schema: Any) -> Any:
        if not tool_results(messages):
            return turn(call("search_beliefs", query="where does alice live"))
        raise LLMUnavailable("the endpoint went away")

    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": no_patterns})
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)
    failed = [
        j
        for j in await job_admin.list_jobs(
            services.db,
            workspace,
            session=None,
            peer=None,
            statuses=None,
            with_errors=True,
            limit=50,
        )
        if j.kind == "dream" and j.attempts
    ]
    assert failed and failed[0].error is not None and "went away" in failed[0].error
    assert failed[0].tokens_in > 0 and failed[0].tokens_out > 0, failed[0]


async def test_a_specialist_gets_rejections_as_feedback_and_only_accepted_edits_commit(
    services: Services, workspace: str
) -> None:
    await paris_then_lisbon(services, workspace)
    foreign = await belief_id(services, workspace, "Lisbon", "alice", "alice")

    def deduction(messages: Any, schema: Any) -> Any:
        results = tool_results(messages)
        lisbon = id_of(messages, "Lisbon")
        if not results:
            return turn(
                call("add_deduction", content="alice lives abroad.", premise_ids=[foreign]),
                call("add_deduction", content="alice speaks some Portuguese.", premise_ids=[]),
                call("set_peer_card", lines=[{"text": "Lives in Lisbon", "support": []}]),
            )
        if len(results) == 3:
            return turn(
                call("add_deduction", content="alice lives in Portugal.", premise_ids=[lisbon]),
                call("set_peer_card", lines=[{"text": "Lives in Lisbon", "support": [lisbon]}]),
            )
        return "Done."

    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": no_patterns})
    await dream_now(services, workspace, *AGENT_ALICE, llm=llm)
    results = tool_results(llm.calls_for("dreamer-deduction")[-1].messages)
    assert results[0].startswith("rejected: premises from another representation")
    assert results[1].startswith("rejected: a deductive belief needs at least 1")
    assert results[2].startswith("rejected: card line 0 has no support")
    assert results[3].startswith("accepted") and results[4].startswith("accepted")
    assert await contents(services, workspace, levels=["deductive"]) == ["alice lives in Portugal."]
    card = await peer_cards.get(services.db, workspace, *AGENT_ALICE)
    assert card.entries == ["Lives in Lisbon"]


# --- provenance, checked by the Cypher writes -----------------------------------------------------


async def _rejected(services: Services, work: Callable[[Tx], Awaitable[object]]) -> str:
    with pytest.raises(ProvenanceRejected) as caught:
        await services.db.write_tx(work)
    return caught.value.message


async def test_an_update_may_not_replace_a_belief_said_again_since_nor_one_it_rests_on(
    services: Services, workspace: str
) -> None:
    """An LLM update was checked against the old belief's first statement only: Berlin (March)
    replaced Lisbon (January, said again in June), which the rules keep. And a deduction could
    replace its own premise, which then left neither current."""
    await conversation(services, workspace, "s1")
    for when, line in (
        ("2024-01-10", "I live in Lisbon."),
        ("2024-03-10", "I live in Berlin."),
        ("2024-06-10", "I live in Lisbon."),
    ):
        await say(services, workspace, "s1", when, line)
    await derive(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    lisbon = await belief_id(services, workspace, "Lisbon")
    berlin = await belief_id(services, workspace, "Berlin")

    def supersede(old: str, new: str) -> Callable[[Tx], Awaitable[object]]:
        return lambda tx: dream_writes.supersede(
            tx, view, [(old, new)], origin="dreamer:llm", now=now()
        )

    assert "was last stated before" in await _rejected(services, supersede(lisbon, berlin))
    portugal = dataclasses.replace(_derived("deductive", lisbon), content="alice is in Portugal.")
    await services.db.write_tx(
        lambda tx: dream_writes.create_derived(
            tx, view, [portugal], origin="dreamer:llm", now=now()
        )
    )
    assert "rests on" in await _rejected(services, supersede(lisbon, portugal.id))
    await services.db.write_tx(supersede(berlin, lisbon))  # the later one may replace
    assert [c for c in await contents(services, workspace) if "Berlin" in c] == []


def _derived(level: str, *premises: str, content: str = "derived") -> DerivedWrite:
    return DerivedWrite(
        id=f"{level}-{len(premises)}-{'-'.join(premises)[:40]}-{now().timestamp()}",
        level=level,
        content=content,
        embedding=[0.1] * 384,
        premise_ids=premises,
    )


async def test_the_cypher_write_refuses_a_belief_a_current_one_already_says(
    services: Services, workspace: str
) -> None:
    """A model repeating an earlier dream's deduction word for word (case and end punctuation
    aside) is refused; a stale or superseded one, another level, or the belief it replaces do
    not count."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    lisbon = await belief_id(services, workspace, "Lisbon")

    def said(
        level: str, content: str, *premises: str, supersedes: str | None = None
    ) -> DerivedWrite:
        return dataclasses.replace(
            _derived(level, *premises, content=content),
            id=str(uuid.uuid4()),
            content_key=exact_key(content),
            supersedes=supersedes,
        )

    def write(*beliefs: DerivedWrite) -> Callable[[Tx], Awaitable[object]]:
        return lambda tx: dream_writes.create_derived(
            tx, view, list(beliefs), origin="dreamer:llm", now=now()
        )

    first = said("deductive", "Alice lives in Portugal.", lisbon)
    await services.db.write_tx(write(first))
    problem = await _rejected(services, write(said("deductive", "alice lives in portugal", lisbon)))
    assert f"belief {first.id} already says this" in problem
    # Two of one write: the second is the repeat.
    one, two = (
        said("deductive", "Alice likes trams.", lisbon),
        said("deductive", "ALICE LIKES TRAMS", lisbon),
    )
    assert f"belief {one.id} of this write already says this" in await _rejected(
        services, write(one, two)
    )
    # An earlier item refused on its own account leaves the later one standing (a lenient
    # dream wrote neither).
    bad = said("deductive", "Alice rides trams.", "missing-id")
    good = said("deductive", "Alice rides trams.", lisbon)
    with pytest.raises(ProvenanceRejected) as refused:
        await services.db.write_tx(write(bad, good))
    assert refused.value.ids == [bad.id]
    # Replacing the belief with its own words is no repeat of another.
    again = said("deductive", "Alice lives in Portugal.", lisbon, supersedes=first.id)
    await services.db.write_tx(write(again))
    # Once that one is stale, the words may be said again.
    await services.db.write_tx(lambda tx: dream_writes.prune(tx, view, [(again.id, "test")]))
    await services.db.write_tx(write(said("deductive", "Alice lives in Portugal.", lisbon)))
    # Words of another level are another belief.
    likes, hates = (
        said("deductive", "Alice likes trams.", lisbon),
        said("deductive", "Alice hates trams.", lisbon),
    )
    await services.db.write_tx(write(likes, hates))
    await services.db.write_tx(
        write(said("contradiction", "Alice likes trams.", likes.id, hates.id))
    )


async def test_the_cypher_write_rejects_bad_premises_and_writes_nothing(
    services: Services, workspace: str
) -> None:
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    lisbon = await belief_id(services, workspace, "Lisbon")
    paris = await belief_id(services, workspace, "Paris")
    foreign = await belief_id(services, workspace, "Lisbon", "alice", "alice")
    before = await contents(services, workspace, include_stale=True, include_superseded=True)

    def write(*beliefs: DerivedWrite) -> Callable[[Tx], Awaitable[object]]:
        return lambda tx: dream_writes.create_derived(
            tx, view, list(beliefs), origin="dreamer:llm", now=now()
        )

    assert "at least 1 distinct premises, got 0" in await _rejected(
        services, write(_derived("deductive"))
    )
    assert "premises from another representation" in await _rejected(
        services, write(_derived("deductive", foreign))
    )
    assert "not found in this workspace: missing-id" in (
        await _rejected(services, write(_derived("deductive", "missing-id")))
    )
    assert "at least 2 distinct premises, got 1" in await _rejected(
        services, write(_derived("inductive", lisbon))
    )
    assert "at least 2 distinct premises, got 1" in await _rejected(
        services, write(_derived("inductive", lisbon, lisbon))
    )
    # One bad item fails the whole write, the good one included.
    await _rejected(services, write(_derived("deductive", lisbon), _derived("deductive")))
    assert await contents(services, workspace, include_stale=True, include_superseded=True) == (
        before
    )

    # A stale premise: a deduction, then pruned.
    deduction = _derived("deductive", lisbon, content="alice lives in Portugal.")
    await services.db.write_tx(write(deduction))
    await services.db.write_tx(lambda tx: dream_writes.prune(tx, view, [(deduction.id, "test")]))
    assert "stale, deleted or superseded" in await _rejected(
        services, write(_derived("deductive", deduction.id))
    )
    # A replacement older than the belief it would replace.
    assert "was last stated before" in await _rejected(
        services,
        lambda tx: dream_writes.supersede(
            tx, view, [(lisbon, paris)], origin="dreamer:llm", now=now()
        ),
    )
    # A superseded premise.
    await services.db.write_tx(
        lambda tx: dream_writes.supersede(
            tx, view, [(paris, lisbon)], origin="dreamer:llm", now=now()
        )
    )
    assert "stale, deleted or superseded" in await _rejected(
        services, write(_derived("deductive", paris))
    )
    assert "is not current" in await _rejected(
        services,
        lambda tx: dream_writes.supersede(
            tx, view, [(paris, lisbon)], origin="dreamer:llm", now=now()
        ),
    )
    assert "explicit fact" in await _rejected(
        services, lambda tx: dream_writes.prune(tx, view, [(lisbon, "no")])
    )


async def test_one_write_cannot_chain_or_cross_its_own_supersessions(
    services: Services, workspace: str
) -> None:
    await conversation(services, workspace, "s1", "s2")
    await say(services, workspace, "s1", "2024-01-05", "I live in Paris.", "I work at Acme.")
    await say(services, workspace, "s2", "2024-01-05", "I live in Rome.")
    await say(services, workspace, "s2", "2024-06-01", "I moved to Lisbon last month.")
    await derive(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    paris, rome, lisbon, acme = [
        await belief_id(services, workspace, c) for c in ("Paris", "Rome", "Lisbon", "Acme")
    ]

    def supersede(*pairs: tuple[str, str]) -> Callable[[Tx], Awaitable[object]]:
        return lambda tx: dream_writes.supersede(
            tx, view, list(pairs), origin="dreamer:llm", now=now()
        )

    # Paris and Rome hold from the same day: each could replace the other, not both at once.
    assert "superseded in the same write" in await _rejected(
        services, supersede((paris, rome), (rome, paris))
    )
    assert "superseded in the same write" in await _rejected(
        services, supersede((paris, rome), (rome, lisbon))
    )

    def write(*beliefs: DerivedWrite) -> Callable[[Tx], Awaitable[object]]:
        return lambda tx: dream_writes.create_derived(
            tx, view, list(beliefs), origin="dreamer:llm", now=now()
        )

    replaces_rome = dataclasses.replace(_derived("deductive", lisbon), supersedes=rome)
    assert "superseded by one item and a premise of another" in await _rejected(
        services, write(replaces_rome, _derived("deductive", rome))
    )
    # A belief resting on January facts cannot replace one valid from June.
    assert "is newer than the premises" in await _rejected(
        services,
        write(dataclasses.replace(_derived("deductive", acme, paris), supersedes=lisbon)),
    )
    assert await contents(services, workspace, levels=["deductive"]) == []


async def test_a_lenient_commit_leaves_out_rejected_items_and_what_cites_them(
    services: Services, workspace: str
) -> None:
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    lisbon = await belief_id(services, workspace, "Lisbon")
    paris = await belief_id(services, workspace, "Paris")
    run = uuid.uuid4().hex  # belief ids are unique across the whole database
    good = NewBelief(f"good-{run}", "deductive", "alice lives in Portugal.", (lisbon,))
    bad = NewBelief(f"bad-{run}", "deductive", "alice lives nowhere.", ("missing-id",))
    cites_bad = NewBelief(f"cites-bad-{run}", "deductive", "alice is a nomad.", (bad.id,))
    plan = DreamPlan(
        supersessions=[Supersession(paris, lisbon), Supersession("missing-id", lisbon)],
        beliefs=[good, bad, cites_bad],
    )
    vectors = {b.id: [1.0] + [0.0] * (services.settings.embedding_dim - 1) for b in plan.beliefs}

    def commit(lenient: bool) -> Callable[[Tx], Awaitable[Any]]:
        return lambda tx: apply_plan(
            tx, view, plan, vectors, card_before=[], origin="dreamer:rules", now=now(),
            lenient=lenient,
        )  # fmt: skip

    assert "missing-id" in await _rejected(services, commit(False))
    applied = await services.db.write_tx(commit(True))
    assert (applied.superseded, applied.created, applied.rejected) == (1, 1, 3)
    assert await contents(services, workspace, levels=["deductive"]) == [good.content]
    assert not any("Paris" in c for c in await contents(services, workspace))


async def test_the_cypher_write_rejects_unsupported_card_lines(
    services: Services, workspace: str
) -> None:
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    lisbon = await belief_id(services, workspace, "Lisbon")
    foreign = await belief_id(services, workspace, "Lisbon", "alice", "alice")

    def card(*lines: CardLine) -> Callable[[Tx], Awaitable[object]]:
        return lambda tx: dream_writes.set_card(tx, view, list(lines), now=now())

    assert "has no support" in await _rejected(services, card(CardLine("Lives in Lisbon")))
    assert "not current beliefs" in await _rejected(
        services, card(CardLine("Lives in Lisbon", (foreign,)))
    )
    assert "not current beliefs" in await _rejected(
        services, card(CardLine("Lives in Lisbon", (lisbon, "missing-id")))
    )
    assert (await peer_cards.get(services.db, workspace, *AGENT_ALICE)).entries == []
    # An app's own line is kept without support; a dream's line needs it.
    await peer_cards.set_card(services.db, workspace, *AGENT_ALICE, ["Prefers email"])
    await services.db.write_tx(
        card(CardLine("Prefers email"), CardLine("Lives in Lisbon", (lisbon,)))
    )
    kept = await peer_cards.get(services.db, workspace, *AGENT_ALICE)
    assert kept.entries == ["Prefers email", "Lives in Lisbon"]
    assert kept.support == [(), (lisbon,)]
    # A line the app adds while a dream runs survives the dream's card, written from before.
    await peer_cards.set_card(
        services.db, workspace, *AGENT_ALICE, ["Prefers email", "Lives in Lisbon", "Vegan"]
    )
    await services.db.write_tx(card(CardLine("Prefers email"), CardLine("Lisbon", (lisbon,))))
    after = await peer_cards.get(services.db, workspace, *AGENT_ALICE)
    assert after.entries == ["Prefers email", "Lisbon", "Lives in Lisbon", "Vegan"]
    assert after.support == [(), (lisbon,), (), ()]


async def test_a_first_card_the_app_writes_while_a_dream_writes_its_own_keeps_its_lines(
    services: Services, workspace: str
) -> None:
    """With no card yet, the dream read no app lines; the app's first card committed after
    that read, and the dream's card replaced it: the app's line was lost."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    lisbon = await belief_id(services, workspace, "Lisbon")

    async def dream(tx: Tx) -> None:
        await dream_runs.lock(tx, view)
        await dream_writes.set_card(tx, view, [CardLine("Lives in Lisbon", (lisbon,))], now=now())

    db = services.db
    async with db.driver.session(database=db.database) as session:
        app = await session.begin_transaction()
        await Tx(app).one(
            "set_peer_card",
            **view.params(),
            path=card_path(*AGENT_ALICE),
            peer_key=peer_key(workspace, "alice"),
            card=["Prefers tea"],
            vectors=[None],
            now=now(),
        )
        dreaming = asyncio.ensure_future(db.write_tx(dream))
        await asyncio.sleep(1.0)
        await app.commit()
    await asyncio.wait_for(dreaming, 30)
    card = await peer_cards.get(db, workspace, *AGENT_ALICE)
    assert card.entries == ["Lives in Lisbon", "Prefers tea"]


async def test_a_dream_card_left_unchanged_by_its_rejections_keeps_its_time(
    services: Services, workspace: str
) -> None:
    """A lenient dream whose only new card line was rejected wrote nothing, but its first try
    had locked the card by setting its updatedAt, which the dream's commit kept."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    await peer_cards.set_card(services.db, workspace, *AGENT_ALICE, ["Prefers tea"])
    before = await peer_cards.get(services.db, workspace, *AGENT_ALICE)
    card = [CardLine("Prefers tea"), CardLine("Lives nowhere", ("missing-id",))]
    plan = DreamPlan(card=card)

    async def commit(tx: Tx) -> Any:
        await dream_runs.lock(tx, view)
        return await apply_plan(
            tx, view, plan, {}, card_before=[CardLine("Prefers tea")], origin="dreamer:rules",
            now=now(), lenient=True,
        )  # fmt: skip

    applied = await services.db.write_tx(commit)
    assert applied.rejected == 1
    after = await peer_cards.get(services.db, workspace, *AGENT_ALICE)
    assert (after.entries, after.updated_at) == (["Prefers tea"], before.updated_at)


# --- scheduling ----------------------------------------------------------------------------------


def dream_jobs(found: list[jobs.JobRecord]) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    for job in found:
        if job.kind == scheduling.DREAM:
            key = (job.payload["observer"], job.payload["observed"])
            counts[key] = counts.get(key, 0) + 1
    return counts


async def test_a_threshold_crossing_enqueues_exactly_one_dream(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=3, dream_min_interval=0)
    await conversation(s, workspace, "s1", "s2")
    await say(
        s, workspace, "s1", "2024-01-05", "I play chess.", "I grow tomatoes.", "I own a kayak."
    )
    await say(s, workspace, "s2", "2024-01-06", "I speak Welsh.", "I bake bread.", "I like jazz.")
    await job_admin.flush(s.db, workspace, None, None)
    worker = worker_for(s, workspace, None)
    # Both derivations commit at once; each alone crosses the threshold.
    await asyncio.gather(worker.run_once("one"), worker.run_once("two"))
    assert dream_jobs(await all_jobs(s, workspace)) == {
        ("agent", "alice"): 1,
        ("alice", "alice"): 1,
    }

    await worker.drain()
    done = await runs(s, workspace)
    assert [r.trigger for r in done] == ["threshold"] and done[0].observations == 6
    await say(s, workspace, "s1", "2024-01-07", "I collect stamps.", "I knit scarves.")
    await derive(s, workspace)
    assert dream_jobs(await all_jobs(s, workspace)) == {
        ("agent", "alice"): 1,
        ("alice", "alice"): 1,
    }
    await say(s, workspace, "s1", "2024-01-08", "I sail on weekends.")
    await derive(s, workspace)
    assert dream_jobs(await all_jobs(s, workspace)) == {
        ("agent", "alice"): 2,
        ("alice", "alice"): 2,
    }


async def test_a_count_of_beliefs_that_left_the_view_schedules_no_endless_dreams(
    services: Services, workspace: str
) -> None:
    """The count of undreamed beliefs outlived beliefs that left the view unread: each threshold
    dream read nothing, wrote nothing and claimed the next, for ever (174 runs in 17 minutes
    on one view of a load test)."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=3, dream_min_interval=0)
    await conversation(s, workspace, "s1")
    await say(
        s, workspace, "s1", "2024-01-05", "I play chess.", "I grow tomatoes.", "I own a kayak."
    )
    await job_admin.flush(s.db, workspace, None, None)
    worker = worker_for(s, workspace, None)
    assert await worker.run_once()  # the derivation, which claims a dream for each view
    [row] = await statements.write(s.db, "forget_dream_pending", workspace=workspace)
    assert row["forgotten"] > 0
    for _ in range(6):
        if not await worker.run_once():
            break
    else:
        pytest.fail("dreams kept claiming dreams")
    assert [r.observations for r in await runs(s, workspace)] == [0]


async def test_a_dream_of_a_representation_that_went_away_ends_done(
    services: Services, workspace: str
) -> None:
    """A dream queued for a view whose peer was then renamed or merged away failed each
    attempt ("no representation ...") to a dead job, and committed a run for a gone peer."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await make_peers(s, workspace, "agent", "alice")
    view = Representation(workspace, *AGENT_ALICE)
    await scheduling.on_demand(s.db, s.settings, view)
    await statements.write(s.db, "drop_representation", **view.params())
    await worker_for(s, workspace, None).drain()
    dreams_ = [j for j in await all_jobs(s, workspace) if j.kind == "dream"]
    assert [(j.status, j.attempts) for j in dreams_] == [("done", 1)]
    assert await runs(s, workspace) == []


async def test_the_minimum_interval_delays_the_next_dream(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=1, dream_min_interval=3600)
    await conversation(s, workspace, "s1")
    await say(s, workspace, "s1", "2024-01-05", "I play chess.")
    await derive(s, workspace)
    assert len(await runs(s, workspace)) == 1  # the first dream runs at once
    await say(s, workspace, "s1", "2024-01-06", "I grow tomatoes.")
    await derive(s, workspace)
    waiting = [
        j for j in await all_jobs(s, workspace) if j.kind == "dream" and j.status == "pending"
    ]
    assert len(waiting) == 2 and all((j.run_after - now()).total_seconds() > 3000 for j in waiting)
    assert len(await runs(s, workspace)) == 1
    await dream_now(s, workspace, *AGENT_ALICE)  # on demand makes the waiting one run now
    assert len(await runs(s, workspace)) == 2


async def test_a_dream_that_hits_its_batch_limit_claims_a_follow_up_at_once(
    services: Services, workspace: str
) -> None:
    """Its finish claims the next dream in the same write of the representation's edge, and
    the follow-up runs now, not paced by the minimum interval; the last one claims none."""
    s = with_dreams(
        services, dream_mode="rules", dream_threshold=3, dream_min_interval=3600, dream_batch=4
    )
    await conversation(s, workspace, "s1")
    await say(
        s, workspace, "s1", "2024-01-05", "I play chess.", "I grow tomatoes.", "I own a kayak.",
        "I speak Welsh.", "I bake bread.", "I like jazz.",
    )  # fmt: skip
    await derive(s, workspace)
    assert [r.observations for r in reversed(await runs(s, workspace))] == [4, 2]
    assert dream_jobs(await all_jobs(s, workspace)) == {
        ("agent", "alice"): 2,
        ("alice", "alice"): 2,
    }
    assert all(j.status == "done" for j in await all_jobs(s, workspace) if j.kind == "dream")


@pytest.mark.parametrize("dreams_on", [True, False], ids=["dreams-on", "dreams-off"])
async def test_stale_beliefs_past_the_batch_limit_are_reconciled_by_a_follow_up(
    services: Services, workspace: str, dreams_on: bool
) -> None:
    """A dream reconciles at most its batch of stale beliefs: the rest stayed stale for good
    when nothing new came for the view (the follow-up counted only new beliefs)."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0, dream_batch=4)
    await conversation(s, workspace, "s1")
    await say(
        s, workspace, "s1", "2024-01-05", "I play chess.", "I grow tomatoes.", "I own a kayak.",
        "I speak Welsh.", "I bake bread.", "I like jazz.",
    )  # fmt: skip
    await derive(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)  # and its follow-up: none waits to be dreamed
    assert len(await contents(s, workspace)) == 6
    before = len(await runs(s, workspace))
    if not dreams_on:
        await configure(s, workspace, {"dream": {"enabled": False}})
    said = await messages.list_page(
        s.db, workspace, MessageFilter(session="s1"), after=None, limit=10
    )
    await invalidation.delete_messages(
        s.db, s.embedder, s.settings, workspace, [m.id for m in said.items]
    )
    assert len(await contents(s, workspace, include_stale=True)) == 6
    await worker_for(s, workspace, None).drain()
    assert await contents(s, workspace, include_stale=True) == []
    # The first dream settled its batch, the follow-up the rest (with dreams on, a threshold
    # dream: with nothing new its specialists would not run).
    after = [(r.trigger, r.observations) for r in reversed(await runs(s, workspace))]
    # (With dreams off in the workspace, a reconciliation again, which only reconciles.)
    assert after[before:] == [("reconcile", 0), ("threshold" if dreams_on else "reconcile", 0)]


async def test_an_idle_representation_is_dreamed_below_the_threshold(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=100, dream_idle=1.0)
    await conversation(s, workspace, "s1")
    await say(s, workspace, "s1", "2024-01-05", "I play chess.", "I grow tomatoes.")
    await derive(s, workspace)
    assert await scheduling.idle_scan(s.db, s.settings, workspace) == 0
    await asyncio.sleep(1.2)
    assert await scheduling.idle_scan(s.db, s.settings, workspace) == 2  # both representations
    assert await scheduling.idle_scan(s.db, s.settings, workspace) == 0
    await worker_for(s, workspace, None).drain()
    (run,) = await runs(s, workspace)
    assert (run.trigger, run.observations) == ("idle", 2)


async def test_a_purge_leaves_gaps_in_run_numbers_and_never_numbers_a_run_again(
    services: Services, workspace: str
) -> None:
    """A subscriber's `afterRun` keeps its meaning: the run after a purge that erased the last
    one takes the next number, not the erased one's."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)  # supersedes Paris by Lisbon: names both
    await say(s, workspace, "s2", "2024-06-02", "I have a cat.")
    await derive(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)
    assert [r.seq for r in await runs(s, workspace)] == [2, 1]
    lisbon = await belief_id(s, workspace, "Lisbon")
    (source,) = (await observations.get_detail(s.db, workspace, lisbon)).sources
    report = await purge.purge_messages(s.db, s.settings, workspace, [source.message.id])
    assert report.dream_runs == 1
    assert [r.seq for r in await runs(s, workspace)] == [2]
    await say(s, workspace, "s2", "2024-06-03", "I have a bike.")
    await derive(s, workspace)  # runs the dream the purge queued to write its card again: 3
    await dream_now(s, workspace, *AGENT_ALICE)
    assert [r.seq for r in await runs(s, workspace)] == [4, 3, 2]


async def test_a_purge_leaves_no_card_line_quoting_it_in_the_run_history(
    services: Services, workspace: str
) -> None:
    """A card event holds its lines' text, not the beliefs they rest on: after the purge of
    the message a line came from, dreamRuns still served the line."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1")
    await say(s, workspace, "s1", "2024-01-05", "I live in Zorblaxville.", "I work as a nurse.")
    await derive(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)
    [run] = await runs(s, workspace)
    assert "Zorblaxville" in json.dumps(run.events)  # the card's line
    before = (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries
    assert any("nurse" in line for line in before), before
    home = await belief_id(s, workspace, "Zorblaxville")
    (source,) = (await observations.get_detail(s.db, workspace, home)).sources
    report = await purge.purge_messages(s.db, s.settings, workspace, [source.message.id])
    left = await runs(s, workspace)
    assert all("Zorblaxville" not in json.dumps(r.events) for r in left), left
    # The card went with its line; the purge queued the dream that writes it again (none was
    # queued, before, though the README said dreams would write it).
    assert report.card_views == {AGENT_ALICE}
    assert (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries == []
    queued = await job_admin.list_jobs(
        s.db, workspace, session=None, peer=None, statuses=["pending"], with_errors=False, limit=9
    )
    [dream] = [j for j in queued if j.kind == "dream"]
    assert dream.work_unit == f"dream/{workspace}/agent/alice"
    # It waits a minute, for what the purge derives again; asked for now, it runs now.
    assert dream.run_after > now() + timedelta(seconds=30)
    await dream_now(s, workspace, *AGENT_ALICE)
    card = (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries
    assert any("nurse" in line for line in card) and not any("Zorblax" in x for x in card), card


# --- events -------------------------------------------------------------------------------------

EVENTS = """subscription($w: String!, $after: Int) {
  dreamEvents(workspace: $w, observer: "agent", observed: "alice", afterRun: $after,
              intervalSeconds: 0.2) {
    runNumber index kind events belief { content } replaced { content } cardAdded cardRemoved
  }
}"""


async def test_a_subscriber_receives_each_runs_events_in_commit_order(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    schema = build_schema(s.settings)
    stream: Any = await schema.subscribe(
        EVENTS, variable_values={"w": workspace}, context_value=Context(s, None)
    )
    from_start: Any = await schema.subscribe(
        EVENTS, variable_values={"w": workspace, "after": 0}, context_value=Context(s, None)
    )
    first_next = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.3)  # the subscription has read the run count (0) before the dream
    await dream_now(s, workspace, *AGENT_ALICE)
    await say(s, workspace, "s2", "2024-09-01", "I moved to Porto.")
    await derive(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)

    async def take(source: Any, first: Any = None, count: int = 6) -> list[dict[str, Any]]:
        got = []
        for i in range(count):
            result = await asyncio.wait_for(first if (i == 0 and first) else anext(source), 10)
            assert not result.errors, result.errors
            got.append(result.data["dreamEvents"])
        return got

    events = await take(stream, first_next)
    assert [(e["runNumber"], e["index"], e["kind"]) for e in events] == [
        (1, 0, "RUN"),
        (1, 1, "SUPERSEDED"),
        (1, 2, "CARD"),
        (2, 0, "RUN"),
        (2, 1, "SUPERSEDED"),
        (2, 2, "CARD"),
    ]
    # A RUN event says how many the run sends (a client cut off mid-run knows it was).
    assert [e["events"] for e in events] == [3, None, None, 3, None, None]
    assert "Paris" in events[1]["replaced"]["content"]
    assert "Lisbon" in events[1]["belief"]["content"]
    assert "Porto" in events[4]["belief"]["content"]
    assert any("Porto" in line for line in events[5]["cardAdded"])
    assert any("Lisbon" in line for line in events[5]["cardRemoved"])
    assert await take(from_start) == events
    await stream.aclose()
    await from_start.aclose()
    # A run number past the last was taken, and its runs never sent: a wait without end.
    past: Any = await schema.subscribe(
        EVENTS, variable_values={"w": workspace, "after": 5}, context_value=Context(s, None)
    )
    refused = await asyncio.wait_for(anext(past), 10) if not hasattr(past, "errors") else past
    assert refused.errors and refused.errors[0].extensions["code"] == "INVALID_INPUT"
    # And one below 0: it replayed from the start, as if 0.
    below: Any = await schema.subscribe(
        EVENTS, variable_values={"w": workspace, "after": -1}, context_value=Context(s, None)
    )
    refused = await asyncio.wait_for(anext(below), 10) if not hasattr(below, "errors") else below
    assert refused.errors and refused.errors[0].extensions["code"] == "INVALID_INPUT"


async def test_streams_share_one_look_at_the_dream_counts(
    services: Services, workspace: str
) -> None:
    """Each stream queried its runs at its own pace: thirty streams at 0.1 s made 300 queries a
    second. They share one look per tick now, and read runs only once a count moves."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    counting = CountsReads(s.db)
    watch = dream_counts(counting, tick=0.1)  # type: ignore[arg-type]
    views = [Representation(workspace, f"nobody-{i}", "alice") for i in range(29)]
    views.append(Representation(workspace, *AGENT_ALICE))
    async with contextlib.AsyncExitStack() as stack:
        latest = [await stack.enter_async_context(watch.watching(v)) for v in views]
        await asyncio.sleep(1.0)
        assert [f() for f in latest] == [GONE] * 29 + [0]  # no such observers: GONE
        await dream_now(s, workspace, *AGENT_ALICE)
        await asyncio.sleep(0.3)
        assert latest[-1]() == 1 and latest[0]() == GONE
        # A workspace whose deletion began: its streams end, as if its peers were gone.
        await s.db.write("mark_workspace_deleting", workspace=workspace, now=now())
        await asyncio.sleep(0.3)
        assert latest[-1]() == GONE
    looks = counting.reads["count_dream_runs"]
    assert 8 <= looks <= 20, counting.reads
    await asyncio.sleep(0.3)
    assert counting.reads["count_dream_runs"] <= looks + 1, "no stream left: the look stops"


async def test_a_subscription_to_peers_that_do_not_exist_is_refused(
    services: Services, workspace: str
) -> None:
    """It polled for good, waiting for dreams of a misspelt peer."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    schema = build_schema(s.settings)
    stream: Any = await schema.subscribe(
        EVENTS.replace('observer: "agent"', 'observer: "agnet"'),
        variable_values={"w": workspace},
        context_value=Context(s, None),
    )
    result = await asyncio.wait_for(anext(stream), 10)
    assert result.errors, result
    assert result.errors[0].extensions["code"] == "NOT_FOUND", result.errors
    assert "agnet" in result.errors[0].message


@pytest.mark.parametrize("interval", [0.2, 30.0])
async def test_a_stream_ends_when_its_peer_is_purged(
    services: Services, workspace: str, interval: float
) -> None:
    """It stayed open for good, silent; and once a peer of that name was made again, it skipped
    the new peer's first runs (the count fell to 0 below the stream's last run). Polling every
    30 s, it ended up to 30 s after the purge, not within a look of the shared watcher."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)
    schema = build_schema(s.settings)
    stream: Any = await schema.subscribe(
        EVENTS.replace("intervalSeconds: 0.2", f"intervalSeconds: {interval}"),
        variable_values={"w": workspace},
        context_value=Context(s, None),
    )
    waiting = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.5)
    await purge.purge_peer(s.db, s.settings, workspace, "alice")
    result = await asyncio.wait_for(waiting, 5)
    assert result.errors and result.errors[0].extensions["code"] == "NOT_FOUND", result
    assert result.errors[0].message == (
        f"peer 'agent' or 'alice' no longer exists in workspace {workspace!r} (purged, merged "
        "away or renamed)"
    )


async def test_a_stream_of_a_workspace_being_deleted_ends_saying_so(
    services: Services, workspace: str
) -> None:
    """It ended saying a peer no longer existed (probe H), though the deletion had only begun."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    stream: Any = await build_schema(s.settings).subscribe(
        EVENTS, variable_values={"w": workspace}, context_value=Context(s, None)
    )
    waiting = asyncio.ensure_future(anext(stream))
    await asyncio.sleep(0.5)
    await s.db.write("mark_workspace_deleting", workspace=workspace, now=now())
    result = await asyncio.wait_for(waiting, 5)
    assert [e.message for e in result.errors] == [f"workspace {workspace!r} is being deleted"]


# --- reads: GraphQL, context, the dialectic ------------------------------------------------


async def test_graphql_schedules_dreams_and_reads_runs_cards_and_the_past(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    await paris_then_lisbon(services, workspace)
    before = now().isoformat()
    scheduled = await gql.ok(
        'mutation($w: String!) { scheduleDream(workspace: $w, observer: "agent", '
        'observed: "alice") { jobId created } }',
        {"w": workspace},
    )
    assert scheduled["scheduleDream"]["created"] is True
    again = await gql.ok(
        'mutation($w: String!) { scheduleDream(workspace: $w, observer: "agent", '
        'observed: "alice") { jobId created } }',
        {"w": workspace},
    )
    assert again["scheduleDream"] == {**scheduled["scheduleDream"], "created": False}
    # The job names whose view it revises as well as whom it is about.
    listed = await gql.ok(
        "query($w: String!) { jobs(workspace: $w, first: 100) { kind peer observer } }",
        {"w": workspace},
    )
    kinds = {(j["kind"], j["peer"], j["observer"]) for j in listed["jobs"]}
    assert ("dream", "alice", "agent") in kinds
    assert all(j["observer"] is None for j in listed["jobs"] if j["kind"] != "dream")
    await worker_for(services, workspace, None).drain()  # no LLM: the rules dream

    data = await gql.ok(
        """query($w: String!, $t: DateTime!) {
          dreamRuns(workspace: $w, observer: "agent", observed: "alice") {
            runNumber mode trigger superseded events { kind belief { id } replaced { id } }
          }
          peerCard(workspace: $w, observer: "agent", observed: "alice") { entries support }
          now: searchObservations(workspace: $w, observer: "agent", observed: "alice",
                                  query: "where does alice live") { observation { content } }
          then: searchObservations(workspace: $w, observer: "agent", observed: "alice",
                                   query: "where does alice live", filter: {asOf: $t}) {
            observation { content }
          }
          past: observations(workspace: $w, observer: "agent", observed: "alice", asOf: $t) {
            nodes { content }
          }
          context(workspace: $w, tokens: 500, peerTarget: "alice", peerPerspective: "agent",
                  asOf: $t) { representation { content } }
        }""",
        {"w": workspace, "t": before},
    )
    (run,) = data["dreamRuns"]
    assert (run["runNumber"], run["mode"], run["trigger"], run["superseded"]) == (
        1,
        "rules",
        "manual",
        1,
    )
    assert run["events"][0]["kind"] == "RUN"
    lisbon = run["events"][1]["belief"]["id"]
    assert data["peerCard"]["support"] == [[lisbon]]
    assert not any("Paris" in h["observation"]["content"] for h in data["now"])
    assert any("Paris" in h["observation"]["content"] for h in data["then"])
    assert any("Paris" in n["content"] for n in data["past"]["nodes"])
    assert any("Paris" in o["content"] for o in data["context"]["representation"])
    detail = await gql.ok(
        "query($w: String!, $id: ID!) { observation(workspace: $w, id: $id) { "
        "replaces { content } replacedBy { id } observation { origin } } }",
        {"w": workspace, "id": lisbon},
    )
    assert "Paris" in detail["observation"]["replaces"][0]["content"]
    assert detail["observation"]["observation"]["origin"] == "deriver"
    # A misspelt peer or a run number that names none is an error, not an empty history.
    runs_of = """query($w: String!, $observed: String!, $before: Int) {
      dreamRuns(workspace: $w, observer: "agent", observed: $observed, before: $before) { id }
    }"""
    assert await gql.error_code(runs_of, {"w": workspace, "observed": "alcie"}) == "NOT_FOUND"
    zero = {"w": workspace, "observed": "alice", "before": 0}
    assert await gql.error_code(runs_of, zero) == "INVALID_INPUT"


async def test_the_dialectic_answers_with_the_current_value_and_what_it_replaced(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    before = now()
    await dream_now(s, workspace, *AGENT_ALICE)
    view = View(workspace, "agent", "alice")
    answer = await chat(
        s.db, s.embedder, None, view, "Where does alice live?", level="low", levels=DEFAULT_LEVELS
    )
    assert "Lisbon" in answer.answer and "replaces [obs:" in answer.answer
    assert not any("Paris" in o.content for o in answer.citations.observations)
    past = View(workspace, "agent", "alice", as_of=before)
    then = await chat(
        s.db, s.embedder, None, past, "Where does alice live?", level="low", levels=DEFAULT_LEVELS
    )
    assert any("Paris" in o.content for o in then.citations.observations)


async def test_citing_a_derived_belief_cites_its_premises_down_to_message_spans(
    services: Services, workspace: str
) -> None:
    s = await meat_then_not(services, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)
    contradiction = await belief_id(s, workspace, "Contradiction")

    def answer(messages: Any, schema: Any) -> str:
        assert "premises:" in str(messages[-1]["content"])  # shown with its premises
        return f"Her statements conflict [obs:{contradiction}]."

    llm = ScriptedLLM({"dialectic-minimal": answer})
    reply = await chat(
        s.db,
        s.embedder,
        llm,
        View(workspace, "agent", "alice"),
        "Does alice eat meat?",
        level="minimal",
        levels=DEFAULT_LEVELS,
    )
    cited = {o.id for o in reply.citations.observations}
    premises = {
        p.id for p in (await observations.get_detail(s.db, workspace, contradiction)).premises
    }
    assert cited == {contradiction, *premises}
    spans = [m.span for m in reply.citations.messages]
    assert any("I eat meat" in span for span in spans)
    assert any("don't eat meat" in span for span in spans)


async def test_a_card_line_that_only_cites_other_beliefs_makes_no_card_event(
    services: Services, workspace: str
) -> None:
    """Its run recorded a CARD event with nothing added or removed (subscribers got it too)."""
    await paris_then_lisbon(services, workspace)
    view = Representation(workspace, *AGENT_ALICE)
    paris = await belief_id(services, workspace, "Paris")
    lisbon = await belief_id(services, workspace, "Lisbon")
    before = [CardLine("Has lived in Europe", (paris,))]
    await services.db.write_tx(lambda tx: dream_writes.set_card(tx, view, before, now=now()))
    plan = DreamPlan(card=[CardLine("Has lived in Europe", (paris, lisbon))])

    async def commit(tx: Tx) -> Any:
        await dream_runs.lock(tx, view)
        return await apply_plan(
            tx, view, plan, {}, card_before=before, origin="dreamer:rules", now=now(),
            lenient=True,
        )  # fmt: skip

    applied = await services.db.write_tx(commit)
    assert (applied.card_changes, applied.events) == (0, [])
    after = await peer_cards.get(services.db, workspace, *AGENT_ALICE)
    assert after.support == [(paris, lisbon)]  # written all the same


@pytest.mark.parametrize("apart", [1, 0], ids=["a-minute-apart", "one-batch-one-time"])
async def test_a_dream_reads_what_one_derivation_wrote_in_the_order_it_was_stated(
    services: Services, workspace: str, apart: int
) -> None:
    """One derivation's beliefs share their creation time, and were shown by their random ids:
    the specialists could not tell an old number from the one that replaced it. Messages of
    one time (a batch) are read in the order they were sent."""
    await conversation(services, workspace, "s1")
    start = day("2024-06-01T10:00:00")
    lines = [f"My locker code is {n}{n}{n}." for n in range(6)]
    await post(
        services,
        workspace,
        "s1",
        *(("alice", line, start + timedelta(minutes=i * apart)) for i, line in enumerate(lines)),
    )
    await derive(services, workspace)
    dreamer = ScriptedLLM({"dreamer-deduction": ["Done."], "dreamer-induction": ["Done."]})
    await dream_now(services, workspace, *AGENT_ALICE, llm=dreamer)
    [deduction] = dreamer.calls_for("dreamer-deduction")
    shown = str(deduction.messages[1]["content"])
    codes = [
        line.split("locker code is ")[1][:3] for line in shown.splitlines() if "locker" in line
    ]
    assert codes == [f"{n}{n}{n}" for n in range(6)]
    assert f"valid 2024-06-01 10:0{5 * apart} UTC" in shown


async def test_a_runs_events_name_the_verdicts_it_wrote(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """The Lisbon message edited to say something else: the dream that judges Lisbon, stale
    since, names the verdict and why (verdicts were in no event)."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await paris_then_lisbon(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)
    lisbon = await belief_id(s, workspace, "Lisbon")
    (source,) = (await observations.get_detail(s.db, workspace, lisbon)).sources
    await invalidation.edit_message(
        s.db, s.embedder, s.tokens, s.settings, workspace, source.message.id, "I love jazz."
    )
    await derive(s, workspace)
    data = await gql.ok(
        """query($w: String!) {
          dreamRuns(workspace: $w, observer: "agent", observed: "alice") {
            runNumber events { kind verdict reason belief { id content } }
          }
        }""",
        {"w": workspace},
    )
    judged = [
        (e["belief"]["id"], e["verdict"], e["reason"])
        for run in data["dreamRuns"]
        for e in run["events"]
        if e["kind"] == "RECONCILED"
    ]
    assert (lisbon, "drop", "its source message was edited") in judged, data


async def test_a_dream_counts_what_still_waits_not_the_count_less_what_it_read(
    services: Services, workspace: str
) -> None:
    """A dream read one belief a change had made pending (never counted) while a derivation
    wrote another (counted): the finish took one off a count of one, and the belief written
    meanwhile waited for no dream (no threshold, no idle time), for good."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1")
    await say(s, workspace, "s1", "2024-01-05", "I play chess.", "I grow tomatoes.")
    await job_admin.flush(s.db, workspace, None, None)
    assert await worker_for(s, workspace, None).run_once()  # the derivation alone
    view = Representation(workspace, *AGENT_ALICE)
    chess = await belief_id(s, workspace, "chess")
    tomatoes = await belief_id(s, workspace, "tomatoes")
    # As if tomatoes were pending again by a change (uncounted), and chess new (counted).
    await statements.write(s.db, "uncount_beliefs", **view.params(), count=1, ids=[tomatoes])
    stamp = now()
    run = RunRecord(str(uuid.uuid4()), "manual", "rules", stamp, stamp, observations=1)

    async def finish(tx: Tx) -> None:
        processed = [ProcessedBelief(tomatoes, None, None)]
        await dream_runs.finish(tx, view, run, processed, job_ids=[], idle_at=stamp)

    await s.db.write_tx(finish)
    [row] = await statements.read(s.db, "get_dream_counters", **view.params())
    assert row["since_dream"] == 1 and row["idle_dream_at"] is not None, (chess, row)
