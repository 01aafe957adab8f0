"""Renaming, merging and splitting peers: everything follows, duplicates become one, and a
merge or split killed mid-way resumes to the same graph as one that ran through."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from graph.db import Tx
from graph.errors import Conflict, InvalidInput, NotFound
from graph.keys import Representation, scope_key
from graph.repo import (
    dream_writes,
    files,
    job_admin,
    jobs,
    members,
    observations,
    peer_cards,
    queue_status,
    sessions,
    workspaces,
)
from graph.repo.observation_search import ObservationQuery
from graph.repo.peer_cards import CardLine
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.deriver.schema import DeriverOutput
from reasoners.dreamer.induction_text import induction_text, sentence_of
from reasoners.dreamer.slots import core_text
from reasoners.llm.interface import ChatMessage
from reasoners.peers import invalidation, merges, purge, splits
from reasoners.peers.files import FileWriter
from reasoners.peers.starts import RESTRUCTURE
from resolvers.services import Services
from tests import statements
from tests.conftest import GraphQLClient
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import (
    make_peers,
    make_session,
    observes_counts,
    post,
    stated_belief,
    target_messages,
    worker_for,
)
from tests.integration.dream_helpers import (
    belief_id,
    contents,
    derive,
    dream_now,
    runs,
    with_dreams,
)
from tests.integration.restructure_helpers import kill_after, resume, run_all, snapshot
from tests.integration.tx_helpers import while_held

pytestmark = pytest.mark.integration


def verbatim(messages: list[ChatMessage], schema: Any) -> DeriverOutput:
    """A scripted deriver that keeps each target message's text as the fact, as said: the same
    words from two peers are the same fact once they are one peer."""
    return DeriverOutput.model_validate(
        {
            "observations": [
                {"content": text, "source_message_index": i, "source_span": text}
                for i, _, text in target_messages(messages)
            ]
        }
    )


async def deduce(
    services: Services, view: Representation, id_: str, content: str, premise: str
) -> None:
    """A deduction in `view` built on one premise, as a dream would write it."""
    deduction = dream_writes.DerivedWrite(
        id=id_, level="deductive", content=content, embedding=[0.1] * 384, premise_ids=(premise,)
    )
    await services.db.write_tx(
        lambda tx: dream_writes.create_derived(
            tx, view, [deduction], origin="dreamer:rules", now=now()
        )
    )


async def two_identities(services: Services, workspace: str) -> Services:
    """alice (s1) and alicia (s2) are one person; agent observes both. alicia's dog fact has a
    deduction built on it; both have a notes.md, alicia has a card."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await make_peers(s, workspace, "alice", "alicia", "agent")
    await make_session(s, workspace, "s1", [MemberSettings("alice"), MemberSettings("agent")])
    await make_session(s, workspace, "s2", [MemberSettings("alicia"), MemberSettings("agent")])
    await post(s, workspace, "s1", ("alice", "I live in Paris."))
    await post(s, workspace, "s2", ("alicia", "I live in Paris."), ("alicia", "I have a dog."))
    await derive(s, workspace, ScriptedLLM({"deriver": verbatim}))
    dog = await belief_id(s, workspace, "dog", "agent", "alicia")
    view = Representation(workspace, "agent", "alicia")
    await deduce(s, view, f"{workspace}-deduction", "alicia keeps a pet.", dog)
    await s.db.write_tx(
        lambda tx: dream_writes.set_card(tx, view, [CardLine("Has a dog", (dog,))], now=now())
    )
    writer = FileWriter(s.db, s.embedder, s.tokens, s.settings)
    for peer in ("alice", "alicia"):
        await writer.create(workspace, peer, "notes.md", f"# {peer}\n\nAbout the dog.")
    return s


MERGE = """mutation($w: String!) {
  mergePeers(workspace: $w, sources: ["alicia"], target: "alice") { operation target }
}"""
PEER = "query($w: String!, $p: String!) { peer(workspace: $w, name: $p) { name } }"
FILES = """query($w: String!, $p: String!) {
  files(workspace: $w, peer: $p, first: 20) { nodes { path managedBy } }
}"""
MESSAGES = """query($w: String!, $p: String!) {
  messages(workspace: $w, filter: {peer: $p}, first: 20) { nodes { content } }
}"""
SEARCH = """query($w: String!, $p: String!) {
  searchMessages(workspace: $w, query: "dog", filter: {peer: $p}, limit: 5, depth: 0) {
    message { content }
  }
}"""


