"""addMessages: idempotency, all-or-nothing batches, limits, listing and pagination."""

from __future__ import annotations

import asyncio

import pytest

from graph.errors import Forbidden
from graph.props import Meta
from graph.repo import peers, sessions
from graph.repo.sessions import MemberSettings
from reasoners.ingest.messages import MessageInput, add_messages
from resolvers.services import Services
from tests.conftest import GraphQLClient
from tests.fakes.embedder import CountingEmbedder
from tests.integration.derive_helpers import make_peers, make_session
from tests.integration.test_api_flow import ADD, seed

pytestmark = pytest.mark.integration

LIST = """
query($w: String!, $f: MessageFilterInput, $first: Int, $after: String) {
  messages(workspace: $w, filter: $f, first: $first, after: $after) {
    nodes { id content peer metadata createdAt }
    pageInfo { endCursor hasNextPage }
  }
}"""


async def count_messages(gql: GraphQLClient, workspace: str) -> int:
    data = await gql.ok(LIST, {"w": workspace, "first": 100})
    return len(data["messages"]["nodes"])


async def test_resending_a_batch_creates_nothing_new(gql: GraphQLClient, workspace: str) -> None:
    await seed(gql, workspace)
    batch = [
        {"peer": "alice", "content": "first", "clientId": "c-1"},
        {"peer": "bob", "content": "second", "clientId": "c-2"},
    ]
    first = await gql.ok(ADD, {"w": workspace, "s": "s1", "msgs": batch})
    again = await gql.ok(ADD, {"w": workspace, "s": "s1", "msgs": batch})
    assert first["addMessages"]["created"] == 2
    assert again["addMessages"]["created"] == 0
    ids = [m["id"] for m in first["addMessages"]["messages"]]
    assert [m["id"] for m in again["addMessages"]["messages"]] == ids
    # A partly new batch stores only the new item.
    mixed = await gql.ok(
        ADD,
        {
            "w": workspace,
            "s": "s1",
            "msgs": [*batch, {"peer": "bob", "content": "third", "clientId": "c-3"}],
        },
    )
    assert mixed["addMessages"]["created"] == 1
    assert await count_messages(gql, workspace) == 3


async def test_concurrent_resends_store_one_copy(gql: GraphQLClient, workspace: str) -> None:
    await seed(gql, workspace)
    batch = [{"peer": "alice", "content": f"m{i}", "clientId": f"k{i}"} for i in range(5)]
    results = await asyncio.gather(
        *[gql.raw(ADD, {"w": workspace, "s": "s1", "msgs": batch}) for _ in range(4)]
    )
    assert all(not r.get("errors") for r in results), results
    assert sum(r["data"]["addMessages"]["created"] for r in results) == 5
    assert await count_messages(gql, workspace) == 5


async def test_many_writers_into_one_session_all_get_their_messages_stored(
    gql: GraphQLClient, workspace: str
) -> None:
    """20 batches at once into one session: each takes the session's counter, and those that
    deadlock run again until they commit (before, up to 5 of 20 answered INTERNAL)."""
    await seed(gql, workspace)
    batches = [[{"peer": "alice", "content": f"I like item {i}."}] for i in range(20)]
    results = await asyncio.gather(
        *[gql.raw(ADD, {"w": workspace, "s": "s1", "msgs": batch}) for batch in batches]
    )
    assert [r.get("errors") for r in results] == [None] * 20
    seqs = sorted(r["data"]["addMessages"]["messages"][0]["seq"] for r in results)
    assert len(set(seqs)) == 20
    assert await count_messages(gql, workspace) == 20


@pytest.mark.parametrize(
    ("bad_item", "field", "code"),
    [
        ({"peer": "alice", "content": "x" * 25_001}, "content", "INVALID_INPUT"),
        ({"peer": "alice", "content": "   "}, "content", "INVALID_INPUT"),
        ({"peer": "nobody", "content": "hello"}, "peer", "INVALID_INPUT"),
        ({"peer": "bad name!", "content": "hello"}, "peer", "INVALID_INPUT"),
        (
            {"peer": "alice", "content": "hi", "metadata": {"k": "v" * 20_000}},
            "metadata",
            "LIMIT_EXCEEDED",
        ),
    ],
)
async def test_one_bad_item_writes_nothing_and_names_it(
    gql: GraphQLClient, workspace: str, bad_item: dict[str, object], field: str, code: str
) -> None:
    await seed(gql, workspace)
    batch = [
        {"peer": "alice", "content": "good one"},
        {"peer": "bob", "content": "good two"},
        bad_item,
    ]
    body = await gql.raw(ADD, {"w": workspace, "s": "s1", "msgs": batch})
    error = body["errors"][0]
    assert error["extensions"]["code"] == code
    assert error["message"].startswith(f"messages[2].{field}")
    assert error["extensions"]["index"] == 2
    assert await count_messages(gql, workspace) == 0


