"""Messages: the immutable evidence every belief traces back to."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from graph import models
from graph.db import Database, Tx
from graph.errors import Conflict, Forbidden, InvalidInput, NotFound, SessionClosed
from graph.keys import peer_key, session_key, workspace_key
from graph.paging import decode_time_seq_id, encode, page
from graph.props import meta_kv, node_props
from graph.records import MessageRecord, Page
from graph.repo import peers, sessions, workspaces
from graph.validation import aware, now


@dataclass(frozen=True)
class MessageRow:
    """A validated message ready to store (embedding and token count already computed)."""

    peer: str
    content: str
    metadata_json: str
    metadata: dict[str, Any]
    context: str | None
    created_at: datetime | None
    client_id: str | None
    token_count: int
    embedding: list[float]
    # One passage's vector after another (may be empty); None stores none (passages are off).
    passage_embeddings: list[float] | None
    # The message's own `reasoning.enabled` (None: its session's): stored, and read by the
    # caller's `after_create` when it queues the batch's work.
    derive: bool | None = None


AfterCreate = Callable[[Tx, list[tuple[MessageRecord, MessageRow]]], Awaitable[None]]


async def create(
    db: Database,
    workspace: str,
    session: str,
    rows: Sequence[MessageRow],
    *,
    after_create: AfterCreate | None = None,
    may_join: bool = True,
    create_peers: Collection[str] = (),
) -> tuple[list[MessageRecord], int]:
    """Store a batch in one transaction; returns (messages in input order, how many are new).
    The peers named in `create_peers` are created in it, so a refused batch leaves none.

    A sender not present in the session joins it, unless `may_join` is off (peer keys): then
    the batch is refused and nothing is written.

    Rows whose client_id is already stored are not written again: the stored message is
    returned in their place, so re-sending a batch is safe. `after_create` runs inside the same
    transaction with each new message and its row (the queue uses it to enqueue work with the
    messages).
    """
    await sessions.get(db, workspace, session)
    # A closed session is refused in the transaction, for new messages only: a resend of what
    # is stored (its clientIds) is still answered.

    async def work(tx: Tx) -> tuple[list[MessageRecord], int]:
        await workspaces.refuse_if_marked(tx, workspace)
        if create_peers:
            # The session's lock before the peers are made, as membership changes take them:
            # made first, a post and an add of the same new peer each held what the other
            # waited for.
            await sessions.lock(tx, workspace, session)
            await peers.ensure_in(tx, workspace, sorted(create_peers))
        found = await tx.rows(
            "find_peers", workspace=workspace, names=sorted({r.peer for r in rows})
        )
        missing = {r["name"] for r in found if not r["found"]}
        for index, row in enumerate(rows):
            if row.peer in missing:
                raise InvalidInput(
                    f"messages[{index}].peer: peer {row.peer!r} does not exist in workspace "
                    f"{workspace!r}; create it first",
                    index=index,
                    field="peer",
                )
        client_ids = [r.client_id for r in rows if r.client_id]
        existing: dict[str, MessageRecord] = {}
        if client_ids:
            sender = {r.client_id: r.peer for r in rows if r.client_id}
            for r in await tx.rows(
                "find_messages_by_client_id", workspace=workspace, client_ids=client_ids
            ):
                record = MessageRecord.from_row(r["message"])
                client_id = record.client_id or ""
                # A resend returns the stored message only to the same sender in the same
                # session; anything else is a clash that must reveal nothing of the other
                # message (not its text, sender or session).
                if record.session != session or record.peer != sender.get(client_id):
                    index = next(i for i, row in enumerate(rows) if row.client_id == client_id)
                    raise Conflict(
                        f"messages[{index}].clientId: {client_id!r} is already used by another "
                        "message; choose another clientId",
                        index=index,
                        field="clientId",
                    )
                existing[client_id] = record
        fresh = [r for r in rows if not (r.client_id and r.client_id in existing)]
        created: dict[int, MessageRecord] = {}
        if fresh:
            seq_row = await tx.one(
                "reserve_message_seq", workspace=workspace, session=session, count=len(fresh)
            )
            if seq_row is None:  # deleted with its workspace since it was checked
                raise NotFound(f"session {session!r} does not exist in workspace {workspace!r}")
            if seq_row["active"] is False:  # checked under the session's lock: closes race
                raise SessionClosed(
                    f"session {session!r} is closed; reopen it (updateSession with active: "
                    "true) to add messages",
                    session=session,
                )
            # Without the senders' locks, a merge or rename deleting a sender after moving its
            # messages cut this batch's SENT_BY edges: messages left naming a peer that is gone.
            # Taken after the session's, in the order membership changes take them.
            await tx.rows("lock_peers", workspace=workspace, peers=sorted({r.peer for r in fresh}))
            first = int(seq_row["first"])
            stamp = now()
            props = [
                node_props(
                    models.Message,
                    {
                        "uid": str(uuid.uuid4()),
                        "workspace": workspace,
                        "session": session,
                        "peer": r.peer,
                        "client_id": r.client_id,
                        "content": r.content,
                        "context": r.context,
                        "metadata": r.metadata_json,
                        "meta_kv": meta_kv(r.metadata),
                        "created_at": aware(r.created_at) or stamp,
                        "received_at": stamp,
                        "seq": first + offset,
                        "token_count": r.token_count,
                        "derive": r.derive,
                        "embedding": r.embedding,
                        "passage_embeddings": r.passage_embeddings,
                        "workspace_key": workspace_key(workspace),
                        "session_key": session_key(workspace, session),
                        "peer_key": peer_key(workspace, r.peer),
                    },
                )
                for offset, r in enumerate(fresh)
            ]
            senders = sorted({r.peer for r in fresh})
            if not may_join:
                await require_present(tx, workspace, session, senders)
            await tx.rows(
                "ensure_senders_present",
                workspace=workspace,
                session=session,
                peers=senders,
                now=stamp,
            )
            for r in await tx.rows(
                "create_messages", workspace=workspace, session=session, messages=props
            ):
                record = MessageRecord.from_row(r["message"])
                created[record.seq - first] = record
            if len(created) < len(fresh):
                # A sender purged, merged or renamed since the batch was checked: the batch is
                # all or nothing, so nothing of it is stored.
                gone = next(r.peer for i, r in enumerate(fresh) if i not in created)
                raise NotFound(f"peer {gone!r} does not exist in workspace {workspace!r}")
            if after_create is not None:
                await after_create(tx, [(created[i], row) for i, row in enumerate(fresh)])
        result: list[MessageRecord] = []
        fresh_index = 0
        for row in rows:
            if row.client_id and row.client_id in existing:
                result.append(existing[row.client_id])
            else:
                result.append(created[fresh_index])
                fresh_index += 1
        return result, len(fresh)

    return await db.write_tx(work)


async def get(db: Database, workspace: str, message_id: str) -> MessageRecord:
    found = await find(db, workspace, message_id)
    if found is None:
        await workspaces.get(db, workspace)  # a missing workspace is named as such
        raise missing(workspace, message_id)
    return found


async def find(db: Database, workspace: str, message_id: str) -> MessageRecord | None:
    row = await db.read_one("get_message", workspace=workspace, id=message_id)
    return None if row is None else MessageRecord.from_row(row["message"])


def missing(workspace: str, message_id: str) -> NotFound:
    return NotFound(f"message {message_id!r} does not exist in workspace {workspace!r}")


@dataclass(frozen=True)
class MessageFilter:
    session: str | None = None
    peer: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    metadata: dict[str, Any] | None = None
    # Search only: several senders at once (a peer and its sub-peers); `peer` is one of them.
    also_peers: tuple[str, ...] = ()

    @property
    def peers(self) -> tuple[str, ...]:
        """The senders a search keeps (empty: any)."""
        if self.peer is None:
            return self.also_peers
        return (self.peer, *(p for p in self.also_peers if p != self.peer))

    def params(self) -> dict[str, Any]:
        return {
            "session": self.session,
            "peer": self.peer,
            "since": aware(self.since),
            "until": aware(self.until),
            "meta_kv": meta_kv(self.metadata),
        }


async def list_page(
    db: Database, workspace: str, filters: MessageFilter, *, after: str | None, limit: int
) -> Page[MessageRecord]:
    after_time, after_seq, after_id = decode_time_seq_id(after, MESSAGES)
    given = filters.params()
    bounds = [t for t in (given["since"], aware(after_time)) if t is not None]
    at = {
        "workspace": workspace,
        "lower": max(bounds, default=EARLIEST),
        "after_time": after_time,
        "after_seq": after_seq,
        "after_id": after_id,
        "limit": limit + 1,
        **given,
    }
    if filters.session is None:
        rows = await db.read("list_messages", **at)
    else:  # through the session's own index
        rows = await db.read("list_session_messages", **at)
    return page(rows, limit, lambda r: MessageRecord.from_row(r["message"]), _cursor)


MESSAGES = "messages"  # the name in its cursors
EARLIEST = datetime(1, 1, 1, tzinfo=UTC)  # before any message


def _cursor(message: MessageRecord) -> str:
    """Where a message stands in `list_page`: a batch's messages share their time, and their
    place in the session orders them."""
    return encode(MESSAGES, message.created_at, message.seq, message.id)


async def count(db: Database, workspace: str, filters: MessageFilter) -> int:
    """How many messages `list_page` would list in all, over every page."""
    row = await db.read_one("count_messages", workspace=workspace, **filters.params())
    return int(row["total"]) if row else 0


async def numbered_page(
    db: Database,
    workspace: str,
    filters: MessageFilter,
    *,
    skip: int,
    limit: int,
    newest_first: bool = False,
) -> list[MessageRecord]:
    """`limit` messages after the first `skip`, by time and then by place in the session."""
    params = filters.params()
    if newest_first:
        rows = await db.read(
            "list_messages_by_number_newest",
            workspace=workspace,
            skip=skip,
            limit=limit,
            **params,
        )
    else:
        rows = await db.read(
            "list_messages_by_number", workspace=workspace, skip=skip, limit=limit, **params
        )
    return [MessageRecord.from_row(r["message"]) for r in rows]


async def by_ids(db: Database, workspace: str, ids: list[str]) -> list[MessageRecord]:
    """Live messages among `ids`, in session order."""
    rows = await db.read("get_messages_by_ids", workspace=workspace, ids=ids)
    return [MessageRecord.from_row(r["message"]) for r in rows]


@dataclass(frozen=True)
class SinceRead:
    """How messages a reader saw have changed since."""

    gone: set[str]  # deleted, purged or edited
    moved: set[str]  # live and unedited, but another peer's now (a merge or split moved it)


async def changed_since_read(tx: Tx, workspace: str, read: Sequence[MessageRecord]) -> SinceRead:
    """Compare `read` with what is stored now. Their locks are held for the rest of `tx`, so
    an edit, deletion or move of one commits before this transaction or after it."""
    await tx.rows("lock_messages", workspace=workspace, ids=sorted({m.id for m in read}))
    seen = [{"id": m.id, "peer": m.peer, "edited_at": m.edited_at} for m in read]
    rows = await tx.rows("compare_messages_as_read", workspace=workspace, seen=seen)
    return SinceRead(
        gone={str(r["id"]) for r in rows if r["gone"]},
        moved={str(r["id"]) for r in rows if r["moved"]},
    )


async def latest_up_to(
    db: Database, workspace: str, session: str, seq: int
) -> MessageRecord | None:
    """The latest live message of the session numbered at most `seq`."""
    row = await db.read_one(
        "get_latest_message_up_to", workspace=workspace, session=session, seq=seq
    )
    return None if row is None else MessageRecord.from_row(row["message"])


async def by_seq(
    db: Database, workspace: str, session: str, from_seq: int, to_seq: int
) -> list[MessageRecord]:
    rows = await db.read(
        "list_session_messages_by_seq",
        workspace=workspace,
        session=session,
        from_seq=from_seq,
        to_seq=to_seq,
    )
    return [MessageRecord.from_row(r["message"]) for r in rows]


async def recent(db: Database, workspace: str, session: str, limit: int) -> list[MessageRecord]:
    """The session's newest messages, newest first."""
    rows = await db.read(
        "list_recent_session_messages", workspace=workspace, session=session, limit=limit
    )
    return [MessageRecord.from_row(r["message"]) for r in rows]


