"""Deleting and correcting what the memory holds: messages, sessions and beliefs.

Each operation commits its tombstone or new version together with the staleness it causes
(graph/repo/invalidation.py), and in the same transaction a dream for every representation
with beliefs left stale, so reconciliation (reasoners/dreamer/reconcile.py) runs without waiting
for new messages; an edited message also gets a derive job, so its new text is read again.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from graph import models
from graph.db import Database, Tx
from graph.errors import InvalidInput, NotFound
from graph.keys import Representation, scope_key
from graph.props import node_props
from graph.records import MessageRecord, ObservationRecord
from graph.repo import invalidation, jobs, sessions
from graph.repo.invalidation import Invalidated
from graph.settings import Settings
from graph.validation import MAX_IDS_PER_CALL, check_id_count, now, without_nul
from reasoners.deriver.dedup import check_belief, exact_key
from reasoners.deriver.first_person import restated
from reasoners.dreamer import scheduling
from reasoners.dreamer.card_support import drop_unsupported
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.embeddings.passages import embed_messages
from reasoners.embeddings.tokens import TokenCounter, counted
from reasoners.queue.schedule import derive_jobs, summaries_again


@dataclass(frozen=True)
class Outcome:
    """What an operation changed: the ids it acted on and the beliefs it made stale."""

    ids: list[str]
    stale: list[str]
    dreams: int  # reconciling dreams scheduled


class Invalidating(Protocol):
    @property
    def invalidated(self) -> Invalidated: ...


Change = TypeVar("Change", bound=Invalidating)


View = tuple[str, str]  # (observer, observed)


async def commit_reconciling(
    db: Database, settings: Settings, workspace: str, change: Callable[[Tx], Awaitable[Change]]
) -> tuple[Change, set[View]]:
    """Run `change` and schedule a dream now for each representation it left with stale
    beliefs, in one transaction: a crash between the two would leave stale beliefs that no
    dream comes for (nothing else schedules one for them). Returns the change and the
    representations that got a dream. The representations are known only once the change has
    locked its beliefs, so their edges are locked after them, the other way round from a
    dream's commit: a deadlock between the two is possible, and runs again (Database.write_tx)."""

    async def work(tx: Tx) -> tuple[Change, set[View]]:
        changed = await change(tx)
        if not scheduling.enabled(settings):
            # No dream will come to write their cards again: the lines that rested on what
            # the change took away go now (they quoted deleted and edited words for good).
            stamp = now()
            for observer, observed in sorted(changed.invalidated.scopes):
                view = Representation(workspace, observer, observed)
                await drop_unsupported(tx, view, stamp)
            return changed, set()
        scheduled: set[View] = set()
        for observer, observed in sorted(changed.invalidated.scopes):
            view = Representation(workspace, observer, observed)
            # None: a peer of the representation is gone, and nothing is left to reconcile.
            if (
                await scheduling.on_demand_in(tx, settings, view, trigger=scheduling.RECONCILE)
                is not None
            ):
                scheduled.add((observer, observed))
        return changed, scheduled

    return await db.write_tx(work)


async def summarize_again(
    tx: Tx, settings: Settings, workspace: str, dropped: invalidation.Dropped
) -> None:
    """Queue the summaries a change removed again, in its transaction, where the session's
    switches still summarize."""
    kept = {
        session: kinds
        for session, kinds in dropped.items()
        if (await sessions.queue_switches_in(tx, workspace, session)).summarize
    }
    await jobs.enqueue(tx, summaries_again(settings, workspace, kept, now()))


async def date_anew(
    tx: Tx, embedder: Embedder, workspace: str, redated: Sequence[invalidation.Redated]
) -> None:
    """The words of beliefs a deletion dated by a message left: a fact the extractive deriver
    dated "(stated on ...)" with the deleted message's date says the new one, with its key and
    embedding (a few short texts, embedded in the deletion's transaction)."""
    changed = [
        (r, words)
        for r in redated
        if (words := restated(r.content, {r.valid_at.date()})) is not None
    ]
    if not changed:
        return
    vectors = await embed_async(embedder, [words for _, words in changed])
    await invalidation.reword(
        tx,
        workspace,
        [
            {
                "id": r.id,
                "was": r.content,
                "content": words,
                "content_key": exact_key(words),
                "embedding": vector,
            }
            for (r, words), vector in zip(changed, vectors, strict=True)
        ],
    )


async def delete_messages(
    db: Database, embedder: Embedder, settings: Settings, workspace: str, ids: list[str]
) -> Outcome:
    if not ids:
        raise InvalidInput("name at least one message id to delete")
    check_id_count(ids, "ids")

    async def work(tx: Tx) -> invalidation.DeletedMessages:
        deleted = await invalidation.delete_messages(tx, workspace, ids, now())
        await date_anew(tx, embedder, workspace, deleted.redated)
        await summarize_again(tx, settings, workspace, deleted.summaries)
        return deleted

    deleted, dreams = await commit_reconciling(db, settings, workspace, work)
    missing = sorted(set(ids) - set(deleted.ids))
    if missing and not deleted.ids:
        raise NotFound(f"no live message with id {missing[0]!r} in workspace {workspace!r}")
    return Outcome(deleted.ids, deleted.invalidated.stale, len(dreams))