async def test_a_merge_moves_everything_into_the_target_and_resolves_duplicates(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    s = await two_identities(services, workspace)
    w = {"w": workspace}
    queued = (await gql.ok(MERGE, w))["mergePeers"]
    assert queued["target"] == "alice"
    await run_all(s, workspace)

    assert await gql.error_code(PEER, {**w, "p": "alicia"}) == "NOT_FOUND"
    said = (await gql.ok(MESSAGES, {**w, "p": "alice"}))["messages"]["nodes"]
    assert sorted(m["content"] for m in said) == [
        "I have a dog.",
        "I live in Paris.",
        "I live in Paris.",
    ]
    # The message index filters on the moved peer key: alice's search finds alicia's words.
    found = (await gql.ok(SEARCH, {**w, "p": "alice"}))["searchMessages"]
    assert found[0]["message"]["content"] == "I have a dog."

    # agent's two views are one: the repeated fact once, counted twice, with both sources.
    facts = await contents(s, workspace, "agent", "alice", levels=["explicit"])
    assert sorted(facts) == ["I have a dog.", "I live in Paris."]
    paris = await belief_id(s, workspace, "Paris", "agent", "alice")
    detail = await gql.ok(
        """query($w: String!, $id: ID!) { observation(workspace: $w, id: $id) {
          observation { timesDerived } sources { message { session } } } }""",
        {**w, "id": paris},
    )
    assert detail["observation"]["observation"]["timesDerived"] == 2
    sessions = sorted(x["message"]["session"] for x in detail["observation"]["sources"])
    assert sessions == ["s1", "s2"]
    # The moved deduction was marked stale, then reconciled by the dream the merge scheduled:
    # its premise still stands, so it stays, with the name of the peer it is about now.
    assert await contents(s, workspace, "agent", "alice", levels=["deductive"]) == [
        "alice keeps a pet."
    ]
    assert await contents(s, workspace, "agent", "alicia", include_stale=True) == []

    # Files and cards follow; a clashing user file moves aside, the card keeps its place.
    listed = (await gql.ok(FILES, {**w, "p": "alice"}))["files"]["nodes"]
    paths = {f["path"]: f["managedBy"] for f in listed}
    assert paths == {
        "notes.md": None,
        "merged/alicia/notes.md": None,
        "cards/agent.md": "system",
    }
    done = await queue_status.status(s.db, workspace, None, "alice")
    assert done.dead == 0 and done.pending == 0


async def test_dream_runs_a_merge_moves_keep_their_numbers_unique(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """Moved runs kept their numbers: the target's view listed 3, 3, 2, 2, 1, 1, and a stream
    from `afterRun` could not tell them apart."""
    s = await two_identities(services, workspace)
    for observed in ("alice", "alicia"):
        await dream_now(s, workspace, "agent", observed)
        assert await runs(s, workspace, "agent", observed)
    assert (await gql.ok(MERGE, {"w": workspace}))["mergePeers"]["target"] == "alice"
    await run_all(s, workspace)
    numbers = sorted(r.seq for r in await runs(s, workspace, "agent", "alice"))
    assert numbers == list(range(1, len(numbers) + 1)), numbers
    await dream_now(s, workspace, "agent", "alice")
    assert (await runs(s, workspace, "agent", "alice"))[0].seq == len(numbers) + 1


async def test_views_that_a_merge_makes_one_add_up_their_counts(
    services: Services, workspace: str
) -> None:
    """The source's view of itself, its view of the target, the target's view of it and of
    itself all become the target's view of itself: one edge, counting what the four did."""
    await make_peers(services, workspace, "alice", "alicia")
    members = [MemberSettings("alice"), MemberSettings("alicia")]
    await make_session(services, workspace, "s1", members)
    await post(services, workspace, "s1", ("alice", "I live in Paris."), ("alicia", "I row."))
    await derive(services, workspace, ScriptedLLM({"deriver": verbatim}))
    before = await observes_counts(services, workspace)
    assert len(before) == 4 and all(before.values())
    op = merges.Operation(["alicia"], "alice", merge=True)
    await merges.start(services.db, services.settings, workspace, op)
    await run_all(services, workspace)
    assert await observes_counts(services, workspace) == {("alice", "alice"): sum(before.values())}


async def test_views_that_a_split_makes_one_count_each_belief_once(
    services: Services, workspace: str
) -> None:
    """alice's view of herself and her view of alice-work (written while a split runs, when
    she observes others in the moving sessions) both become alice-work's view of herself: it
    counts each belief that moved in once, and each of alice's views loses only what left it."""
    await make_peers(services, workspace, "alice", "alice-work")
    stated = [
        stated_belief(
            workspace,
            content,
            observer="alice",
            observed=observed,
            scope_key=scope_key(workspace, "alice", observed),
            session=session,
        )
        for observed, content, session in [
            ("alice", "Alice rows.", "s2"),
            ("alice", "Alice sings.", "s2"),
            ("alice", "Alice lives in Paris.", "s1"),  # stays
            ("alice-work", "alice-work files reports.", "s2"),
        ]
    ]
    await services.db.write("create_stated_observations", workspace=workspace, observations=stated)
    part = splits.Part("alice-work", ["s2"])
    while not await services.db.write_tx(
        lambda tx: splits._step_part(tx, workspace, "alice", part, 10, now())
    ):
        pass
    # alice's view of alice-work, emptied, is not listed.
    assert await observes_counts(services, workspace) == {
        ("alice", "alice"): 1,
        ("alice-work", "alice-work"): 3,
    }


GREEN = "My favourite colour is dark green."
GREEN_AGAIN = "My favorite color is dark green."  # other words, the same fact
BLUE = "My favourite colour is light blue."  # similar words, another fact


async def test_a_merge_resolves_near_duplicates_by_the_dedup_rule(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="off", restructure_batch=1)
    a, b, c = s.embedder.embed([GREEN, GREEN_AGAIN, BLUE])
    similarity = {"again": sum(x * y for x, y in zip(a, b, strict=True))}
    similarity["blue"] = sum(x * y for x, y in zip(a, c, strict=True))
    assert similarity["again"] >= s.settings.dedup_threshold > similarity["blue"]
    await make_peers(s, workspace, "alice", "alicia", "agent")
    await make_session(s, workspace, "s1", [MemberSettings("alice"), MemberSettings("agent")])
    await make_session(s, workspace, "s2", [MemberSettings("alicia"), MemberSettings("agent")])
    llm = ScriptedLLM({"deriver": verbatim})
    await post(s, workspace, "s1", ("alice", GREEN))
    await derive(s, workspace, llm)  # alice's belief is the older one
    await post(s, workspace, "s2", ("alicia", GREEN_AGAIN), ("alicia", BLUE))
    await derive(s, workspace, llm)
    again = await belief_id(s, workspace, "favorite color", "agent", "alicia")
    taste, view = f"{workspace}-taste", Representation(workspace, "agent", "alicia")
    await deduce(s, view, taste, "alicia likes dark colours.", again)

    await merges.start(s.db, s.settings, workspace, merges.Operation(["alicia"], "alice", True))
    await run_all(s, workspace)

    for observer in ("agent", "alice"):
        facts = await contents(s, workspace, observer, "alice", levels=["explicit"])
        assert sorted(facts) == sorted([GREEN, BLUE]), observer
    kept = await belief_id(s, workspace, "dark green", "agent", "alice")
    detail = await observations.get_detail(s.db, workspace, kept)
    assert detail.observation.content == GREEN
    assert detail.observation.times_derived == 2
    # The dropped wording's evidence and dependents now rest on the belief that stayed.
    spans = sorted((x.message.content, x.span) for x in detail.sources)
    assert spans == sorted([(GREEN, GREEN), (GREEN_AGAIN, GREEN_AGAIN)])
    assert [d.id for d in detail.dependents] == [taste]
    with pytest.raises(NotFound):  # removed: its sources and dependents moved
        await observations.get_detail(s.db, workspace, again)
    left = await statements.read(s.db, "count_dedup_pending", workspace=workspace)
    assert left == [{"pending": 0}]


async def test_beliefs_that_name_the_peer_follow_a_merge_and_a_rename(
    services: Services, workspace: str
) -> None:
    """The extractive deriver names the peer: "Alicia lives in Zorblaxtown" merged into alice
    stayed beside "Alice lives in Zorblaxtown" (no dedup rule matched the two names), and after
    a rename the same fact said again under the new name was a second belief."""
    s = with_dreams(services, dream_mode="off")
    await make_peers(s, workspace, "alice", "alicia", "agent")
    await make_session(s, workspace, "s1", [MemberSettings("alice"), MemberSettings("agent")])
    await make_session(s, workspace, "s2", [MemberSettings("alicia"), MemberSettings("agent")])
    await post(s, workspace, "s1", ("alice", "I live in Zorblaxtown."))
    await post(s, workspace, "s2", ("alicia", "I live in Zorblaxtown."))
    await derive(s, workspace)  # the extractive deriver: no model
    [before] = await contents(s, workspace, "agent", "alicia")
    assert before.startswith("Alicia lives in Zorblaxtown")

    await merges.start(s.db, s.settings, workspace, merges.Operation(["alicia"], "alice", True))
    await run_all(s, workspace)
    [merged] = await contents(s, workspace, "agent", "alice")
    assert merged.startswith("Alice lives in Zorblaxtown")
    home = await belief_id(s, workspace, "Zorblaxtown", "agent", "alice")
    assert (await observations.get_detail(s.db, workspace, home)).observation.times_derived == 2

    await dream_now(s, workspace, "agent", "alice")  # stores the belief's slot and claim
    [before_keys] = await statements.read(s.db, "observation_keys", id=home)
    assert before_keys == {"slot": "residence", "claim": "+alice live in zorblaxtown"}
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alice"], "ally", False))
    await run_all(s, workspace)
    [renamed] = await contents(s, workspace, "agent", "ally")
    assert renamed.startswith("Ally lives in Zorblaxtown")
    # The claim a dream finds its opposite by holds the new name.
    [keys] = await statements.read(s.db, "observation_keys", id=home)
    assert keys == {"slot": "residence", "claim": "+ally live in zorblaxtown"}
    [stored] = await statements.read(s.db, "observation_embedding", id=home)
    [vector] = s.embedder.embed([renamed])
    assert sum(x * y for x, y in zip(stored["embedding"], vector, strict=True)) > 0.999
    await post(s, workspace, "s1", ("ally", "I live in Zorblaxtown."))
    await derive(s, workspace)
    assert await contents(s, workspace, "agent", "ally") == [renamed]
    assert (await observations.get_detail(s.db, workspace, home)).observation.times_derived == 3


async def test_a_rename_keeps_distinct_beliefs_its_new_name_brings_closer(
    services: Services, workspace: str
) -> None:
    """Renamed p4 to p4x, "P4x's favourite number in a is 24" and "... in b is 24" came out
    at a cosine of 0.9525, over the dedup threshold, where under p4 they were 0.943: the
    rename's duplicate check folded one into the other. Beliefs one source moved passed that
    check together already."""
    await make_peers(services, workspace, "p4", "agent")
    await make_session(services, workspace, "s1", [MemberSettings("p4"), MemberSettings("agent")])
    await post(
        services, workspace, "s1",
        *(("p4", f"My favourite number in {x} is 24.") for x in "abc"),
    )  # fmt: skip
    await derive(services, workspace)
    before = sorted(await contents(services, workspace, "agent", "p4"))
    assert len(before) == 3
    await merges.start(services.db, services.settings, workspace,
                       merges.Operation(["p4"], "p4x", False))  # fmt: skip
    await run_all(services, workspace)
    after = sorted(await contents(services, workspace, "agent", "p4x"))
    assert after == [c.replace("P4", "P4x").replace("p4", "p4x") for c in before]


async def test_a_merge_makes_one_belief_of_two_views_of_one_message(
    services: Services, workspace: str
) -> None:
    """Merging y into x makes y's view of itself and x's view of y one view (x of x): the rule
    that spares beliefs moved together spared these too, which never met, and left "X plays
    the cello" twice. And a fact both views took from one message counted it twice."""
    await make_peers(services, workspace, "x", "y")
    await make_session(services, workspace, "s", [MemberSettings("x"), MemberSettings("y")])
    await post(services, workspace, "s", ("x", "I work as a nurse."), ("y", "I play the cello."))
    await derive(services, workspace)
    await merges.start(services.db, services.settings, workspace,
                       merges.Operation(["y"], "x", True))  # fmt: skip
    await run_all(services, workspace)
    page = await observations.list_page(
        services.db, workspace, ObservationQuery("x", "x"), after=None, limit=20
    )
    texts = [o.content for o in page.items]
    assert len(texts) == len(set(texts)) == 2, texts
    assert [o.times_derived for o in page.items] == [1, 1]


async def test_a_fact_two_views_held_comes_back_after_a_purge_of_one_message(
    services: Services, workspace: str
) -> None:
    """The repeat a merge made one was kept as a tombstone citing nothing: a purge of its
    message missed its words, and the fact, derived again from the message left, read as a
    deleted one and was dropped for good."""
    s = await two_identities(services, workspace)
    ids = {
        peer: await belief_id(s, workspace, "Paris", "agent", peer) for peer in ("alice", "alicia")
    }
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alicia"], "alice", True))
    await run_all(s, workspace)
    kept = await belief_id(s, workspace, "Paris", "agent", "alice")
    [gone] = [i for i in ids.values() if i != kept]
    with pytest.raises(NotFound):
        await observations.get_detail(s.db, workspace, gone)
    detail = await observations.get_detail(s.db, workspace, kept)
    s1 = [x.message.id for x in detail.sources if x.message.session == "s1"]
    await purge.purge_messages(s.db, s.settings, workspace, s1)
    await derive(s, workspace, ScriptedLLM({"deriver": verbatim}))
    assert (await contents(s, workspace, "agent", "alice", levels=["explicit"])).count(
        "I live in Paris."
    ) == 1


async def homes(s: Services, workspace: str) -> list[str]:
    current = await contents(s, workspace, "agent", "alice")
    return [c for c in ("Madrid", "Berlin") if any(c in line for line in current)]


async def test_a_card_still_to_move_stops_citing_the_repeat_a_merge_removes(
    services: Services, workspace: str
) -> None:
    """The merge rewrote the support of the target's cards only: agent's card of alicia, moved
    after the beliefs, cited the removed repeat (alicia's newer "Paris"), and a purge of the
    message behind the belief kept missed that line."""
    await make_peers(services, workspace, "alice", "alicia", "agent")
    for session, peer in (("s1", "alice"), ("s2", "alicia")):
        await make_session(
            services, workspace, session, [MemberSettings(peer), MemberSettings("agent")]
        )
        await post(services, workspace, session, (peer, "I live in Paris."))
        await derive(services, workspace, ScriptedLLM({"deriver": verbatim}))
    older = await belief_id(services, workspace, "Paris", "agent", "alice")
    newer = await belief_id(services, workspace, "Paris", "agent", "alicia")
    view = Representation(workspace, "agent", "alicia")
    line = [CardLine("Lives in Paris", (newer,))]
    await services.db.write_tx(lambda tx: dream_writes.set_card(tx, view, line, now=now()))
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["alicia"], "alice", True)
    )
    await run_all(with_dreams(services, dream_mode="off"), workspace)
    card = await peer_cards.get(services.db, workspace, "agent", "alice")
    assert card.support == [(older,)], card


