"""A belief said in many messages: reads return its first and latest sources, and how many."""

from __future__ import annotations

import pytest

from graph.repo import observations
from graph.repo.observation_search import ObservationQuery
from graph.repo.observations import MAX_SOURCES
from reasoners.dialectic.evidence import View
from reasoners.dialectic.tools import Toolbox
from resolvers.services import Services
from tests.integration.dream_helpers import belief_id, conversation, derive, say

pytestmark = pytest.mark.integration

SAID = 15


async def test_a_belief_said_many_times_returns_its_first_and_latest_sources(
    services: Services, workspace: str
) -> None:
    """A fact said in 300 messages put 300 quotes in the dialectic's prompt (24,000 characters
    for one belief), its citations and its message_context calls."""
    await conversation(services, workspace, "s1")
    for day in range(1, SAID + 1):
        await say(services, workspace, "s1", f"2024-01-{day:02d}", "I am vegetarian.")
    await derive(services, workspace)
    belief = await belief_id(services, workspace, "vegetarian")
    query = ObservationQuery("agent", "alice")
    [found] = await observations.in_view(services.db, workspace, query, [belief])
    assert found.source_count == SAID
    days = [s.message.created_at.day for s in found.sources]
    assert days == [1, *range(SAID - MAX_SOURCES + 2, SAID + 1)]
    toolbox = Toolbox(services.db, services.embedder, View(workspace, "agent", "alice"))
    shown = (await toolbox.item(belief)).render()
    assert shown.count("from [msg:") == MAX_SOURCES
    assert f"said in {SAID - MAX_SOURCES} more messages" in shown
