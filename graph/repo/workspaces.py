"""Workspaces: the unit of isolation. Every other node carries its workspace's name."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from graph import models
from graph.db import Database, Row, Tx
from graph.errors import Conflict, NotFound
from graph.paging import decode_name, name_cursor, page
from graph.props import NO_META, Meta, node_props
from graph.records import Page, WorkspaceRecord, to_datetime
from graph.validation import check_name, now

_DELETE_BATCH = 5000


WORKSPACES = "workspaces"  # the name in its cursors


async def get_or_create(
    db: Database,
    name: str,
    meta: Meta = NO_META,
) -> WorkspaceRecord:
    return (await ensure(db, name, meta))[0]


async def ensure(db: Database, name: str, meta: Meta = NO_META) -> tuple[WorkspaceRecord, bool]:
    """The workspace, and whether this call created it (of concurrent creators, one did)."""
    props = _props(name, meta)

    async def create(tx: Tx) -> tuple[WorkspaceRecord, bool]:
        row = await tx.one("merge_workspace", props=props)
        assert row is not None
        created = bool(row["created"])
        if not created and _deletion_mark(row) is not None:
            raise NotFound(f"workspace {name!r} is being deleted")
        if created:
            # A write in flight as an earlier workspace of this name was deleted can commit
            # after the deletion's last sweep; what it left must not appear in the new one.
            # Deleted before anything can read the new workspace (this transaction makes it).
            await _delete_all(tx, name)
        return WorkspaceRecord.from_row(row["workspace"]), created

    return await db.write_tx(create)


def _props(name: str, meta: Meta) -> dict[str, object]:
    return node_props(
        models.Workspace,
        {"name": check_name(name, "workspace"), **meta.created(), "created_at": now()},
    )


async def get(db: Database, name: str) -> WorkspaceRecord:
    row = await db.read_one("get_workspace", workspace=name)
    # An empty map: the node was being deleted as it was read.
    if row is None or not row["workspace"]:
        raise NotFound(f"workspace {name!r} does not exist")
    return WorkspaceRecord.from_row(row["workspace"])


def _configuration(row: dict[str, Any] | None) -> dict[str, Any]:
    return (
        WorkspaceRecord.from_row(row["workspace"]).configuration if row and row["workspace"] else {}
    )


async def configuration_of(db: Database, name: str) -> dict[str, Any]:
    """The workspace's configuration (empty when it is gone)."""
    return _configuration(await db.read_one("get_workspace", workspace=name))


async def configuration_in(tx: Tx, name: str) -> dict[str, Any]:
    """`configuration_of` as it stands in `tx`."""
    return _configuration(await tx.one("get_workspace", workspace=name))


async def list_page(db: Database, *, after: str | None, limit: int) -> Page[WorkspaceRecord]:
    rows = await db.read("list_workspaces", after=decode_name(after, WORKSPACES), limit=limit + 1)
    return page(
        rows, limit, lambda r: WorkspaceRecord.from_row(r["workspace"]), name_cursor(WORKSPACES)
    )


async def update(
    db: Database,
    name: str,
    meta: Meta,
) -> WorkspaceRecord:
    row = await db.write_one("update_workspace", workspace=name, **meta.updated())
    if row is None:
        raise NotFound(f"workspace {name!r} does not exist")
    return WorkspaceRecord.from_row(row["workspace"])


# A running deletion renews its mark with each batch; a mark older than this is a deletion
# cut short (a crash), which a worker takes up (reasoners/queue/deletions.py).
DELETION_LEASE = timedelta(minutes=5)


async def delete(db: Database, name: str, *, unless_active_sessions: bool = False) -> int:
    """Delete the workspace and everything in it, in batches; returns the nodes deleted.
    `unless_active_sessions`: CONFLICT, deleting nothing, while a session is active, unless a
    deletion has begun already (this one finishes it: its sessions are gone to the API)."""
    await get(db, name)

    async def mark(tx: Tx) -> None:
        await tx.rows("lock_workspace", workspace=name)
        held = await tx.one("get_workspace", workspace=name)
        begun = _deletion_mark(held) is not None
        # Setting the mark under the workspace's lock, which a new session takes too: either
        # the session is committed and found here, or it is refused for the mark.
        await tx.rows("mark_workspace_deleting", workspace=name, now=now())
        if (
            unless_active_sessions
            and not begun
            and await tx.one("find_active_session", workspace=name)
        ):
            raise Conflict(f"workspace {name!r} has active sessions: delete them first")

    await db.write_tx(mark)
    # Cut short here (a failure, a crash), the mark stays: new sessions are refused, and a
    # worker finishes the deletion once the mark has gone DELETION_LEASE without renewal.
    total = await _delete_nodes(db, name)
    row = await db.write_one("delete_workspace", workspace=name)
    total += int(row["deleted"]) if row else 0
    # Writes that matched the workspace before it went can still commit: a last sweep takes
    # what they left (one committing later still is deleted when the name is made again).
    return total + await db.write_tx(lambda tx: sweep_deleted(tx, name))


