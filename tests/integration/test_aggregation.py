"""Aggregated reads on the real graph: a read of a peer covers its sub-peers down to `depth`.

The world is the person and team scenarios: alice talks to the agent in a DM (alice-dm), in a
group chat (alice-gc) and directly; alice-dm and alice-gc are alice's sub-peers; alice and bob
are members of the team, and alice also of a project (two parents). The agent observes everyone,
and each peer observes itself; the scripted deriver states every message as one belief.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from graph.errors import LimitExceeded
from graph.records import ObservationRecord
from graph.repo import members, observations, peer_cards
from graph.repo.observation_search import ObservationQuery
from graph.repo.sessions import MemberSettings
from reasoners.dialectic.evidence import View
from reasoners.dialectic.tools import Toolbox
from reasoners.embeddings.model import embed_async
from reasoners.llm.interface import ToolCall
from reasoners.peers.files import FileWriter
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
from tests.integration.test_dialectic import deduce

pytestmark = pytest.mark.integration

SAID = {
    "alice-dm": ("dm", "I adopted a greyhound named Comet."),
    "alice-gc": ("gc", "Standup at nine works for me."),
    "alice": ("top", "I live in Lisbon."),
    "team": ("plan", "We chose Rust for the rewrite."),
    "bob": ("bobs", "I play the cello every evening."),
}
TREE = [
    ("alice", "alice-dm"),
    ("alice", "alice-gc"),
    ("team", "alice"),
    ("team", "bob"),
    ("project", "alice"),
]


@pytest.fixture
async def world(services: Services, workspace: str) -> str:
    await make_peers(services, workspace, "agent", "project", *SAID)
    for parent, child in TREE:
        await members.add(services.db, workspace, parent, child, max_depth=10)
    for peer, (session, text) in SAID.items():
        await make_session(
            services, workspace, session, [MemberSettings(peer), MemberSettings("agent")]
        )
        await post(services, workspace, session, (peer, text))
    worker = worker_for(services, workspace, ScriptedLLM({"deriver": echo_deriver}))
    await flush_and_drain(services, workspace, worker)
    return workspace


def said(peer: str) -> str:
    return SAID[peer][1]


def about(nodes: list[dict[str, Any]]) -> dict[str, str]:
    """The peer each belief is about, by which message it states."""
    found = {}
    for node in nodes:
        for peer, (_, text) in SAID.items():
            if text in node["content"]:
                found[peer] = node["observed"]
    return found


OBSERVATIONS = """
query($w: String!, $observer: String!, $observed: String!, $depth: Depth,
      $only: [String!], $except: [String!], $noDerived: Boolean! = false) {
  observations(workspace: $w, observer: $observer, observed: $observed, depth: $depth,
               sessionIds: $only, excludeSessionIds: $except, excludeDerived: $noDerived) {
    nodes { id content observer observed session level }
  }
}"""


async def seen(
    gql: GraphQLClient, workspace: str, observer: str, observed: str, **extra: Any
) -> dict[str, str]:
    variables = {"w": workspace, "observer": observer, "observed": observed, **extra}
    data = await gql.ok(OBSERVATIONS, variables)
    return about(data["observations"]["nodes"])


async def test_depth_reaches_sub_peers_level_by_level(gql: GraphQLClient, world: str) -> None:
    team = {"team": "team"}
    assert await seen(gql, world, "agent", "team", depth=0) == team
    # The default is one level: the team and its members' own knowledge.
    level_one = {**team, "alice": "alice", "bob": "bob"}
    assert await seen(gql, world, "agent", "team") == level_one
    assert await seen(gql, world, "agent", "team", depth=1) == level_one
    everyone = {**level_one, "alice-dm": "alice-dm", "alice-gc": "alice-gc"}
    assert await seen(gql, world, "agent", "team", depth=2) == everyone
    assert await seen(gql, world, "agent", "team", depth="ALL") == everyone


async def test_a_sub_peer_sees_only_its_own_knowledge(gql: GraphQLClient, world: str) -> None:
    assert await seen(gql, world, "agent", "alice-dm", depth="ALL") == {"alice-dm": "alice-dm"}
    # Aggregation flows up, never down: alice does not see the team's decisions.
    alice = await seen(gql, world, "agent", "alice", depth="ALL")
    assert set(alice) == {"alice", "alice-dm", "alice-gc"}


async def test_a_peer_with_two_parents_is_seen_from_both(gql: GraphQLClient, world: str) -> None:
    assert "alice" in await seen(gql, world, "agent", "team")
    assert "alice" in await seen(gql, world, "agent", "project")
    assert "bob" not in await seen(gql, world, "agent", "project")


async def test_a_peers_self_view_aggregates_its_sub_peers_self_views(
    gql: GraphQLClient, world: str
) -> None:
    data = await gql.ok(OBSERVATIONS, {"w": world, "observer": "alice", "observed": "alice"})
    nodes = data["observations"]["nodes"]
    assert {(n["observer"], n["observed"]) for n in nodes} == {
        ("alice", "alice"),
        ("alice-dm", "alice-dm"),
        ("alice-gc", "alice-gc"),
    }


async def test_session_filters_compose_with_depth(
    services: Services, gql: GraphQLClient, world: str
) -> None:
    assert await seen(gql, world, "agent", "alice", only=["dm"]) == {"alice-dm": "alice-dm"}
    rest = await seen(gql, world, "agent", "alice", **{"except": ["dm"]})
    assert set(rest) == {"alice", "alice-gc"}
    # A deduction has no session: kept by the session exclusions, left out by excludeDerived.
    page = await observations.list_page(
        services.db, world, ObservationQuery("agent", "alice-gc"), after=None, limit=10
    )
    premise: ObservationRecord = page.items[0]
    await deduce(services, world, "alice-gc is an early riser.", [premise])
    data = await gql.ok(
        OBSERVATIONS, {"w": world, "observer": "agent", "observed": "alice", "except": ["gc"]}
    )
    levels = sorted(n["level"] for n in data["observations"]["nodes"])
    assert levels == ["DEDUCTIVE", "EXPLICIT", "EXPLICIT"]
    data = await gql.ok(
        OBSERVATIONS, {"w": world, "observer": "agent", "observed": "alice", "noDerived": True}
    )
    assert {n["level"] for n in data["observations"]["nodes"]} == {"EXPLICIT"}


SEARCH = """
query($w: String!, $observed: String!, $q: String!, $depth: Depth, $f: ObservationFilterInput) {
  searchObservations(workspace: $w, observer: "agent", observed: $observed, query: $q,
                     depth: $depth, filter: $f, limit: 3) {
    observation { content observed }
  }
}"""


async def test_search_finds_a_sub_peers_belief_and_names_its_peer(
    gql: GraphQLClient, world: str
) -> None:
    variables = {"w": world, "observed": "alice", "q": "pet dog greyhound"}
    hits = (await gql.ok(SEARCH, variables))["searchObservations"]
    assert hits[0]["observation"]["observed"] == "alice-dm"
    assert said("alice-dm") in hits[0]["observation"]["content"]
    alone = (await gql.ok(SEARCH, {**variables, "depth": 0}))["searchObservations"]
    assert {h["observation"]["observed"] for h in alone} == {"alice"}
    filtered = await gql.ok(SEARCH, {**variables, "f": {"excludeSessionIds": ["dm"]}})
    assert "alice-dm" not in {h["observation"]["observed"] for h in filtered["searchObservations"]}


CONTEXT = """
query($w: String!, $depth: Depth, $except: [String!]) {
  context(workspace: $w, tokens: 2000, peerTarget: "alice", peerPerspective: "agent",
          searchQuery: "greyhound", depth: $depth, excludeSessionIds: $except) {
    text representation { content observed }
  }
}"""


async def test_context_packs_sub_peer_beliefs_saying_whose_they_are(
    gql: GraphQLClient, world: str
) -> None:
    blob = (await gql.ok(CONTEXT, {"w": world}))["context"]
    assert {o["observed"] for o in blob["representation"]} == {"alice", "alice-dm", "alice-gc"}
    assert "about alice-dm" in blob["text"] and "about alice," not in blob["text"]
    alone = (await gql.ok(CONTEXT, {"w": world, "depth": 0}))["context"]
    assert {o["observed"] for o in alone["representation"]} == {"alice"}
    no_dm = (await gql.ok(CONTEXT, {"w": world, "except": ["dm"]}))["context"]
    assert "alice-dm" not in {o["observed"] for o in no_dm["representation"]}


CHAT = """
query($w: String!, $depth: Depth, $only: [String!]) {
  chat(workspace: $w, peer: "agent", target: "alice", query: "Does alice have a greyhound?",
       depth: $depth, sessionIds: $only) {
    mode citations { observations { observed content } }
  }
}"""


async def test_chat_answers_from_sub_peers_within_the_session_filters(
    gql: GraphQLClient, world: str
) -> None:
    answer = (await gql.ok(CHAT, {"w": world}))["chat"]
    assert answer["mode"] == "extractive"
    cited = {o["observed"] for o in answer["citations"]["observations"]}
    assert "alice-dm" in cited
    alone = (await gql.ok(CHAT, {"w": world, "depth": 0}))["chat"]
    assert {o["observed"] for o in alone["citations"]["observations"]} <= {"alice"}
    top_only = (await gql.ok(CHAT, {"w": world, "only": ["top"]}))["chat"]
    assert {o["observed"] for o in top_only["citations"]["observations"]} == {"alice"}


MESSAGES = """
query($w: String!, $depth: Depth) {
  searchMessages(workspace: $w, query: "greyhound named Comet", filter: {peer: "alice"},
                 depth: $depth, limit: 10) {
    message { peer content }
  }
}"""


async def test_peer_message_search_covers_sub_peers_and_names_the_sender(
    gql: GraphQLClient, world: str
) -> None:
    hits = (await gql.ok(MESSAGES, {"w": world}))["searchMessages"]
    assert hits[0]["message"] == {"peer": "alice-dm", "content": said("alice-dm")}
    assert {h["message"]["peer"] for h in hits} <= {"alice", "alice-dm", "alice-gc"}
    alone = (await gql.ok(MESSAGES, {"w": world, "depth": 0}))["searchMessages"]
    assert {h["message"]["peer"] for h in alone} == {"alice"}
    # Without a peer, a depth chose nothing, and said nothing.
    unscoped = """query($w: String!) {
      searchMessages(workspace: $w, query: "greyhound", depth: ALL) { message { id } }
    }"""
    assert await gql.error_code(unscoped, {"w": world}) == "INVALID_INPUT"


async def test_dialectic_tools_follow_the_view_and_list_its_peers(
    services: Services, world: str
) -> None:
    below = await members.aggregation_set(services.db, world, "alice", depth=1, max_peers=10)
    view = View(world, "agent", "alice", aggregated=tuple(below[1:]))
    tools = Toolbox(services.db, services.embedder, view)
    grep = await tools.dispatch(ToolCall("g", "grep_messages", {"text": "greyhound"}))
    assert said("alice-dm") in grep
    ranked = await tools.search_messages("greyhound named Comet", limit=3)
    assert ranked.items[0].message.content == said("alice-dm")
    assert {i.message.peer for i in ranked.items} <= {"alice", "alice-dm", "alice-gc"}
    found = await tools.dispatch(ToolCall("s", "search_observations", {"query": "greyhound"}))
    assert "about alice-dm" in found
    subs = await tools.dispatch(ToolCall("l", "list_sub_peers", {}))
    assert "alice-dm (1 level away)" in subs and "alice-gc" in subs
    # Another peer's memberships are not the agent's to see: only parents inside the view.
    parents = await tools.dispatch(ToolCall("p", "list_parent_peers", {"peer": "alice-dm"}))
    assert "- alice (1 level away)" in parents
    mine = await tools.dispatch(ToolCall("m", "list_parent_peers", {}))
    assert "team" not in mine and "no parent peers" in mine
    outside = await tools.dispatch(ToolCall("o", "list_sub_peers", {"peer": "team"}))
    assert outside.startswith("Error:") and "not alice or one of the sub-peers" in outside
    # A peer asking about itself sees its own memberships.
    own = Toolbox(services.db, services.embedder, View(world, "alice", "alice"))
    text = await own.dispatch(ToolCall("m", "list_parent_peers", {}))
    assert "project" in text and "team" in text
    # Without aggregation the sub-peers' messages are out of view, and so are their names.
    narrow = Toolbox(services.db, services.embedder, View(world, "agent", "alice"))
    none_listed = await narrow.dispatch(ToolCall("n", "list_sub_peers", {}))
    assert "alice-dm" not in none_listed and "alice-gc" not in none_listed, none_listed
    assert (await narrow.grep_messages("greyhound")).items == []
    assert all(i.message.peer == "alice" for i in (await narrow.search_messages("greyhound")).items)


async def test_an_aggregation_over_the_limit_is_refused(
    gql: GraphQLClient, services: Services, world: str
) -> None:
    everyone = ["team", "alice", "bob", "alice-dm", "alice-gc"]
    found = await members.aggregation_set(
        services.db, world, "team", depth=members.ALL, max_peers=5
    )
    assert found[0] == "team" and sorted(found) == sorted(everyone)
    found = await members.aggregation_set(services.db, world, "team", depth=2, max_peers=5)
    assert found == everyone  # nearest first at a bounded depth
    for depth in (2, members.ALL):
        with pytest.raises(LimitExceeded, match="covers more than 4 peers"):
            await members.aggregation_set(services.db, world, "team", depth=depth, max_peers=4)
    variables = {"w": world, "observer": "agent", "observed": "team", "depth": -1}
    body = await gql.raw(OBSERVATIONS, variables)
    assert body["errors"] and "depth must be a whole number" in str(body["errors"])


async def test_dialectic_file_search_covers_sub_peers_and_keeps_cards_in_their_views(
    services: Services, world: str
) -> None:
    writer = FileWriter(services.db, services.embedder, services.tokens, services.settings)
    await writer.create(
        world,
        "alice-dm",
        "profile.md",
        "# Pets\n\nComet is a retired racing greyhound who sleeps most of the day.",
    )
    await make_peers(services, world, "carol")

    async def embed(texts: list[str]) -> list[list[float]]:
        return await embed_async(services.embedder, texts)

    await peer_cards.set_card(
        services.db, world, "carol", "alice-dm", ["Walks a greyhound"], embed=embed
    )
    await peer_cards.set_card(
        services.db, world, "agent", "alice-dm", ["Owns a greyhound"], embed=embed
    )
    below = tuple(
        (await members.aggregation_set(services.db, world, "alice", depth=1, max_peers=10))[1:]
    )
    view = View(world, "agent", "alice", aggregated=below, read_files=True)
    tools = Toolbox(services.db, services.embedder, view)
    text = await tools.dispatch(ToolCall("f", "search_files", {"query": "greyhound dog"}))
    assert "alice-dm/profile.md (part 1)" in text and "retired racing greyhound" in text
    # The agent's own card of alice-dm shows; carol's card is carol's view and never does.
    assert "alice-dm/cards/agent.md" in text and "cards/carol.md" not in text
    # An asker who may not read alice's files sees only the view's own cards.
    narrow = Toolbox(services.db, services.embedder, replace(view, read_files=False))
    text = await narrow.dispatch(ToolCall("f", "search_files", {"query": "greyhound dog"}))
    assert "profile.md" not in text and "alice-dm/cards/agent.md" in text
    # Without aggregation the sub-peer's files are out of view.
    alone = Toolbox(services.db, services.embedder, View(world, "agent", "alice", read_files=True))
    text = await alone.dispatch(ToolCall("f", "search_files", {"query": "greyhound dog"}))
    assert "alice-dm" not in text


async def test_dialectic_file_search_finds_its_own_card_behind_many_others(
    services: Services, world: str
) -> None:
    """The search asked for three hits per one shown, then dropped other observers' cards:
    twenty observers' cards of alice filled the first hits and the view's own never showed."""

    async def embed(texts: list[str]) -> list[list[float]]:
        return await embed_async(services.embedder, texts)

    others = [f"observer{i}" for i in range(20)]
    await make_peers(services, world, *others)
    for name in others:
        await peer_cards.set_card(
            services.db, world, name, "alice", ["Walks a greyhound every morning"], embed=embed
        )
    await peer_cards.set_card(
        services.db, world, "agent", "alice", ["Has a pet dog of some breed"], embed=embed
    )
    tools = Toolbox(services.db, services.embedder, View(world, "agent", "alice"))
    found = await tools.search_files("greyhound walks every morning", limit=2)
    assert [(p.peer, p.path) for p in found.passages] == [("alice", "cards/agent.md")]


LEVELS = """
query($w: String!, $levels: [ObservationLevel!], $only: [String!]) {
  observations(workspace: $w, observer: "agent", observed: "team", depth: "ALL",
               levels: $levels, sessionIds: $only) { nodes { id } }
  searchObservations(workspace: $w, observer: "agent", observed: "team", query: "team",
                     depth: "ALL", filter: {levels: $levels, sessionIds: $only}) {
    score
  }
}"""


async def test_an_empty_list_of_levels_matches_none_as_an_empty_list_of_sessions_does(
    gql: GraphQLClient, world: str
) -> None:
    """`levels: []` meant every level while `sessionIds: []` meant no session."""
    everything = await gql.ok(LEVELS, {"w": world})
    assert everything["observations"]["nodes"] and everything["searchObservations"]
    for empty in ({"levels": []}, {"only": []}):
        data = await gql.ok(LEVELS, {"w": world, **empty})
        assert data["observations"]["nodes"] == [] and data["searchObservations"] == [], empty