async def test_batch_size_limit(gql: GraphQLClient, workspace: str) -> None:
    await seed(gql, workspace)
    batch = [{"peer": "alice", "content": f"m{i}"} for i in range(101)]
    code = await gql.error_code(ADD, {"w": workspace, "s": "s1", "msgs": batch})
    assert code == "LIMIT_EXCEEDED"
    empty = await gql.error_code(ADD, {"w": workspace, "s": "s1", "msgs": []})
    assert empty == "INVALID_INPUT"


async def test_list_filters_and_pages(gql: GraphQLClient, workspace: str) -> None:
    await seed(gql, workspace)
    msgs = [
        {
            "peer": "alice" if i % 2 else "bob",
            "content": f"message {i}",
            "metadata": {"topic": "pets" if i % 3 == 0 else "work"},
            "createdAt": f"2024-01-0{1 + i // 3}T10:0{i % 3}:00+00:00",
        }
        for i in range(9)
    ]
    await gql.ok(ADD, {"w": workspace, "s": "s1", "msgs": msgs})
    seen: list[str] = []
    after = None
    while True:
        page = (await gql.ok(LIST, {"w": workspace, "first": 4, "after": after}))["messages"]
        seen += [n["content"] for n in page["nodes"]]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [f"message {i}" for i in range(9)]

    pets = await gql.ok(LIST, {"w": workspace, "f": {"metadata": {"topic": "pets"}}})
    assert [n["content"] for n in pets["messages"]["nodes"]] == [
        "message 0",
        "message 3",
        "message 6",
    ]
    by_alice = await gql.ok(LIST, {"w": workspace, "f": {"peer": "alice"}})
    assert {n["peer"] for n in by_alice["messages"]["nodes"]} == {"alice"}
    window = await gql.ok(
        LIST,
        {"w": workspace, "f": {"since": "2024-01-02T00:00:00Z", "until": "2024-01-03T00:00:00Z"}},
    )
    assert [n["content"] for n in window["messages"]["nodes"]] == [
        "message 3",
        "message 4",
        "message 5",
    ]
    assert await gql.error_code(LIST, {"w": workspace, "first": 101}) == "INVALID_INPUT"
    assert await gql.error_code(LIST, {"w": workspace, "after": "garbage!"}) == "INVALID_INPUT"


async def test_a_batch_sharing_its_time_is_listed_in_the_order_it_was_sent(
    gql: GraphQLClient, workspace: str
) -> None:
    """Its messages share their time, and were listed by their random ids."""
    await seed(gql, workspace)
    msgs = [{"peer": "alice", "content": f"message {i}"} for i in range(30)]
    await gql.ok(ADD, {"w": workspace, "s": "s1", "msgs": msgs})
    seen: list[str] = []
    after = None
    while True:
        page = (await gql.ok(LIST, {"w": workspace, "first": 7, "after": after}))["messages"]
        seen += [n["content"] for n in page["nodes"]]
        assert len({n["createdAt"] for n in page["nodes"]}) == 1
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    assert seen == [f"message {i}" for i in range(30)]

    # A cursor of another list is refused: it was read as a place here, and gave a page of
    # nothing.
    queued = """query($w: String!) { jobs(workspace: $w, first: 1) { cursor } }"""
    [job] = (await gql.ok(queued, {"w": workspace}))["jobs"]
    assert await gql.error_code(LIST, {"w": workspace, "after": job["cursor"]}) == "INVALID_INPUT"


async def test_concurrent_get_or_create_gives_one_peer(services: Services, workspace: str) -> None:
    results = await asyncio.gather(
        *[
            peers.get_or_create(services.db, workspace, "dora", Meta.of({"n": i}, None, limit=1000))
            for i in range(8)
        ]
    )
    assert len({r.created_at for r in results}) == 1
    listed = (
        await peers.list_page(services.db, workspace, metadata=None, after=None, limit=50)
    ).items
    assert [p.name for p in listed] == ["dora"]


