"""The dialectic on the real graph: tools, the tool loop, citations, scoping, extractive mode.

The world: alice talks with bob in s1 (where she lives, the cello, then a move to Lisbon) and
with carol in s2 (a locker code). The deriver runs with a scripted echo model, so every
observation below is real, with DERIVED_FROM spans into real messages; the dialectic's model
is scripted too, and every id it cites comes out of the tools' answers.
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from graph import models
from graph.keys import scope_key
from graph.props import node_props
from graph.records import ObservationRecord
from graph.repo import messages, observations, peer_cards
from graph.repo.observation_search import ObservationQuery
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.dialectic.chat import (
    MAX_CALLS_PER_TURN,
    NO_ANSWER,
    READ_ENOUGH,
    ChatAnswer,
    chat,
    chat_stream,
)
from reasoners.dialectic.evidence import View
from reasoners.dialectic.levels import DEFAULT_LEVELS, ReasoningLevels
from reasoners.dialectic.prompt import BUDGET_SPENT
from reasoners.dialectic.tool_output import MAX_TOOL_CHARS
from reasoners.dialectic.tools import Toolbox
from reasoners.embeddings.model import embed_async
from reasoners.llm.interface import (
    LLM,
    ChatMessage,
    ChatTurn,
    LLMUnavailable,
    ToolCall,
    ToolSpec,
)
from resolvers.app import create_app
from resolvers.auth import KeyScope, Principal, issue_key
from resolvers.services import Services
from tests.conftest import GraphQLClient
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import (
    echo_deriver,
    flush_and_drain,
    make_peers,
    make_session,
    post,
    worker_for,
)

pytestmark = pytest.mark.integration

PORTO = "I live in Porto and work as a nurse."
QUESTION = "Do you still play the cello?"
CELLO = "Yes, I play the cello every Sunday with a quartet."
LISBON = "Big news: I moved to Lisbon last week for a robotics job."
LOCKER = "My locker code is 4711, keep it secret."
SAFE = "Safe with me."
SECRET = "dialectic-test-secret-" + "y" * 24


def at(month: int, day: int, minute: int = 0) -> datetime:
    return datetime(2024, month, day, 9, minute, tzinfo=UTC)


@pytest.fixture
async def world(services: Services, workspace: str) -> str:
    await make_peers(services, workspace, "alice", "bob", "carol")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await make_session(
        services, workspace, "s2", [MemberSettings("alice"), MemberSettings("carol")]
    )
    await post(
        services,
        workspace,
        "s1",
        ("alice", PORTO, at(1, 10)),
        ("bob", QUESTION, at(1, 10, 1)),
        ("alice", CELLO, at(1, 10, 2)),
        ("alice", LISBON, at(6, 2)),
    )
    await post(services, workspace, "s2", ("alice", LOCKER, at(3, 1)), ("carol", SAFE, at(3, 1, 1)))
    worker = worker_for(services, workspace, ScriptedLLM({"deriver": echo_deriver}))
    await flush_and_drain(services, workspace, worker)
    return workspace


async def belief(
    services: Services, workspace: str, observer: str, observed: str, needle: str
) -> ObservationRecord:
    page = await observations.list_page(
        services.db, workspace, ObservationQuery(observer, observed), after=None, limit=100
    )
    [found] = [o for o in page.items if needle in o.content]
    return found


def tools(services: Services, scope: View) -> Toolbox:
    return Toolbox(services.db, services.embedder, scope)


def sent_to_model(llm: ScriptedLLM) -> str:
    """Everything the model was shown, in every call."""
    return "\n".join(str(m["content"]) for call in llm.calls for m in call.messages)


def last_tool_result(messages: list[ChatMessage]) -> str:
    return next(str(m["content"]) for m in reversed(messages) if m["role"] == "tool")


def first_msg(messages: list[ChatMessage]) -> str:
    return ids("msg", last_tool_result(messages))[0]


def ids(kind: str, text: str) -> list[str]:
    return re.findall(rf"\[{kind}:([0-9a-f-]+)\]", text)


async def assert_citations_resolve(services: Services, workspace: str, answer: Any) -> None:
    """Every cited node exists; every message span is verbatim text of its message."""
    for o in answer.citations.observations:
        stored = await observations.get_detail(services.db, workspace, o.id)
        assert stored.observation.content == o.content
    for m in answer.citations.messages:
        stored_message = await messages.get(services.db, workspace, m.id)
        assert m.span and m.span in stored_message.content


# --- the tools on the real graph --------------------------------------------------------------


async def ask_bob(
    services: Services,
    world: str,
    llm: LLM | None,
    question: str,
    *,
    about: str = "alice",
    level: str = "low",
    levels: ReasoningLevels = DEFAULT_LEVELS,
) -> ChatAnswer:
    """`question` answered from bob's view of `about`."""
    return await chat(
        services.db,
        services.embedder,
        llm,
        View(world, "bob", about),
        question,
        level=level,
        levels=levels,
    )


