"""The deriver with the scripted LLM on the real graph: routing, grounding, dedup, failures."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from graph.repo import job_admin, observations, queue_status
from graph.repo.observation_search import ObservationQuery
from graph.repo.sessions import MemberSettings
from reasoners.deriver.handler import DeriverHandler
from reasoners.deriver.schema import DeriverOutput
from reasoners.llm.interface import ChatMessage, LLMUnavailable
from reasoners.peers import invalidation
from resolvers.services import Services
from tests.fakes.db import RerunsEveryWrite
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import (
    beliefs,
    echo_deriver,
    flush_and_drain,
    make_peers,
    make_session,
    post,
    target_messages,
    worker_for,
)
from tests.integration.dream_helpers import conversation, derive, say

pytestmark = pytest.mark.integration


async def test_observations_reach_only_entitled_observers(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "bob", "carol", "dave")
    await make_session(
        services,
        workspace,
        "s1",
        [
            MemberSettings("alice"),
            MemberSettings("bob"),
            MemberSettings("dave", observe_others=False),
        ],
    )
    await make_session(services, workspace, "s2", [MemberSettings("carol", observe_me=False)])
    await post(services, workspace, "s1", ("alice", "I live in Lisbon."))
    await post(services, workspace, "s2", ("carol", "I keep bees on my roof."))
    worker = worker_for(services, workspace, ScriptedLLM({"deriver": echo_deriver}))
    assert await flush_and_drain(services, workspace, worker) == 2

    fact = "alice said: I live in Lisbon."
    assert await beliefs(services, workspace, "alice", "alice") == [fact]
    assert await beliefs(services, workspace, "bob", "alice") == [fact]
    assert await beliefs(services, workspace, "dave", "alice") == [], "observe_others is off"
    assert await beliefs(services, workspace, "carol", "alice") == [], "carol was not there"
    # carol's observe_me is off: no self-model, and nobody else was present in s2.
    assert await beliefs(services, workspace, "carol", "carol") == []


async def test_a_peer_that_left_stops_observing(services: Services, workspace: str) -> None:
    from graph.repo import sessions

    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", "I have a cat named Miso."))
    await sessions.remove_peers(services.db, workspace, "s1", ["bob"])
    await post(services, workspace, "s1", ("alice", "I started learning the violin."))
    worker = worker_for(services, workspace, ScriptedLLM({"deriver": echo_deriver}))
    await flush_and_drain(services, workspace, worker)
    assert await beliefs(services, workspace, "bob", "alice") == [
        "alice said: I have a cat named Miso."
    ]
    assert len(await beliefs(services, workspace, "alice", "alice")) == 2


def grounded_and_not(messages: list[ChatMessage], schema: Any) -> DeriverOutput:
    [(index, _, text)] = target_messages(messages)
    return DeriverOutput.model_validate(
        {
            "observations": [
                {
                    "content": "Alice works as a nurse.",
                    "source_message_index": index,
                    "source_span": "I work as a nurse",
                },
                {
                    "content": "Alice owns a yacht.",
                    "source_message_index": index,
                    "source_span": "I own a yacht",
                },
                {"content": "Bob is tall.", "source_message_index": index + 5, "source_span": text},
            ]
        }
    )


async def test_ungrounded_outputs_are_rejected_and_counted(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I work as a nurse in a children's hospital."))
    worker = worker_for(services, workspace, ScriptedLLM({"deriver": grounded_and_not}))
    await flush_and_drain(services, workspace, worker)
    assert await beliefs(services, workspace, "alice", "alice") == ["Alice works as a nurse."]
    deriver = worker.handlers["derive"]
    assert isinstance(deriver, DeriverHandler)
    assert (deriver.stats.ungrounded, deriver.stats.bad_citations) == (1, 1)

    page = await observations.list_page(
        services.db, workspace, ObservationQuery("alice", "alice"), after=None, limit=5
    )
    detail = await observations.get_detail(services.db, workspace, page.items[0].id)
    [source] = detail.sources
    assert source.span == "I work as a nurse"
    assert source.message.content.startswith("I work as a nurse")


async def test_a_write_run_again_counts_its_observations_once(
    services: Services, workspace: str
) -> None:
    """The counters were added to inside the write transaction, so a write run again (after a
    deadlock or a lost race) counted its observations twice."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I work as a nurse in a children's hospital."))
    db = RerunsEveryWrite(services.db)
    worker = worker_for(services, workspace, ScriptedLLM({"deriver": grounded_and_not}), db=db)
    await flush_and_drain(services, workspace, worker)
    assert db.reruns > 0
    assert await beliefs(services, workspace, "alice", "alice") == ["Alice works as a nurse."]
    deriver = worker.handlers["derive"]
    assert isinstance(deriver, DeriverHandler)
    assert (deriver.stats.written, deriver.stats.units) == (1, 1)