async def test_a_value_replaced_in_one_view_comes_back_when_its_merged_replacement_goes(
    services: Services, workspace: str
) -> None:
    """Madrid, replaced by Berlin in alice's view, merged with alicia's older Berlin: the
    update stayed on the removed repeat, so deleting every Berlin message left no home."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await make_peers(s, workspace, "alice", "alicia", "agent")
    await make_session(s, workspace, "s2", [MemberSettings("alicia"), MemberSettings("agent")])
    await make_session(s, workspace, "s1", [MemberSettings("alice"), MemberSettings("agent")])
    await post(s, workspace, "s2", ("alicia", "I live in Berlin."))
    await derive(s, workspace)
    await post(s, workspace, "s1", ("alice", "I live in Madrid."))
    await derive(s, workspace)
    await dream_now(s, workspace, "agent", "alice")
    await post(s, workspace, "s1", ("alice", "I live in Berlin."))
    await derive(s, workspace)
    await dream_now(s, workspace, "agent", "alice")
    assert await homes(s, workspace) == ["Berlin"]
    madrid = await belief_id(s, workspace, "Madrid", "agent", "alice")
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alicia"], "alice", True))
    await run_all(s, workspace)
    berlin = await belief_id(s, workspace, "Berlin", "agent", "alice")
    detail = await observations.get_detail(s.db, workspace, madrid)
    assert [o.id for o in detail.replaced_by] == [berlin]
    sources = await observations.get_detail(s.db, workspace, berlin)
    await invalidation.delete_messages(
        s.db, s.embedder, s.settings, workspace, [x.message.id for x in sources.sources]
    )
    await derive(s, workspace)
    assert await homes(s, workspace) == ["Madrid"]


async def test_a_file_whose_moved_aside_path_is_taken_or_too_long_still_moves(
    services: Services, workspace: str
) -> None:
    """A user file moved aside to merged/<source>/<path> failed the step for ever when the
    target had a file there too (files are unique by path), leaving the merge half done; a
    path near the limit moved aside past it, and could no longer be read."""
    await make_peers(services, workspace, "alice", "alicia")
    writer = FileWriter(services.db, services.embedder, services.tokens, services.settings)
    deep = "d/" * 250 + "x.md"  # 504 characters: 518 once moved aside
    for peer, path in (
        ("alice", "notes.md"),
        ("alice", "merged/alicia/notes.md"),
        ("alice", deep),
        ("alicia", "notes.md"),
        ("alicia", deep),
    ):
        await writer.create(workspace, peer, path, f"# {peer} {len(path)}")
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["alicia"], "alice", True)
    )
    await run_all(services, workspace)
    done = await queue_status.status(services.db, workspace, None, None)
    assert done.dead == 0 and done.pending == 0
    listed = await files.list_files(services.db, workspace, "alice", after=None, limit=20)
    paths = sorted(f.path for f in listed.items)
    assert len(paths) == 5 and {"notes.md", "merged/alicia/notes.md", deep} <= set(paths)
    aside = [p for p in paths if p not in {"notes.md", "merged/alicia/notes.md", deep}]
    assert all(p.startswith("merged/alicia/") and len(p) <= 512 for p in aside), aside
    assert sorted(p.rsplit("/", 1)[1] for p in aside) == ["notes.md", "x.md"]


async def test_a_file_moved_aside_onto_a_path_another_moved_file_keeps_still_moves(
    services: Services, workspace: str
) -> None:
    """The source's notes.md moves aside to merged/alicia/notes.md, the path its own
    merged/alicia/notes.md keeps: the target's files alone were checked for a clash."""
    await make_peers(services, workspace, "alice", "alicia")
    writer = FileWriter(services.db, services.embedder, services.tokens, services.settings)
    for peer, path in (
        ("alice", "notes.md"),
        ("alicia", "notes.md"),
        ("alicia", "merged/alicia/notes.md"),
    ):
        await writer.create(workspace, peer, path, f"# {peer} {path}")
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["alicia"], "alice", True)
    )
    await run_all(services, workspace)
    done = await queue_status.status(services.db, workspace, None, None)
    assert done.dead == 0 and done.pending == 0
    listed = await files.list_files(services.db, workspace, "alice", after=None, limit=20)
    contents = {f.path: f.content for f in listed.items}
    assert len(contents) == 3 and sorted(contents.values()) == [
        "# alice notes.md",
        "# alicia merged/alicia/notes.md",
        "# alicia notes.md",
    ]
    assert {"notes.md", "merged/alicia/notes.md"} <= set(contents), contents


