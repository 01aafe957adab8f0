"""Sessions and their membership windows (who was present, and what they may observe)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from graph import models
from graph.configuration import QueueSwitches, queue_switches
from graph.db import Database, Row, Tx
from graph.errors import Forbidden, InvalidInput, NotFound, SessionClosed
from graph.paging import decode_name, decode_time_name_id, encode, name_cursor, page
from graph.props import NO_META, Meta, meta_kv, node_props
from graph.records import MembershipRecord, Page, PeerRecord, SessionRecord
from graph.repo import peers, workspaces
from graph.validation import check_name, check_peer_count, now

MAX_SESSION_CONTEXT = 4000


SESSIONS = "sessions"  # the name in its cursors


@dataclass(frozen=True)
class MemberSettings:
    """A peer to put in a session; a setting left None is true for a peer that joins and
    unchanged for one already in the session."""

    peer: str
    observe_me: bool | None = None
    observe_others: bool | None = None


async def get_or_create(
    db: Database,
    workspace: str,
    name: str,
    meta: Meta = NO_META,
) -> SessionRecord:
    return (await ensure(db, workspace, name, meta))[0]


async def ensure(
    db: Database, workspace: str, name: str, meta: Meta = NO_META
) -> tuple[SessionRecord, bool]:
    """The session, and whether this call created it (of concurrent creators, one did)."""
    props = node_props(
        models.Session,
        {
            "workspace": workspace,
            "name": check_name(name, "session"),
            **meta.created(),
            "active": True,
            "next_seq": 0,
            "created_at": now(),
        },
    )

    async def work(tx: Tx) -> Row | None:
        row = await tx.one("merge_session", props=props)
        if row is not None and row["created"]:
            # A deletion that found no active session (REST's) would delete this one.
            await workspaces.refuse_if_deleting(tx, workspace)
        return row

    row = await db.write_tx(work)
    if row is None:
        await workspaces.get(db, workspace)
        raise AssertionError("session MERGE returned nothing")
    return SessionRecord.from_row(row["session"]), bool(row["created"])


async def get(db: Database, workspace: str, name: str) -> SessionRecord:
    row = await db.read_one("get_session", workspace=workspace, name=name)
    # An empty map: the node was being deleted as it was read.
    if row is None or not row["session"]:
        await workspaces.get(db, workspace)  # a missing workspace is named as such
        raise NotFound(f"session {name!r} does not exist in workspace {workspace!r}")
    return SessionRecord.from_row(row["session"])


async def list_page(
    db: Database,
    workspace: str,
    *,
    metadata: dict[str, Any] | None,
    active: bool | None,
    peer: str | None,
    after: str | None,
    limit: int,
) -> Page[SessionRecord]:
    rows = await db.read(
        "list_sessions",
        workspace=workspace,
        after=decode_name(after, SESSIONS),
        active=active,
        peer=peer,
        meta_kv=meta_kv(metadata),
        limit=limit + 1,
    )
    return page(rows, limit, lambda r: SessionRecord.from_row(r["session"]), name_cursor(SESSIONS))


async def update(
    db: Database,
    workspace: str,
    name: str,
    meta: Meta,
    *,
    active: bool | None,
    context: str | None,
    set_context: bool,
    open_only: bool = False,
) -> SessionRecord:
    """Update the session. With `open_only` (a session key's change, and REST's, whose deleted
    sessions are closed ones), a closed session is not reopened (FORBIDDEN) nor changed
    (SessionClosed); closing it again changes nothing and is answered."""
    if context is not None and len(context) > MAX_SESSION_CONTEXT:
        raise InvalidInput(
            f"context is {len(context)} characters; the limit is {MAX_SESSION_CONTEXT}"
        )
    changes = bool(active) or set_context or any(v is not None for v in meta.updated().values())

    async def work(tx: Tx) -> Row | None:
        if active:
            # As a new session: a deletion that found no active session would delete it. The
            # workspace's lock first, as a deletion takes it before the sessions it deletes.
            await workspaces.refuse_if_deleting(tx, workspace)
        if open_only and changes:
            # Checked under the session's lock: a close committed between a separate check
            # and this write (a REST delete) would be undone by it.
            await refuse_if_closed(tx, workspace, name, reopening=bool(active))
        return await tx.one(
            "update_session",
            workspace=workspace,
            name=name,
            **meta.updated(),
            active=active,
            context=context,
            set_context=set_context,
        )

    row = await db.write_tx(work)
    if row is None:
        await workspaces.get(db, workspace)  # a missing workspace is named as such
        raise NotFound(f"session {name!r} does not exist in workspace {workspace!r}")
    return SessionRecord.from_row(row["session"])


async def hold(tx: Tx, workspace: str, session: str, *, open_only: bool) -> None:
    """The session's lock for the rest of `tx`; with `open_only`, refused if it is closed."""
    if open_only:
        await refuse_if_closed(tx, workspace, session)
    else:
        await lock(tx, workspace, session)