async def test_tools_return_real_data_of_the_scope(services: Services, world: str) -> None:
    bob = tools(services, View(world, "bob", "alice"))

    found = await bob.search_observations("cello quartet on Sundays", limit=3)
    top = found.items[0]
    assert "cello" in top.observation.content
    assert (top.observation.observer, top.observation.observed) == ("bob", "alice")
    [source] = top.sources
    assert source.message.content == CELLO and source.span in CELLO
    text = found.render()
    assert f"[obs:{top.observation.id}]" in text and f"[msg:{source.message.id}]" in text

    grepper = tools(services, View(world, "bob", "alice"))
    grep = await grepper.grep_messages("LISBON")
    [hit] = grep.items
    assert hit.message.content == LISBON and hit.span == "Lisbon"
    assert f"[msg:{hit.message.id}]" in grep.render()
    assert grepper.evidence.messages[hit.message.id].span == "Lisbon"

    january = await bob.messages_by_date(at(1, 1), at(2, 1))
    # bob's own question is not about alice; the locker code was said where bob was not.
    assert [i.message.content for i in january.items] == [PORTO, CELLO]
    everything = await bob.messages_by_date()
    assert [i.message.content for i in everything.items] == [PORTO, CELLO, LISBON]

    context = await bob.message_context(top.observation.id, before=1, after=0)
    [window] = context.windows
    assert [m.content for m in window.messages] == [QUESTION, CELLO]
    assert f">> [msg:{source.message.id}]" in context.render()

    assert (await bob.peer_card()).entries == []
    await peer_cards.set_card(services.db, world, "bob", "alice", ["alice is a nurse"])
    assert "- alice is a nurse" in (await bob.peer_card()).render()

    # Everything the tools showed is in the ledger, messages with their best span.
    ledger = bob.evidence
    assert top.observation.id in ledger.observations
    assert ledger.messages[source.message.id].span == source.span
    assert {m.message.content for m in ledger.messages.values()} >= {QUESTION, PORTO}


async def test_search_messages_ranks_the_views_turns_by_meaning(
    services: Services, world: str
) -> None:
    bob = tools(services, View(world, "bob", "alice"))

    # No word of the query is in the answer: the vector half finds it.
    found = await bob.search_messages("Which city did she relocate to for a new job?", limit=3)
    assert found.items[0].message.content == LISBON
    # Only alice's turns that bob saw: not his own question, not the locker code from s2.
    assert {i.message.content for i in found.items} <= {PORTO, CELLO, LISBON}
    text = found.render()
    assert text.startswith("3 message(s) matching") and f"[msg:{found.items[0].message.id}]" in text
    assert {m.message.content for m in bob.evidence.messages.values()} == {
        i.message.content for i in found.items
    }
    # Through the dispatcher, as the model calls it.
    text = await bob.dispatch(ToolCall("s", "search_messages", {"query": "string instrument"}))
    assert text.splitlines()[1].endswith(CELLO)


async def test_search_messages_shows_the_matching_part_of_a_long_turn(
    services: Services, world: str
) -> None:
    filler = "I will try the lentil soup first because it is quick to make. " * 15
    long_turn = f"Thanks for the recipes! {filler}Also, my cat Miso turned nine yesterday."
    await post(services, world, "s1", ("alice", long_turn))
    bob = tools(services, View(world, "bob", "alice"))
    found = await bob.search_messages("How old is the cat Miso?", limit=1)
    [item] = found.items
    assert (
        item.message.content == long_turn
        and item.span == "Also, my cat Miso turned nine yesterday."
    )
    text = found.render()
    assert "my cat Miso turned nine yesterday." in text and text.count("lentil soup") <= 5
    # The citation carries that sentence, not the message's start.
    assert bob.evidence.messages[item.message.id].span == item.span


