"""Message search through derived beliefs: a turn is as close as its closest belief, less a margin.

A turn that says a fact in passing ("got it yesterday, finally") does not meet a question
about that fact; the belief derived from it ("alice bought an espresso machine") does.
"""

from __future__ import annotations

import pytest

from graph.db import Tx
from graph.repo import message_search, messages
from graph.repo.messages import MessageFilter
from graph.repo.observation_writes import ExplicitFact, write_explicit
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.deriver.dedup import exact_key
from reasoners.peers import invalidation
from reasoners.search.fusion import FACT_MARGIN
from reasoners.search.messages import message_candidates, search_messages
from resolvers.services import Services
from tests.integration.derive_helpers import make_peers, make_session, post

pytestmark = pytest.mark.integration

SAID = "Got it yesterday, finally! My mornings are so much faster now."
FACT = "alice bought a Breville espresso machine"
QUESTION = "Which espresso machine did alice buy?"
OTHERS = (
    "The kitchen renovation is taking forever, the cabinets arrive next month.",
    "We should buy a new washing machine for the laundry room.",
    "Coffee shops near the office open at seven.",
    "I tried a French press once but the coffee was gritty.",
)


@pytest.fixture
async def chat(services: Services, workspace: str) -> str:
    """alice's turn and bob's four, in one session of theirs."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", SAID), *(("bob", t) for t in OTHERS))
    return workspace


async def ranks(services: Services, workspace: str) -> list[str]:
    hits = await search_messages(
        services.db, services.embedder, workspace, QUESTION, MessageFilter(), 10
    )
    return [h.item.content for h in hits]


async def believe(services: Services, workspace: str, content: str, source: str = SAID) -> str:
    """`content` as bob's belief about alice, derived from the turn `source`."""
    recent = await messages.recent(services.db, workspace, "s1", 10)
    [said] = [m for m in recent if m.content == source]
    [vector] = services.embedder.embed([content])
    fact = ExplicitFact(
        "bob", "alice", content, exact_key(content), vector, said.id, source[:10], now(), "s1"
    )

    async def work(tx: Tx) -> list[str]:
        return (await write_explicit(tx, workspace, [fact], threshold=1.01)).created

    [created] = await services.db.write_tx(work)
    return created


async def test_a_turn_is_found_through_the_belief_derived_from_it(
    services: Services, chat: str
) -> None:
    workspace = chat
    before = await ranks(services, workspace)
    assert before.index(SAID) > 0  # its own words do not meet the question

    await believe(services, workspace, FACT)
    after = await ranks(services, workspace)
    assert after[0] == SAID

    # The candidate's similarity is the belief's, less the margin, in both halves' pools.
    [vector] = services.embedder.embed([QUESTION])
    [fact_vector] = services.embedder.embed([FACT])
    found = await message_candidates(
        services.db, services.embedder, workspace, QUESTION, MessageFilter(), 10
    )
    [score] = [s for m, s in found.by_vector if m.content == SAID]
    cosine = sum(a * b for a, b in zip(vector, fact_vector, strict=True))
    assert score == pytest.approx((1 + cosine) / 2 - FACT_MARGIN, abs=1e-4)


async def test_a_belief_further_than_the_turn_changes_nothing(
    services: Services, chat: str
) -> None:
    workspace = chat
    before = await ranks(services, workspace)
    # A belief further from the question than its turn leaves the turn's score alone.
    await believe(services, workspace, "It rained all week in Lisbon", source=OTHERS[1])
    assert await ranks(services, workspace) == before


async def test_a_belief_an_edit_left_stale_no_longer_lifts_its_turn(
    services: Services, chat: str
) -> None:
    """The turn edited to say something else: its belief, stale until a dream judges it (for
    good with dreams off), kept lifting it, so the search ranked it by the words it lost."""
    workspace = chat
    await believe(services, workspace, FACT)
    assert (await ranks(services, workspace))[0] == SAID
    recent = await messages.recent(services.db, workspace, "s1", 10)
    [said] = [m for m in recent if m.content == SAID]
    await invalidation.edit_message(
        services.db,
        services.embedder,
        services.tokens,
        services.settings,
        workspace,
        said.id,
        "I'd rather not talk about my mornings.",
    )
    [vector] = services.embedder.embed([QUESTION])
    scores = await message_search.fact_similarity(services.db, workspace, vector, [said.id])
    assert scores == {}