async def test_repeated_facts_are_counted_not_duplicated(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    same = ["I live in Lisbon.", "I live in Lisbon!", "i live in lisbon"]

    def fact(messages: list[ChatMessage], schema: Any) -> DeriverOutput:
        return DeriverOutput.model_validate(
            {
                "observations": [
                    {
                        "content": "Alice lives in Lisbon.",
                        "source_message_index": i,
                        "source_span": text,
                    }
                    for i, _, text in target_messages(messages)
                ]
            }
        )

    worker = worker_for(services, workspace, ScriptedLLM({"deriver": fact}))
    for text in same:  # one unit per post, so the scope check (not the batch) must catch repeats
        await post(services, workspace, "s1", ("alice", text))
        await flush_and_drain(services, workspace, worker)
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("alice", "alice"), after=None, limit=5
    )
    [only] = page.items
    assert only.times_derived == 3
    detail = await observations.get_detail(services.db, workspace, only.id)
    assert len(detail.sources) == 3, "each repeat keeps its evidence"


async def test_a_batch_with_many_facts_per_message_is_kept_not_refused(
    services: Services, workspace: str
) -> None:
    """Twenty facts from each of three messages (the per-message cap) failed the whole call:
    the answer's list was capped at 50, so every re-ask failed and nothing was derived."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])

    def many(messages: list[ChatMessage], schema: Any) -> dict[str, Any]:
        return {
            "observations": [
                {"content": f"Alice owns item {i}-{k}.", "source_message_index": i,
                 "source_span": text}
                for i, _, text in target_messages(messages)
                for k in range(20)
            ]
        }  # fmt: skip

    texts = ["I own a lot of things.", "I collect stamps and coins.", "I keep twenty cats."]
    await post(services, workspace, "s1", *[("alice", text) for text in texts])
    worker = worker_for(services, workspace, ScriptedLLM({"deriver": many}))
    await flush_and_drain(services, workspace, worker)
    deriver = worker.handlers["derive"]
    assert isinstance(deriver, DeriverHandler)
    # All 60 grounded and kept (near-identical ones then merge by cosine, as any would).
    assert (deriver.stats.facts_proposed, deriver.stats.over_cap) == (60, 0)
    status = await queue_status.status(services.db, workspace, None, None)
    assert status.dead == 0 and await beliefs(services, workspace, "alice", "alice")


async def test_near_duplicates_by_cosine_are_merged(services: Services, workspace: str) -> None:
    first, second = (
        "Alice's favourite colour is dark green.",
        "Alice's favorite color is dark green.",
    )
    a, b = services.embedder.embed([first, second])
    assert sum(x * y for x, y in zip(a, b, strict=True)) >= services.settings.dedup_threshold
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    contents = iter([first, second])

    def fact(messages: list[ChatMessage], schema: Any) -> DeriverOutput:
        [(i, _, text)] = target_messages(messages)
        return DeriverOutput.model_validate(
            {
                "observations": [
                    {"content": next(contents), "source_message_index": i, "source_span": text}
                ]
            }
        )

    worker = worker_for(services, workspace, ScriptedLLM({"deriver": fact}))
    for text in ("My favourite colour is dark green.", "Dark green is my favorite color."):
        await post(services, workspace, "s1", ("alice", text))
        await flush_and_drain(services, workspace, worker)
    assert await beliefs(services, workspace, "alice", "alice") == [first]


async def test_a_fact_that_changes_only_a_number_is_a_belief_of_its_own(
    services: Services, workspace: str
) -> None:
    """By the cosine alone, the new number repeated the old one: it was never learned, and the
    old belief cited the message that contradicts it; a deleted belief absorbed the next."""
    old, new, newer = (f"Alice's phone number is 555-{n}." for n in ("1234", "9876", "0000"))
    a, b, c = services.embedder.embed([old, new, newer])
    for other in (b, c):  # what the cosine alone calls a repeat
        assert sum(x * y for x, y in zip(a, other, strict=True)) >= 0.95
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])

    def fact(messages: list[ChatMessage], schema: Any) -> DeriverOutput:
        [(i, _, text)] = target_messages(messages)
        content = f"Alice's phone number is {text.split()[-1]}"
        return DeriverOutput.model_validate(
            {"observations": [{"content": content, "source_message_index": i, "source_span": text}]}
        )

    worker = worker_for(services, workspace, ScriptedLLM({"deriver": fact}))
    for number in ("555-1234.", "555-9876."):
        await post(services, workspace, "s1", ("alice", f"My phone number is {number}"))
        await flush_and_drain(services, workspace, worker)
    assert sorted(await beliefs(services, workspace, "alice", "alice")) == [old, new]
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("alice", "alice"), after=None, limit=5
    )
    first = next(o for o in page.items if o.content == old)
    detail = await observations.get_detail(services.db, workspace, first.id)
    assert [s.span for s in detail.sources] == ["My phone number is 555-1234."]

    await invalidation.delete_observation(services.db, services.settings, workspace, first.id)
    await post(services, workspace, "s1", ("alice", "My phone number is 555-0000."))
    await flush_and_drain(services, workspace, worker)
    assert sorted(await beliefs(services, workspace, "alice", "alice")) == [newer, new]


async def test_a_failure_retrying_cannot_help_is_dead_lettered_at_once(
    services: Services, workspace: str
) -> None:
    """A rejected API key said it was not retryable, and was retried to the last attempt."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I grow tomatoes."))
    refused = LLMUnavailable("the LLM endpoint rejected the API key (401)", retryable=False)
    worker = worker_for(
        services,
        workspace,
        ScriptedLLM({"deriver": lambda messages, schema: refused}),
        backoff=timedelta(milliseconds=1),
    )
    await job_admin.flush(services.db, workspace, None, None)
    assert await worker.run_once()
    await asyncio.sleep(0.05)
    assert not await worker.run_once()
    [dead] = await job_admin.list_jobs(
        services.db, workspace, session=None, peer=None, statuses=["dead"], with_errors=True,
        limit=5,
    )  # fmt: skip
    assert dead.attempts == 1 and "rejected the API key" in (dead.error or "")


