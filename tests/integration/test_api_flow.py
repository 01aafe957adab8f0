"""Workspaces, peers, sessions and messages through GraphQL on the real Neo4j."""

from __future__ import annotations

import pytest

from graph.repo import messages
from graph.repo.messages import MessageFilter
from reasoners.search.messages import SpeakerLookup
from reasoners.search.replies import REPLY_WEIGHT
from reasoners.search.speakers import SPEAKER_WEIGHT
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


async def test_a_closed_session_takes_no_messages_until_reopened(
    gql: GraphQLClient, workspace: str
) -> None:
    await seed(gql, workspace)
    one = {"w": workspace, "s": "s1", "msgs": [{"peer": "alice", "content": "Hello there."}]}
    close = """mutation($w: String!, $a: Boolean!) {
      updateSession(workspace: $w, name: "s1", active: $a) { active }
    }"""
    sent = {
        "w": workspace,
        "s": "s1",
        "msgs": [{"peer": "alice", "content": "Hi.", "clientId": "c1"}],
    }
    assert (await gql.ok(ADD, sent))["addMessages"]["created"] == 1
    await gql.ok(close, {"w": workspace, "a": False})
    assert await gql.error_code(ADD, one) == "CONFLICT"
    # A resend of what is stored is answered, closed or not (a client told to resend).
    assert (await gql.ok(ADD, sent))["addMessages"]["created"] == 0
    listed = await gql.ok(
        "query($w: String!) { messages(workspace: $w) { nodes { id } } }", {"w": workspace}
    )
    assert len(listed["messages"]["nodes"]) == 1
    await gql.ok(close, {"w": workspace, "a": True})
    assert (await gql.ok(ADD, one))["addMessages"]["created"] == 1


async def test_get_or_create_returns_the_existing_peer(gql: GraphQLClient, workspace: str) -> None:
    first = await gql.ok(CREATE_PEER, {"w": workspace, "n": "carol", "m": {"a": 1}})
    again = await gql.ok(CREATE_PEER, {"w": workspace, "n": "carol", "m": {"a": 2}})
    assert first["createPeer"]["metadata"] == {"a": 1}
    assert again["createPeer"]["metadata"] == {"a": 1}


async def test_unknown_workspace_is_not_found(gql: GraphQLClient) -> None:
    code = await gql.error_code(CREATE_PEER, {"w": "no-such-workspace-xyz", "n": "x"})
    assert code == "NOT_FOUND"


async def test_no_key_is_issued_with_auth_off(gql: GraphQLClient, services: Services) -> None:
    """Every caller is the admin then: any local process minted admin keys, valid on any server
    sharing the secret (the review)."""
    assert not services.settings.auth_enabled
    body = await gql.raw("mutation { createKey(scope: ADMIN) }")
    assert body["data"] is None
    [error] = body["errors"]
    assert error["extensions"]["code"] == "INVALID_INPUT"
    assert "BELIEFGRAPH_AUTH=on" in error["message"] and "auth on" in error["message"]


async def test_a_failed_lookup_leaves_the_other_fields_their_answers(
    gql: GraphQLClient, workspace: str
) -> None:
    """One unknown id nulled the whole answer: data was null, the workspace read with it lost."""
    await gql.ok(CREATE_PEER, {"w": workspace, "n": "carol"})
    lookups = """query($w: String!) {
      workspace(name: $w) { name beingDeleted }
      peer(workspace: $w, name: "carol") { name }
      observation(workspace: $w, id: "nosuch") { observation { id } }
      message(workspace: $w, id: "nosuch") { id }
      session(workspace: $w, name: "nosuch") { name }
      missing: peer(workspace: $w, name: "nosuch") { name }
      file(workspace: $w, peer: "carol", path: "nosuch.md") { path }
    }"""
    body = await gql.raw(lookups, {"w": workspace})
    assert body["data"] == {
        "workspace": {"name": workspace, "beingDeleted": False},
        "peer": {"name": "carol"},
        "observation": None,
        "message": None,
        "session": None,
        "missing": None,
        "file": None,
    }
    errors = {e["path"][0]: e["extensions"]["code"] for e in body["errors"]}
    assert errors == dict.fromkeys(
        ["observation", "message", "session", "missing", "file"], "NOT_FOUND"
    )


