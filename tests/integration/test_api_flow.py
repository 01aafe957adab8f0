"""Workspaces, peers, sessions and messages through GraphQL on the real Neo4j."""

from __future__ import annotations

import pytest

from resolvers.services import Services
from tests import statements
from tests.conftest import GraphQLClient

pytestmark = pytest.mark.integration

CREATE_PEER = """
mutation($w: String!, $n: String!, $m: JSON) {
  createPeer(workspace: $w, name: $n, metadata: $m) { name metadata }
}"""
CREATE_SESSION = """
mutation($w: String!, $n: String!, $peers: [SessionPeerInput!]) {
  createSession(workspace: $w, name: $n, peers: $peers) { name active }
}"""
ADD = """
mutation($w: String!, $s: String!, $msgs: [MessageInput!]!) {
  addMessages(workspace: $w, session: $s, messages: $msgs) {
    created messages { id peer content seq clientId }
  }
}"""
SEARCH = """
query($w: String!, $q: String!, $f: MessageFilterInput, $limit: Int) {
  searchMessages(workspace: $w, query: $q, filter: $f, limit: $limit) {
    score vectorRank textRank message { id content peer session }
  }
}"""


async def seed(gql: GraphQLClient, workspace: str) -> None:
    for name in ("alice", "bob"):
        await gql.ok(CREATE_PEER, {"w": workspace, "n": name, "m": {"role": name}})
    await gql.ok(
        CREATE_SESSION,
        {"w": workspace, "n": "s1", "peers": [{"peer": "alice"}, {"peer": "bob"}]},
    )


async def test_create_peer_add_messages_and_search(gql: GraphQLClient, workspace: str) -> None:
    await seed(gql, workspace)
    data = await gql.ok(
        ADD,
        {
            "w": workspace,
            "s": "s1",
            "msgs": [
                {"peer": "alice", "content": "I adopted a golden retriever puppy last week."},
                {"peer": "bob", "content": "Congrats! What did you name her?"},
                {"peer": "alice", "content": "We called her Zanzibarella, after the island."},
                {"peer": "bob", "content": "My commute by train takes forty minutes."},
            ],
        },
    )
    assert data["addMessages"]["created"] == 4
    assert [m["seq"] for m in data["addMessages"]["messages"]] == [0, 1, 2, 3]

    by_meaning = await gql.ok(SEARCH, {"w": workspace, "q": "pet dog", "limit": 2})
    assert by_meaning["searchMessages"][0]["message"]["content"].startswith("I adopted")
    assert by_meaning["searchMessages"][0]["vectorRank"] == 1

    by_word = await gql.ok(SEARCH, {"w": workspace, "q": "zanzibarella", "limit": 3})
    top = by_word["searchMessages"][0]
    assert "Zanzibarella" in top["message"]["content"]
    assert top["textRank"] == 1

    scoped = await gql.ok(
        SEARCH, {"w": workspace, "q": "pet dog", "f": {"peer": "bob"}, "limit": 10}
    )
    assert {h["message"]["peer"] for h in scoped["searchMessages"]} == {"bob"}


async def test_get_or_create_returns_the_existing_peer(gql: GraphQLClient, workspace: str) -> None:
    first = await gql.ok(CREATE_PEER, {"w": workspace, "n": "carol", "m": {"a": 1}})
    again = await gql.ok(CREATE_PEER, {"w": workspace, "n": "carol", "m": {"a": 2}})
    assert first["createPeer"]["metadata"] == {"a": 1}
    assert again["createPeer"]["metadata"] == {"a": 1}


async def test_unknown_workspace_is_not_found(gql: GraphQLClient) -> None:
    code = await gql.error_code(CREATE_PEER, {"w": "no-such-workspace-xyz", "n": "x"})
    assert code == "NOT_FOUND"


async def test_deleting_a_workspace_leaves_nothing_of_it(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await seed(gql, workspace)
    await gql.ok(
        ADD,
        {"w": workspace, "s": "s1", "msgs": [{"peer": "alice", "content": "I like tea."}]},
    )
    before = await statements.read_one(services.db, "count_workspace_nodes", workspace=workspace)
    assert before is not None and before["total"] > 5  # peers, session, message, jobs, units
    data = await gql.ok(
        "mutation($w: String!) { deleteWorkspace(name: $w) { deletedNodes } }", {"w": workspace}
    )
    assert data["deleteWorkspace"]["deletedNodes"] == before["total"] + 1  # + the Workspace
    after = await statements.read_one(services.db, "count_workspace_nodes", workspace=workspace)
    assert after is not None and after["total"] == 0