async def test_search_messages_sees_only_the_view(services: Services, world: str) -> None:
    bob = tools(services, View(world, "bob", "alice"))
    assert all(
        i.message.content != LOCKER
        for i in (await bob.search_messages("locker code secret", limit=20)).items
    )
    assert (await tools(services, View(world, "bob", "carol")).search_messages("safe")).items == []

    carol = tools(services, View(world, "carol", "alice"))
    assert [i.message.content for i in (await carol.search_messages("locker code")).items] == [
        LOCKER
    ]
    alice = tools(services, View(world, "alice", "alice"))
    mine = await alice.search_messages("locker code", limit=1)
    assert [i.message.content for i in mine.items] == [LOCKER]
    alice_s1 = tools(services, View(world, "alice", "alice", "s1"))
    assert all(i.message.session == "s1" for i in (await alice_s1.search_messages("locker")).items)
    excluded = tools(services, View(world, "alice", "alice", exclude_session_ids=("s2",)))
    assert all(
        i.message.content != LOCKER
        for i in (await excluded.search_messages("locker code", limit=20)).items
    )


async def test_search_messages_ranks_deeper_when_the_view_hides_the_best(
    services: Services, world: str
) -> None:
    # Forty of alice's turns about lockers that bob never saw (s2 is alice and carol's) rank
    # above the one he did; the search reads further down until the page is full.
    await post(
        services,
        world,
        "s2",
        *(("alice", f"Locker {n} of the gym has a new code, {1000 + n}.") for n in range(40)),
    )
    await post(services, world, "s1", ("alice", "I forgot which gym locker I used."))
    bob = tools(services, View(world, "bob", "alice"))
    found = await bob.search_messages("gym locker code", limit=1)
    assert [i.message.content for i in found.items] == ["I forgot which gym locker I used."]


async def test_provenance_follows_a_derived_belief_to_its_source_spans(
    services: Services, world: str
) -> None:
    porto = await belief(services, world, "bob", "alice", "Porto")
    lisbon = await belief(services, world, "bob", "alice", "Lisbon")
    moved = await deduce(services, world, "alice moved from Porto to Lisbon.", [porto, lisbon])
    bob = tools(services, View(world, "bob", "alice"))

    result = await bob.provenance(moved)
    assert (result.nodes[0].item.observation.id, result.nodes[0].depth) == (moved, 0)
    assert {n.item.observation.id for n in result.nodes[1:]} == {porto.id, lisbon.id}
    spans = {s.message.content: s.span for n in result.nodes for s in n.item.sources}
    assert set(spans) == {PORTO, LISBON}
    assert all(span in content for content, span in spans.items())
    text = result.render()
    assert f"premises: [obs:{lisbon.id}], [obs:{porto.id}]" in text or (
        f"premises: [obs:{porto.id}], [obs:{lisbon.id}]" in text
    )

    # The model can copy the id with its marker; the dispatcher accepts it.
    text = await bob.dispatch(ToolCall("p", "provenance", {"observation_id": f"[obs:{moved}]"}))
    assert not text.startswith("Error") and "I live in Porto" in text

    # A derived belief has no source messages of its own: message_context says where to look.
    context = await bob.dispatch(ToolCall("c", "message_context", {"observation_id": moved}))
    assert "call provenance" in context


# --- scoping ----------------------------------------------------------------------------------


