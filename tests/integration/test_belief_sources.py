"""A belief said in many messages: reads return its first and latest sources, and how many."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import httpx
import pytest

from graph.repo import observation_search, observations, peers, workspaces
from graph.repo.observation_search import ObservationQuery
from graph.repo.observations import DETAIL_DEPENDENTS, MAX_SOURCES
from graph.validation import now
from reasoners.dialectic.evidence import View
from reasoners.dialectic.tools import Toolbox
from resolvers.services import Services
from tests.bench import stale_bench
from tests.conftest import GraphQLClient
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
    # Read by id: the same rule, wider (50 and 500 by default).
    detail = await observations.get_detail(services.db, workspace, belief, max_sources=4)
    assert detail.source_count == SAID
    assert [s.message.created_at.day for s in detail.sources] == [1, SAID - 2, SAID - 1, SAID]


async def test_a_belief_read_as_of_a_time_shows_the_sources_received_by_then(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """Read as it stood before later messages restated it, a belief cited them and counted
    them (and was dated by the latest), though they were not yet written."""
    await conversation(services, workspace, "s1", "s2")
    await say(services, workspace, "s1", "2024-01-05", "I am vegetarian.")
    await derive(services, workspace)
    then = now()
    for day in (6, 7):
        await say(services, workspace, "s2", f"2024-01-{day:02d}", "I am vegetarian.")
    await derive(services, workspace)
    belief = await belief_id(services, workspace, "vegetarian")

    async def sources(as_of: datetime | None = None) -> tuple[int, int, list[str], str | None]:
        query = ObservationQuery("agent", "alice", as_of=as_of)
        [found] = await observations.in_view(services.db, workspace, query, [belief])
        days = [s.message.created_at.date().isoformat() for s in found.sources]
        said = found.observation.times_derived
        return found.source_count, said, days, found.observation.session

    assert await sources() == (3, 3, ["2024-01-05", "2024-01-06", "2024-01-07"], "s1")
    assert await sources(as_of=then) == (1, 1, ["2024-01-05"], "s1")
    assert await sources(as_of=now()) == await sources()

    # Every other read of it counts the same (probe G: lists and searches said 3, then 2).
    async def counts(as_of: datetime | None) -> list[int]:
        stamp = None if as_of is None else as_of.isoformat()
        found = await gql.ok(
            """query($w: String!, $t: DateTime) {
              observations(workspace: $w, observer: "agent", observed: "alice", asOf: $t) {
                nodes { id timesDerived } }
              searchObservations(workspace: $w, observer: "agent", observed: "alice",
                                 query: "vegetarian", filter: {asOf: $t}) {
                observation { id timesDerived } }
            }""",
            {"w": workspace, "t": stamp},
        )
        hits = [h["observation"] for h in found["searchObservations"]]
        listed = found["observations"]["nodes"] + hits
        shown = [o["timesDerived"] for o in listed if o["id"] == belief]
        query = ObservationQuery("agent", "alice", as_of=as_of)
        top = await observation_search.top(
            services.db, workspace, query, most_derived=5, most_recent=5
        )
        shown += [o.times_derived for o in top.most_derived + top.most_recent if o.id == belief]
        return shown

    assert await counts(None) == [3] * 4  # listed, found, most derived, most recent
    assert await counts(then) == [1] * 4


async def test_the_most_derived_beliefs_as_of_a_time_are_ranked_by_their_counts_then(
    services: Services, workspace: str
) -> None:
    """Only the count shown was the one then: the context's most derived were still chosen
    and ordered by today's (the diff review)."""
    await conversation(services, workspace, "s1")
    for day in (1, 2, 3):
        await say(services, workspace, "s1", f"2024-01-0{day}", "I am vegetarian.")
    await say(services, workspace, "s1", "2024-01-04", "I play the cello.")
    await derive(services, workspace)
    then = now()
    for day in range(5, 10):
        await say(services, workspace, "s1", f"2024-01-0{day}", "I play the cello.")
    await derive(services, workspace)
    query = ObservationQuery("agent", "alice")

    async def top(as_of: datetime | None) -> list[tuple[str, int]]:
        found = await observation_search.top(
            services.db, workspace, replace(query, as_of=as_of), most_derived=1, most_recent=0
        )
        return [(o.content, o.times_derived) for o in found.most_derived]

    assert [said for _, said in await top(None)] == [6]  # the cello, said six times
    [(content, said)] = await top(then)
    assert "vegetarian" in content.lower() and said == 3, (content, said)


MANY = DETAIL_DEPENDENTS + 20


async def premise_of(services: Services, workspace: str, children: int) -> str:
    """A belief of agent's view of alice with `children` current deductions resting on it."""
    await workspaces.get_or_create(services.db, workspace)
    for name in ("agent", "alice"):
        await peers.get_or_create(services.db, workspace, name)
    [premise] = await stale_bench.create(services, workspace, "p-", 1)
    made = await stale_bench.create(services, workspace, "c-", children, level="deductive")
    await stale_bench.link(services, [{"child": c, "premise": premise} for c in made])
    return premise


async def test_a_belief_read_by_id_shows_its_latest_dependents_and_how_many(
    services: Services, workspace: str
) -> None:
    premise = await premise_of(services, workspace, MANY)
    detail = await observations.get_detail(services.db, workspace, premise)
    assert detail.dependent_count == MANY
    assert len(detail.dependents) == DETAIL_DEPENDENTS
    assert len({d.id for d in detail.dependents}) == DETAIL_DEPENDENTS


async def test_rest_lists_every_current_belief_derived_from_one(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    """Listed from the belief's detail, conclusions by source stopped at its latest 500
    dependents, current or not."""
    premise = await premise_of(services, workspace, MANY)
    about = {"observer_id": "agent", "observed_id": "alice"}
    derived = {"filters": {**about, "source_ids": {"contains": premise}}, "size": 100}
    listed = await rest.post(f"/workspaces/{workspace}/conclusions/list", json=derived)
    assert listed.status_code == 200, listed.text
    assert listed.json()["total"] == MANY