async def test_a_lookup_in_a_missing_workspace_names_the_workspace(gql: GraphQLClient) -> None:
    """They said the peer, session or file did not exist in it, as if the workspace did."""
    for field in (
        'peer(workspace: $w, name: "carol") { name }',
        'observation(workspace: $w, id: "nosuch") { observation { id } }',
        'message(workspace: $w, id: "nosuch") { id }',
        'session(workspace: $w, name: "s") { name }',
        'sessionPeers(workspace: $w, session: "s") { peer }',
        'file(workspace: $w, peer: "carol", path: "nosuch.md") { path }',
        # Probe H: these said the peers did not exist in it.
        'observations(workspace: $w, observer: "a", observed: "b") { nodes { id } }',
        'searchObservations(workspace: $w, observer: "a", observed: "b", query: "x") { score }',
        'dreamRuns(workspace: $w, observer: "a", observed: "b") { runNumber }',
        'peerCard(workspace: $w, observer: "a") { entries }',
        'subPeers(workspace: $w, peer: "a") { peer { name } }',
        'parentPeers(workspace: $w, peer: "a") { peer { name } }',
        'searchFiles(workspace: $w, peer: "a", query: "x") { path }',
    ):
        body = await gql.raw(f"query($w: String!) {{ {field} }}", {"w": "no-such-workspace"})
        assert [e["message"] for e in body["errors"]] == [
            "workspace 'no-such-workspace' does not exist"
        ], field


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


SEARCH_AS = """
query($w: String!, $q: String!, $asker: String) {
  searchMessages(workspace: $w, query: $q, asker: $asker, limit: 10) {
    score message { id peer content session }
  }
}"""


async def scores(gql: GraphQLClient, workspace: str, query: str, asker: str | None = None) -> dict:
    found = await gql.ok(SEARCH_AS, {"w": workspace, "q": query, "asker": asker})
    return {h["message"]["id"]: (h["message"]["peer"], h["score"]) for h in found["searchMessages"]}


async def test_the_speaker_a_query_points_at_gets_a_bonus(
    gql: GraphQLClient, workspace: str
) -> None:
    await seed(gql, workspace)
    await gql.ok(
        ADD,
        {
            "w": workspace,
            "s": "s1",
            "msgs": [
                {"peer": "alice", "content": "I bought a red bicycle for my commute."},
                {"peer": "bob", "content": "A red bicycle is a great way to commute in town."},
                {"peer": "bob", "content": "I recommended a helmet with lights for the bicycle."},
            ],
        },
    )

    def bonus(with_: dict, without: dict) -> list[tuple[str, float]]:
        assert with_.keys() == without.keys()
        return sorted((peer, round(s - without[m][1], 6)) for m, (peer, s) in with_.items())

    first_person = "what bicycle did I buy"
    plain = await scores(gql, workspace, first_person)
    assert bonus(await scores(gql, workspace, first_person, "alice"), plain) == [
        ("alice", SPEAKER_WEIGHT),
        ("bob", 0.0),
        ("bob", 0.0),
    ]
    said = "the helmet you recommended"
    plain = await scores(gql, workspace, said)
    asked = await scores(gql, workspace, said, "alice")
    [(request, (_, request_score))] = [(m, h) for m, h in plain.items() if h[0] == "alice"]
    # bob's first turn replies to alice's: it adds a share of her turn's score too.
    reply = REPLY_WEIGHT * request_score
    assert bonus(asked, plain) == [
        ("alice", 0.0),
        ("bob", pytest.approx(SPEAKER_WEIGHT, abs=1e-6)),
        ("bob", pytest.approx(SPEAKER_WEIGHT + reply, abs=1e-6)),
    ]
    assert asked[request][1] == pytest.approx(request_score)


async def test_asked_what_you_said_a_reply_to_the_asker_outranks_the_request(
    gql: GraphQLClient, workspace: str
) -> None:
    await seed(gql, workspace)
    turns = [
        ("alice", "Brainstorm ideas for work from home jobs for seniors"),
        ("bob", "1. Virtual tutor 2. Remote bookkeeper 3. Transcriptionist 4. Online reseller"),
        ("alice", "Thanks, that is a good start."),
        ("bob", "Glad to help!"),
    ]
    sent = [{"peer": p, "content": c} for p, c in turns]
    await gql.ok(ADD, {"w": workspace, "s": "s1", "msgs": sent})
    query = "the work from home jobs for seniors you listed"
    plain = await scores(gql, workspace, query)
    asked = await scores(gql, workspace, query, "alice")
    by_content = await contents(gql, workspace, query)
    request, answer = by_content[turns[0][1]], by_content[turns[1][1]]
    # The request is worded like the question: the speaker bonus alone would not lift the list.
    assert plain[request][1] > plain[answer][1] + SPEAKER_WEIGHT
    assert max(asked, key=lambda m: asked[m][1]) == answer
    assert asked[answer][1] == pytest.approx(
        plain[answer][1] + SPEAKER_WEIGHT + REPLY_WEIGHT * plain[request][1], abs=1e-6
    )