async def test_waiting_derive_jobs_join_the_units_of_the_peer_they_now_derive_for(
    services: Services, workspace: str
) -> None:
    """Moved jobs kept the source's unit: it outlived the source, and ran beside the target's
    own unit of the session, so one (session, peer) was no longer derived one run at a time."""
    await make_peers(services, workspace, "alice", "alicia", "agent")
    members = [MemberSettings("alice"), MemberSettings("alicia"), MemberSettings("agent")]
    await make_session(services, workspace, "s", members)
    await post(services, workspace, "s", ("alice", "I live in Paris."))
    await post(services, workspace, "s", ("alicia", "I have a dog."))
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["alicia"], "alice", True)
    )
    await run_all(services, workspace)  # the derive jobs wait for their age: only the merge runs
    waiting = await job_admin.list_jobs(
        services.db,
        workspace,
        session="s",
        peer=None,
        statuses=["pending"],
        with_errors=False,
        limit=20,
    )
    derives = sorted((j for j in waiting if j.kind == "derive"), key=lambda j: j.seq)
    assert [j.peer for j in derives] == ["alice", "alice"]
    assert {j.work_unit for j in derives} == {f"derive/{workspace}/s/alice"}
    assert derives[0].seq < derives[1].seq
    await derive(services, workspace, ScriptedLLM({"deriver": verbatim}))
    facts = await contents(services, workspace, "agent", "alice", levels=["explicit"])
    assert sorted(facts) == ["I have a dog.", "I live in Paris."]