async def test_no_tool_reaches_another_observers_view(services: Services, world: str) -> None:
    carols = await belief(services, world, "carol", "alice", "4711")
    alices_own = await belief(services, world, "alice", "alice", "4711")
    bob = tools(services, View(world, "bob", "alice"))

    assert (await bob.grep_messages("4711")).items == []
    assert (await bob.grep_messages("locker")).items == []
    searched = await bob.search_observations("locker code secret", limit=20)
    assert searched.items and all("4711" not in i.observation.content for i in searched.items)
    assert all(i.message.session == "s1" for i in (await bob.messages_by_date()).items)
    for observation_id in (carols.id, alices_own.id):
        for name in ("message_context", "provenance"):
            text = await bob.dispatch(ToolCall("x", name, {"observation_id": observation_id}))
            assert text.startswith("Error:") and "is not in bob's view of alice" in text
            assert "4711" not in text
    # The texts, not the repr: its random UUIDs may hold "4711" by chance.
    seen = [o.content for o in bob.evidence.observations.values()]
    seen += [m.message.content for m in bob.evidence.messages.values()]
    assert all("4711" not in text for text in seen)
    assert carols.id not in bob.evidence.observations
    assert alices_own.id not in bob.evidence.observations
    # bob was not in s2: carol's words there are invisible to him too.
    assert (await tools(services, View(world, "bob", "carol")).grep_messages("safe")).items == []

    # The same calls do find it where it is visible: carol was there, alice said it.
    carol = tools(services, View(world, "carol", "alice"))
    assert [i.message.session for i in (await carol.grep_messages("4711")).items] == ["s2"]
    assert (await carol.message_context(carols.id)).windows[0].source.message.content == LOCKER
    alice = tools(services, View(world, "alice", "alice"))
    assert len((await alice.grep_messages("4711")).items) == 1

    # A session-scoped view sees only that session.
    alice_s1 = tools(services, View(world, "alice", "alice", "s1"))
    assert (await alice_s1.grep_messages("4711")).items == []
    text = await alice_s1.dispatch(
        ToolCall("y", "message_context", {"observation_id": alices_own.id})
    )
    assert text.startswith("Error:")


async def test_a_chat_cannot_see_or_cite_another_view(services: Services, world: str) -> None:
    carols = await belief(services, world, "carol", "alice", "4711")
    carols_source = (await observations.get_detail(services.db, world, carols.id)).sources[0]
    llm = ScriptedLLM(
        {
            "dialectic-low": [
                [
                    ToolCall("a", "grep_messages", {"text": "4711"}),
                    ToolCall("b", "message_context", {"observation_id": carols.id}),
                    ToolCall("c", "search_observations", {"query": "locker code"}),
                ],
                f"The code is 4711 [obs:{carols.id}] [msg:{carols_source.message.id}].",
            ]
        }
    )
    answer = await ask_bob(services, world, llm, "What is alice's locker code?")
    assert answer.tool_calls == 3
    assert answer.citations.observations == [] and answer.citations.messages == []
    # Nothing of s2 reached the model, in any call.
    shown = sent_to_model(llm)
    assert LOCKER not in shown and carols.content not in shown
    assert carols_source.message.id not in shown and "session s2" not in shown


# --- the tool loop ----------------------------------------------------------------------------


async def test_chat_runs_tool_calls_on_the_graph_and_cites_real_nodes(
    services: Services, world: str
) -> None:
    cello = await belief(services, world, "bob", "alice", "cello")
    [cello_source] = (await observations.get_detail(services.db, world, cello.id)).sources
    carols = await belief(services, world, "carol", "alice", "4711")

    def answer(messages: list[ChatMessage], schema: Any) -> str:
        [grepped] = ids("msg", last_tool_result(messages))
        prefetched = ids("obs", str(messages[1]["content"]))
        assert cello.id in prefetched
        return (
            f"alice plays the cello every Sunday [obs:{cello.id}] [msg:{grepped}]. "
            f"Invented: [msg:{uuid.uuid4()}] [obs:{carols.id}]"
        )

    llm = ScriptedLLM(
        {"dialectic-low": [[ToolCall("g", "grep_messages", {"text": "cello"})], answer]}
    )
    result = await ask_bob(services, world, llm, "Does alice play an instrument?")
    assert result.mode == "scripted" and result.level == "low"
    assert (result.iterations, result.tool_calls) == (1, 1)
    assert result.usage.input_tokens > 0
    calls = llm.calls_for("dialectic-low")
    assert len(calls) == 2 and all(c.tools for c in calls)
    tool_text = last_tool_result(calls[1].messages)
    assert "every Sunday with a quartet" in tool_text  # the real message, from the graph

    assert [o.id for o in result.citations.observations] == [cello.id]
    # The invented markers, and the one of carol's view, leave the text as the citations do.
    assert result.answer.endswith(". Invented:") and carols.id not in result.answer
    [cited] = result.citations.messages
    assert cited.message.content == CELLO
    # The message came through the observation too: it carries its DERIVED_FROM span.
    assert cited.span == cello_source.span
    await assert_citations_resolve(services, world, result)


