"""Workspaces: the unit of isolation. Every other node carries its workspace's name."""

from __future__ import annotations

from graph import models
from graph.db import Database
from graph.errors import NotFound
from graph.paging import by_name, page
from graph.props import NO_META, Meta, node_props
from graph.records import Page, WorkspaceRecord
from graph.validation import check_name, now

_DELETE_BATCH = 5000


async def get_or_create(
    db: Database,
    name: str,
    meta: Meta = NO_META,
) -> WorkspaceRecord:
    return (await ensure(db, name, meta))[0]


async def ensure(db: Database, name: str, meta: Meta = NO_META) -> tuple[WorkspaceRecord, bool]:
    """The workspace, and whether this call created it (of concurrent creators, one did)."""
    props = node_props(
        models.Workspace,
        {
            "name": check_name(name, "workspace"),
            **meta.created(),
            "created_at": now(),
        },
    )
    row = await db.write_one("merge_workspace", props=props)
    assert row is not None
    return WorkspaceRecord.from_row(row["workspace"]), bool(row["created"])


async def get(db: Database, name: str) -> WorkspaceRecord:
    row = await db.read_one("get_workspace", workspace=name)
    if row is None:
        raise NotFound(f"workspace {name!r} does not exist")
    return WorkspaceRecord.from_row(row["workspace"])


async def list_page(db: Database, *, after: str | None, limit: int) -> Page[WorkspaceRecord]:
    rows = await db.read("list_workspaces", after=after, limit=limit + 1)
    return page(rows, limit, lambda r: WorkspaceRecord.from_row(r["workspace"]), by_name)


async def update(
    db: Database,
    name: str,
    meta: Meta,
) -> WorkspaceRecord:
    row = await db.write_one("update_workspace", workspace=name, **meta.updated())
    if row is None:
        raise NotFound(f"workspace {name!r} does not exist")
    return WorkspaceRecord.from_row(row["workspace"])


async def delete(db: Database, name: str) -> int:
    """Delete the workspace and everything in it, in batches; returns the nodes deleted."""
    await get(db, name)
    total = 0
    while True:
        row = await db.write_one("delete_workspace_nodes", workspace=name, batch=_DELETE_BATCH)
        deleted = int(row["deleted"]) if row else 0
        total += deleted
        if deleted < _DELETE_BATCH:
            break
    row = await db.write_one("delete_workspace", workspace=name)
    return total + (int(row["deleted"]) if row else 0)
