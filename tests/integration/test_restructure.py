"""Correcting and forgetting on the real graph: deleting and editing messages, deleting sessions,
correcting and deleting beliefs, staleness propagation, reconciliation and purges."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pytest

from graph.db import Tx
from graph.keys import Representation
from graph.records import ObservationDetail
from graph.repo import (
    dream_writes,
    job_admin,
    jobs,
    messages,
    observation_search,
    observations,
    peer_cards,
)
from graph.repo.dream_writes import DerivedWrite
from graph.repo.messages import MessageFilter
from graph.repo.observation_search import ObservationQuery
from graph.repo.peer_cards import CardLine
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.dialectic.evidence import View
from reasoners.dialectic.tools import Toolbox
from reasoners.dreamer.reconcile_rules import BeliefVerdict, ReconcileOutput
from reasoners.llm.interface import ChatMessage, ToolCall
from reasoners.peers import invalidation, purge
from reasoners.queue.schedule import derive_jobs
from reasoners.search.observations import search_observations
from resolvers.services import Services
from tests import statements
from tests.conftest import GraphQLClient
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import make_peers, make_session, observes_counts, post
from tests.integration.dream_helpers import (
    belief_id,
    contents,
    conversation,
    derive,
    dream_now,
    say,
    shown_ids,
    with_dreams,
)

pytestmark = pytest.mark.integration


@dataclass(frozen=True)
class Chain:
    """agent's view of alice: two facts, a chain of deductions on the first, a deduction and
    an induction on both."""

    services: Services
    paris_message: str
    paris: str  # "I live in Paris."
    dog: str  # "I have a dog named Rex."
    france: str  # deduced from paris
    europe: str  # deduced from france
    both: str  # deduced from paris and dog
    induction: str  # induced from paris and dog


def _derived(level: str, content: str, *premises: str) -> DerivedWrite:
    return DerivedWrite(
        id=str(uuid.uuid4()),
        level=level,
        content=content,
        embedding=[0.1] * 384,
        premise_ids=premises,
    )


async def chain(services: Services, workspace: str, **settings: Any) -> Chain:
    s = with_dreams(services, dream_threshold=0, **{"dream_mode": "rules", **settings})
    await conversation(s, workspace, "s1", "s2")
    await say(s, workspace, "s1", "2024-01-05", "I live in Paris.")
    await say(s, workspace, "s2", "2024-02-05", "I have a dog named Rex.")
    await derive(s, workspace)
    paris, dog = await belief_id(s, workspace, "Paris"), await belief_id(s, workspace, "Rex")
    view = Representation(workspace, "agent", "alice")
    france = _derived("deductive", "alice lives in France.", paris)
    europe = _derived("deductive", "alice lives in Europe.", france.id)
    both = _derived("deductive", "alice keeps a dog in a city.", paris, dog)
    induction = _derived("inductive", "alice settles down.", paris, dog)
    for step in ([france, both, induction], [europe]):

        async def write(tx: Tx, step: list[DerivedWrite] = step) -> None:
            await dream_writes.create_derived(tx, view, step, origin="dreamer:rules", now=now())

        await s.db.write_tx(write)
    page = await messages.list_page(
        s.db, workspace, MessageFilter(session="s1"), after=None, limit=10
    )
    (message,) = page.items
    return Chain(s, message.id, paris, dog, france.id, europe.id, both.id, induction.id)


async def current(services: Services, workspace: str, **filters: Any) -> set[str]:
    """The ids agent's view of alice shows (current beliefs unless `filters` widen it)."""
    page = await observations.list_page(
        services.db,
        workspace,
        ObservationQuery("agent", "alice", **filters),
        after=None,
        limit=100,
    )
    return {o.id for o in page.items}


async def state(services: Services, workspace: str, observation: str) -> dict[str, Any]:
    row = await statements.read_one(
        services.db, "get_observation_state", workspace=workspace, id=observation
    )
    assert row is not None
    return row


async def derive_again(services: Services, workspace: str, message_id: str) -> None:
    """Queue the message for the deriver once more, as a retried or repeated job would."""
    (message,) = await messages.by_ids(services.db, workspace, [message_id])
    queued = derive_jobs(services.settings, [message], now())
    await services.db.write_tx(lambda tx: jobs.enqueue(tx, queued))
    await derive(services, workspace)


DELETE_MESSAGES = """mutation($w: String!, $ids: [ID!]!) {
  deleteMessages(workspace: $w, ids: $ids) { ids staleObservations reconcileDreams }
}"""
MESSAGE = "query($w: String!, $id: ID!) { message(workspace: $w, id: $id) { id } }"
MESSAGES = "query($w: String!) { messages(workspace: $w, first: 50) { nodes { id content } } }"
SEARCH = """query($w: String!) {
  searchMessages(workspace: $w, query: "live in Paris", limit: 20) { message { id } }
}"""
OBSERVATION = """query($w: String!, $id: ID!) {
  observation(workspace: $w, id: $id) { observation { stale staleReason } sources { span } }
}"""