async def test_chat_cites_a_turn_found_by_search_messages(services: Services, world: str) -> None:
    def answer(messages: list[ChatMessage], schema: Any) -> str:
        found = ids("msg", last_tool_result(messages))
        return f"alice moved to Lisbon for a robotics job [msg:{found[0]}]."

    llm = ScriptedLLM(
        {
            "dialectic-low": [
                [ToolCall("s", "search_messages", {"query": "moved to a new city", "limit": 2})],
                answer,
            ]
        }
    )
    result = await ask_bob(services, world, llm, "Why did alice change cities?")
    assert result.tool_calls == 1
    [cited] = result.citations.messages
    assert cited.message.content == LISBON and cited.span and cited.span in LISBON
    await assert_citations_resolve(services, world, result)


async def test_a_derived_belief_is_cited_through_its_premises(
    services: Services, world: str
) -> None:
    porto = await belief(services, world, "bob", "alice", "Porto")
    lisbon = await belief(services, world, "bob", "alice", "Lisbon")
    moved = await deduce(services, world, "alice moved from Porto to Lisbon.", [porto, lisbon])

    def answer(messages: list[ChatMessage], schema: Any) -> str:
        cited = " ".join(f"[msg:{m}]" for m in ids("msg", last_tool_result(messages)))
        return f"alice lives in Lisbon now; she lived in Porto before {cited} [obs:{moved}]."

    llm = ScriptedLLM(
        {
            "dialectic-medium": [
                [ToolCall("p", "provenance", {"observation_id": f"obs:{moved}"})],
                answer,
            ]
        }
    )
    result = await ask_bob(services, world, llm, "Where does alice live?", level="medium")
    spans = {m.message.content: m.span for m in result.citations.messages}
    assert set(spans) == {PORTO, LISBON}
    for premise in (porto, lisbon):
        [source] = (await observations.get_detail(services.db, world, premise.id)).sources
        assert spans[source.message.content] == source.span
    # The derived belief brings its premises (it was cited; they were shown under it).
    cited = [o.id for o in result.citations.observations]
    assert cited[0] == moved and sorted(cited[1:]) == sorted([porto.id, lisbon.id])
    await assert_citations_resolve(services, world, result)


async def test_the_iteration_budget_holds_and_the_answer_is_forced(
    services: Services, world: str
) -> None:
    def always_tools(messages: list[ChatMessage], schema: Any) -> Any:
        if messages[-1]["role"] == "user" and messages[-1]["content"] == BUDGET_SPENT:
            return "alice lives in Lisbon."
        return [ToolCall(f"c{len(messages)}", "search_observations", {"query": "home city"})]

    llm = ScriptedLLM({"dialectic-medium": always_tools})
    result = await ask_bob(services, world, llm, "Where does alice live?", level="medium")
    calls = llm.calls_for("dialectic-medium")
    assert len(calls) == 5
    assert all(c.tools for c in calls[:4]) and calls[4].tools is None
    assert (result.iterations, result.tool_calls) == (4, 4)
    assert result.answer == "alice lives in Lisbon."

    # A model that still asks for tools when none are offered gets no more: it is answered.
    stubborn = ScriptedLLM({"dialectic-low": lambda m, s: [ToolCall("z", "peer_card", {})]})
    result = await ask_bob(services, world, stubborn, "Pets?")
    assert len(stubborn.calls) == 3 and result.iterations == 2
    assert result.answer == NO_ANSWER


async def test_a_later_turn_that_fails_is_answered_from_what_was_read(
    services: Services, world: str
) -> None:
    """The endpoint refused the third turn (a conversation grown past its context): the whole
    question failed UNAVAILABLE, and a client retried the whole loop."""
    search = [ToolCall("c1", "search_observations", {"query": "home city"})]
    refused = LLMUnavailable("context length exceeded", retryable=False)
    llm = ScriptedLLM({"dialectic-medium": [search, search, refused, "alice lives in Lisbon."]})
    result = await ask_bob(services, world, llm, "Where does alice live?", level="medium")
    assert result.answer == "alice lives in Lisbon."
    assert (result.iterations, result.tool_calls) == (2, 2)
    assert llm.calls_for("dialectic-medium")[-1].tools is None
    # The forced answer refused too: answered without the model, from what was prefetched.
    both = ScriptedLLM({"dialectic-medium": [search, refused, refused]})
    result = await ask_bob(services, world, both, "Where does alice live?", level="medium")
    assert result.mode == "extractive" and "Lisbon" in result.answer
    assert result.iterations == 1
    # Streamed, the same: the answer without the model, in one delta.
    streaming = ScriptedLLM({"dialectic-medium": [search, refused, refused]})
    events = [
        e
        async for e in chat_stream(
            services.db,
            services.embedder,
            streaming,
            View(world, "bob", "alice"),
            "Where does alice live?",
            level="medium",
        )
    ]
    [delta, last] = events
    assert last.answer is not None and last.answer.mode == "extractive"
    assert delta.delta == last.answer.answer and "Lisbon" in delta.delta
    # Refused at once, nothing read: the question fails as the endpoint did.
    with pytest.raises(LLMUnavailable):
        await ask_bob(
            services, world, ScriptedLLM({"dialectic-medium": [refused]}), "?", level="medium"
        )


