"""The Honcho switches beyond the queue's: `dream.enabled`, `peer_card.use` / `create` and the
`custom_instructions` of each LLM task (before, they were kept and returned, not acted on)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from graph.props import Meta
from graph.repo import messages, peer_cards, sessions, workspaces
from graph.repo.messages import MessageFilter
from reasoners.context.assemble import ContextRequest, get_context
from reasoners.dialectic.chat import chat
from reasoners.dialectic.evidence import View
from reasoners.dialectic.tools import Toolbox
from reasoners.dreamer import scheduling
from reasoners.dreamer.prompt import GUIDANCE_HEADING, NO_CARDS
from reasoners.llm.interface import ChatMessage
from reasoners.peers import invalidation, purge
from resolvers.services import Services
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import echo_deriver, worker_for
from tests.integration.dream_helpers import (
    all_jobs,
    contents,
    conversation,
    derive,
    dream_now,
    runs,
    say,
    with_dreams,
)
from tests.integration.test_restructure import card_on_paris, chain, counts, dreams_queued

pytestmark = pytest.mark.integration

AGENT_ALICE = ("agent", "alice")
LIMIT = 16384


async def configure(
    services: Services, workspace: str, configuration: dict[str, Any], session: str | None = None
) -> None:
    if session is None:
        meta = Meta.of(None, configuration, limit=LIMIT, kind="workspace")
        await workspaces.update(services.db, workspace, meta)
    else:
        meta = Meta.of(None, configuration, limit=LIMIT, kind="session")
        await sessions.update(
            services.db, workspace, session, meta, active=None, context=None, set_context=False
        )


async def dream_jobs(services: Services, workspace: str) -> int:
    return sum(1 for j in await all_jobs(services, workspace) if j.kind == "dream")


async def test_dreams_off_trigger_none_unless_a_session_turns_them_on(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=2, dream_min_interval=0)
    await conversation(s, workspace, "quiet", "loud")
    await configure(s, workspace, {"dream": {"enabled": False}})
    await configure(s, workspace, {"dream": {"enabled": True}}, session="loud")

    await say(
        s, workspace, "quiet", "2024-01-05", "I play chess.", "I own a kayak.", "I knit scarves."
    )
    await derive(s, workspace)
    assert await dream_jobs(s, workspace) == 0  # three beliefs past the threshold of two

    await say(s, workspace, "loud", "2024-01-06", "I speak Welsh.", "I bake bread.")
    await derive(s, workspace)
    # The session's own switch wins; its dream reads every undreamed belief of the view.
    (run,) = await runs(s, workspace)
    assert (run.trigger, run.observations) == ("threshold", 5)

    await say(s, workspace, "quiet", "2024-01-07", "I sail on weekends.", "I grow tomatoes.")
    await derive(s, workspace)
    assert len(await runs(s, workspace)) == 1
    await dream_now(s, workspace, *AGENT_ALICE)  # one the app asks for still runs
    assert [r.observations for r in await runs(s, workspace)] == [2, 5]


async def test_dreams_off_schedule_no_idle_dream(services: Services, workspace: str) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=100, dream_idle=0.5)
    await conversation(s, workspace, "s1")
    await configure(s, workspace, {"dream": {"enabled": False}}, session="s1")
    await say(s, workspace, "s1", "2024-01-05", "I play chess.", "I grow tomatoes.")
    await derive(s, workspace)
    await asyncio.sleep(0.7)
    assert await scheduling.idle_scan(s.db, s.settings, workspace) == 0
    await configure(s, workspace, {"dream": {"enabled": None}}, session="s1")
    await say(s, workspace, "s1", "2024-01-06", "I own a kayak.")
    await derive(s, workspace)
    await asyncio.sleep(0.7)
    assert await scheduling.idle_scan(s.db, s.settings, workspace) == 2  # both views


async def lisbon(s: Services, workspace: str) -> None:
    await conversation(s, workspace, "s1")
    await say(s, workspace, "s1", "2024-01-05", "I live in Lisbon.")
    await derive(s, workspace)


async def test_no_dream_writes_a_card_where_creating_cards_is_off(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await lisbon(s, workspace)
    await configure(s, workspace, {"peer_card": {"create": False}})
    await dream_now(s, workspace, *AGENT_ALICE)
    assert (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries == []
    await peer_cards.set_card(s.db, workspace, *AGENT_ALICE, ["Prefers email"])
    await dream_now(s, workspace, *AGENT_ALICE)
    assert (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries == ["Prefers email"]

    await configure(s, workspace, {"peer_card": {"create": None}})
    await dream_now(s, workspace, *AGENT_ALICE)
    card = (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries
    assert card[0] == "Prefers email" and "Lisbon" in card[1]


async def test_with_cards_off_a_line_on_a_deleted_belief_still_goes(
    services: Services, workspace: str
) -> None:
    """Cards switched off after a dream wrote a line: a change's dream adds nothing, but the
    line quoting what was deleted goes (it stayed for good), and the app's own line stays."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await lisbon(s, workspace)
    await peer_cards.set_card(s.db, workspace, *AGENT_ALICE, ["Prefers email"])
    await dream_now(s, workspace, *AGENT_ALICE)
    card = (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries
    assert card[0] == "Prefers email" and "Lisbon" in card[1], card
    await configure(s, workspace, {"peer_card": {"create": False}})
    [said] = (
        await messages.list_page(s.db, workspace, MessageFilter(session="s1"), after=None, limit=1)
    ).items
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [said.id])
    await worker_for(s, workspace, None).drain()  # the dream the deletion scheduled
    assert (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries == ["Prefers email"]


async def test_a_card_not_in_use_is_left_out_of_contexts_and_answers(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    await lisbon(services, workspace)
    await peer_cards.set_card(services.db, workspace, *AGENT_ALICE, ["Vegan since 2019"])
    await configure(services, workspace, {"peer_card": {"use": False}})
    await configure(services, workspace, {"peer_card": {"use": True}}, session="s1")

    async def context(session: str | None) -> list[str]:
        request = ContextRequest(
            workspace, 2000, session=session, peer_target="alice", peer_perspective="agent"
        )
        found = await get_context(services.db, services.embedder, services.tokens, request)
        assert ("Vegan since 2019" in found.text) is bool(found.card)
        return found.card

    assert await context(None) == []
    assert await context("s1") == ["Vegan since 2019"]  # the session's switch wins
    r = await rest.get(f"/workspaces/{workspace}/peers/agent/context", params={"target": "alice"})
    assert r.status_code == 200 and r.json()["peer_card"] is None, r.text
    # The card itself is still the app's to read.
    r = await rest.get(f"/workspaces/{workspace}/peers/agent/card", params={"target": "alice"})
    assert r.json()["peer_card"] == ["Vegan since 2019"], r.text

    llm = ScriptedLLM({"dialectic-low": ["alice lives in Lisbon."] * 2})
    for session in (None, "s1"):
        view = View(workspace, "agent", "alice", session)
        await chat(services.db, services.embedder, llm, view, "Where does alice live?")
    without, with_ = (c for c in llm.calls if c.kind == "chat")
    assert "Vegan" not in str(without.messages) and "Vegan" in str(with_.messages)
    assert "peer_card" not in [t.name for t in without.tools or []]
    assert "peer_card" in [t.name for t in with_.tools or []]
    # Nor is the card a file passage the dialectic's file search shows.
    view = View(workspace, "agent", "alice")
    for cards in (True, False):
        toolbox = Toolbox(services.db, services.embedder, view, cards=cards)
        found = await toolbox.search_files("vegan since when")
        assert any("Vegan" in p.content for p in found.passages) is cards


def prompt_of(messages: list[ChatMessage]) -> str:
    return "\n".join(str(m["content"]) for m in messages)


async def test_each_llm_task_reads_the_apps_instructions_of_its_workspace_and_session(
    services: Services, workspace: str
) -> None:
    await configure(
        services,
        workspace,
        {
            "extraction_context": "W-context",
            "custom_instructions": "W-all",
            "reasoning": {"custom_instructions": "W-reasoning"},
            "summary": {"custom_instructions": "W-summary"},
            "dialectic": {"custom_instructions": "W-dialectic"},
            "dream": {"custom_instructions": "W-dream"},
            "peer_card": {"custom_instructions": "W-card", "create": False},
        },
    )
    await conversation(services, workspace, "s1")
    await configure(
        services,
        workspace,
        {
            "reasoning": {"custom_instructions": "S-reasoning"},
            "summary": {"custom_instructions": "S-summary", "messages_per_short_summary": 10},
        },
        session="s1",
    )
    lines = ["I have ten bikes."] * 10  # one belief: no view reaches the dream threshold
    await say(services, workspace, "s1", "2024-01-05", *lines)

    def summary(messages: list[ChatMessage], schema: Any) -> Any:
        return schema(summary="alice counted bikes.")

    llm = ScriptedLLM({"deriver": echo_deriver, "summarizer": summary})
    await derive(services, workspace, llm)
    deriver = prompt_of(llm.calls_for("deriver")[0].messages)
    workspace_part = deriver[deriver.index("For this workspace") :]
    session_part = deriver[deriver.index("For this session") : deriver.index("For this workspace")]
    assert all(t in workspace_part for t in ("W-context", "W-all", "W-reasoning"))
    assert "S-reasoning" in session_part
    summarizer = prompt_of(llm.calls_for("summarizer")[0].messages)
    assert "W-all\n" in summarizer and "W-summary" in summarizer and "S-summary" in summarizer
    assert not any(t in summarizer for t in ("W-reasoning", "W-dialectic", "S-reasoning"))

    answer = ScriptedLLM({"dialectic-low": ["Ten bikes."]})
    view = View(workspace, "agent", "alice")
    await chat(services.db, services.embedder, answer, view, "How many bikes?")
    asked = prompt_of(answer.calls[0].messages)
    assert "    W-all\n\n    W-dialectic" in asked and "W-summary" not in asked

    dreamer = ScriptedLLM({"dreamer-deduction": ["Done."], "dreamer-induction": ["Done."]})
    await dream_now(services, workspace, *AGENT_ALICE, llm=dreamer)
    [deduction] = dreamer.calls_for("dreamer-deduction")
    system = str(deduction.messages[0]["content"])
    assert f"{GUIDANCE_HEADING}\n    W-all\n\n    W-dream" in system
    assert NO_CARDS in system and "set_peer_card" not in system  # cards are off here
    assert "W-card" not in system
    assert "set_peer_card" not in [t.name for t in deduction.tools or []]


@pytest.mark.parametrize("off", [{"dream": {"enabled": False}}, {"peer_card": {"create": False}}])
async def test_a_purge_queues_no_card_dream_where_dreams_or_cards_are_off(
    services: Services, workspace: str, off: dict[str, Any]
) -> None:
    c = await chain(services, workspace)
    s = c.services
    await card_on_paris(c, workspace)
    await configure(s, workspace, off)
    waiting = await dreams_queued(s, workspace)
    await purge.purge_messages(s.db, s.settings, workspace, [c.paris_message])
    assert "card" not in await counts(s, workspace)
    assert await dreams_queued(s, workspace) == waiting


async def test_with_dreams_off_a_change_only_reconciles_and_the_app_can_still_dream(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await lisbon(s, workspace)
    await dream_now(s, workspace, *AGENT_ALICE)  # a card line rests on the Lisbon belief
    assert len((await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries) == 1
    await configure(s, workspace, {"dream": {"enabled": False}})
    await say(s, workspace, "s1", "2024-01-06", "I own a kayak.")
    await derive(s, workspace)
    [first] = (
        await messages.list_page(s.db, workspace, MessageFilter(session="s1"), after=None, limit=1)
    ).items
    await invalidation.edit_message(
        s.db, s.embedder, s.tokens, s.settings, workspace, first.id, "Hello there."
    )
    await worker_for(s, workspace, None).drain()  # the dream the edit scheduled
    settled, _ = await runs(s, workspace)
    assert (settled.trigger, settled.observations) == ("reconcile", 0)  # nothing new read
    assert not any("Lisbon" in t for t in await contents(s, workspace))  # but reconciled
    # and the card line that rested on the belief it dropped went with it
    assert (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries == []
    await dream_now(s, workspace, *AGENT_ALICE)
    asked, _, _ = await runs(s, workspace)
    assert (asked.trigger, asked.observations) == ("manual", 1)  # the kayak


async def test_the_app_asking_while_a_reconcile_dream_waits_makes_it_dream_in_full(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await lisbon(s, workspace)
    await configure(s, workspace, {"dream": {"enabled": False}})
    [first] = (
        await messages.list_page(s.db, workspace, MessageFilter(session="s1"), after=None, limit=1)
    ).items
    await invalidation.edit_message(
        s.db, s.embedder, s.tokens, s.settings, workspace, first.id, "I live in Lisbon, Portugal."
    )
    await dream_now(s, workspace, *AGENT_ALICE)  # reuses the waiting reconcile dream
    (run,) = await runs(s, workspace)
    assert (run.trigger, run.observations) == ("manual", 1)
    assert (await peer_cards.get(s.db, workspace, *AGENT_ALICE)).entries  # a full dream