async def test_asked_what_you_said_other_sessions_of_others_get_no_bonus(
    gql: GraphQLClient, workspace: str
) -> None:
    """What bob said to carol, where alice never was, was not said to alice."""
    await seed(gql, workspace)
    await gql.ok(CREATE_PEER, {"w": workspace, "n": "carol"})
    await gql.ok(
        CREATE_SESSION,
        {"w": workspace, "n": "s2", "peers": [{"peer": "carol"}, {"peer": "bob"}]},
    )
    request = "Which hotels in Lisbon would be good for a weekend?"
    answer = "For hotels in Lisbon I suggest the Memmo Alfama or the Lumiares."
    for session, asker in (("s1", "alice"), ("s2", "carol")):
        sent = [{"peer": asker, "content": request}, {"peer": "bob", "content": answer}]
        await gql.ok(ADD, {"w": workspace, "s": session, "msgs": sent})
    query = "which hotels in Lisbon did you suggest"
    plain = await scores(gql, workspace, query)
    asked = await scores(gql, workspace, query, "alice")
    found = await gql.ok(SEARCH_AS, {"w": workspace, "q": query, "asker": None})
    ids = {
        (h["message"]["session"], h["message"]["peer"]): h["message"]["id"]
        for h in found["searchMessages"]
    }
    in_s1 = plain[ids[("s1", "alice")]][1]
    assert asked[ids[("s1", "bob")]][1] == pytest.approx(
        plain[ids[("s1", "bob")]][1] + SPEAKER_WEIGHT + REPLY_WEIGHT * in_s1, abs=1e-6
    )
    for place in (("s1", "alice"), ("s2", "carol"), ("s2", "bob")):
        assert asked[ids[place]][1] == pytest.approx(plain[ids[place]][1], abs=1e-6), place
    assert max(asked, key=lambda m: asked[m][1]) == ids[("s1", "bob")]


async def contents(gql: GraphQLClient, workspace: str, query: str) -> dict[str, str]:
    found = await gql.ok(SEARCH_AS, {"w": workspace, "q": query, "asker": None})
    return {h["message"]["content"]: h["message"]["id"] for h in found["searchMessages"]}


async def test_peers_named_in_the_query_are_favoured_in_any_case(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await seed(gql, workspace)
    await gql.ok(CREATE_PEER, {"w": workspace, "n": "Dana"})
    sent = [
        {"peer": peer, "content": f"a message from {peer}"} for peer in ("alice", "bob", "Dana")
    ]
    await gql.ok(ADD, {"w": workspace, "s": "s1", "msgs": sent})
    page = await messages.list_page(services.db, workspace, MessageFilter(), after=None, limit=10)

    async def favoured_senders(query: str, asker: str | None = None) -> set[str]:
        who = await SpeakerLookup(services.db, workspace, query, asker).resolve()
        return {m.peer for m in page.items if who.covers(m.peer)}

    assert await favoured_senders("which bicycle did ALICE buy") == {"alice"}
    assert await favoured_senders("what did dana and Bob plan") == {"Dana", "bob"}
    # A word that names no peer favours no one.
    assert await favoured_senders("which bicycle did carol buy") == set()
    assert await favoured_senders("what did I tell dana", asker="bob") == {"Dana", "bob"}
    assert await favoured_senders("the list you gave me", asker="bob") == {"alice", "Dana"}


async def test_an_asker_must_be_a_peer_of_the_workspace(gql: GraphQLClient, workspace: str) -> None:
    await seed(gql, workspace)
    missing = {"w": workspace, "q": "what did I buy", "asker": "nobody"}
    assert await gql.error_code(SEARCH_AS, missing) == "NOT_FOUND"
    bad = {"w": workspace, "q": "what did I buy", "asker": "not a name"}
    assert await gql.error_code(SEARCH_AS, bad) == "INVALID_INPUT"
