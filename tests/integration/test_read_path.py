"""Scoped observation search, peer cards and getContext on the real graph."""

from __future__ import annotations

import pytest

from graph.db import Tx
from graph.repo.messages import by_seq
from graph.repo.observation_writes import ExplicitFact, write_explicit
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.deriver.dedup import exact_key
from reasoners.ingest.beliefs import BeliefInput, add_beliefs
from resolvers.services import Services
from tests.conftest import GraphQLClient
from tests.integration.derive_helpers import make_peers, make_session, post

pytestmark = pytest.mark.integration

FACTS = {
    ("bob", "alice"): [
        "Alice works as a veterinarian in Porto.",
        "Alice is allergic to peanuts.",
        "Alice plays the bassoon in an amateur orchestra.",
        "Alice's brother is named Quillon.",
    ],
    ("carol", "alice"): ["Alice secretly wants to move to Reykjavik."],
}


async def seed_beliefs(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "alice", "bob", "carol")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await make_session(
        services, workspace, "s2", [MemberSettings("alice"), MemberSettings("carol")]
    )
    await post(services, workspace, "s1", ("alice", "Some evidence."))
    await post(services, workspace, "s2", ("alice", "Other evidence."))
    [m1] = await by_seq(services.db, workspace, "s1", 0, 0)
    [m2] = await by_seq(services.db, workspace, "s2", 0, 0)
    facts = []
    for (observer, observed), contents in FACTS.items():
        message = m1 if observer == "bob" else m2
        vectors = services.embedder.embed(contents)
        facts += [
            ExplicitFact(
                observer,
                observed,
                c,
                exact_key(c),
                v,
                message.id,
                message.content,
                now(),
                message.session,
            )
            for c, v in zip(contents, vectors, strict=True)
        ]

    async def work(tx: Tx) -> None:
        await write_explicit(tx, workspace, facts, threshold=0.99)

    await services.db.write_tx(work)


SEARCH = """
query($w: String!, $observer: String!, $q: String!, $f: ObservationFilterInput) {
  searchObservations(workspace: $w, observer: $observer, observed: "alice", query: $q,
                     filter: $f, limit: 3) {
    score vectorRank textRank observation { content observer session }
  }
}"""


