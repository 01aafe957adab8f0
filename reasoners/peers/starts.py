"""The checks every start of a rename, merge or split makes, one start at a time per
workspace: nothing else queued or purging changes the same peers."""

from __future__ import annotations

from typing import Any

from graph.db import Tx
from graph.errors import Conflict, NotFound
from graph.repo.jobs import JobRecord

RESTRUCTURE = "restructure"
SPLIT = "split"
OPERATIONS = (RESTRUCTURE, SPLIT)  # the job kinds of renames, merges and splits


def restructure_unit(workspace: str) -> str:
    # One unit per workspace: its renames and merges run one at a time, in order.
    return f"{RESTRUCTURE}/{workspace}"


def named_peers(kind: str, payload: dict[str, Any]) -> set[str]:
    """The peers a queued rename, merge or split changes (pure)."""
    if kind == RESTRUCTURE:
        return {*payload.get("sources", []), str(payload.get("target", ""))}
    return {str(payload.get("peer", "")), *(str(p["child"]) for p in payload.get("parts", []))}


async def lock_starts(tx: Tx, workspace: str) -> None:
    """Holds the workspace's lock for the rest of `tx`: starts of renames, merges and splits in
    one workspace then run one at a time, and each one's checks see the operations queued
    before it."""
    if await tx.one("lock_workspace", workspace=workspace) is None:
        raise NotFound(f"workspace {workspace!r} does not exist")


async def check_not_queued(
    tx: Tx, workspace: str, names: set[str], *, dead_too: bool = True
) -> None:
    """Conflict when an unfinished rename, merge or split already changes one of `names`: the
    second would run on what the first left (a target merged away, a source renamed). One
    dead-lettered part way is unfinished too, until `retryJobs` runs it to its end, unless not
    `dead_too`. Run it after `lock_starts`, in the transaction that queues the new operation."""
    rows = await tx.rows(
        "list_unfinished_restructure_jobs", key=restructure_unit(workspace), limit=10_000
    )
    for job in (JobRecord.from_row(r["job"]) for r in rows):
        shared = sorted(names & named_peers(job.kind, job.payload))
        if not shared or (job.status == "dead" and not dead_too):
            continue
        operation = job.payload.get("operation")
        if job.status == "dead":
            raise Conflict(
                f"peer {shared[0]!r} is part way through a rename, merge or split whose job "
                f"failed every attempt (operation {operation}, job {job.id}: see its error in "
                "jobs); run it again to its end with retryJobs, then start this one",
                operation=operation,
            )
        raise Conflict(
            f"peer {shared[0]!r} is already being renamed, merged or split (operation "
            f"{operation}); start this one once that one has finished",
            operation=operation,
        )


async def check_not_purged(tx: Tx, workspace: str, names: set[str]) -> None:
    """Conflict when a purge has begun erasing one of `names` and not finished: renamed,
    merged or split, the rest of it would escape the purge (its record names the peer)."""
    rows = await tx.rows("list_purging_peers", workspace=workspace, names=sorted(names))
    if rows:
        raise Conflict(
            f"peer {rows[0]['name']!r} is being purged; a worker finishes the purge (or purge "
            "it again): it cannot be renamed, merged or split meanwhile"
        )
