"""What apps and operators do with jobs besides running them: list them, flush the waiting ones,
retry the dead ones and delete the finished ones."""

from __future__ import annotations

from datetime import datetime

from graph import models
from graph.db import Database, Tx
from graph.errors import InvalidInput
from graph.paging import decode_time_id, encode
from graph.repo.jobs import JobRecord
from graph.validation import check_id_count, now

JOBS = "jobs"  # the name in its cursors


async def flush(db: Database, workspace: str, session: str | None, peer: str | None) -> int:
    row = await db.write_one(
        "flush_jobs", workspace=workspace, session=session, peer=peer, now=now()
    )
    return int(row["flushed"]) if row else 0


async def retry_dead(
    db: Database,
    workspace: str,
    *,
    ids: list[str] | None,
    session: str | None,
    peer: str | None,
) -> int:
    if ids is not None:
        check_id_count(ids, "ids")
    row = await db.write_one(
        "retry_dead_jobs", workspace=workspace, ids=ids, session=session, peer=peer, now=now()
    )
    return int(row["retried"]) if row else 0


async def delete_finished(
    db: Database, *, before: datetime, workspace: str | None, batch: int
) -> int:
    """Delete up to `batch` jobs done before `before` (of `workspace`, or of all), and the units
    they leave empty; how many jobs went."""

    async def work(tx: Tx) -> int:
        row = await tx.one("delete_finished_jobs", before=before, workspace=workspace, batch=batch)
        if row is None or not row["deleted"]:
            return 0
        # In key order, as every writer of several units locks them.
        await tx.rows("delete_empty_units", keys=sorted(set(row["units"])))
        return int(row["deleted"])

    return await db.write_tx(work)


async def list_jobs(
    db: Database,
    workspace: str,
    *,
    session: str | None,
    peer: str | None,
    statuses: list[str] | None,
    with_errors: bool,
    limit: int,
    after: str | None = None,
) -> list[JobRecord]:
    """Jobs, most recently updated first; `after` is a job's `cursor` (see `job_cursor`)."""
    unknown = sorted(set(statuses or ()) - set(models.JOB_STATUSES))
    if unknown:
        raise InvalidInput(
            f"unknown job status {unknown[0]!r}: use one of {', '.join(models.JOB_STATUSES)}"
        )
    after_time, after_id = decode_time_id(after, JOBS)
    rows = await db.read(
        "list_jobs",
        workspace=workspace,
        session=session,
        peer=peer,
        statuses=statuses,
        with_errors=with_errors,
        after_time=after_time,
        after_id=after_id,
        limit=limit,
        now=now(),
    )
    return [JobRecord.from_row(r["job"]) for r in rows]


def job_cursor(job: JobRecord) -> str:
    """Where a job stood in `list_jobs` when it was read: its (updated_at, id), so a page goes
    on from there even after that job has changed and moved to the front."""
    return encode(JOBS, job.updated_at, job.id)