async def test_one_question_reads_a_bounded_amount_of_tool_output(
    services: Services, world: str
) -> None:
    """12,000 characters a call, 8 calls a turn, up to 50 turns: nothing bounded the whole.
    Once the question has read its share, calls answer that it has, and the answer is asked
    for."""
    wide = [ToolCall(f"c{i}", "search_observations", {"query": "alice"}) for i in range(8)]
    llm = ScriptedLLM(
        {"dialectic-max": lambda m, s: "done" if m[-1]["content"] == BUDGET_SPENT else wide}
    )
    small = dataclasses.replace(DEFAULT_LEVELS, tool_chars=1500)
    result = await ask_bob(services, world, llm, "Everything?", level="max", levels=small)
    [*_, last] = llm.calls_for("dialectic-max")
    shown = [str(m["content"]) for m in last.messages if m["role"] == "tool"]
    assert READ_ENOUGH in shown
    read = sum(len(x) for x in shown if x != READ_ENOUGH)
    assert 1500 <= read <= 1500 + MAX_TOOL_CHARS
    assert result.iterations < DEFAULT_LEVELS.budgets["max"] and result.answer == "done"
    assert last.tools is None  # the answer was asked for


class SlowToolTurns(ScriptedLLM):
    """Tool turns that take `delay` seconds each; the forced answer comes at once."""

    def __init__(self, delay: float, script: dict[str, Any]) -> None:
        super().__init__(script)
        self.delay = delay

    async def chat(
        self,
        role: str,
        messages: list[ChatMessage],
        *,
        tools: list[ToolSpec] | None = None,
        max_tokens: int | None = None,
    ) -> ChatTurn:
        if tools:
            await asyncio.sleep(self.delay)
        return await super().chat(role, messages, tools=tools, max_tokens=max_tokens)


async def test_the_tool_time_cuts_the_loop_and_the_answer_is_forced(
    services: Services, world: str
) -> None:
    def tools_until_told(messages: list[ChatMessage], schema: Any) -> Any:
        if messages[-1]["role"] == "user" and messages[-1]["content"] == BUDGET_SPENT:
            return "alice lives in Lisbon."
        return [ToolCall(f"c{len(messages)}", "search_observations", {"query": "home city"})]

    llm = SlowToolTurns(0.4, {"dialectic-max": tools_until_told})
    started = time.monotonic()
    one_second = dataclasses.replace(DEFAULT_LEVELS, tool_seconds=1.0)
    result = await ask_bob(
        services, world, llm, "Where does alice live?", level="max", levels=one_second
    )
    took = time.monotonic() - started
    # At most two turns finish in the second (fewer when the tools are slow); the one under
    # way then is cut off, and the answer is forced. Without the limit: 10 turns, 4 s.
    assert 1 <= result.iterations <= 2 and result.tool_calls == result.iterations
    assert result.answer == "alice lives in Lisbon."
    assert took < 3.0, took
    assert llm.calls_for("dialectic-max")[-1].tools is None


async def test_minimal_level_answers_in_one_call_without_tools(
    services: Services, world: str
) -> None:
    llm = ScriptedLLM({"dialectic-minimal": ["She lives in Lisbon."]})
    result = await ask_bob(services, world, llm, "Where does alice live?", level="minimal")
    [call] = llm.calls
    assert call.tools is None and "No tools are available" in str(call.messages[1]["content"])
    assert "Lisbon" in str(call.messages[1]["content"])  # the prefetched evidence
    assert (result.answer, result.iterations) == ("She lives in Lisbon.", 0)