async def refuse_if_closed(tx: Tx, workspace: str, name: str, *, reopening: bool = False) -> None:
    """Take the session's lock; then a closed session is refused: SessionClosed, or FORBIDDEN
    when the change was to reopen it (which takes a workspace key)."""
    await lock(tx, workspace, name)
    held = await tx.one("get_session", workspace=workspace, name=name)
    if held and held["session"] and not held["session"]["active"]:
        if reopening:
            raise Forbidden("reopening a closed session takes a workspace key")
        raise SessionClosed(
            f"session {name!r} is closed: only a workspace key may change or reopen it",
            session=name,
        )


async def lock(tx: Tx, workspace: str, session: str) -> None:
    """Hold the session's lock for the rest of `tx` (lock_session.cypher says who takes it)."""
    await tx.rows("lock_session", workspace=workspace, session=session)


async def join(
    tx: Tx,
    workspace: str,
    session: str,
    members: list[MemberSettings],
    *,
    open_only: bool = False,
) -> None:
    # Locked first: two joins of one peer at once would each find no open window and both
    # open one, perhaps with different observation settings.
    await hold(tx, workspace, session, open_only=open_only)
    await tx.rows(
        "join_session",
        workspace=workspace,
        session=session,
        members=[
            {"peer": m.peer, "observe_me": m.observe_me, "observe_others": m.observe_others}
            for m in members
        ],
        now=now(),
    )


async def check_members(db: Database, workspace: str, members: list[MemberSettings]) -> None:
    """A membership change names at most MAX_PEERS_PER_CHANGE peers, all existing."""
    check_peer_count([m.peer for m in members])
    await peers.require_all(db, workspace, [m.peer for m in members])


async def add_peers(
    db: Database,
    workspace: str,
    session: str,
    members: list[MemberSettings],
    *,
    open_only: bool = False,
    create: Collection[str] = (),
) -> list[MembershipRecord]:
    """Join `members` (or change their settings), creating the peers named in `create`. With
    `open_only`, as in `update`, a closed session is refused (SessionClosed)."""
    check_peer_count([m.peer for m in members])
    await get(db, workspace, session)
    await peers.require_all(db, workspace, [m.peer for m in members if m.peer not in create])

    async def work(tx: Tx) -> None:
        await hold(tx, workspace, session, open_only=open_only)
        # After the lock and its check: a refused change leaves no peer made for it.
        await peers.ensure_in(tx, workspace, sorted(create))
        await join(tx, workspace, session, members)

    await db.write_tx(work)
    return await list_members(db, workspace, session, include_past=False)


async def remove_peers(
    db: Database, workspace: str, session: str, names: list[str], *, open_only: bool = False
) -> list[MembershipRecord]:
    check_peer_count(names)
    await get(db, workspace, session)

    async def work(tx: Tx) -> None:
        # As every membership change: the session's lock, then windows.
        await hold(tx, workspace, session, open_only=open_only)
        await tx.rows("leave_session", workspace=workspace, session=session, peers=names, now=now())

    await db.write_tx(work)
    return await list_members(db, workspace, session, include_past=False)