async def test_deleting_a_message_hides_it_and_stales_what_rested_only_on_it(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    c = await chain(services, workspace)
    w = {"w": workspace}
    result = await gql.ok(DELETE_MESSAGES, {**w, "ids": [c.paris_message]})
    deleted = result["deleteMessages"]
    assert deleted["ids"] == [c.paris_message]
    stale = set(deleted["staleObservations"])
    assert {c.paris, c.france, c.europe, c.both, c.induction} <= stale
    assert c.dog not in stale
    # alice's own view of herself took the same fact from the same message.
    assert await belief_id(services, workspace, "Paris", "alice", "alice") in stale

    # Gone from every message read.
    assert await gql.error_code(MESSAGE, {**w, "id": c.paris_message}) == "NOT_FOUND"
    listed = (await gql.ok(MESSAGES, w))["messages"]["nodes"]
    assert [m["content"] for m in listed] == ["I have a dog named Rex."]
    hits = (await gql.ok(SEARCH, w))["searchMessages"]
    assert c.paris_message not in {h["message"]["id"] for h in hits}

    # Stale beliefs leave default reads and say why.
    assert await current(services, workspace) == {c.dog}
    paris = (await gql.ok(OBSERVATION, {**w, "id": c.paris}))["observation"]
    assert paris["observation"] == {"stale": True, "staleReason": "its source message was deleted"}
    assert paris["sources"] == []  # the deleted message's text is not shown as its source
    europe = await state(services, workspace, c.europe)
    assert europe["stale"] and europe["stale_reason"] == "a premise lost its source message"

    # The deriver and dreamer never build on a stale premise: the write refuses it.
    view = Representation(workspace, "agent", "alice")
    with pytest.raises(dream_writes.ProvenanceRejected, match="stale, deleted or superseded"):
        await services.db.write_tx(
            lambda tx: dream_writes.create_derived(
                tx, view, [_derived("deductive", "x", c.paris)], origin="dreamer:rules", now=now()
            )
        )

    # The scheduled dream reconciles without a key: no live source, no belief; a deduction
    # with a current premise left stands again.
    assert deleted["reconcileDreams"] >= 1
    await dream_now(c.services, workspace, "agent", "alice")
    for gone in (c.paris, c.france, c.europe, c.induction):
        assert (await state(services, workspace, gone))["deleted"], gone
    kept = await state(services, workspace, c.both)
    assert not kept["stale"] and not kept["deleted"] and kept["pending"] is None
    assert await current(services, workspace) == {c.dog, c.both}


async def test_a_deleted_belief_is_not_derived_again_from_its_message(
    services: Services, workspace: str
) -> None:
    c = await chain(services, workspace)
    s = c.services
    outcome = await invalidation.delete_observation(s.db, s.settings, workspace, c.paris)
    assert outcome.ids == [c.paris]
    assert set(outcome.stale) == {c.france, c.europe, c.both, c.induction}
    mirror = await belief_id(s, workspace, "Paris", "alice", "alice")
    assert (await state(s, workspace, mirror))["times_derived"] == 1

    await derive_again(s, workspace, c.paris_message)
    # The message was read again: alice's own view kept the fact, not counting the same message
    # twice (it counted 2 before) ...
    assert (await state(s, workspace, mirror))["times_derived"] == 1
    # ... while agent's deleted belief stayed deleted and no copy of it appeared.
    assert (await state(s, workspace, c.paris))["deleted"]
    shown = await contents(s, workspace, include_stale=True, include_superseded=True)
    assert not any("Paris" in text for text in shown)
    # Deleting it again changes nothing.
    again = await invalidation.delete_observation(s.db, s.settings, workspace, c.paris)
    assert again.ids == [] and again.stale == []


DELETED = """query($w: String!, $id: ID!) {
  observation(workspace: $w, id: $id) {
    observation { content deletedAt } dependents { deletedAt }
  }
}"""


async def test_a_deleted_belief_read_by_id_says_it_is_deleted(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """Read by id for its provenance, a deleted belief looked current (nothing marked it)."""
    c = await chain(services, workspace)
    before = (await gql.ok(DELETED, {"w": workspace, "id": c.paris}))["observation"]
    assert before["observation"]["deletedAt"] is None
    await invalidation.delete_observation(c.services.db, c.services.settings, workspace, c.paris)
    after = (await gql.ok(DELETED, {"w": workspace, "id": c.paris}))["observation"]
    assert after["observation"]["deletedAt"] is not None
    assert [d["deletedAt"] for d in after["dependents"]] == [None] * len(after["dependents"])


CORRECT = """mutation($w: String!, $id: ID!, $c: String!) {
  correctObservation(workspace: $w, id: $id, content: $c) {
    observation { id content level } replaced staleObservations
  }
}"""


async def view_counts(
    services: Services, workspace: str, observer: str, observed: str
) -> tuple[int, int]:
    """(beliefs written, writes of explicit beliefs) as the view's OBSERVES edge counts them."""
    [row] = await services.db.read(
        "get_view_writes", workspace=workspace, views=[{"observer": observer, "observed": observed}]
    )
    sizes = {
        (r["observer"], r["observed"]): int(r["beliefs"])
        for r in await services.db.read("largest_views", limit=1_000_000)
        if r["workspace"] == workspace
    }
    return sizes.get((observer, observed), 0), int(row["writes"])


async def test_a_correction_supersedes_and_zero_key_reconciliation_settles_the_chain(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    c = await chain(services, workspace)
    w = {"w": workspace}
    beliefs, writes = await view_counts(services, workspace, "agent", "alice")
    result = (await gql.ok(CORRECT, {**w, "id": c.paris, "c": "I live in Berlin."}))[
        "correctObservation"
    ]
    # The view counts the new version and its write: a derivation's duplicate check sees it.
    assert await view_counts(services, workspace, "agent", "alice") == (beliefs + 1, writes + 1)
    assert result["observation"]["content"] == "I live in Berlin."
    assert result["observation"]["level"] == "EXPLICIT"
    assert result["replaced"] == c.paris
    assert set(result["staleObservations"]) == {c.france, c.europe, c.both, c.induction}
    old = await state(services, workspace, c.paris)
    assert old["superseded"] and not old["stale"]
    new = result["observation"]["id"]
    assert await current(services, workspace) == {c.dog, new}
    # The same correction twice, or a correction of the old version, is a conflict.
    code = await gql.error_code(CORRECT, {**w, "id": c.paris, "c": "I live in Rome."})
    assert code == "CONFLICT"
    assert await gql.error_code(CORRECT, {**w, "id": new, "c": "I live in Berlin"}) == "CONFLICT"
    assert await gql.error_code(CORRECT, {**w, "id": "nope", "c": "x"}) == "NOT_FOUND"
    # Longer than a belief may be (100,000 characters answered INTERNAL from the index).
    too_long = {**w, "id": new, "c": "x" * 2_001}
    assert await gql.error_code(CORRECT, too_long) == "LIMIT_EXCEEDED"

    await dream_now(c.services, workspace, "agent", "alice")
    for gone in (c.france, c.europe, c.induction):
        assert (await state(services, workspace, gone))["deleted"], gone
    assert not (await state(services, workspace, c.both))["stale"]

    # Reading the message again does not bring the corrected text back.
    await derive_again(c.services, workspace, c.paris_message)
    assert await current(services, workspace, levels=["explicit"]) == {c.dog, new}


async def test_a_superseded_version_is_reconciled_as_history(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """A superseded version reached by an invalidation is judged too: history resting on what
    still stands is kept (a premise's own later version does not take it away) and history
    whose only evidence went is tombstoned. Before, both stayed awaiting a dream forever."""
    c = await chain(services, workspace)
    s, w, before = c.services, {"w": workspace}, now()
    corrected = await gql.ok(CORRECT, {**w, "id": c.both, "c": "alice keeps Rex in Paris."})
    both_now = corrected["correctObservation"]["observation"]["id"]
    await gql.ok(CORRECT, {**w, "id": c.paris, "c": "I live in Berlin."})
    await dream_now(s, workspace, "agent", "alice")
    # The superseded `both` rests on paris (superseded, still standing) and dog: kept.
    old_both = await state(services, workspace, c.both)
    assert old_both["superseded"] and not old_both["stale"] and old_both["pending"] is None
    assert not (await state(services, workspace, both_now))["stale"]

    await gql.ok(DELETE_MESSAGES, {**w, "ids": [c.paris_message]})
    paris = await state(services, workspace, c.paris)
    assert paris["superseded"] and paris["pending"]
    await dream_now(s, workspace, "agent", "alice")
    paris = await state(services, workspace, c.paris)
    assert paris["deleted"] and paris["pending"] is None
    # Its quote of the deleted message is no longer readable through history.
    assert c.paris not in await current(services, workspace, include_stale=True, as_of=before)


def _reconciler(updates: dict[str, str], confirm: set[str], drop: set[str]) -> Any:
    """A scripted model: reconciliation verdicts by content; every specialist turn ends at once."""

    def answer(messages: list[ChatMessage], schema: Any) -> Any:
        if schema is not ReconcileOutput:
            return "Nothing to add."
        ids = shown_ids(messages)
        verdicts = []
        for shown, belief in ids.items():
            for key, content in updates.items():
                if key in shown:
                    verdicts.append(BeliefVerdict(id=belief, action="update", content=content))
            if any(key in shown for key in confirm):
                verdicts.append(BeliefVerdict(id=belief, action="confirm"))
            if any(key in shown for key in drop):
                verdicts.append(BeliefVerdict(id=belief, action="tombstone"))
        return ReconcileOutput(verdicts=verdicts)

    return answer


async def test_a_correction_reconciled_by_the_llm_updates_confirms_and_tombstones(
    services: Services, workspace: str
) -> None:
    c = await chain(services, workspace, dream_mode="llm")
    s = c.services
    corrected = await invalidation.correct_observation(
        s.db, s.embedder, s.settings, workspace, c.paris, "I live in Berlin."
    )
    (berlin,) = corrected.ids
    reconcile = _reconciler(
        {"lives in France": "alice lives in Germany."}, {"lives in Europe"}, {"dog in a city"}
    )
    llm = ScriptedLLM(
        {"dreamer-deduction": reconcile, "dreamer-induction": lambda m, schema: "None."}
    )
    await dream_now(s, workspace, "agent", "alice", llm=llm)

    (asked,) = [call for call in llm.calls if call.schema is ReconcileOutput]
    prompt = str(asked.messages[-1]["content"])
    assert "a premise was corrected" in prompt and "no longer current" in prompt
    france = await state(s, workspace, c.france)
    assert france["content"] == "alice lives in Germany." and not france["stale"]
    # Its provenance now reaches the corrected premise.
    assert set(france["premises"]) == {c.paris, berlin}
    europe = await state(s, workspace, c.europe)
    assert europe["content"] == "alice lives in Europe." and not europe["stale"]
    assert (await state(s, workspace, c.both))["deleted"]
    # The model gave no verdict on the induction: the zero-key rule drops it (1 premise left).
    assert (await state(s, workspace, c.induction))["deleted"]


async def test_editing_a_message_re_derives_it_and_reconciles_the_old_beliefs(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    c = await chain(services, workspace)
    s = c.services
    edit = """mutation($w: String!, $id: ID!, $c: String!) {
      editMessage(workspace: $w, id: $id, content: $c) { message { id content } staleObservations }
    }"""
    result = (await gql.ok(edit, {"w": workspace, "id": c.paris_message, "c": "I live in Rome."}))[
        "editMessage"
    ]
    assert result["message"] == {"id": c.paris_message, "content": "I live in Rome."}
    assert {c.paris, c.france, c.europe} <= set(result["staleObservations"])
    assert (await state(s, workspace, c.paris))["stale_reason"] == "its source message was edited"
    # A correction made now gave a current version quoting "I live in Paris.", which the
    # message no longer says (and chat quoted it as evidence).
    fix = {"w": workspace, "id": c.paris, "c": "Alice lives in Rome."}
    assert await gql.error_code(CORRECT, fix) == "CONFLICT"
    await derive(s, workspace)
    await dream_now(s, workspace, "agent", "alice")
    assert (await state(s, workspace, c.paris))["deleted"]  # its span is no longer there
    texts = await contents(s, workspace, levels=["explicit"])
    assert len(texts) == 2 and any("Rome" in t for t in texts) and any("Rex" in t for t in texts)
    empty = {"w": workspace, "id": c.paris_message, "c": "  "}
    assert await gql.error_code(edit, empty) == "INVALID_INPUT"


async def test_an_edit_that_keeps_a_fact_leaves_it_current_with_dreams_off(
    services: Services, workspace: str
) -> None:
    """A typo fixed: the fact turned stale, its message derived again added it back as
    evidence, and with no dream to reconcile it, it stayed stale, out of every read, with every
    later restatement absorbed the same way."""
    s = with_dreams(services, dream_mode="off")
    await conversation(s, workspace, "s1")
    await say(s, workspace, "s1", "2024-01-10", "I live in Paris. I hav a dog.")
    await derive(s, workspace)
    paris = await belief_id(s, workspace, "Paris")
    [source] = (await observations.get_detail(s.db, workspace, paris)).sources
    await invalidation.edit_message(
        s.db, s.embedder, s.tokens, s.settings, workspace, source.message.id,
        "I live in Paris. I have a dog.",
    )  # fmt: skip
    assert not any("Paris" in c for c in await contents(s, workspace))  # stale for now
    await derive(s, workspace)
    assert any("Paris" in c for c in await contents(s, workspace))
    assert (await observations.get_detail(s.db, workspace, paris)).observation.stale is False


async def test_deleting_a_session_tombstones_its_messages(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    c = await chain(services, workspace)
    delete = """mutation($w: String!, $s: String!) {
      deleteSession(workspace: $w, session: $s) { ids staleObservations }
    }"""
    result = (await gql.ok(delete, {"w": workspace, "s": "s1"}))["deleteSession"]
    assert result["ids"] == [c.paris_message]
    assert c.paris in result["staleObservations"] and c.dog not in result["staleObservations"]
    listed = (await gql.ok(MESSAGES, {"w": workspace}))["messages"]["nodes"]
    assert [m["content"] for m in listed] == ["I have a dog named Rex."]
    assert await gql.error_code(delete, {"w": workspace, "s": "nope"}) == "NOT_FOUND"


async def test_a_session_is_deleted_a_batch_at_a_time(services: Services, workspace: str) -> None:
    """In one transaction, a session of 200,000 messages ran past every time limit, the same
    again on each try."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1", "s2")
    for day in range(1, 8):
        await say(s, workspace, "s1", f"2024-01-{day:02d}", f"I visited museum number {day}.")
    await say(s, workspace, "s2", "2024-01-09", "I live in Oslo.")
    await derive(s, workspace)
    assert len(await contents(s, workspace)) == 8
    outcome = await invalidation.delete_session(
        s.db, s.embedder, s.settings, workspace, "s1", batch=3
    )
    assert len(outcome.ids) == len(set(outcome.ids)) == 7
    assert outcome.dreams == 2  # agent's view and alice's own, each once over three batches
    assert len(set(outcome.stale)) == len(outcome.stale) == 2 * 7  # the museums, in each view
    left = (await messages.list_page(s.db, workspace, MessageFilter(), after=None, limit=50)).items
    assert [m.content for m in left] == ["I live in Oslo."]


# --- purge --------------------------------------------------------------------------------------

PURGE_MESSAGES = """mutation($w: String!, $ids: [ID!]!) {
  purgeMessages(workspace: $w, ids: $ids) {
    messages observations { explicit deductive inductive contradiction }
    files fileChunks cards summaries jobs dreamRuns peers
  }
}"""
PURGE_PEER = PURGE_MESSAGES.replace("$ids: [ID!]!", "$p: String!").replace(
    "purgeMessages(workspace: $w, ids: $ids)", "purgePeer(workspace: $w, peer: $p)"
)
KINDS = {
    "messages": "Message",
    "files": "File",
    "fileChunks": "FileChunk",
    "cards": "card",
    "summaries": "Summary",
    "jobs": "Job",
    "dreamRuns": "DreamRun",
    "peers": "Peer",
}


async def counts(services: Services, workspace: str) -> dict[str, int]:
    rows = await statements.read(services.db, "count_nodes_by_kind", workspace=workspace)
    return {str(r["kind"]): int(r["total"]) for r in rows}


def expected(report: dict[str, Any]) -> dict[str, int]:
    """The report as node kinds, zeros left out."""
    gone = {kind: report[name] for name, kind in KINDS.items()}
    gone.update({f"observation:{k}": v for k, v in report["observations"].items()})
    return {kind: n for kind, n in gone.items() if n}


def beliefs(kinds: dict[str, int]) -> int:
    return sum(n for kind, n in kinds.items() if kind.startswith("observation:"))


def shaped(report: purge.PurgeReport) -> dict[str, Any]:
    """A report as the GraphQL API answers it."""
    named = {"fileChunks": report.file_chunks, "dreamRuns": report.dream_runs}
    plain = ("messages", "files", "cards", "summaries", "jobs", "peers")
    return {**{k: getattr(report, k) for k in plain}, **named, "observations": report.observations}


def removed(before: dict[str, int], after: dict[str, int], made: int = 0) -> dict[str, int]:
    """What went, by kind: the queue's work units are bookkeeping the report does not count,
    and `made` dream jobs were queued by the purge to write its deleted cards again."""
    after = {**after, "Job": after.get("Job", 0) - made}
    return {
        k: n - after.get(k, 0)
        for k, n in before.items()
        if n != after.get(k, 0) and k != "WorkUnit"
    }


async def dreams_queued(services: Services, workspace: str) -> int:
    waiting = await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer=None,
        statuses=["pending"],
        with_errors=False,
        limit=500,
    )
    return sum(1 for j in waiting if j.kind == "dream")


async def card_on_paris(c: Chain, workspace: str) -> None:
    """agent's card of alice, with a line resting on the Paris fact."""
    await c.services.db.write_tx(
        lambda tx: dream_writes.set_card(
            tx,
            Representation(workspace, "agent", "alice"),
            [CardLine("Lives in Paris", (c.paris,))],
            now=now(),
        )
    )


async def test_a_purge_reports_exactly_what_it_erased(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    c = await chain(services, workspace)
    s = c.services
    await dream_now(s, workspace, "agent", "alice")  # a dream run, and perhaps a card
    await card_on_paris(c, workspace)
    create_file = """mutation($w: String!, $p: String!) {
      createFile(workspace: $w, peer: $p, path: "notes.md", content: "# Notes\\n\\nA dog.") { id }
    }"""
    await gql.ok(create_file, {"w": workspace, "p": "alice"})
    w = {"w": workspace}

    before = await counts(s, workspace)
    viewed = await observes_counts(s, workspace)
    waiting = await dreams_queued(s, workspace)
    report = (await gql.ok(PURGE_MESSAGES, {**w, "ids": [c.paris_message]}))["purgeMessages"]
    made = await dreams_queued(s, workspace) - waiting
    assert made == 1  # agent's card of alice went: a dream writes it again
    assert removed(before, await counts(s, workspace), made) == expected(report)
    # alice's view of herself counts its beliefs less the one erased (it counted it on).
    self_view = ("alice", "alice")
    assert (await observes_counts(s, workspace))[self_view] == viewed[self_view] - 1
    assert report["messages"] == 1 and report["cards"] == 1 and report["peers"] == 0
    assert report["observations"]["explicit"] == 2  # agent's and alice's own view
    assert report["observations"]["inductive"] == 1
    assert await current(s, workspace, include_stale=True, include_superseded=True) == {c.dog}
    assert await gql.error_code(PURGE_MESSAGES, {**w, "ids": [c.paris_message]}) == "NOT_FOUND"

    before = await counts(s, workspace)
    report = (await gql.ok(PURGE_PEER, {**w, "p": "alice"}))["purgePeer"]
    assert removed(before, await counts(s, workspace)) == expected(report)
    assert report["peers"] == 1 and report["files"] == 1 and report["messages"] == 1
    peer = 'query($w: String!) { peer(workspace: $w, name: "alice") { name } }'
    assert await gql.error_code(peer, w) == "NOT_FOUND"
    # The queue's units kept the purged peer's name in their keys (derive/<w>/<s>/alice).
    units = [r["key"] for r in await statements.read(s.db, "list_work_units", workspace=workspace)]
    assert not [k for k in units if k.endswith("/alice") or "/alice/" in k], units
    assert await gql.error_code(PURGE_PEER, {**w, "p": "alice"}) == "NOT_FOUND"


async def test_a_purge_derives_again_what_surviving_messages_also_said(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    """A belief taken from a purged message and from another goes with the purge (its wording
    may be the purged one's); the other message was never derived again, so what it said was
    lost."""
    await conversation(services, workspace, "s1", "s2")
    await say(services, workspace, "s1", "2024-01-05", "I live in Paris.")
    await say(services, workspace, "s2", "2024-02-05", "I have a cat. I live in Paris.")
    await derive(services, workspace)
    paris = await belief_id(services, workspace, "Paris")
    detail = await observations.get_detail(services.db, workspace, paris)
    by_session = {src.message.session: src.message.id for src in detail.sources}
    assert set(by_session) == {"s1", "s2"} and detail.observation.times_derived == 2

    query = PURGE_MESSAGES.replace("peers", "peers messagesDerivedAgain")
    report = (await gql.ok(query, {"w": workspace, "ids": [by_session["s1"]]}))["purgeMessages"]
    assert report["observations"]["explicit"] == 2  # agent's view of alice, and her own
    assert report["messagesDerivedAgain"] == 1
    assert not any("Paris" in text for text in await contents(services, workspace))

    await derive(services, workspace)
    for observer in ("agent", "alice"):
        again = await belief_id(services, workspace, "Paris", observer=observer)
        detail = await observations.get_detail(services.db, workspace, again)
        assert [src.message.id for src in detail.sources] == [by_session["s2"]]
        assert again != paris and detail.observation.times_derived == 1
        # The cat, already taken from that message, is not counted a second time.
        cat = await belief_id(services, workspace, "cat", observer=observer)
        assert (await state(services, workspace, cat))["times_derived"] == 1


@dataclass
class Draining:
    """A purge checkpoint that lets the worker run everything due after each batch."""

    services: Services
    workspace: str

    async def committed(self) -> None:
        await derive(self.services, self.workspace)


async def test_derivations_the_purge_queues_run_only_once_it_has_erased_everything(
    services: Services, workspace: str
) -> None:
    """A surviving message queued when the purge's first batch erased one of its beliefs could
    be derived before the next batch: it met the other view's belief, still there (tombstoned),
    took it for a deleted one and left the fact out; the next batch then erased that belief."""
    await conversation(services, workspace, "s1", "s2")
    await say(services, workspace, "s1", "2024-01-05", "I live in Paris.")
    await say(services, workspace, "s2", "2024-02-05", "I live in Paris.")
    await derive(services, workspace)
    paris = await belief_id(services, workspace, "Paris")
    sources = (await observations.get_detail(services.db, workspace, paris)).sources
    [purged] = [src.message.id for src in sources if src.message.session == "s1"]

    one_by_one = replace(services.settings, purge_batch=1)
    drain = Draining(services, workspace)
    report = await purge.purge_messages(services.db, one_by_one, workspace, [purged], drain)
    assert report.observations["explicit"] == 2 and len(report.rederived) == 1
    await derive(services, workspace)
    for observer in ("agent", "alice"):
        await belief_id(services, workspace, "Paris", observer=observer)


async def test_a_peer_purge_does_not_rebuild_the_purged_peers_own_views(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    members = [MemberSettings("alice"), MemberSettings("bob")]
    for name in ("s1", "s2"):
        await make_session(services, workspace, name, members)
        await post(services, workspace, name, ("bob", "I live in Rome."))
    await derive(services, workspace)
    assert await belief_id(services, workspace, "Rome", observer="alice", observed="bob")

    report = await purge.purge_peer(services.db, services.settings, workspace, "alice")
    assert report.observations["explicit"] == 1  # alice's view of bob, from both messages
    assert report.rederived == set()  # bob's messages are not derived again for nobody
    assert await belief_id(services, workspace, "Rome", observer="bob", observed="bob")


async def test_a_purge_does_not_bring_back_what_was_deleted_or_corrected(
    services: Services, workspace: str
) -> None:
    """The surviving message, derived again (by the purge, or after an edit), wrote back a
    belief deleted before the purge and the version a correction replaced: their tombstones
    went with the purge, and so did the correction."""
    s = services
    await conversation(s, workspace, "s1", "s2")
    for name, day in (("s1", "2024-01-05"), ("s2", "2024-02-05")):
        await say(s, workspace, name, day, "I live in Zorblaxtown. I drive a Plonkmobile.")
    await derive(s, workspace)
    home = await belief_id(s, workspace, "Zorblaxtown")
    car = await belief_id(s, workspace, "Plonkmobile")
    await invalidation.delete_observation(s.db, s.settings, workspace, home)
    await invalidation.correct_observation(
        s.db, s.embedder, s.settings, workspace, car, "alice drives a bicycle now."
    )
    sources = {
        src.message.session: src.message.id
        for src in (await observations.get_detail(s.db, workspace, home)).sources
    }

    report = await purge.purge_messages(s.db, s.settings, workspace, [sources["s1"]])
    assert report.rederived == {sources["s2"]}  # for alice's own view, which lost both
    await derive(s, workspace)
    await invalidation.edit_message(
        s.db,
        s.embedder,
        s.tokens,
        s.settings,
        workspace,
        sources["s2"],
        "I live in Zorblaxtown. I drive a Plonkmobile. I like tea.",
    )
    await derive(s, workspace)
    shown = await contents(s, workspace)
    assert not any("Zorblaxtown" in t or "Plonkmobile" in t for t in shown), shown
    assert "alice drives a bicycle now." in shown
    own = await contents(s, workspace, "alice", "alice")
    assert any("Zorblaxtown" in t for t in own), own  # never deleted there: it came back


@dataclass
class SaysItMeanwhile:
    """A purge checkpoint: after the first batch, another message states the purged fact and
    is derived while the purge runs."""

    services: Services
    workspace: str
    said: bool = False

    async def committed(self) -> None:
        if not self.said:
            self.said = True
            await say(self.services, self.workspace, "s2", "2024-03-01", "I live in Paris.")
            await derive(self.services, self.workspace)


async def test_a_fact_stated_while_a_purge_runs_is_kept(services: Services, workspace: str) -> None:
    """The new message's fact met the belief being purged (tombstoned), was taken for a deleted
    one and dropped; then the purge deleted that belief: the fact was lost for good."""
    s = services
    await conversation(s, workspace, "s1", "s2")
    await say(s, workspace, "s1", "2024-01-05", "I live in Paris.")
    await derive(s, workspace)
    paris = await belief_id(s, workspace, "Paris")
    [source] = (await observations.get_detail(s.db, workspace, paris)).sources
    meanwhile = SaysItMeanwhile(s, workspace)
    await purge.purge_messages(
        s.db, replace(s.settings, purge_batch=1), workspace, [source.message.id], meanwhile
    )
    # A view whose belief was not yet tombstoned took the new message as more evidence of it:
    # that message is then derived again at the purge's end.
    await derive(s, workspace)
    kept = await belief_id(s, workspace, "Paris")
    [source] = (await observations.get_detail(s.db, workspace, kept)).sources
    assert source.message.session == "s2"


async def test_a_fact_said_twice_in_one_batch_rests_on_both_messages(
    services: Services, workspace: str
) -> None:
    """The repeat was dropped within the unit: the belief rested on the first message alone,
    and went for good when that one was purged."""
    s = services
    await conversation(s, workspace, "s1")
    await say(
        s, workspace, "s1", "2024-01-05", "I live in Zorblaxia.", "Hello.", "I live in Zorblaxia."
    )
    await derive(s, workspace)
    home = await belief_id(s, workspace, "Zorblaxia")
    detail = await observations.get_detail(s.db, workspace, home)
    assert detail.observation.times_derived == 2 and len(detail.sources) == 2
    first = min(detail.sources, key=lambda src: src.message.seq).message.id

    report = await purge.purge_messages(s.db, s.settings, workspace, [first])
    assert len(report.rederived) == 1
    await derive(s, workspace)
    await belief_id(s, workspace, "Zorblaxia")


@dataclass
class Watch:
    """A purge checkpoint that checks the graph after every committed batch: no belief may have
    lost its source or premises. With `stop_after`, it interrupts the purge (as a crash
    would) once that many beliefs are gone."""

    services: Services
    workspace: str
    stop_after: int | None = None
    batches: int = 0
    unsupported: int = 0
    first_count: int | None = None  # beliefs after the first batch (a tombstone batch)

    async def committed(self) -> None:
        self.batches += 1
        rows = await statements.read(
            self.services.db, "count_unsupported_observations", workspace=self.workspace
        )
        self.unsupported += int(rows[0]["unsupported"])
        held = beliefs(await counts(self.services, self.workspace))
        self.first_count = held if self.first_count is None else self.first_count
        if self.stop_after is not None and self.first_count - held >= self.stop_after:
            raise Interrupted


class Interrupted(Exception):
    """Stands for a crash between two of a purge's transactions."""


async def test_a_purge_in_small_batches_reports_exactly_and_stays_consistent(
    services: Services, workspace: str
) -> None:
    c = await chain(services, workspace)
    s = c.services
    await card_on_paris(c, workspace)
    rows = await statements.read(s.db, "count_unsupported_observations", workspace=workspace)
    assert rows == [{"unsupported": 0}]

    watch = Watch(s, workspace)
    before = await counts(s, workspace)
    waiting = await dreams_queued(s, workspace)
    report = await purge.purge_messages(
        s.db, replace(s.settings, purge_batch=1), workspace, [c.paris_message], watch
    )
    made = await dreams_queued(s, workspace) - waiting
    assert made == 1  # the card's: a dream writes it again
    gone = removed(before, await counts(s, workspace), made)
    assert gone == expected(shaped(report))
    assert gone["observation:explicit"] == 2 and gone["card"] == 1
    assert watch.batches > sum(gone.values())  # one node a batch, and tombstones first
    assert watch.unsupported == 0

    watch = Watch(s, workspace)
    before = await counts(s, workspace)
    report = await purge.purge_peer(
        s.db, replace(s.settings, purge_batch=1), workspace, "alice", watch
    )
    assert removed(before, await counts(s, workspace)) == expected(shaped(report))
    assert report.peers == 1 and watch.unsupported == 0


async def test_an_interrupted_purge_leaves_a_consistent_graph_and_finishes_when_run_again(
    services: Services, workspace: str, gql: GraphQLClient
) -> None:
    c = await chain(services, workspace)
    s = c.services
    start = await counts(s, workspace)
    watch = Watch(s, workspace, stop_after=3)
    with pytest.raises(Interrupted):
        await purge.purge_peer(s.db, replace(s.settings, purge_batch=2), workspace, "alice", watch)
    half = await counts(s, workspace)
    assert half["Message"] == start["Message"] and half["Peer"] == start["Peer"]
    assert 0 < beliefs(half) < beliefs(start)
    assert watch.unsupported == 0
    # What is left is tombstoned: it has already left every read.
    assert await current(s, workspace, include_stale=True, include_superseded=True) == set()

    # Purging again takes over the interrupted purge's record and deletes it at the end.
    report = (await gql.ok(PURGE_PEER, {"w": workspace, "p": "alice"}))["purgePeer"]
    left = await counts(s, workspace)
    assert removed(half, left) == {**expected(report), "Purge": 1}
    assert report["peers"] == 1 and report["messages"] == 2
    assert beliefs(left) == 0 and "Message" not in left and "Purge" not in left


async def stated_twice(
    services: Services, workspace: str
) -> tuple[Services, str, ObservationDetail]:
    """alice says she lives in Zorblaxtown in s1 (2024-01-05), then in s2 (2024-02-05): one
    belief of agent's view, with both messages as its sources."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1", "s2")
    for name, day in (("s1", "2024-01-05"), ("s2", "2024-02-05")):
        await say(s, workspace, name, day, "I live in Zorblaxtown.")
    await derive(s, workspace)
    home = await belief_id(s, workspace, "Zorblaxtown")
    return s, home, await observations.get_detail(s.db, workspace, home)


async def test_a_fact_stated_in_two_sessions_is_in_both_session_filters(
    services: Services, workspace: str
) -> None:
    """One belief has one session (where it was first stated): a filter on the other session
    that states it too missed it, in lists, searches, the context slice, the dialectic's reads
    by id and the workspace-wide list. Its live source messages' sessions count too."""
    s, home, detail = await stated_twice(services, workspace)
    assert detail.observation.session == "s1"
    sources = {src.message.session: src.message.id for src in detail.sources}

    async def seen(**filters: Any) -> dict[str, bool]:
        query = ObservationQuery("agent", "alice", **filters)
        listed = await observations.list_page(s.db, workspace, query, after=None, limit=100)
        found = await search_observations(
            s.db, s.embedder, workspace, "where does alice live", query, 10
        )
        words = await search_observations(s.db, s.embedder, workspace, "Zorblaxtown", query, 10)
        top = await observation_search.top(s.db, workspace, query, most_derived=5, most_recent=5)
        by_id = await observations.in_view(s.db, workspace, query, [home])
        return {
            "list": home in {o.id for o in listed.items},
            "search": home in {h.item.id for h in found},
            "words": home in {h.item.id for h in words},
            "derived": home in {o.id for o in top.most_derived},
            "recent": home in {o.id for o in top.most_recent},
            "by id": [o.observation.id for o in by_id] == [home],
        }

    async def in_workspace_list(session: str) -> bool:
        page = await observations.list_workspace_page(
            s.db,
            workspace,
            observer="agent",
            observed=None,
            session=session,
            levels=None,
            after=None,
            limit=100,
        )
        return home in {o.id for o in page.items}

    everywhere = dict.fromkeys(["list", "search", "words", "derived", "recent", "by id"], True)
    nowhere = dict.fromkeys(everywhere, False)
    assert await seen(session_ids=["s1"]) == everywhere
    assert await seen(session_ids=["s2"]) == everywhere
    assert await seen(session_ids=["s3"]) == nowhere
    # Left out only when every session that states it is.
    assert await seen(exclude_session_ids=["s1"]) == everywhere
    assert await seen(exclude_session_ids=["s1", "s2"]) == nowhere
    assert await in_workspace_list("s1") and await in_workspace_list("s2")
    assert not await in_workspace_list("s3")
    # Read by id for the dialectic, it shows only the kept sessions' evidence, and a session
    # of theirs: the model is told the others are left out.
    for filters in ({"exclude_session_ids": ["s1"]}, {"session_ids": ["s2"]}):
        query = ObservationQuery("agent", "alice", **filters)
        [read] = await observations.in_view(s.db, workspace, query, [home])
        assert read.observation.session == "s2"
        assert [src.message.id for src in read.sources] == [sources["s2"]]
    [whole] = await observations.in_view(
        s.db, workspace, ObservationQuery("agent", "alice"), [home]
    )
    assert whole.observation.session == "s1" and len(whole.sources) == 2
    # So do the dialectic's searches, which show what that read returns.
    view = View(workspace, "agent", "alice", exclude_session_ids=("s1",))
    found = await Toolbox(s.db, s.embedder, view).dispatch(
        ToolCall("s", "search_observations", {"query": "Zorblaxtown"})
    )
    assert "session s2" in found and "session s1" not in found

    # A deleted message's session no longer counts (the belief keeps s1: s1 still says it).
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [sources["s2"]])
    assert (await observations.get_detail(s.db, workspace, home)).observation.session == "s1"
    assert await seen(session_ids=["s2"]) == nowhere
    assert await seen(exclude_session_ids=["s1"]) == nowhere
    assert not await in_workspace_list("s2")


async def test_as_of_a_session_filter_counts_the_messages_received_by_then(
    services: Services, workspace: str
) -> None:
    """A belief read as it stood before a later session restated it is not of that session."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1", "s2")
    await say(s, workspace, "s1", "2024-01-05", "I live in Zorblaxtown.")
    await derive(s, workspace)
    then = now()
    await say(s, workspace, "s2", "2024-02-05", "I live in Zorblaxtown.")
    await derive(s, workspace)
    home = await belief_id(s, workspace, "Zorblaxtown")
    assert (await observations.get_detail(s.db, workspace, home)).observation.times_derived == 2

    async def listed(**filters: Any) -> bool:
        query = ObservationQuery("agent", "alice", **filters)
        page = await observations.list_page(s.db, workspace, query, after=None, limit=100)
        return home in {o.id for o in page.items}

    assert await listed(session_ids=["s2"])
    assert not await listed(session_ids=["s2"], as_of=then)
    assert await listed(session_ids=["s1"], as_of=then)
    assert not await listed(exclude_session_ids=["s1"], as_of=then)


async def test_an_edited_source_stops_backing_a_belief_another_message_still_grounds(
    services: Services, workspace: str
) -> None:
    """The belief was kept on the other message's word, but went on citing the edited one with
    a span its text no longer holds (and counting it, and naming its session and date)."""
    s, home, detail = await stated_twice(services, workspace)
    sources = {src.message.session: src.message.id for src in detail.sources}
    assert detail.observation.times_derived == 2
    await dream_now(s, workspace, "agent", "alice")
    card = await peer_cards.get(s.db, workspace, "agent", "alice")
    assert card.support == [(home,)]

    await invalidation.edit_message(
        s.db, s.embedder, s.tokens, s.settings, workspace, sources["s1"], "I have a cat."
    )
    await dream_now(s, workspace, "agent", "alice")
    # The zero-key card, rebuilt from current beliefs, lost the line of the one it kept: it
    # was still stale when the dream read it.
    after = await peer_cards.get(s.db, workspace, "agent", "alice")
    assert (after.entries, after.support) == (card.entries, card.support)
    detail = await observations.get_detail(s.db, workspace, home)
    assert [src.message.id for src in detail.sources] == [sources["s2"]]
    kept = detail.observation
    assert (kept.stale, kept.times_derived, kept.session) == (False, 1, "s2")
    assert kept.valid_at is not None and kept.valid_at.date().isoformat() == "2024-02-05"
    assert kept.content.endswith("(stated on 2024-02-05).")  # the date of what still says it
    assert await contents(s, workspace, session_ids=["s2"]) == [kept.content]
    await derive(s, workspace)  # the edited message, derived again, backs only the cat
    detail = await observations.get_detail(s.db, workspace, home)
    assert [src.message.id for src in detail.sources] == [sources["s2"]]
    assert any("cat" in t for t in await contents(s, workspace))


async def test_deleting_the_message_that_dated_a_belief_dates_it_by_one_left(
    services: Services, workspace: str
) -> None:
    """The belief stayed current on the other message's word, but kept the deleted message's
    session and date (and words): a filter on the session that still says it missed it. It is
    dated anew in the deletion itself, so it never leaves reads, dreams or no dreams."""
    s, home, detail = await stated_twice(services, workspace)
    sources = {src.message.session: src.message.id for src in detail.sources}
    assert detail.observation.session == "s1"
    assert detail.observation.content.endswith("(stated on 2024-01-05).")
    before = detail.observation.content

    # A message that did not date it: only the count of messages that state it changes.
    await invalidation.delete_messages(s.db, s.embedder, s.settings, workspace, [sources["s2"]])
    after = (await observations.get_detail(s.db, workspace, home)).observation
    assert (after.content, after.times_derived) == (before, 1)
    await say(s, workspace, "s2", "2024-02-05", "I live in Zorblaxtown.")
    await derive(s, workspace)
    detail = await observations.get_detail(s.db, workspace, home)
    sources = {src.message.session: src.message.id for src in detail.sources}

    # As an earlier release stored it: the same instant as its message's, under another name.
    assert (await statements.write(s.db, "zone_named_times", workspace=workspace))[0]["named"]
    outcome = await invalidation.delete_messages(
        s.db, s.embedder, s.settings, workspace, [sources["s1"]]
    )
    assert home not in outcome.stale
    detail = await observations.get_detail(s.db, workspace, home)
    assert [src.message.id for src in detail.sources] == [sources["s2"]]
    kept = detail.observation
    assert (kept.stale, kept.session, kept.times_derived) == (False, "s2", 1)
    assert kept.valid_at is not None and kept.valid_at.date().isoformat() == "2024-02-05"
    assert kept.content.endswith("(stated on 2024-02-05).")
    assert await contents(s, workspace, session_ids=["s2"]) == [kept.content]
    assert await contents(s, workspace, session_ids=["s1"]) == []
    # The new words are searched by their own embedding.
    [vector] = s.embedder.embed([kept.content])
    [stored] = await statements.read(s.db, "observation_embedding", id=home)
    assert np.allclose(stored["embedding"], vector, atol=1e-5)