async def test_too_many_calls_in_one_turn_are_refused(services: Services, world: str) -> None:
    many = [ToolCall(f"c{i}", "peer_card", {}) for i in range(MAX_CALLS_PER_TURN + 2)]
    llm = ScriptedLLM({"dialectic-low": [many, "done"]})
    result = await ask_bob(services, world, llm, "Anything?")
    assert result.tool_calls == MAX_CALLS_PER_TURN
    results = [m for m in llm.calls[1].messages if m["role"] == "tool"]
    assert len(results) == len(many)  # every call answered, as the chat format requires
    assert sum("at most" in str(m["content"]) for m in results) == 2


# --- extractive mode --------------------------------------------------------------------------


async def test_extractive_mode_answers_with_cited_evidence(services: Services, world: str) -> None:
    result = await ask_bob(services, world, None, "Where does alice live?")
    assert result.mode == "extractive"
    assert result.answer.startswith("No language model is configured; here is the evidence")
    assert "no model answered" in result.answer
    assert any("Lisbon" in o.content for o in result.citations.observations)
    assert all((o.observer, o.observed) == ("bob", "alice") for o in result.citations.observations)
    assert {m.message.content for m in result.citations.messages} <= {PORTO, CELLO, LISBON}
    for o in result.citations.observations:
        assert f"[obs:{o.id}]" in result.answer
    for m in result.citations.messages:
        assert f"[msg:{m.id}]" in result.answer
    await assert_citations_resolve(services, world, result)

    nothing = await ask_bob(services, world, None, "Anything?", about="carol")
    assert "no model answered" in nothing.answer
    assert "holds no observations or messages" in nothing.answer
    assert nothing.citations.observations == [] and nothing.citations.messages == []


async def test_the_answer_shows_turns_no_observation_holds_yet(
    services: Services, world: str
) -> None:
    # Said in bob's presence but not derived yet (no worker ran since): no observation has it.
    said = "My sister Inês is getting married in Sintra in September."
    await post(services, world, "s1", ("alice", said))
    result = await ask_bob(services, world, None, "Is anyone in alice's family having a wedding?")
    assert not any("Sintra" in o.content for o in result.citations.observations)
    cited = {m.message.content: m for m in result.citations.messages}
    assert said in cited and f"[msg:{cited[said].id}]" in result.answer
    assert result.answer.index("match it best") < result.answer.index(said)
    await assert_citations_resolve(services, world, result)

    # A model is shown the same turns, in the opening message.
    llm = ScriptedLLM({"dialectic-low": ["Yes, her sister."]})
    await ask_bob(services, world, llm, "Is anyone in alice's family having a wedding?")
    opening = str(llm.calls[0].messages[1]["content"])
    assert "Messages that match the question best:" in opening and said in opening
    # Never a turn bob could not see.
    hidden = await ask_bob(services, world, None, "What is the locker code?")
    assert "4711" not in hidden.answer


# --- GraphQL ----------------------------------------------------------------------------------

CHAT = """
query($w: String!, $p: String!, $t: String, $q: String!, $l: ReasoningLevel! = LOW) {
  chat(workspace: $w, peer: $p, target: $t, query: $q, reasoningLevel: $l) {
    answer mode reasoningLevel iterations toolCalls tokensIn tokensOut
    citations {
      observations { id observer observed content }
      messages { id span message { id peer content } }
    }
  }
}"""


@asynccontextmanager
async def client(services: Services) -> AsyncIterator[GraphQLClient]:
    app = create_app(services.settings, services)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        yield GraphQLClient(http)


async def test_graphql_chat_answers_with_citations(
    services: Services, world: str, gql: GraphQLClient
) -> None:
    data = await gql.ok(CHAT, {"w": world, "p": "bob", "t": "alice", "q": "Where does alice live?"})
    answer = data["chat"]
    assert answer["mode"] == "extractive" and answer["reasoningLevel"] == "LOW"
    assert "no model answered" in answer["answer"]
    assert answer["citations"]["observations"]
    for m in answer["citations"]["messages"]:
        assert m["span"] in m["message"]["content"] and m["message"]["peer"] == "alice"

    # Without a target, a peer is asked about itself.
    own = await gql.ok(CHAT, {"w": world, "p": "carol", "q": "What did I say?"})
    assert all(
        (o["observer"], o["observed"]) == ("carol", "carol")
        for o in own["chat"]["citations"]["observations"]
    )

    scripted = dataclasses.replace(
        services,
        llm=ScriptedLLM(
            {
                "dialectic-high": [
                    [ToolCall("g", "grep_messages", {"text": "robotics"})],
                    lambda m, s: (
                        f"alice works in robotics [msg:{ids('msg', last_tool_result(m))[0]}]."
                    ),
                ]
            }
        ),
    )
    async with client(scripted) as api:
        data = await api.ok(CHAT, {"w": world, "p": "bob", "t": "alice", "q": "Job?", "l": "HIGH"})
    answer = data["chat"]
    assert answer["mode"] == "scripted" and answer["reasoningLevel"] == "HIGH"
    assert (answer["iterations"], answer["toolCalls"]) == (1, 1)
    assert answer["tokensIn"] > 0 and answer["tokensOut"] > 0
    [cited] = answer["citations"]["messages"]
    # grep matched "robotics", but the prefetched Lisbon belief showed the same message with
    # its DERIVED_FROM span, which is the span a citation carries.
    assert cited["message"]["content"] == LISBON and cited["span"] == LISBON


