"""The retrieval core on the real graph: one vector index per node kind, filtered inside.

Observations and messages each have one vector index whose filter properties keep a search in
its scope; small scopes are scanned exactly; filters outside the index grow the rounds and end
in the exact scan; several representations are searched at once through `IN` over their keys;
fulltext is scoped inside Lucene by keys.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from graph.db import Database, Tx
from graph.records import MessageRecord
from graph.repo import message_search, observation_search
from graph.repo.messages import MessageFilter, by_seq
from graph.repo.observation_search import ObservationQuery
from graph.repo.observation_writes import ExplicitFact, write_explicit
from graph.repo.retrieval import MESSAGES, OBSERVATIONS, WORKSPACE_MESSAGES, Dominant
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.deriver.dedup import exact_key
from resolvers.services import Services
from tests.integration.derive_helpers import make_peers, make_session, post
from tests.integration.profiling import index_seek_rows
from tests.integration.test_read_path import seed_beliefs

pytestmark = pytest.mark.integration

# Thresholds that send even a handful of nodes through the index, so small tests exercise it.
INDEX_ALWAYS = replace(OBSERVATIONS, exact_scan_limit=0, min_candidates=2, min_wide=2)
MESSAGE_INDEX_ALWAYS = replace(MESSAGES, exact_scan_limit=0, min_candidates=2, min_wide=2)


class RecordingDatabase(Database):
    """The same database, noting the statements each read ran."""

    def __init__(self, inner: Database) -> None:
        super().__init__(inner.driver, inner.database)
        self.reads: list[str] = []
        self.params: list[dict[str, Any]] = []
        self.results: list[list[dict[str, Any]]] = []

    async def read(self, statement: str, /, **params: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        self.reads.append(statement)
        self.params.append(params)
        rows = await super().read(statement, **params)  # type: ignore[arg-type]
        self.results.append(rows)
        return rows


@dataclass
class RecordingTx:
    """A transaction that notes which statements ran through it."""

    inner: Any = None
    statements: list[str] = field(default_factory=list)

    async def rows(self, statement: str, /, **params: Any) -> list[dict[str, Any]]:
        self.statements.append(statement)
        return list(await self.inner.rows(statement, **params))


def fact(
    observer: str,
    content: str,
    vector: list[float],
    message: MessageRecord,
    observed: str = "alice",
) -> ExplicitFact:
    """A fact about `observed` from `message`, as the deriver would route it to `observer`."""
    return ExplicitFact(
        observer,
        observed,
        content,
        exact_key(content),
        vector,
        message.id,
        message.content,
        now(),
        message.session,
    )


async def write(services: Services, workspace: str, facts: list[ExplicitFact]) -> list[str]:
    async def work(tx: Tx) -> list[str]:
        return (await write_explicit(tx, workspace, facts, threshold=1.01)).created

    return await services.db.write_tx(work)


async def test_the_index_path_agrees_with_the_exact_scan(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    [vector] = services.embedder.embed(["what instrument does she play"])
    query = ObservationQuery("bob", "alice")
    exact = await observation_search.exact(services.db, workspace, vector, query, 3)
    small = await observation_search.vector_candidates(services.db, workspace, vector, query, 3)
    indexed = await observation_search.vector_candidates(
        services.db, workspace, vector, query, 3, thresholds=INDEX_ALWAYS
    )
    assert [o.id for o, _ in indexed] == [o.id for o, _ in exact] == [o.id for o, _ in small]
    assert [round(s, 5) for _, s in indexed] == [round(s, 5) for _, s in exact]
    assert exact[0][0].content.startswith("Alice plays the bassoon")
    # carol's view of alice is another representation: none of bob's beliefs.
    carol = await observation_search.vector_candidates(
        services.db,
        workspace,
        vector,
        ObservationQuery("carol", "alice"),
        3,
        thresholds=INDEX_ALWAYS,
    )
    assert [o.content for o, _ in carol] == ["Alice secretly wants to move to Reykjavik."]


async def test_a_search_is_one_round_trip_unless_filters_empty_the_page(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    [vector] = services.embedder.embed(["pet reptiles"])
    recording = RecordingDatabase(services.db)
    query = ObservationQuery("bob", "alice")
    hits = await observation_search.vector_candidates(
        recording, workspace, vector, query, 3, thresholds=INDEX_ALWAYS
    )
    assert recording.reads == ["search_observations_vector"] and len(hits) == 3
    # Filters narrower than the page: rounds grow until the index has no more in scope, which
    # is final (the index gave fewer than it was asked for).
    recording.reads.clear()
    narrow = ObservationQuery("bob", "alice", exclude_session_ids=["s1"])
    assert (
        await observation_search.vector_candidates(
            recording, workspace, vector, narrow, 3, thresholds=INDEX_ALWAYS
        )
        == []
    )
    assert recording.reads == ["search_observations_vector"]


async def test_several_representations_are_one_search(services: Services, workspace: str) -> None:
    await seed_beliefs(services, workspace)  # bob and carol each hold beliefs about alice
    await make_peers(services, workspace, "dora")
    [message] = await by_seq(services.db, workspace, "s1", 0, 0)
    [vector] = services.embedder.embed(["Dora bakes sourdough bread."])
    await write(
        services, workspace, [fact("bob", "Dora bakes sourdough bread.", vector, message, "dora")]
    )
    both = ObservationQuery("bob", "alice", aggregated=("dora",))
    for thresholds in (OBSERVATIONS, INDEX_ALWAYS):
        hits = await observation_search.vector_candidates(
            services.db, workspace, vector, both, 10, thresholds=thresholds
        )
        assert {o.observed for o, _ in hits} == {"alice", "dora"} and len(hits) == 5
        assert hits[0][0].observed == "dora"
        assert all(o.observer == "bob" for o, _ in hits)  # never carol's view
    text = await observation_search.text_candidates(services.db, workspace, "sourdough", both, 5)
    assert [o.observed for o, *_ in text] == ["dora"]
    only_alice = ObservationQuery("bob", "alice")
    assert (
        await observation_search.text_candidates(services.db, workspace, "sourdough", only_alice, 5)
        == []
    )


async def test_fulltext_asks_lucene_for_more_when_filters_empty_the_page(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    [m1] = await by_seq(services.db, workspace, "s1", 0, 0)
    [m2] = await by_seq(services.db, workspace, "s2", 0, 0)
    # 56 short kayak beliefs from s1 outrank (shorter text) the 3 long ones from s2.
    short = [f"Alice kayak {n}." for n in range(56)]
    long = [
        f"Alice said a friend of hers number {n} owns an old kayak far up north." for n in range(3)
    ]
    vectors = services.embedder.embed(short + long)
    facts = [
        fact("bob", c, v, m)
        for c, v, m in zip(short + long, vectors, [m1] * 56 + [m2] * 3, strict=True)
    ]
    await write(services, workspace, facts)
    recording = RecordingDatabase(services.db)
    query = ObservationQuery("bob", "alice", exclude_session_ids=["s1"])
    hits = await observation_search.text_candidates(recording, workspace, "kayak", query, 3)
    assert sorted(o.content for o, *_ in hits) == sorted(long)
    assert recording.reads == ["search_observations_fulltext"] * 2  # 50 hits, then 200


async def test_duplicates_are_found_exactly_in_small_and_through_the_index_in_large_views(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    [message] = await by_seq(services.db, workspace, "s1", 0, 0)
    known = "Alice plays the bassoon in an amateur orchestra."
    [known_vector, new_vector] = services.embedder.embed([known, "Alice keeps three tortoises."])
    facts = [
        fact("bob", known, known_vector, message),  # the same text
        fact("bob", "Alice is a bassoonist.", known_vector, message),  # the same vector
        fact("bob", "Alice keeps three tortoises.", new_vector, message),  # new to bob's view
        fact("carol", known, known_vector, message),  # new to carol's view
    ]

    async def dedup(tx: Tx) -> tuple[int, int]:
        outcome = await write_explicit(tx, workspace, facts, threshold=0.95)
        return len(outcome.created), outcome.reinforced

    # Both repeats found (else 3 created); they repeat one belief from one message: counted once.
    assert await services.db.write_tx(dedup) == (2, 1)


def random_vectors(count: int, seed: int) -> list[list[float]]:
    rng = np.random.default_rng(seed)
    rows = rng.standard_normal((count, 384)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return [[float(x) for x in row] for row in rows]


async def test_a_large_view_finds_neighbours_and_duplicates_through_the_index(
    services: Services, workspace: str
) -> None:
    await seed_beliefs(services, workspace)
    [message] = await by_seq(services.db, workspace, "s1", 0, 0)
    size = OBSERVATIONS.exact_scan_limit + 100
    vectors = random_vectors(size, seed=7)
    await write(
        services,
        workspace,
        [fact("bob", f"Alice note {n}.", v, message) for n, v in enumerate(vectors)],
    )
    query = ObservationQuery("bob", "alice")
    probe = vectors[123]
    exact = await observation_search.exact(services.db, workspace, probe, query, 10)
    found = await observation_search.vector_candidates(services.db, workspace, probe, query, 10)
    assert found[0][0].content == "Alice note 123." and found[0][1] > 0.999
    assert [o.id for o, _ in found] == [o.id for o, _ in exact]

    async def dedup(tx: Tx) -> tuple[int, int]:
        again = [
            fact("bob", "Alice note 123, again.", probe, message),  # near: through the index
            fact("bob", "Alice note 7.", random_vectors(1, seed=99)[0], message),  # same text
            fact("bob", "Alice is new here.", random_vectors(1, seed=98)[0], message),
        ]
        outcome = await write_explicit(tx, workspace, again, threshold=0.95)
        return len(outcome.created), outcome.reinforced

    assert await services.db.write_tx(dedup) == (1, 2)

    # The reads stay proportional to what they return, not to the view's size: the search
    # never scans the view, the context slice reads its beliefs in index order.
    keys = query.keys(workspace)
    seeks = await index_seek_rows(
        services,
        "search_observations_vector",
        workspace=workspace,
        scopes=[{"observer": "bob", "observed": "alice"}],
        embedding=probe,
        limit=10,
        exact_scan_limit=OBSERVATIONS.exact_scan_limit,
        wide_from=OBSERVATIONS.wide_from,
        candidates=200,
        wide=500,
        **{k: v for k, v in query.params(workspace).items() if k != "keys"},
        keys=keys,
    )
    assert seeks == 0
    # So do session filters, which may read a belief's messages (its other sessions).
    for session_ids, exclude in ((None, None), (["s1"], None), (None, ["s9"]), (["s9"], None)):
        top = await index_seek_rows(
            services,
            "list_top_observations",
            workspace=workspace,
            keys=keys,
            as_of=None,
            session_ids=session_ids,
            exclude_session_ids=exclude,
            exclude_derived=False,
            most_derived=5,
            derived_scan=5,
            most_recent=5,
        )
        if session_ids == ["s9"]:  # nothing matches: every belief is read, in index order
            assert top >= size
        else:
            assert top <= 2 * 5 + 2, (session_ids, exclude)


async def seed_messages(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "alice", "bob", "carol")
    members = [MemberSettings("alice"), MemberSettings("bob"), MemberSettings("carol")]
    await make_session(services, workspace, "s1", members)
    await make_session(services, workspace, "s2", members)
    await post(
        services,
        workspace,
        "s1",
        ("alice", "I adopted a grey kitten named Pepper."),
        ("bob", "My bicycle has a flat tyre again."),
        ("alice", "The kitten sleeps on my keyboard."),
    )
    await post(
        services,
        workspace,
        "s2",
        ("carol", "We bought a kitten for the twins."),
        ("alice", "Lisbon is sunny in October."),
    )


@pytest.mark.parametrize("thresholds", [MESSAGES, MESSAGE_INDEX_ALWAYS], ids=["exact", "index"])
async def test_message_search_stays_in_its_scope(
    services: Services, workspace: str, thresholds: Any
) -> None:
    await seed_messages(services, workspace)
    [vector] = services.embedder.embed(["a kitten"])

    async def search(**filters: Any) -> list[tuple[str, str]]:
        hits = await message_search.vector_candidates(
            services.db, workspace, vector, MessageFilter(**filters), 10, thresholds=thresholds
        )
        return [(m.session, m.peer) for m, _ in hits]

    everything = await search()
    assert len(everything) == 5
    assert set(await search(session="s1")) == {("s1", "alice"), ("s1", "bob")}
    assert set(await search(peer="alice")) == {("s1", "alice"), ("s2", "alice")}
    assert await search(session="s2", peer="carol") == [("s2", "carol")]
    assert set(await search(peer="alice", also_peers=("carol",))) == {
        ("s1", "alice"),
        ("s2", "alice"),
        ("s2", "carol"),
    }
    top = await search(session="s1", peer="alice")
    assert top and all(hit == ("s1", "alice") for hit in top)


async def test_a_whole_workspace_search_asks_the_index_for_more(
    services: Services, workspace: str
) -> None:
    # No scope filter narrows a whole workspace's search, so its first round is larger than a
    # peer's (both have sizes the search does not count).
    await seed_messages(services, workspace)
    [vector] = services.embedder.embed(["a kitten"])
    recording = RecordingDatabase(services.db)

    async def asked(**filters: Any) -> int:
        recording.params.clear()
        await message_search.vector_candidates(
            recording, workspace, vector, MessageFilter(**filters), 10
        )
        [params] = recording.params
        return int(params["wide"])

    whole, by_peer = await asked(), await asked(peer="alice")
    assert whole == WORKSPACE_MESSAGES.first_round(10)[1] == 1_000
    assert by_peer == MESSAGES.first_round(10)[1] == 300


async def test_message_fulltext_is_scoped_inside_lucene(
    services: Services, workspace: str, other_workspace: str
) -> None:
    await seed_messages(services, workspace)
    await seed_messages(services, other_workspace)

    async def text(**filters: Any) -> list[tuple[str, str]]:
        hits = await message_search.text_candidates(
            services.db, workspace, "kitten", MessageFilter(**filters), 10
        )
        return [(m.session, m.peer) for m, *_ in hits]

    assert sorted(await text()) == [("s1", "alice"), ("s1", "alice"), ("s2", "carol")]
    assert await text(session="s2") == [("s2", "carol")]
    assert sorted(await text(peer="alice")) == [("s1", "alice"), ("s1", "alice")]
    assert await text(session="s2", peer="alice") == []


async def test_fulltext_reads_words_of_every_script_and_no_query_of_stop_words(
    services: Services, workspace: str
) -> None:
    """Words were cut at each combining mark ("हिन्दी" became "ह" OR "न" OR "द": nothing
    matched) and a run of ideographs was one exact phrase; a query of stop words alone lost its
    words clause in Lucene, and matched every message in scope."""
    await seed_messages(services, workspace)
    await post(
        services,
        workspace,
        "s2",
        ("bob", "मुझे हिन्दी भाषा पसंद है"),
        ("bob", "爱丽丝喜欢苹果"),
        ("bob", "To be or not to be."),
    )

    async def text(query: str) -> list[str]:
        hits = await message_search.text_candidates(
            services.db, workspace, query, MessageFilter(), 10
        )
        return [m.content for m, *_ in hits]

    assert await text("हिन्दी") == ["मुझे हिन्दी भाषा पसंद है"]
    assert await text("爱丽丝喜欢什么水果") == ["爱丽丝喜欢苹果"]
    assert await text("to be or not to be") == []
    # Characters the analyzer makes no word of, whatever the tokenizer's tables say (an
    # ideograph of a late Unicode block, a halfwidth mark): every message matched.
    for unread in ("〆", "ﾞ", "Ꟁ", "\u9ff0"):
        assert await text(unread) == [], unread


async def test_fulltext_hits_carry_their_similarity_to_the_query(
    services: Services, workspace: str
) -> None:
    await seed_messages(services, workspace)
    [vector] = services.embedder.embed(["a kitten"])
    text = await message_search.text_candidates(
        services.db, workspace, "kitten", MessageFilter(), 10, embedding=vector
    )
    exact = dict(
        (m.id, s)
        for m, s in await message_search.exact_scan(
            services.db, workspace, vector, MessageFilter(), 10
        )
    )
    # The same scale as the vector half, so fusion can weigh a fulltext-only hit.
    assert len(text) == 3
    assert all(sim == pytest.approx(exact[m.id]) for m, _, sim in text)
    plain = await message_search.text_candidates(
        services.db, workspace, "kitten", MessageFilter(), 10
    )
    assert [sim for *_, sim in plain] == [None, None, None]


async def test_message_fulltext_finds_the_turns_a_named_peer_wrote(
    services: Services, workspace: str
) -> None:
    await seed_messages(services, workspace)

    async def text(query: str) -> list[str]:
        hits = await message_search.text_candidates(
            services.db, workspace, query, MessageFilter(), 10
        )
        return [m.content for m, *_ in hits]

    # Neither of Bob's words is "bob": the sender's name is searched with the content.
    assert await text("what did bob say") == ["My bicycle has a flat tyre again."]
    # Carol's kitten ranks first for "carol's kittens": the name and the stemmed word match.
    assert (await text("carol's kittens"))[0] == "We bought a kitten for the twins."


async def test_narrow_message_filters_end_in_the_exact_scan(
    services: Services, workspace: str
) -> None:
    await seed_messages(services, workspace)
    [vector] = services.embedder.embed(["a kitten"])
    recording = RecordingDatabase(services.db)
    # A metadata filter nothing matches: the rounds grow to the cap, then the exact scan.
    tight = replace(MESSAGE_INDEX_ALWAYS, max_candidates=2)
    hits = await message_search.vector_candidates(
        recording,
        workspace,
        vector,
        MessageFilter(metadata={"absent": True}),
        3,
        thresholds=tight,
    )
    assert hits == []
    assert recording.reads == ["search_messages_vector", "search_messages_exact"]


async def dominant_round_for(services: Services, workspace: str, peer: str, limit: int) -> int:
    """The smallest whole-workspace round expected to hold `limit` of the peer's own messages
    (one per wanted hit): the peer's share against every message the database stores."""
    async with services.db.driver.session(database=services.db.database) as session:
        result = await session.run(
            "MATCH (p:Peer {workspace: $w, name: $p}) "
            "RETURN COUNT { (p)<-[:SENT_BY]-() } AS sent, COUNT { MATCH (m:Message) } AS stored",
            w=workspace,
            p=peer,
        )
        row = await result.single()
    assert row is not None
    return -(-limit * int(row["stored"]) // int(row["sent"]))


def dominant(limit_round: int, below: bool = False) -> Any:
    """Message thresholds whose dominant rounds end at `limit_round` (or just below it)."""
    top = limit_round - 1 if below else limit_round
    return replace(
        MESSAGE_INDEX_ALWAYS,
        dominant=Dominant(min_size=1, hits_per_wanted=1, rounds=(top - 1, top)),
    )


async def test_a_dominant_peer_is_found_among_the_whole_workspace(
    services: Services, workspace: str
) -> None:
    await seed_messages(services, workspace)
    [vector] = services.embedder.embed(["a kitten"])
    needed = await dominant_round_for(services, workspace, "alice", 3)
    recording = RecordingDatabase(services.db)

    async def search(thresholds: Any, **filters: Any) -> list[tuple[str, float]]:
        recording.reads.clear()
        recording.params.clear()
        recording.results.clear()
        hits = await message_search.vector_candidates(
            recording, workspace, vector, MessageFilter(**filters), 3, thresholds=thresholds
        )
        return [(m.id, round(s, 5)) for m, s in hits]

    def ran() -> int | None:
        """The dominant round the search ran (None: none)."""
        [[row]] = recording.results
        return None if row["dominant"] is None else int(row["dominant"])

    exact = [
        (m.id, round(s, 5))
        for m, s in await message_search.exact_scan(
            services.db, workspace, vector, MessageFilter(peer="alice"), 3
        )
    ]
    # Alice's share needs a round of `needed`: the second round is that large, so it runs,
    # and alice's three messages are kept out of the workspace's nearest, in order.
    assert await search(dominant(needed), peer="alice") == exact
    assert recording.reads == ["search_messages_vector"]
    assert ran() == needed
    # One short of it: her share is too small for either round, so she is searched filtered.
    assert await search(dominant(needed, below=True), peer="alice") == exact
    assert ran() is None
    # Neither a session nor the whole workspace is ever dominant; both search as before.
    hits = await search(dominant(needed), session="s1", peer="alice")
    assert {m for m, _ in hits} <= {m for m, _ in exact} and ran() is None
    assert len(await search(dominant(needed))) == 3 and ran() is None


async def test_a_dominant_round_that_held_the_whole_workspace_is_complete(
    services: Services, workspace: str
) -> None:
    await seed_messages(services, workspace)
    [vector] = services.embedder.embed(["a kitten"])
    needed = await dominant_round_for(services, workspace, "alice", 2)
    recording = RecordingDatabase(services.db)
    # A date filter nothing passes. The round asked for more than the workspace holds, so it
    # saw every message in it: an empty page is the answer, with no further round.
    hits = await message_search.vector_candidates(
        recording,
        workspace,
        vector,
        MessageFilter(peer="alice", until=datetime(2000, 1, 1, tzinfo=UTC)),
        2,
        thresholds=dominant(needed),
    )
    assert hits == []
    assert recording.reads == ["search_messages_vector"]
    assert recording.results[0][0]["dominant"] == needed
