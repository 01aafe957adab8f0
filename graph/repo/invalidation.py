"""Invalidation writes: tombstones, corrections and staleness propagation.

Each function runs inside the caller's transaction, so a deletion and the staleness it causes
commit together. Beliefs marked stale here carry `reconcile_pending`; the next dream of their
representation reconciles them (reasoners/dreamer/reconcile.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.db import Tx
from graph.errors import Conflict, NotFound
from graph.records import MessageRecord, required_datetime
from graph.repo import summaries as summary_repo

Scope = tuple[str, str]  # (observer, observed)

# Why a belief resting on one a knowledge update replaced turns stale (dreams say it too).
SUPERSEDED_PREMISE = "a premise was superseded by a knowledge update"
# ... and on one a dream pruned (found no longer to hold).
PRUNED_PREMISE = "a premise was pruned by a dream"


@dataclass(frozen=True)
class Invalidated:
    """What an invalidation changed: beliefs made stale, and their representations."""

    stale: list[str] = field(default_factory=list)
    scopes: set[Scope] = field(default_factory=set)

    @classmethod
    def grouped(cls, rows: Sequence[dict[str, Any]]) -> Invalidated:
        """From rows of (observer, observed, ids): one per representation."""
        return cls(
            [str(i) for r in rows for i in r["ids"]],
            {(str(r["observer"]), str(r["observed"])) for r in rows},
        )

    def plus(self, rows: Sequence[dict[str, Any]]) -> Invalidated:
        return Invalidated(
            [*self.stale, *(str(r["id"]) for r in rows)],
            self.scopes | {(str(r["observer"]), str(r["observed"])) for r in rows},
        )


async def propagate(
    tx: Tx,
    workspace: str,
    root_ids: Sequence[str],
    reason: str,
    now: datetime,
    *,
    other_roots: Sequence[str] = (),
) -> Invalidated:
    """Mark stale every live belief derived from the roots (see mark_stale_descendants), but
    the roots and `other_roots` (those of the same change given another reason)."""
    if not root_ids:
        return Invalidated()
    rows = await tx.rows(
        "mark_stale_descendants",
        workspace=workspace,
        root_ids=list(root_ids),
        other_roots=list(other_roots),
        reason=reason,
        now=now,
    )
    return Invalidated.grouped(rows)


# Summaries removed, by session: the last message each kind's latest one covered (summarized
# again up to there from what is left).
Dropped = dict[str, dict[str, int]]


@dataclass(frozen=True)
class Redated:
    """A belief a deletion dated by a message left: its words, and its new time."""

    id: str
    content: str
    valid_at: datetime


@dataclass(frozen=True)
class DeletedMessages:
    ids: list[str]
    invalidated: Invalidated
    summaries: Dropped
    redated: list[Redated]


async def delete_messages(
    tx: Tx, workspace: str, ids: Sequence[str], now: datetime
) -> DeletedMessages:
    """Tombstone the messages; their orphaned explicit beliefs and everything derived from
    those turn stale; the beliefs a deleted message dated that another still states are dated
    by one left (`redated`: their words are the caller's to date anew); summaries that quoted
    them are removed."""
    # The messages, then their views, in the order a derivation takes them (its messages
    # before its OBSERVES edge): the other way round deadlocked with one under way.
    await tx.rows("lock_messages", workspace=workspace, ids=sorted(set(ids)))
    await lock_views(tx, workspace, message_ids=ids)
    row = await tx.one(
        "delete_messages",
        workspace=workspace,
        ids=list(ids),
        now=now,
        reason="its source message was deleted",
    )
    assert row is not None  # an aggregation always answers one row
    orphaned = row["orphaned"]
    roots = [str(o["id"]) for o in orphaned]
    descendants = await propagate(tx, workspace, roots, "a premise lost its source message", now)
    deleted = row["deleted"]
    reversed_ = await reverse_outdated(tx, workspace, [str(m["id"]) for m in deleted], now)
    summaries: Dropped = {}
    first_seq: dict[str, int] = {}
    for m in deleted:
        session, seq = str(m["session"]), int(m["seq"])
        first_seq[session] = min(seq, first_seq.get(session, seq))
    for session, seq in sorted(first_seq.items()):
        if dropped := await _drop_summaries(tx, workspace, session, seq):
            summaries[session] = dropped
    return DeletedMessages(
        [str(m["id"]) for m in deleted],
        _join(_join(Invalidated().plus(orphaned), descendants), reversed_),
        summaries,
        [
            Redated(str(r["id"]), str(r["content"]), required_datetime(r["valid_at"]))
            for r in row["redated"]
        ],
    )


async def lock_views(
    tx: Tx,
    workspace: str,
    *,
    message_ids: Sequence[str] = (),
    observation_ids: Sequence[str] = (),
) -> None:
    """Lock the views a deletion may change the knowledge updates of, before anything else it
    writes, as a dream does (lock_changed_views.cypher)."""
    await tx.rows(
        "lock_changed_views",
        workspace=workspace,
        message_ids=list(message_ids),
        observation_ids=list(observation_ids),
    )


async def reinstate(tx: Tx, workspace: str, gone: Sequence[str]) -> set[Scope]:
    """What the gone beliefs (tombstoned already) replaced is current again, unless a belief
    left still replaces it (reinstate_replaced.cypher). Returns the views of those reinstated:
    a dream of each writes its card again."""
    if not gone:
        return set()
    rows = await tx.rows("reinstate_replaced", workspace=workspace, ids=list(gone))
    return {(str(r["observer"]), str(r["observed"])) for r in rows}


async def reverse_outdated(
    tx: Tx,
    workspace: str,
    message_ids: Sequence[str],
    now: datetime,
    *,
    unlinked: Sequence[str] = (),
) -> Invalidated:
    """Knowledge updates the deleted messages alone made newer are reversed, and so are those
    of the `unlinked` beliefs, which a dream just stopped citing an edited message
    (reverse_outdated_supersessions.cypher); what rested on a belief replaced so turns stale.
    Their representations get a dream, which writes the card again and reads what it made
    current again."""
    if not message_ids and not unlinked:
        return Invalidated()
    rows = await tx.rows(
        "reverse_outdated_supersessions",
        workspace=workspace,
        ids=list(message_ids),
        observation_ids=list(unlinked),
        origin="edit" if unlinked else "deletion",
    )
    replaced = [str(r["id"]) for r in rows]
    stale = await propagate(tx, workspace, replaced, SUPERSEDED_PREMISE, now)
    # Their own views too: a dream writes the card again from what is current now.
    reversed_ = {(str(r["observer"]), str(r["observed"])) for r in rows}
    return Invalidated(stale.stale, stale.scopes | reversed_)


async def reword(tx: Tx, workspace: str, items: Sequence[dict[str, Any]]) -> None:
    """Write the new words of beliefs dated anew (each: id, was, content, content_key,
    embedding)."""
    if items:
        await tx.rows("reword_redated_observations", workspace=workspace, items=list(items))


def _join(left: Invalidated, right: Invalidated) -> Invalidated:
    return Invalidated([*left.stale, *right.stale], left.scopes | right.scopes)


async def _drop_summaries(tx: Tx, workspace: str, session: str, from_seq: int) -> dict[str, int]:
    """Remove the session's summaries covering `from_seq` on: kind -> the last message the
    latest removed covered."""
    await summary_repo.reset(tx, workspace, session)
    rows = await tx.rows(
        "delete_stale_summaries", workspace=workspace, session=session, from_seq=from_seq
    )
    return {str(r["kind"]): int(r["up_to"]) for r in rows}


async def session_message_ids(tx: Tx, workspace: str, session: str, limit: int) -> list[str]:
    """The first `limit` of the session's live messages."""
    rows = await tx.rows(
        "list_session_message_ids", workspace=workspace, session=session, limit=limit
    )
    return [str(r["id"]) for r in rows]


@dataclass(frozen=True)
class EditedMessage:
    message: MessageRecord
    invalidated: Invalidated
    summaries: Dropped


async def edit_message(
    tx: Tx,
    workspace: str,
    message_id: str,
    *,
    content: str,
    embedding: list[float],
    passage_embeddings: list[float] | None,
    token_count: int,
    now: datetime,
) -> EditedMessage:
    """Replace a live message's content; the beliefs taken from it, and their descendants,
    turn stale."""
    row = await tx.one(
        "edit_message",
        workspace=workspace,
        id=message_id,
        content=content,
        embedding=embedding,
        passage_embeddings=passage_embeddings,
        token_count=token_count,
        now=now,
        reason="its source message was edited",
    )
    if row is None:
        raise NotFound(f"message {message_id!r} does not exist in workspace {workspace!r}")
    changed = row["changed"]
    message = MessageRecord.from_row(row["message"])
    descendants = await propagate(
        tx, workspace, [str(c["id"]) for c in changed], "a premise's source was edited", now
    )
    dropped = await _drop_summaries(tx, workspace, message.session, message.seq)
    return EditedMessage(
        message,
        _join(Invalidated().plus(changed), descendants),
        {message.session: dropped} if dropped else {},
    )


@dataclass(frozen=True)
class Corrected:
    old_id: str
    new_id: str
    scope: Scope
    invalidated: Invalidated


async def correct_observation(
    tx: Tx, workspace: str, observation_id: str, props: dict[str, Any], now: datetime
) -> Corrected:
    """Write `props` as the new version of the belief; what was derived from the old version
    turns stale."""
    row = await tx.one(
        "correct_observation", workspace=workspace, id=observation_id, props=props, now=now
    )
    assert row is not None
    problem = row["problem"]
    if problem == "not_found":
        raise NotFound(f"observation {observation_id!r} does not exist in workspace {workspace!r}")
    if problem is not None:
        raise Conflict(str(problem))
    old = row["old"]
    view = (str(old["observer"]), str(old["observed"]))
    invalidated = await propagate(tx, workspace, [observation_id], "a premise was corrected", now)
    # Its own view too: a dream writes its card again, which quoted the old words.
    invalidated = Invalidated(invalidated.stale, invalidated.scopes | {view})
    return Corrected(observation_id, str(row["created"]), view, invalidated)


@dataclass(frozen=True)
class DeletedObservation:
    id: str
    changed: bool
    scope: Scope
    invalidated: Invalidated


async def delete_observation(
    tx: Tx, workspace: str, observation_id: str, now: datetime
) -> DeletedObservation:
    """Tombstone the belief; what was derived from it turns stale."""
    await lock_views(tx, workspace, observation_ids=[observation_id])
    row = await tx.one("delete_observation", workspace=workspace, id=observation_id, now=now)
    assert row is not None
    if row["problem"] == "not_found":
        raise NotFound(f"observation {observation_id!r} does not exist in workspace {workspace!r}")
    observation = row["observation"]
    # Deleting a deleted belief changes nothing: what rested on it was settled already.
    invalidated = Invalidated()
    if row["changed"]:
        invalidated = await propagate(tx, workspace, [observation_id], "a premise was deleted", now)
        back = await reinstate(tx, workspace, [observation_id])
        # Its own view too: a dream writes its card again, which may quote the deleted belief.
        view = (str(observation["observer"]), str(observation["observed"]))
        invalidated = Invalidated(invalidated.stale, invalidated.scopes | back | {view})
    return DeletedObservation(
        observation_id,
        bool(row["changed"]),
        (observation["observer"], observation["observed"]),
        invalidated,
    )