async def test_graphql_chat_errors(services: Services, world: str, gql: GraphQLClient) -> None:
    base = {"w": world, "p": "bob", "t": "alice", "q": "Where?"}
    assert await gql.error_code(CHAT, base | {"q": "x" * 10_001}) == "INVALID_INPUT"
    # Up to 10,000, as Honcho's clients send (a 3,000-character question was refused); its
    # searches read the first 2,000.
    long_question = "Where does alice live? " + "Tell me everything you know. " * 100
    assert 2000 < len(long_question) <= 10_000
    assert (await gql.ok(CHAT, base | {"q": long_question}))["chat"]["answer"]
    assert await gql.error_code(CHAT, base | {"q": "   "}) == "INVALID_INPUT"
    assert await gql.error_code(CHAT, base | {"p": "zed"}) == "NOT_FOUND"
    assert await gql.error_code(CHAT, base | {"t": "zed"}) == "NOT_FOUND"
    missing_session = """
    query($w: String!) { chat(workspace: $w, peer: "bob", query: "?", session: "nope") { answer } }
    """
    assert await gql.error_code(missing_session, {"w": world}) == "NOT_FOUND"

    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    secured = dataclasses.replace(services, settings=settings)
    bobs_key = issue_key(SECRET, Principal(KeyScope.PEER, workspace=world, peer="bob"))
    workspace_key = issue_key(SECRET, Principal(KeyScope.WORKSPACE, workspace=world))
    other_key = issue_key(SECRET, Principal(KeyScope.WORKSPACE, workspace="elsewhere"))
    async with client(secured) as api:
        await api.ok(CHAT, base, key=bobs_key)  # bob asks from his own perspective
        await api.ok(CHAT, base | {"p": "carol"}, key=workspace_key)
        assert await api.error_code(CHAT, base | {"p": "carol"}, key=bobs_key) == "FORBIDDEN"
        assert await api.error_code(CHAT, base, key=other_key) == "FORBIDDEN"
        assert await api.error_code(CHAT, base) == "UNAUTHENTICATED"


# --- helpers ----------------------------------------------------------------------------------

# Nothing in the API writes derived observations yet (the dreamer will), so the test writes one
# directly, with the model's property map, linked to its premises the way the dreamer links them.
CREATE_DEDUCTIVE = """
MATCH (p:Observation {workspace: $w}) WHERE p.id IN $premises
WITH collect(p) AS premises
CREATE (o:Observation) SET o = $props
WITH o, premises
UNWIND premises AS p
CREATE (o)-[:DERIVED_FROM]->(p)
RETURN DISTINCT o.id AS id"""


async def deduce(
    services: Services, workspace: str, content: str, premises: list[ObservationRecord]
) -> str:
    [embedding] = await embed_async(services.embedder, [content])
    props = node_props(
        models.Observation,
        {
            "uid": str(uuid.uuid4()),
            "workspace": workspace,
            "observer": premises[0].observer,
            "observed": premises[0].observed,
            "scope_key": scope_key(workspace, premises[0].observer, premises[0].observed),
            "level": "deductive",
            "content": content,
            "embedding": embedding,
            "created_at": now(),
            "times_derived": 1,
            "stale": False,
            "facets": [],
        },
    )
    records, _, _ = await services.db.driver.execute_query(
        CREATE_DEDUCTIVE,
        {"w": workspace, "premises": [p.id for p in premises], "props": props},
        database_=services.db.database,
    )
    identifier: str = records[0]["id"]
    return identifier