async def set_metadata(
    db: Database,
    workspace: str,
    session: str,
    message_id: str,
    metadata_json: str,
    metadata: dict[str, Any],
) -> MessageRecord:
    """Replace a message's metadata; `metadata_json` is it, already checked and serialized."""
    row = await db.write_one(
        "update_message_metadata",
        workspace=workspace,
        session=session,
        id=message_id,
        metadata=metadata_json,
        meta_kv=meta_kv(metadata),
    )
    if row is None:
        raise NotFound(f"message {message_id!r} does not exist in session {session!r}")
    return MessageRecord.from_row(row["message"])


async def already_stored(tx: Tx, workspace: str, session: str, client_ids: list[str]) -> set[str]:
    """Those of `client_ids` stored in the session (a resend answers them, storing nothing)."""
    if not client_ids:
        return set()
    rows = await tx.rows("find_messages_by_client_id", workspace=workspace, client_ids=client_ids)
    return {str(r["message"]["client_id"]) for r in rows if r["message"]["session"] == session}


async def require_present(tx: Tx, workspace: str, session: str, senders: list[str]) -> None:
    """Refuse senders that are not in the session (they may not join it themselves)."""
    rows = await tx.rows("find_absent_senders", workspace=workspace, session=session, peers=senders)
    if absent := [str(r["name"]) for r in rows]:
        raise Forbidden(
            f"peer {absent[0]!r} is not in session {session!r}; a workspace or session key "
            "adds peers to a session (addSessionPeers)",
            peers=absent,
        )