async def delete_session(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    workspace: str,
    session: str,
    *,
    batch: int = MAX_IDS_PER_CALL,
) -> Outcome:
    """Tombstone every message of the session (the session itself stays, empty), `batch`
    messages per transaction: in one, a session of 200,000 messages ran past
    every time limit, the same again on each try. One cut short leaves the rest live, and
    running it again goes on."""
    await sessions.get(db, workspace, session)
    ids: list[str] = []
    stale: list[str] = []
    dreamed: set[View] = set()
    listed = [0]  # the last batch's size

    async def work(tx: Tx) -> invalidation.DeletedMessages:
        some = await invalidation.session_message_ids(tx, workspace, session, batch)
        listed[0] = len(some)
        # Every message goes: no summary is left to write again.
        deleted = await invalidation.delete_messages(tx, workspace, some, now())
        await date_anew(tx, embedder, workspace, deleted.redated)
        return deleted

    while True:
        deleted, dreams = await commit_reconciling(db, settings, workspace, work)
        ids += deleted.ids
        stale += deleted.invalidated.stale
        dreamed |= dreams
        if listed[0] < batch:
            return Outcome(ids, stale, len(dreamed))


async def edit_message(
    db: Database,
    embedder: Embedder,
    tokens: TokenCounter,
    settings: Settings,
    workspace: str,
    message_id: str,
    content: str,
) -> tuple[MessageRecord, Outcome]:
    content = without_nul(content)
    if not content.strip():
        raise InvalidInput("content must not be empty: delete the message instead")
    if len(content) > settings.max_message_chars:
        raise InvalidInput(f"content is longer than {settings.max_message_chars} characters")
    [vectors] = await embed_messages(embedder, [content], with_passages=settings.passages_enabled)
    token_count = await counted(lambda: tokens.count(content))

    async def work(tx: Tx) -> invalidation.EditedMessage:
        stamp = now()
        edited = await invalidation.edit_message(
            tx,
            workspace,
            message_id,
            content=content,
            embedding=vectors.embedding,
            passage_embeddings=vectors.passages,
            token_count=token_count,
            now=stamp,
        )
        # Derive the new text again (unless its own or its session's switch says not to).
        await summarize_again(tx, settings, workspace, edited.summaries)
        switches = await sessions.queue_switches_in(tx, workspace, edited.message.session)
        own = edited.message.derive  # the message's own switch, as it was stored
        again = (
            derive_jobs(settings, [edited.message], stamp)
            if (switches.derive if own is None else own)
            else []
        )
        await jobs.enqueue(tx, again, token_target=settings.deriver_token_target)
        return edited

    edited, dreams = await commit_reconciling(db, settings, workspace, work)
    return edited.message, Outcome([message_id], edited.invalidated.stale, len(dreams))


async def correct_observation(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    workspace: str,
    observation_id: str,
    content: str,
) -> Outcome:
    """A new version of the belief with `content`; the old one is superseded."""
    content = without_nul(content).strip()
    if not content:
        raise InvalidInput("content must not be empty: delete the observation instead")
    check_belief(content, "content")
    [vector] = await embed_async(embedder, [content])

    async def work(tx: Tx) -> invalidation.Corrected:
        # Its view first: two corrections of one belief at once each read it current, and both
        # replaced it. The second now reads it after the first commits, and is refused.
        await invalidation.lock_views(tx, workspace, observation_ids=[observation_id])
        row = await tx.one(
            "get_observation",
            workspace=workspace,
            id=observation_id,
            max_sources=1,  # only the belief is read here
            max_dependents=0,
        )
        if row is None:
            raise NotFound(
                f"observation {observation_id!r} does not exist in workspace {workspace!r}"
            )
        old = ObservationRecord.from_row(row["observation"])
        stamp = now()
        props = node_props(
            models.Observation,
            {
                "uid": str(uuid.uuid4()),
                "workspace": workspace,
                "observer": old.observer,
                "observed": old.observed,
                "level": old.level,
                "content": content,
                "content_key": exact_key(content),
                "scope_key": scope_key(workspace, old.observer, old.observed),
                "embedding": vector,
                "created_at": stamp,
                # A fix, not a change in the world: the new version holds since the old one did.
                "valid_at": old.valid_at or old.created_at,
                "session": old.session,
                "times_derived": 1,
                "stale": False,
                "facets": list(old.facets),
                "origin": "correction",
                "dream_pending": True,
            },
        )
        return await invalidation.correct_observation(tx, workspace, observation_id, props, stamp)

    corrected, dreams = await commit_reconciling(db, settings, workspace, work)
    return Outcome([corrected.new_id], corrected.invalidated.stale, len(dreams))


async def delete_observation(
    db: Database, settings: Settings, workspace: str, observation_id: str
) -> Outcome:
    async def work(tx: Tx) -> invalidation.DeletedObservation:
        return await invalidation.delete_observation(tx, workspace, observation_id, now())

    deleted, dreams = await commit_reconciling(db, settings, workspace, work)
    return Outcome([deleted.id] if deleted.changed else [], deleted.invalidated.stale, len(dreams))