async def set_peers(
    db: Database,
    workspace: str,
    session: str,
    members: list[MemberSettings],
    *,
    open_only: bool = False,
    create: Collection[str] = (),
) -> list[MembershipRecord]:
    """Make `members` exactly the session's present peers, in one transaction, creating the
    peers named in `create` (with `open_only`, not of a closed session, as in `update`)."""
    check_peer_count([m.peer for m in members])
    await get(db, workspace, session)
    await peers.require_all(db, workspace, [m.peer for m in members if m.peer not in create])

    async def work(tx: Tx) -> None:
        # Before the windows it closes, as join takes it.
        await hold(tx, workspace, session, open_only=open_only)
        await peers.ensure_in(tx, workspace, sorted(create))
        await tx.rows(
            "leave_session_except",
            workspace=workspace,
            session=session,
            keep=[m.peer for m in members],
            now=now(),
        )
        await join(tx, workspace, session, members)

    await db.write_tx(work)
    return await list_members(db, workspace, session, include_past=False)


async def list_members(
    db: Database, workspace: str, session: str, *, include_past: bool
) -> list[MembershipRecord]:
    return await db.read_tx(
        lambda tx: list_members_in(tx, workspace, session, include_past=include_past)
    )


async def list_members_in(
    tx: Tx, workspace: str, session: str, *, include_past: bool
) -> list[MembershipRecord]:
    """`list_members` inside a transaction."""
    rows = await tx.rows(
        "list_session_members", workspace=workspace, session=session, include_past=include_past
    )
    return [MembershipRecord.from_row(r) for r in rows]


SESSION_PEERS = "session_peers"  # the name in its cursors


async def members_page(
    db: Database,
    workspace: str,
    session: str,
    *,
    include_past: bool,
    after: str | None,
    limit: int,
) -> Page[MembershipRecord]:
    """A page of the session's windows in the order they opened (then by peer and window)."""
    after_time, after_peer, after_window = decode_time_name_id(after, SESSION_PEERS)
    if after_window is not None:  # a cursor made before cursors held the id's last part only
        after_window = after_window.rsplit(":", 1)[-1]
    rows = await db.read(
        "list_session_members_page",
        workspace=workspace,
        session=session,
        include_past=include_past,
        after_time=after_time,
        after_peer=after_peer,
        after_window=after_window,
        limit=limit + 1,
    )
    return page(rows, limit, MembershipRecord.from_row, member_cursor)


def member_cursor(window: MembershipRecord) -> str:
    """The cursor of members_page that lists what follows `window`."""
    return encode(SESSION_PEERS, window.joined_at, window.peer, window.window)


async def present_peers(
    db: Database, workspace: str, session: str, *, limit: int
) -> list[PeerRecord]:
    """The peers present in the session, in the order they joined; at most `limit`."""
    rows = await db.read(
        "list_session_member_peers", workspace=workspace, session=session, limit=limit
    )
    # An empty map: a peer deleted as it was read.
    return [PeerRecord.from_row(r["peer"]) for r in rows if r["peer"]]


async def member(db: Database, workspace: str, session: str, peer: str) -> MembershipRecord:
    """The peer's open window in the session (NOT_FOUND when it is not present)."""
    row = await db.read_one("get_session_member", workspace=workspace, session=session, peer=peer)
    if row is None:
        raise NotFound(f"peer {peer!r} is not in session {session!r}")
    return MembershipRecord.from_row(row)


async def joined_by(
    db: Database, workspace: str, peer: str, sessions: Collection[str]
) -> frozenset[str]:
    """Those of `sessions` that `peer` has been a member of, now or before."""
    if not sessions:
        return frozenset()
    rows = await db.read(
        "list_sessions_joined_by", workspace=workspace, peer=peer, sessions=sorted(sessions)
    )
    return frozenset(str(r["session"]) for r in rows)


async def configuration_of(db: Database, workspace: str, session: str) -> dict[str, Any]:
    """The session's configuration (empty when there is no such session)."""
    held = await db.read_one("get_session", workspace=workspace, name=session)
    return SessionRecord.from_row(held["session"]).configuration if held and held["session"] else {}


async def queue_switches_in(tx: Tx, workspace: str, session: str) -> QueueSwitches:
    """What the session's messages queue, by its and its workspace's configuration as they
    stand in `tx` (graph/configuration.py)."""
    held = await tx.one("get_session", workspace=workspace, name=session)
    return queue_switches(
        await workspaces.configuration_in(tx, workspace),
        SessionRecord.from_row(held["session"]).configuration if held and held["session"] else {},
    )