async def test_search_stays_in_scope_and_finds_by_meaning_and_word(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    by_meaning = await gql.ok(SEARCH, {"w": workspace, "observer": "bob", "q": "animal doctor job"})
    hits = by_meaning["searchObservations"]
    assert hits[0]["observation"]["content"] == "Alice works as a veterinarian in Porto."
    by_word = await gql.ok(SEARCH, {"w": workspace, "observer": "bob", "q": "quillon"})
    assert by_word["searchObservations"][0]["textRank"] == 1
    secret = await gql.ok(SEARCH, {"w": workspace, "observer": "bob", "q": "move to Reykjavik"})
    assert all(h["observation"]["observer"] == "bob" for h in secret["searchObservations"])
    assert "Reykjavik" not in str(secret)
    other = await gql.ok(SEARCH, {"w": workspace, "observer": "carol", "q": "move to Reykjavik"})
    assert other["searchObservations"][0]["observation"]["content"].endswith("Reykjavik.")
    none = await gql.ok(
        SEARCH,
        {"w": workspace, "observer": "bob", "q": "job", "f": {"excludeSessionIds": ["s1"]}},
    )
    assert none["searchObservations"] == []


async def test_peer_cards_are_kept_per_observer(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    set_card = """mutation($w: String!, $e: [String!]!) {
      setPeerCard(workspace: $w, observer: "bob", observed: "alice", entries: $e) { entries }
    }"""
    await gql.ok(set_card, {"w": workspace, "e": ["Name: Alice", "Vet in Porto", "  "]})
    get = """query($w: String!, $o: String!) {
      peerCard(workspace: $w, observer: $o, observed: "alice") { entries updatedAt }
    }"""
    bob_view = await gql.ok(get, {"w": workspace, "o": "bob"})
    assert bob_view["peerCard"]["entries"] == ["Name: Alice", "Vet in Porto"]
    alice_view = await gql.ok(get, {"w": workspace, "o": "alice"})
    assert alice_view["peerCard"]["entries"] == []
    assert await gql.error_code(set_card, {"w": workspace, "e": ["x" * 301]}) == "INVALID_INPUT"
    # A misspelt observer read as one that holds no beliefs (`context` said NOT_FOUND).
    assert await gql.error_code(get, {"w": workspace, "o": "bobb"}) == "NOT_FOUND"
    for read in (
        'observations(workspace: $w, observer: $o, observed: "alice") { nodes { id } }',
        'searchObservations(workspace: $w, observer: $o, observed: "alice", query: "vet") {'
        " observation { id } }",
    ):
        query = f"query($w: String!, $o: String!) {{ {read} }}"
        assert await gql.error_code(query, {"w": workspace, "o": "bobb"}) == "NOT_FOUND", read
        await gql.ok(query, {"w": workspace, "o": "bob"})


CONTEXT = """
query($w: String!, $tokens: Int!, $q: String) {
  context(workspace: $w, tokens: $tokens, session: "s1", peerTarget: "alice",
          peerPerspective: "bob", searchQuery: $q) {
    text tokenizer budget tokensUsed remainder summaryCap peerCard
    representation { content } summary { kind } messages { content seq }
    matchedMessages { content session }
    representationDropped messagesDropped cardDropped
  }
}"""


async def test_get_context_end_to_end(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    await post(
        services, workspace, "s1", *[("bob", f"Message number {i} from bob.") for i in range(30)]
    )
    await gql.ok(
        """mutation($w: String!) { setPeerCard(workspace: $w, observer: "bob",
             observed: "alice", entries: ["Alice, vet, Porto"]) { entries } }""",
        {"w": workspace},
    )
    roomy = (await gql.ok(CONTEXT, {"w": workspace, "tokens": 4000, "q": "allergies"}))["context"]
    assert roomy["representation"][0]["content"] == "Alice is allergic to peanuts."
    assert "Reykjavik" not in roomy["text"], "carol's view is not bob's"
    assert roomy["peerCard"] == ["Alice, vet, Porto"]
    # alice's one turn bob saw is the best (only) match: packed once, as a match.
    assert roomy["matchedMessages"] == [{"content": "Some evidence.", "session": "s1"}]
    assert roomy["messagesDropped"] == 0 and len(roomy["messages"]) == 30
    # The rendered text costs what was counted: headings, times and speakers included.
    assert services.tokens.count(roomy["text"]) == roomy["tokensUsed"] <= 4000
    assert "## Peer card" in roomy["text"] and "## Recent messages" in roomy["text"]

    tight = (await gql.ok(CONTEXT, {"w": workspace, "tokens": 250, "q": "allergies"}))["context"]
    assert services.tokens.count(tight["text"]) == tight["tokensUsed"] <= 250
    assert tight["messagesDropped"] > 0
    seqs = [m["seq"] for m in tight["messages"]]
    assert seqs == sorted(seqs) and seqs[-1] == 30, "the newest messages are the ones kept"
    # B' = B - tok(R) - tok(P), and the summary may take at most 40% of it.
    assert 0 <= tight["remainder"] <= 250
    assert tight["summaryCap"] == tight["remainder"] * 2 // 5
    bad = await gql.error_code(CONTEXT, {"w": workspace, "tokens": 0})
    assert bad == "INVALID_INPUT"


async def test_the_representation_returned_is_the_one_packed(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    """A long belief skipped for the shorter ones after it was returned in `representation`
    (and REST's `peer_representation`) in place of the last one kept: the first N of the slice,
    not the N packed (probe K)."""
    await seed_beliefs(services, workspace)
    long = "Alice's peanut allergy story: " + "she reacted badly once at a party. " * 50
    await add_beliefs(
        services.db,
        services.embedder,
        services.settings,
        workspace,
        [BeliefInput("bob", "alice", long)],
    )
    found = await gql.ok(CONTEXT, {"w": workspace, "tokens": 120, "q": "peanut allergy"})
    context = found["context"]
    shown = [r["content"] for r in context["representation"]]
    assert context["representationDropped"] >= 1 and shown, context
    assert long not in shown
    lines = [line[2:] for line in context["text"].splitlines() if line.startswith("- ")]
    assert len(lines) == len(shown), (lines, shown)
    assert all(line.startswith(content) for line, content in zip(lines, shown, strict=True))
