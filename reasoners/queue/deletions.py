"""Workspace deletions cut short (the process died mid-way), finished by a worker: the
deletion mark stays on the workspace and refuses new sessions, and once it has gone
DELETION_LEASE without renewal a worker takes the deletion over and runs it to the end."""

from __future__ import annotations

import logging

from graph.db import Database
from graph.repo import workspaces

RESUME_SECONDS = 30.0  # how often a worker looks for deletions cut short
log = logging.getLogger(__name__)


async def resume_deletions(db: Database, *, workspace: str | None = None) -> int:
    """Finish every deletion (of `workspace`, or of all) whose mark has lapsed; how many."""
    finished = 0
    for name in await workspaces.lapsed_deletions(db, workspace=workspace):
        if not await workspaces.take_over_deletion(db, name):
            continue  # renewed meanwhile: another worker, or a deletion asked again, runs it
        try:
            deleted = await workspaces.delete(db, name)
        except Exception as exc:  # its mark lapses again, and a later look tries again
            log.warning("finishing the deletion of workspace %s failed: %s", name, exc)
            continue
        finished += 1
        log.info("finished the deletion of workspace %s cut short: %d nodes", name, deleted)
    return finished
