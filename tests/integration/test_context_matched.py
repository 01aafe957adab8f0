"""`context` packs the observer's messages that best match the search query, not only the
session's recent tail: the evidence turn of an old session reaches the prompt, what the
observer never saw does not, and nothing is shown twice.

The world: alice tells bob her locker code in an old session s-old, tells carol another code in
s-private (bob is not there), and chats with bob in s-now, the session the context is for.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from graph.repo.sessions import MemberSettings
from resolvers.services import Services
from tests.conftest import GraphQLClient
from tests.integration.derive_helpers import make_peers, make_session, post

pytestmark = pytest.mark.integration

OLD_CODE = "My gym locker code is 4417, in case I forget it again."
PRIVATE_CODE = "The new locker code at the gym is 9902, only you know it."
RECENT = "Shall we book the tennis court for Saturday morning?"

CONTEXT = """
query($w: String!, $q: String, $limit: Int! = 5, $tokens: Int! = 2000) {
  context(workspace: $w, tokens: $tokens, session: "s-now", peerTarget: "alice",
          peerPerspective: "bob", searchQuery: $q, searchMessageLimit: $limit) {
    text tokensUsed budget
    matchedMessages { id content session peer }
    messages { id content }
    matchedMessagesDropped messagesDropped
  }
}"""


def at(month: int, day: int, minute: int = 0) -> datetime:
    return datetime(2024, month, day, 9, minute, tzinfo=UTC)


@pytest.fixture
async def world(services: Services, workspace: str) -> str:
    await make_peers(services, workspace, "alice", "bob", "carol")
    both = [MemberSettings("alice"), MemberSettings("bob")]
    await make_session(services, workspace, "s-old", both)
    await make_session(services, workspace, "s-now", both)
    await make_session(
        services, workspace, "s-private", [MemberSettings("alice"), MemberSettings("carol")]
    )
    await post(
        services,
        workspace,
        "s-old",
        ("alice", "I finally found a cello teacher near the river.", at(1, 5)),
        ("alice", OLD_CODE, at(1, 5, 1)),
        ("bob", "Noted, I will remember the locker code for you.", at(1, 5, 2)),
        ("alice", "The weather in Porto has been lovely this week.", at(1, 5, 3)),
    )
    await post(services, workspace, "s-private", ("alice", PRIVATE_CODE, at(2, 1)))
    await post(
        services,
        workspace,
        "s-now",
        *[("bob", f"Small talk number {i} about nothing much.", at(3, 1, i)) for i in range(6)],
        ("alice", RECENT, at(3, 1, 10)),
    )
    return workspace


async def context(gql: GraphQLClient, workspace: str, **variables: Any) -> dict[str, Any]:
    data = await gql.ok(CONTEXT, {"w": workspace, **variables})
    result: dict[str, Any] = data["context"]
    return result


async def test_the_evidence_turn_of_an_old_session_is_packed(
    gql: GraphQLClient, world: str
) -> None:
    found = await context(gql, world, q="what is alice's gym locker code")
    matched = found["matchedMessages"]
    assert matched and matched[0]["content"] == OLD_CODE and matched[0]["session"] == "s-old"
    # Only the target's turns, and only those the observer saw: not bob's own reply, not the
    # code alice told carol where bob was not.
    assert {m["peer"] for m in matched} == {"alice"}
    assert PRIVATE_CODE not in found["text"]
    assert "## Messages matching the query (best first)" in found["text"]
    assert OLD_CODE in found["text"]
    assert found["tokensUsed"] <= found["budget"]


async def test_without_a_query_or_with_a_limit_of_zero_nothing_is_matched(
    gql: GraphQLClient, world: str
) -> None:
    for variables in ({"q": None}, {"q": "locker code", "limit": 0}):
        found = await context(gql, world, **variables)
        assert found["matchedMessages"] == [] and found["matchedMessagesDropped"] == 0
        assert "Messages matching" not in found["text"] and OLD_CODE not in found["text"]
        assert len(found["messages"]) == 7, "the recent tail is as before"


async def test_a_recent_message_that_matches_is_shown_once(gql: GraphQLClient, world: str) -> None:
    found = await context(gql, world, q="book the tennis court on Saturday", limit=1)
    [match] = found["matchedMessages"]
    assert match["content"] == RECENT
    assert RECENT not in [m["content"] for m in found["messages"]]
    assert found["text"].count(RECENT) == 1
    assert found["messagesDropped"] == 0 and len(found["messages"]) == 6


async def test_matched_messages_respect_the_budget(gql: GraphQLClient, world: str) -> None:
    # 100 tokens: matched messages may take 50, and the code turn's line with its time and
    # speaker is 32, their heading 10.
    found = await context(gql, world, q="gym locker code", limit=5, tokens=100)
    assert found["tokensUsed"] <= 100
    assert [m["content"] for m in found["matchedMessages"]] == [OLD_CODE]
    assert found["matchedMessagesDropped"] >= 1


async def test_a_limit_out_of_range_is_refused(gql: GraphQLClient, world: str) -> None:
    for limit in (-1, 101):
        code = await gql.error_code(CONTEXT, {"w": world, "q": "locker", "limit": limit})
        assert code == "INVALID_INPUT"


async def test_what_needs_a_target_is_refused_without_one(gql: GraphQLClient, world: str) -> None:
    """A session's context without a peerTarget answered as if these were not sent."""
    for given in (
        'searchQuery: "locker"',
        'asOf: "2024-02-01T00:00:00Z"',
        "depth: 2",
        'sessionIds: ["s-now"]',
        'excludeSessionIds: ["s-old"]',
        "excludeDerived: true",
    ):
        query = f"""query($w: String!) {{
          context(workspace: $w, tokens: 500, session: "s-now", {given}) {{ text }}
        }}"""
        body = await gql.raw(query, {"w": world})
        assert body.get("errors"), given
        error = body["errors"][0]
        assert error["extensions"]["code"] == "INVALID_INPUT", (given, error)
        assert "needs a peerTarget" in error["message"], (given, error)
    plain = 'query($w: String!) { context(workspace: $w, tokens: 500, session: "s-now") { text } }'
    assert RECENT in (await gql.ok(plain, {"w": world}))["context"]["text"]