async def test_a_rename_carries_keys_files_cards_and_sessions(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    s = await two_identities(services, workspace)
    w = {"w": workspace}
    rename = """mutation($w: String!, $p: String!, $n: String!) {
      renamePeer(workspace: $w, peer: $p, newName: $n) { target }
    }"""
    assert await gql.error_code(rename, {**w, "p": "alicia", "n": "alice"}) == "CONFLICT"
    assert await gql.error_code(rename, {**w, "p": "nobody", "n": "x"}) == "NOT_FOUND"
    same = await gql.raw(rename, {**w, "p": "alicia", "n": "alicia"})
    assert "already has that name" in same["errors"][0]["message"], same
    await gql.ok(rename, {**w, "p": "alicia", "n": "ally"})
    await run_all(s, workspace)

    assert await gql.error_code(PEER, {**w, "p": "alicia"}) == "NOT_FOUND"
    found = (await gql.ok(SEARCH, {**w, "p": "ally"}))["searchMessages"]
    assert sorted(h["message"]["content"] for h in found) == ["I have a dog.", "I live in Paris."]
    assert sorted(await contents(s, workspace, "agent", "ally")) == [
        "I have a dog.",
        "I live in Paris.",
        "ally keeps a pet.",  # a rename writes the new name in the words
    ]
    search = """query($w: String!) {
      searchObservations(workspace: $w, observer: "agent", observed: "ally", query: "dog") {
        observation { content }
      }
    }"""
    hits = (await gql.ok(search, w))["searchObservations"]
    assert "I have a dog." in [h["observation"]["content"] for h in hits]
    listed = (await gql.ok(FILES, {**w, "p": "ally"}))["files"]["nodes"]
    assert {f["path"] for f in listed} == {"notes.md", "cards/agent.md"}
    members = """query($w: String!) {
      sessionPeers(workspace: $w, session: "s2") { peer }
    }"""
    assert sorted(p["peer"] for p in (await gql.ok(members, w))["sessionPeers"]) == [
        "agent",
        "ally",
    ]
    # The old name stayed in the queue: its finished jobs, and their units' keys.
    rows = await statements.read(s.db, "list_job_names", workspace=workspace)
    assert not [r["name"] for r in rows if "alicia" in r["name"]], rows


async def test_a_rename_resolves_what_its_new_peer_was_told_meanwhile(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """A rename's new peer takes writes while the rename runs; a belief derived for it then,
    repeating one still to move, stayed twice once the rename had moved the other. (A batch
    of 1 makes the rename take a step per message, and the derivation runs after the first.)"""
    s = await two_identities(services, workspace)
    s = dataclasses.replace(s, settings=dataclasses.replace(s.settings, restructure_batch=1))
    await gql.ok(
        """mutation($w: String!) {
          renamePeer(workspace: $w, peer: "alicia", newName: "ally") { target }
        }""",
        {"w": workspace},
    )
    await post(s, workspace, "s2", ("ally", "I have a dog."))
    await derive(s, workspace, ScriptedLLM({"deriver": verbatim}))
    await run_all(s, workspace)
    assert sorted(await contents(s, workspace, "agent", "ally")) == [
        "I have a dog.",
        "I live in Paris.",
        "ally keeps a pet.",
    ]


# With a batch of 1, the merge's steps move alicia's 2 messages, then her 5 beliefs, then check
# the 4 moved facts for duplicates (the Paris facts first, one step each), then move her files.
async def test_a_message_posted_while_a_step_deletes_its_sender_is_refused_not_orphaned(
    services: Services, workspace: str
) -> None:
    """A post raced the last step of a rename or merge: the step moved the sender's messages,
    the post committed one, and the step's delete of the sender cut its SENT_BY edge: a message
    naming a peer that is gone, which a purge of the new peer then missed. The post now waits
    for the step's lock on the sender and is refused once the sender is gone."""
    await make_peers(services, workspace, "r0")
    await make_session(services, workspace, "s", [MemberSettings("r0")])
    params = {"workspace": workspace, "peer": "r0"}
    async with services.db.driver.session(database=services.db.database) as session:
        raw = await session.begin_transaction()
        step = Tx(raw)
        await step.rows("lock_peer", **params)  # as each step does first
        posting = asyncio.create_task(post(services, workspace, "s", ("r0", "I live in Oslo.")))
        await asyncio.sleep(1.0)
        assert not posting.done()  # it waits for the step
        await step.rows("delete_peer", **params)
        await raw.commit()
    # Refused as gone (the write runs again once the step has committed, and finds no r0).
    with pytest.raises((NotFound, InvalidInput), match="'r0' does not exist"):
        await posting
    assert await statements.read(services.db, "count_unsent_messages", workspace=workspace) == [
        {"unsent": 0}
    ]


@pytest.mark.parametrize("steps", [1, 8], ids=["after-a-message", "amid-duplicates"])
async def test_a_merge_killed_mid_way_resumes_to_the_same_graph(
    services: Services, workspace: str, other_workspace: str, neo4j_password: str, steps: int
) -> None:
    small = with_dreams(services, restructure_batch=1)
    for name in (workspace, other_workspace):
        await two_identities(small, name)
    op = merges.Operation(["alicia"], "alice", merge=True)

    # Uninterrupted, in the other workspace.
    await merges.start(small.db, small.settings, other_workspace, op)
    await run_all(with_dreams(small, dream_mode="rules"), other_workspace)

    # Killed once `steps` steps have committed, in this one.
    await merges.start(small.db, small.settings, workspace, op)
    env = {"BELIEFGRAPH_RESTRUCTURE_BATCH": "1", "BELIEFGRAPH_DREAM_MODE": "rules"}
    await kill_after(small, workspace, neo4j_password, steps, env)
    half = await statements.read(small.db, "count_nodes_by_kind", workspace=workspace)
    assert {r["kind"]: r["total"] for r in half}.get("Peer") == 3  # alicia not yet gone
    [row] = await statements.read(small.db, "count_dedup_pending", workspace=workspace)
    assert (row["pending"] > 0) == (steps > 1)  # killed before, or amid, the duplicate checks
    # Its lease runs out; a new worker takes the job over and finishes.
    await resume(with_dreams(small, dream_mode="rules"), workspace)
    listed = await job_admin.list_jobs(
        small.db, workspace, session=None, peer=None, statuses=None, with_errors=False, limit=500
    )
    kinds = {j.kind for j in listed}
    assert RESTRUCTURE in kinds
    assert await snapshot(small, workspace) == await snapshot(small, other_workspace)


async def peer_names(services: Services, workspace: str) -> list[str]:
    rows = await services.db.read(
        "list_peers", workspace=workspace, after=None, meta_kv=[], limit=50
    )
    return sorted(str(r["peer"]["name"]) for r in rows)


async def queue_settled(services: Services, workspace: str) -> tuple[int, int]:
    status = await queue_status.status(services.db, workspace, None, None)
    return status.pending + status.running, status.dead


async def test_operations_on_one_peer_do_not_queue_together(
    services: Services, workspace: str
) -> None:
    """A merge a into b, then b into a, deleted both peers and orphaned their data; two
    renames of one peer left an empty second copy. A second operation naming a peer that a
    queued one changes is refused until that one has finished."""
    s = await two_identities(services, workspace)
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alicia"], "alice", True))
    refused = [
        merges.Operation(["alice"], "alicia", True),
        merges.Operation(["alicia"], "ally", False),
        merges.Operation(["agent"], "alice", True),
    ]
    for op in refused:
        with pytest.raises(Conflict, match="already being renamed, merged or split"):
            await merges.start(s.db, s.settings, workspace, op)
    split = splits.Split("alice", [splits.Part("alice-2", ["s1"])])
    with pytest.raises(Conflict, match="already being renamed, merged or split"):
        await splits.start(s.db, s.settings, workspace, split)
    assert await peer_names(s, workspace) == ["agent", "alice", "alicia"]  # no copy made
    await run_all(s, workspace)
    assert await peer_names(s, workspace) == ["agent", "alice"]
    # Once it has finished, the next may start.
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alice"], "ally", False))
    await run_all(s, workspace)
    assert await peer_names(s, workspace) == ["agent", "ally"]
    assert await queue_settled(s, workspace) == (0, 0)


async def test_an_operation_dead_lettered_part_way_holds_its_peers_until_run_again(
    services: Services, workspace: str
) -> None:
    """A dead-lettered job left the unit's head: a rename of its half-merged source, or
    another merge of it, was let start, and run again it took the renamed source for moved."""
    s = await two_identities(services, workspace)
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alicia"], "alice", True))
    await statements.write(s.db, "dead_letter_jobs", workspace=workspace, error="ValueError: x")
    for op in (
        merges.Operation(["alicia"], "ally", False),
        merges.Operation(["agent"], "alice", True),
    ):
        with pytest.raises(Conflict, match=r"failed every attempt .* retryJobs") as refused:
            await merges.start(s.db, s.settings, workspace, op)
        assert refused.value.details["operation"]
    with pytest.raises(Conflict, match="failed every attempt"):
        await splits.start(
            s.db, s.settings, workspace, splits.Split("alice", [splits.Part("a2", ["s1"])])
        )
    # A peer it does not name is free; and an erasure is not held up by it.
    await merges.start(s.db, s.settings, workspace, merges.Operation(["agent"], "bot", False))
    await run_all(s, workspace)
    assert await peer_names(s, workspace) == ["alice", "alicia", "bot"]
    await job_admin.retry_dead(s.db, workspace, ids=None, session=None, peer=None)
    await run_all(s, workspace)
    assert await peer_names(s, workspace) == ["alice", "bot"]
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alice"], "ally", False))
    await run_all(s, workspace)
    assert await peer_names(s, workspace) == ["ally", "bot"]


async def test_a_peer_a_dead_operation_names_may_still_be_purged(
    services: Services, workspace: str
) -> None:
    s = await two_identities(services, workspace)
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alicia"], "alice", True))
    await statements.write(s.db, "dead_letter_jobs", workspace=workspace, error="ValueError: x")
    report = await purge.purge_peer(s.db, s.settings, workspace, "alicia")
    assert report.peers == 1 and report.jobs >= 1
    # The dead merge went with the peer it named: it held alice for good (retried, it would
    # merge a peer made since under the name), and alice is free at once.
    listed = await job_admin.list_jobs(
        s.db,
        workspace,
        session=None,
        peer=None,
        statuses=None,
        with_errors=False,
        after=None,
        limit=100,
    )
    assert not [j for j in listed if j.kind == RESTRUCTURE], listed
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alice"], "ally", False))
    await run_all(s, workspace)
    assert await peer_names(s, workspace) == ["agent", "ally"]


async def test_operations_started_at_once_on_one_peer_queue_one(
    services: Services, workspace: str
) -> None:
    """The queued-operation check read before its enqueue, so starts at the same instant all
    passed it: two renames of one peer both queued, and the second left an empty copy. Starts
    in one workspace now take its lock first and run one at a time."""
    s = await two_identities(services, workspace)
    ops = [merges.Operation(["alicia"], f"ally-{i}", False) for i in range(4)] + [
        merges.Operation(["alicia"], "alice", True) for _ in range(4)
    ]
    results = await asyncio.gather(
        *(merges.start(s.db, s.settings, workspace, op) for op in ops), return_exceptions=True
    )
    started = [r for r in results if isinstance(r, str)]
    assert len(started) == 1, results
    assert all(isinstance(r, Conflict) for r in results if not isinstance(r, str)), results
    await run_all(s, workspace)
    assert await queue_settled(s, workspace) == (0, 0)
    names = set(await peer_names(s, workspace))
    assert names in ({"agent", "alice"}, *({"agent", "alice", op.target} for op in ops[:4]))


async def test_a_refused_split_creates_no_sub_peer(services: Services, workspace: str) -> None:
    """A split's sub-peers, their links and its job are written together: a part refused
    once its sub-peer was made (here the chain of sub-peers grows past the depth limit)
    leaves no sub-peer behind; before, the copy stayed, linked to nothing."""
    s = await two_identities(services, workspace)
    await members.add(s.db, workspace, "agent", "alicia", max_depth=1)
    s = with_dreams(s, max_peer_depth=1)
    split = splits.Split("alicia", [splits.Part("alicia-2", ["s2"])])
    with pytest.raises(InvalidInput, match="the limit is 1"):
        await splits.start(s.db, s.settings, workspace, split)
    assert "alicia-2" not in await peer_names(s, workspace)
    assert await queue_settled(s, workspace) == (0, 0)


async def test_a_split_names_each_sub_peer_once_and_sessions_the_peer_was_in(
    services: Services, workspace: str
) -> None:
    """One sub-peer named in two parts was CONFLICT, "already exists", of a peer that did not;
    a session the peer was never in made an empty sub-peer and moved nothing (probe E)."""
    s = await two_identities(services, workspace)
    twice = splits.Split(
        "alicia", [splits.Part("alicia-2", ["s2"]), splits.Part("alicia-2", ["s1"])]
    )
    with pytest.raises(InvalidInput, match="each sub-peer may be named in one part only"):
        await splits.start(s.db, s.settings, workspace, twice)
    elsewhere = splits.Split("alicia", [splits.Part("alicia-2", ["s1"])])
    with pytest.raises(InvalidInput, match="'alicia' was never in session 's1'"):
        await splits.start(s.db, s.settings, workspace, elsewhere)
    assert "alicia-2" not in await peer_names(s, workspace)
    assert await queue_settled(s, workspace) == (0, 0)


async def test_a_split_and_a_merge_queued_together_each_run_with_their_own_handler(
    services: Services, workspace: str
) -> None:
    """Both queue in the workspace's one unit; a claim took them together and gave both to
    the first one's handler, and both failed (KeyError) until dead-lettered."""
    s = await two_identities(services, workspace)
    split = splits.Split("alicia", [splits.Part("alicia-2", ["s2"])])
    await splits.start(s.db, s.settings, workspace, split)
    await merges.start(s.db, s.settings, workspace, merges.Operation(["agent"], "alice", True))
    await run_all(s, workspace)
    assert await queue_settled(s, workspace) == (0, 0)
    assert await peer_names(s, workspace) == ["alice", "alicia", "alicia-2"]


async def test_operations_queued_one_behind_another_run_one_after_another(
    services: Services, workspace: str
) -> None:
    """A step's follow-up job was queued at the unit's end: a merge and a split queued
    together took turns, step by step. The job now waits again in its own place."""
    s = await two_identities(services, workspace)
    s = dataclasses.replace(s, settings=dataclasses.replace(s.settings, restructure_batch=1))
    await merges.start(s.db, s.settings, workspace, merges.Operation(["agent"], "alice", True))
    await splits.start(s.db, s.settings, workspace, splits.Split("alicia", [splits.Part(
        "alicia-2", ["s2"])]))  # fmt: skip
    worker = worker_for(s, workspace, None)
    merge_claims = 0
    while await worker.run_once():
        listed = await job_admin.list_jobs(
            s.db, workspace, session=None, peer=None, statuses=None, with_errors=False, limit=100
        )
        [merge] = [j for j in listed if j.kind == RESTRUCTURE]
        [split] = [j for j in listed if j.kind == splits.SPLIT]
        if merge.status != "done":
            merge_claims += 1
            assert (split.status, split.attempts) == ("pending", 0), "the split ran mid-merge"
    assert merge_claims > 1  # the merge took several steps
    assert await queue_settled(s, workspace) == (0, 0)
    assert await peer_names(s, workspace) == ["alice", "alicia", "alicia-2"]


async def test_a_merge_whose_target_went_away_moves_nothing(
    services: Services, workspace: str
) -> None:
    s = await two_identities(services, workspace)
    await merges.start(s.db, s.settings, workspace, merges.Operation(["alicia"], "alice", True))
    await s.db.write("delete_peer", workspace=workspace, peer="alice")
    await run_all(s, workspace)
    assert await queue_settled(s, workspace) == (0, 0)
    assert await peer_names(s, workspace) == ["agent", "alicia"]
    assert sorted(await contents(s, workspace, "agent", "alicia")) == [
        "I have a dog.",
        "I live in Paris.",
        "alicia keeps a pet.",
    ]


async def test_a_step_that_outlived_its_workspace_never_runs_in_a_new_one_of_that_name(
    services: Services, workspace: str
) -> None:
    """A step running while its workspace was deleted commits its follow-up job after the
    deletion has passed; a workspace made again under that name then had its peers merged by
    the old operation. Here the follow-up is written back, dated before the new workspace."""
    s = await two_identities(services, workspace)
    op = merges.Operation(["alicia"], "alice", True)
    operation = await merges.start(s.db, s.settings, workspace, op)
    await workspaces.delete(s.db, workspace)
    queued_before = now()
    await workspaces.get_or_create(s.db, workspace)
    await two_identities(services, workspace)
    [job_id] = await s.db.write_tx(
        lambda tx: jobs.enqueue(tx, [merges.new_job(s.settings, workspace, op, operation)])
    )
    await statements.write(s.db, "backdate_job", id=job_id, created_at=queued_before)
    await run_all(s, workspace)
    assert await queue_settled(s, workspace) == (0, 0)
    assert await peer_names(s, workspace) == ["agent", "alice", "alicia"]


SPLIT = """mutation($w: String!) {
  splitPeer(workspace: $w, peer: "alice", parts: [{child: "alice-work", sessions: ["s2"]}]) {
    operation target
  }
}"""


async def two_sessions(services: Services, workspace: str) -> Services:
    """alice lives in Paris (s1) and works at the bank (s2), as agent and alice herself see her;
    each view has a deduction built on the bank fact."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await make_peers(s, workspace, "alice", "agent")
    for session in ("s1", "s2"):
        await make_session(
            s, workspace, session, [MemberSettings("alice"), MemberSettings("agent")]
        )
    await post(s, workspace, "s1", ("alice", "I live in Paris."))
    await post(s, workspace, "s2", ("alice", "I work at the bank."))
    await derive(s, workspace, ScriptedLLM({"deriver": verbatim}))
    for observer, content in (("agent", "alice is a banker."), ("alice", "I am a banker.")):
        bank = await belief_id(s, workspace, "bank", observer, "alice")
        view = Representation(workspace, observer, "alice")
        await deduce(s, view, f"{workspace}-{observer}-banker", content, bank)
    return s


async def test_a_split_moves_a_session_set_to_a_new_sub_peer(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    s = await two_sessions(services, workspace)
    w = {"w": workspace}
    assert (await gql.ok(SPLIT, w))["splitPeer"]["target"] == "alice"
    assert await gql.error_code(SPLIT, w) == "CONFLICT"  # alice-work exists now
    await run_all(s, workspace)

    for peer, said in (("alice", ["I live in Paris."]), ("alice-work", ["I work at the bank."])):
        nodes = (await gql.ok(MESSAGES, {**w, "p": peer}))["messages"]["nodes"]
        assert [m["content"] for m in nodes] == said
    assert await contents(s, workspace, "agent", "alice-work") == ["I work at the bank."]
    # The deduction's premise left alice's representation: reconciled away.
    assert await contents(s, workspace, "agent", "alice") == ["I live in Paris."]
    assert await contents(s, workspace, "agent", "alice", include_stale=True) == [
        "I live in Paris."
    ]
    sub = """query($w: String!) { subPeers(workspace: $w, peer: "alice") { peer { name } } }"""
    assert [p["peer"]["name"] for p in (await gql.ok(sub, w))["subPeers"]] == ["alice-work"]
    members = """query($w: String!) { sessionPeers(workspace: $w, session: "s2") { peer } }"""
    names = sorted(p["peer"] for p in (await gql.ok(members, w))["sessionPeers"])
    assert names == ["agent", "alice-work"]
    # An aggregated read of alice still reaches what moved.
    together = await contents(s, workspace, "agent", "alice", aggregated=("alice-work",))
    assert sorted(together) == ["I live in Paris.", "I work at the bank."]


async def windows(s: Services, workspace: str, session: str, peer: str) -> list[bool]:
    """Whether each of the peer's membership windows in the session is open, oldest first."""
    members = await sessions.list_members(s.db, workspace, session, include_past=True)
    return [m.left_at is None for m in sorted(members, key=lambda m: m.joined_at) if m.peer == peer]


async def test_merges_and_splits_move_every_membership_window(
    services: Services, workspace: str
) -> None:
    """A merge dropped every window of the source in a session the target had ever been in (the
    target, gone from it, was not present again), and a split kept one window of a peer that
    left and came back, perhaps the closed one."""
    await make_peers(services, workspace, "alice", "alicia", "agent")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await sessions.remove_peers(services.db, workspace, "s1", ["alice"])
    await sessions.add_peers(services.db, workspace, "s1", [MemberSettings("alicia")])
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["alicia"], "alice", True)
    )
    await run_all(services, workspace)
    assert await windows(services, workspace, "s1", "alice") == [False, True]
    # Both present: one window, the target's, open since the earlier joined.
    await make_peers(services, workspace, "ally")
    await sessions.add_peers(services.db, workspace, "s1", [MemberSettings("ally")])
    joined = await sessions.list_members(services.db, workspace, "s1", include_past=False)
    alice_since = {m.peer: m.joined_at for m in joined}["alice"]
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["alice"], "ally", True)
    )
    await run_all(services, workspace)
    now_in = await sessions.list_members(services.db, workspace, "s1", include_past=False)
    assert [(m.peer, m.joined_at) for m in now_in] == [("ally", alice_since)]
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["ally"], "alice", False)
    )
    await run_all(services, workspace)  # renamed back, for the split below
    # alice left and came back: both windows go to the sub-peer, the open one open.
    await sessions.remove_peers(services.db, workspace, "s1", ["alice"])
    await sessions.add_peers(services.db, workspace, "s1", [MemberSettings("alice")])
    split = splits.Split("alice", [splits.Part("alice-work", ["s1"])])
    await splits.start(services.db, services.settings, workspace, split)
    await run_all(services, workspace)
    assert await windows(services, workspace, "s1", "alice-work") == [False, False, True]
    assert await windows(services, workspace, "s1", "alice") == []