async def sweep_deleted(tx: Tx, name: str) -> int:
    """Delete what is left with the name of a deleted workspace, unless a workspace of that
    name exists again (its data is live). A stand-in workspace node made here holds the name
    while the sweep runs, so a workspace made meanwhile waits for it and starts empty; the
    stand-in goes in the same transaction, so nobody sees it."""
    row = await tx.one("merge_workspace", props=_props(name, NO_META))
    if row is None or not row["created"]:
        return 0
    total = await _delete_all(tx, name)
    await tx.rows("delete_workspace", workspace=name)
    return total


async def _delete_nodes(db: Database, name: str) -> int:
    """Delete the nodes that name the workspace, a batch per transaction; how many."""
    total = 0

    async def batch(tx: Tx) -> int:
        # The mark is renewed as the deletion goes, its lock taken first: what else takes
        # the workspace's lock with a session's or a peer's takes the workspace's first.
        await tx.rows("mark_workspace_deleting", workspace=name, now=now())
        return await _delete_batch(tx, name)

    while True:
        deleted = await db.write_tx(batch)
        total += deleted
        if deleted < _DELETE_BATCH:
            return total


async def refuse_if_deleting(tx: Tx, name: str) -> None:
    """NOT_FOUND while the workspace is being deleted (a deletion cut short too, until a
    worker finishes it) or once it is gone, read under the workspace's lock, which a
    deletion's mark takes: a new session or a reopened one is either committed before the
    mark (and found by a deletion that must find none) or refused."""
    await tx.rows("lock_workspace", workspace=name)
    await refuse_if_marked(tx, name)


def _exists(held: Row | None) -> bool:
    return bool(held and held["workspace"])


def _deletion_mark(held: Row | None) -> datetime | None:
    """When a deletion last marked the workspace of a `{workspace}` row (None: no deletion has
    begun, or there is no workspace)."""
    if not held or not held["workspace"]:
        return None
    return to_datetime(held["workspace"].get("deleting_at"))


async def going(db: Database, name: str) -> bool:
    """Whether the workspace is gone, or its deletion has begun."""
    held = await db.read_one("get_workspace", workspace=name)
    return not _exists(held) or _deletion_mark(held) is not None


async def refuse_if_being_deleted(db: Database, name: str) -> None:
    """NOT_FOUND once the workspace's deletion mark is committed (a deletion cut short too,
    until it is finished); nothing when it exists unmarked or does not exist (the caller
    answers that as it does). A request that names it checks this first: what it wrote
    would be deleted with it, and what it read would be what the deletion left so far."""
    if _deletion_mark(await db.read_one("get_workspace", workspace=name)) is not None:
        raise NotFound(f"workspace {name!r} is being deleted")


async def refuse_if_gone(db: Database, name: str) -> None:
    """NOT_FOUND, saying which, when the workspace does not exist or its deletion began; in one
    read."""
    held = await db.read_one("get_workspace", workspace=name)
    if not _exists(held):
        raise NotFound(f"workspace {name!r} does not exist")
    if _deletion_mark(held) is not None:
        raise NotFound(f"workspace {name!r} is being deleted")


async def refuse_if_marked(tx: Tx, name: str) -> None:
    """NOT_FOUND once the workspace's deletion mark is committed (or it is gone). Read
    without its lock: a write racing a running deletion's start may still commit, and that
    deletion's last sweep takes it; a deletion cut short refuses writes until it is finished
    (acknowledged, they were deleted with it)."""
    held = await tx.one("get_workspace", workspace=name)
    if not _exists(held):
        raise NotFound(f"workspace {name!r} does not exist")
    if _deletion_mark(held) is not None:
        raise NotFound(f"workspace {name!r} is being deleted")


async def lapsed_deletions(db: Database, *, workspace: str | None, limit: int = 100) -> list[str]:
    """Workspaces (of `workspace`, or all) whose deletion stopped renewing its mark."""
    rows = await db.read(
        "find_lapsed_deletions", cutoff=now() - DELETION_LEASE, workspace=workspace, limit=limit
    )
    return [str(r["name"]) for r in rows]


async def take_over_deletion(db: Database, name: str) -> bool:
    """Renew a lapsed deletion mark under the workspace's lock: whether this caller took the
    deletion over (of workers looking at once, one does)."""

    async def work(tx: Tx) -> bool:
        await tx.rows("lock_workspace", workspace=name)
        held = await tx.one("get_workspace", workspace=name)
        mark = _deletion_mark(held)
        if mark is None or mark > now() - DELETION_LEASE:
            return False
        await tx.rows("mark_workspace_deleting", workspace=name, now=now())
        return True

    return await db.write_tx(work)


async def _delete_all(tx: Tx, name: str) -> int:
    """Delete every node that names the workspace, in this one transaction; how many."""
    total = 0
    while (deleted := await _delete_batch(tx, name)) > 0:
        total += deleted
    return total


async def _delete_batch(tx: Tx, name: str) -> int:
    row = await tx.one("delete_workspace_nodes", workspace=name, batch=_DELETE_BATCH)
    return int(row["deleted"]) if row else 0