async def test_times_at_any_offset_python_reads_are_taken(
    gql: GraphQLClient, workspace: str
) -> None:
    """Offsets beyond 18 hours, which Python reads and Neo4j cannot store, were INTERNAL
    wherever a time is taken: they are now the same instant in UTC. (REST reads offsets with
    seconds too: tests/unit/test_validation.py.)"""
    await seed(gql, workspace)
    for stamp in ("2024-01-01T00:00:00+23:59", "2024-06-01T12:00:00-18:30"):
        added = await gql.ok(
            ADD,
            {
                "w": workspace,
                "s": "s1",
                "msgs": [{"peer": "alice", "content": stamp, "createdAt": stamp}],
            },
        )
        assert added["addMessages"]["created"] == 1
        data = await gql.ok(
            """query($w: String!, $t: DateTime!) {
              messages(workspace: $w, filter: {since: $t}) { nodes { content createdAt } }
              observations(workspace: $w, observer: "alice", observed: "alice", asOf: $t) {
                nodes { id }
              }
              context(workspace: $w, tokens: 500, peerTarget: "alice", asOf: $t) { text }
            }""",
            {"w": workspace, "t": stamp},
        )
        assert stamp in [m["content"] for m in data["messages"]["nodes"]], (stamp, data)


async def test_a_sender_that_may_not_join_is_refused_before_anything_is_embedded(
    services: Services, workspace: str
) -> None:
    """A peer key posting into a session it is not in was refused only at the write, after its
    batch had been embedded: 100 long messages cost the server 10 s each time."""
    await make_peers(services, workspace, "alice", "carol")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    embedder = CountingEmbedder()
    items = [MessageInput(peer="carol", content="I live in Leeds. " * 100)] * 3
    with pytest.raises(Forbidden, match="not in session"):
        await add_messages(
            services.db,
            embedder,
            services.tokens,
            services.settings,
            workspace,
            "s1",
            items,
            may_join=False,
        )
    assert embedder.calls == []


async def test_a_resend_by_a_peer_that_has_left_is_answered_with_what_is_stored(
    services: Services, workspace: str
) -> None:
    """The early check refused the whole batch, where the write answers a resend."""
    await make_peers(services, workspace, "carol")
    await make_session(services, workspace, "s1", [MemberSettings("carol")])
    item = MessageInput(peer="carol", content="I live in Leeds.", client_id="c-1")
    args = (services.db, services.embedder, services.tokens, services.settings, workspace, "s1")
    first = await add_messages(*args, [item], may_join=False)
    await sessions.remove_peers(services.db, workspace, "s1", ["carol"])
    again = await add_messages(*args, [item], may_join=False)
    assert [m.id for m in again.messages] == [m.id for m in first.messages]
    assert again.created == 0
    with pytest.raises(Forbidden, match="not in session"):
        await add_messages(*args, [MessageInput(peer="carol", content="New.")], may_join=False)


EDIT = """
mutation($w: String!, $id: ID!, $c: String!) {
  editMessage(workspace: $w, id: $id, content: $c) { message { id content } }
}"""


async def test_a_nul_character_is_not_stored_by_any_write(
    gql: GraphQLClient, workspace: str
) -> None:
    """GraphQL stored a NUL the REST routes dropped: one input, two stored texts."""
    await seed(gql, workspace)
    sent = [{"peer": "alice", "content": "I play\x00 the cello."}]
    added = await gql.ok(ADD, {"w": workspace, "s": "s1", "msgs": sent})
    [message] = added["addMessages"]["messages"]
    assert message["content"] == "I play the cello."
    edited = await gql.ok(EDIT, {"w": workspace, "id": message["id"], "c": "I play\x00 piano."})
    assert edited["editMessage"]["message"]["content"] == "I play piano."
    # Nothing but NULs is empty text, refused as empty text is.
    only_nul = [{"peer": "alice", "content": "\x00\x00"}]
    assert await gql.error_code(ADD, {"w": workspace, "s": "s1", "msgs": only_nul}) == (
        "INVALID_INPUT"
    )
    refused = await gql.error_code(EDIT, {"w": workspace, "id": message["id"], "c": "\x00"})
    assert refused == "INVALID_INPUT"
    listed = await gql.ok(LIST, {"w": workspace})
    assert [m["content"] for m in listed["messages"]["nodes"]] == ["I play piano."]