async def test_a_message_posted_while_a_split_moves_its_session_goes_with_it(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """A post raced the split's step: the step read the peer's messages of the session before
    the post committed one, which then stayed the peer's in a session the sub-peer had taken
    over. The step now takes the peer's lock first, as a merge's does, so the post commits
    before it reads (or waits for it, and is the app's to send as the peer afterwards)."""
    s = await two_sessions(services, workspace)
    await gql.ok(SPLIT, {"w": workspace})
    params = {"workspace": workspace, "peer": "alice"}
    async with services.db.driver.session(database=services.db.database) as session:
        raw = await session.begin_transaction()
        await Tx(raw).rows("lock_peers", workspace=workspace, peers=["alice"])  # as a post does
        await statements.rows(
            raw, "create_bare_message", **params, id="late", session="s2", content="Hi.", seq=9
        )
        running = asyncio.create_task(run_all(s, workspace))
        await asyncio.sleep(1.0)
        await raw.commit()
    await running
    [sender] = await statements.read(services.db, "message_sender", workspace=workspace, id="late")
    assert sender == {"peer": "alice-work", "sent_by": "alice-work"}


async def test_versions_of_a_fact_split_apart_stay_history_and_current(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """Paris (s1) superseded by Lisbon (s2); s2 moves to alice-work: the SUPERSEDES edge joins
    the two representations, Paris stays history in alice's, Lisbon current in alice-work's,
    and an aggregated read of alice sees Lisbon current and Paris as history."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await make_peers(s, workspace, "alice", "agent")
    for session, said in (("s1", "I live in Paris."), ("s2", "I moved to Lisbon last month.")):
        await make_session(
            s, workspace, session, [MemberSettings("alice"), MemberSettings("agent")]
        )
        await post(s, workspace, session, ("alice", said))
    await derive(s, workspace)

    async def cities(observed: str, **filters: Any) -> list[str]:
        found = await contents(s, workspace, "agent", observed, **filters)
        return sorted(c for c in ("Lisbon", "Paris") if any(c in text for text in found))

    await dream_now(s, workspace, "agent", "alice")
    assert await cities("alice") == ["Lisbon"]
    await gql.ok(SPLIT, {"w": workspace})
    await run_all(s, workspace)
    assert await cities("alice") == []
    assert await cities("alice", include_superseded=True) == ["Paris"]
    assert await cities("alice-work") == ["Lisbon"]
    both = {"aggregated": ("alice-work",)}
    assert await cities("alice", **both) == ["Lisbon"]
    assert await cities("alice", include_superseded=True, **both) == ["Lisbon", "Paris"]


async def test_a_card_a_merge_discards_while_a_write_adds_to_it_leaves_no_chunk(
    services: Services, workspace: str
) -> None:
    """bob's card of himself becomes alice's card of herself, where hers wins: the moved one
    is deleted with its chunks. Read before the card's lock, the chunk a write holding it
    added stayed, with no file."""
    await make_peers(services, workspace, "alice", "bob")
    await peer_cards.set_card(services.db, workspace, "alice", "alice", ["Likes tea"])
    await peer_cards.set_card(services.db, workspace, "bob", "bob", ["Likes coffee"])
    await merges.start(
        services.db, services.settings, workspace, merges.Operation(["bob"], "alice", True)
    )
    held = {"workspace": workspace, "peer": "bob", "path": "card.md"}
    async with services.db.driver.session(database=services.db.database) as session:
        tx = await session.begin_transaction()
        await statements.rows(tx, "add_file_chunk", **held)
        merging = asyncio.create_task(run_all(services, workspace))
        await asyncio.sleep(1.0)
        assert not merging.done()  # it waits for the write's lock on the card
        await tx.commit()
    await merging
    assert await statements.read(services.db, "count_orphan_chunks", workspace=workspace) == [
        {"orphans": 0}
    ]
    assert (await peer_cards.get(services.db, workspace, "alice", "alice")).entries == ["Likes tea"]


async def test_an_induction_kept_after_a_split_cites_and_counts_what_stayed(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """Kept by reconciliation (two premises stayed), the induction still said "3 times across 3
    sessions". It keeps citing the premise that moved (its provenance): erasing that premise's
    message erases the induction, which may quote it."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await make_peers(s, workspace, "alice", "agent")
    for session in ("s1", "s2", "s3"):
        await make_session(
            s, workspace, session, [MemberSettings("alice"), MemberSettings("agent")]
        )
        await post(s, workspace, session, ("alice", f"I read on weekends in {session}."))
    await derive(s, workspace, ScriptedLLM({"deriver": verbatim}))
    ids = [await belief_id(s, workspace, f"in {x}") for x in ("s1", "s2", "s3")]
    words = "A recurring pattern (3 times across 3 sessions): Alice reads on weekends."
    induction = dream_writes.DerivedWrite(
        f"{workspace}-reads", "inductive", words, [0.1] * 384, tuple(ids)
    )
    view = Representation(workspace, "agent", "alice")
    await s.db.write_tx(
        lambda tx: dream_writes.create_derived(
            tx, view, [induction], origin="dreamer:rules", now=now()
        )
    )
    assert (await gql.ok(SPLIT, {"w": workspace}))["splitPeer"]["target"] == "alice"
    await run_all(s, workspace)
    detail = await observations.get_detail(s.db, workspace, induction.id)
    # Counted anew, in the words of the latest premise that stayed.
    latest = (await observations.get_detail(s.db, workspace, ids[2])).observation.content
    assert detail.observation.content == induction_text(2, 2, sentence_of(core_text(latest)))
    assert not detail.observation.stale
    assert sorted(p.id for p in detail.premises) == sorted(ids)
    [moved] = [
        s.message.id for s in (await observations.get_detail(s.db, workspace, ids[1])).sources
    ]
    report = await purge.purge_messages(s.db, s.settings, workspace, [moved])
    assert report.observations["inductive"] == 1


async def test_a_split_killed_mid_way_resumes_to_the_same_graph(
    services: Services, workspace: str, other_workspace: str, neo4j_password: str
) -> None:
    small = with_dreams(services, restructure_batch=1)
    for name in (workspace, other_workspace):
        await two_sessions(small, name)
    split = splits.Split("alice", [splits.Part("alice-work", ["s2"])])

    # Uninterrupted, in the other workspace.
    await splits.start(small.db, small.settings, other_workspace, split)
    await run_all(with_dreams(small, dream_mode="rules"), other_workspace)

    # Killed once the message and one of the two bank facts have moved (a step each), before
    # the other fact follows, in this one.
    await splits.start(small.db, small.settings, workspace, split)
    env = {"BELIEFGRAPH_RESTRUCTURE_BATCH": "1", "BELIEFGRAPH_DREAM_MODE": "rules"}
    await kill_after(small, workspace, neo4j_password, 2, env)
    moved = [
        await contents(small, workspace, observer, "alice-work", include_stale=True)
        for observer in ("agent", "alice-work")
    ]
    assert sorted(len(facts) for facts in moved) == [0, 1]
    # Its lease runs out; a new worker takes the job over and finishes.
    await resume(with_dreams(small, dream_mode="rules"), workspace)
    assert await contents(small, workspace, "agent", "alice-work") == ["I work at the bank."]
    assert await snapshot(small, workspace) == await snapshot(small, other_workspace)


async def test_a_join_in_progress_as_a_merge_moves_windows_leaves_one_window(
    services: Services, workspace: str
) -> None:
    """A merge's last step read the target's open windows while a join of the target held the
    session's lock, uncommitted: it moved the source's window in beside the joined one, and the
    target was listed twice in the session for good (probe E)."""
    await make_peers(services, workspace, "x", "y")
    await make_session(services, workspace, "s", [MemberSettings("x")])

    async def join(tx: Tx) -> None:
        await sessions.join(tx, workspace, "s", [MemberSettings("y")])

    async def last_step() -> None:
        await services.db.write_tx(lambda tx: merges.move_links(tx, workspace, "x", "y"))

    await while_held(services, join, last_step)
    members = await sessions.list_members(services.db, workspace, "s", include_past=True)
    assert [(m.peer, m.left_at) for m in members] == [("y", None)]


async def test_a_join_in_progress_as_a_split_moves_windows_leaves_one_window(
    services: Services, workspace: str
) -> None:
    """As the merge's: a split's last step read the sub-peer's open windows while a join of
    the sub-peer held the session's lock, uncommitted, and moved the peer's window in beside
    the joined one."""
    await make_peers(services, workspace, "x", "x-work")
    await make_session(services, workspace, "s", [MemberSettings("x")])

    async def join(tx: Tx) -> None:
        await sessions.join(tx, workspace, "s", [MemberSettings("x-work")])

    part = splits.Part("x-work", ["s"])

    async def last_step() -> None:
        await services.db.write_tx(
            lambda tx: splits._step_part(tx, workspace, "x", part, 10, now())
        )

    await while_held(services, join, last_step)
    members = await sessions.list_members(services.db, workspace, "s", include_past=True)
    assert [(m.peer, m.left_at) for m in members] == [("x-work", None)]