async def test_invalid_output_is_retried_then_dead_lettered(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I grow tomatoes."))
    llm = ScriptedLLM({"deriver": lambda messages, schema: "this is not JSON"}, max_retries=1)
    worker = worker_for(
        services,
        workspace,
        llm,
        backoff=timedelta(milliseconds=1),
        max_backoff=timedelta(milliseconds=1),
    )
    await job_admin.flush(services.db, workspace, None, None)
    runs = 0
    while await worker.run_once():
        runs += 1
        assert runs < 20
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.done, status.dead) == (0, 1), "never done with nothing written"
    [dead] = await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer=None,
        statuses=["dead"],
        with_errors=True,
        limit=5,
    )
    assert dead.attempts == services.settings.job_max_attempts == runs
    assert dead.error is not None and dead.error.startswith("LLMOutputInvalid")
    assert len(llm.calls_for("deriver")) == runs * 2, "each attempt re-asks once"
    # Every failed attempt was billed: a dead job showed 0 tokens after 10 calls.
    assert dead.tokens_in > 0 and dead.tokens_out == runs * 2 * 4  # "this is not JSON": 4 words
    assert await beliefs(services, workspace, "alice", "alice") == []


async def test_units_wait_for_their_trigger(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I like jazz."))
    worker = worker_for(services, workspace, ScriptedLLM({"deriver": echo_deriver}))
    assert await worker.drain() == 0, "below the token target and younger than the max age"
    assert await job_admin.flush(services.db, workspace, "s1", None) == 1
    assert await worker.drain() == 1
    long_text = "I really like jazz records from the fifties. " * 120  # > 1,024 tokens
    await post(services, workspace, "s1", ("alice", long_text.strip()))
    assert await worker.drain() == 1, "the token target makes a unit ready at once"


async def test_a_repeat_from_an_earlier_message_dates_the_belief(
    services: Services, workspace: str
) -> None:
    """June's "I live in Berlin" derived before March's (two sessions' units run in any order):
    the belief kept June as when it was stated, its words said June, and the dialectic showed
    Lisbon current until June, above evidence dated March."""
    await conversation(services, workspace, "s2", "s3")
    await say(services, workspace, "s3", "2024-06-01", "I live in Berlin.")
    await derive(services, workspace)
    await say(services, workspace, "s2", "2024-03-05", "I live in Berlin.")
    await derive(services, workspace)
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("agent", "alice"), after=None, limit=10
    )
    [berlin] = page.items
    assert berlin.times_derived == 2
    assert berlin.valid_at is not None and berlin.valid_at.date().isoformat() == "2024-03-05"
    assert berlin.session == "s2"
    assert berlin.content == "Alice lives in Berlin (stated on 2024-03-05)."
    # Two earlier repeats in one run: the earliest dates it, whichever row comes first.
    await say(services, workspace, "s2", "2024-02-20", "I live in Berlin.")
    await say(services, workspace, "s2", "2024-02-10", "I live in Berlin.")
    await derive(services, workspace)
    earliest = await observations.get_detail(services.db, workspace, berlin.id)
    assert earliest.observation.content == "Alice lives in Berlin (stated on 2024-02-10)."
    berlin = earliest.observation
    # A later repeat changes nothing of it.
    await say(services, workspace, "s3", "2024-07-01", "I live in Berlin.")
    await derive(services, workspace)
    again = await observations.get_detail(services.db, workspace, berlin.id)
    assert again.observation.content == berlin.content
    assert again.observation.valid_at == berlin.valid_at
