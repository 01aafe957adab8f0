"""The queue's history is kept BELIEFGRAPH_JOB_RETENTION_DAYS: a worker deletes jobs finished
before that, with the work units they leave empty. Without it every message batch's jobs stayed
for good, and `queueStatus`, which counts a workspace's jobs at every look, slowed as they
piled up; a renamed or merged peer's old name also stayed in its finished jobs and their units.
"""

from __future__ import annotations

from datetime import timedelta

from graph.db import Database
from graph.repo import job_admin
from graph.settings import Settings
from graph.validation import now

CLEANUP_SECONDS = 600.0  # how often a worker looks
BATCH = 1000  # jobs per transaction
MAX_BATCHES = 20  # per look: a large backlog goes over several looks, not in one long run


async def delete_finished_jobs(
    db: Database, settings: Settings, workspace: str | None, *, batch: int = BATCH
) -> int:
    """Delete the jobs finished before the retention window (of `workspace`, or of all),
    `batch` per transaction; how many went."""
    if settings.job_retention_days <= 0:
        return 0
    before = now() - timedelta(days=settings.job_retention_days)
    total = 0
    for _ in range(MAX_BATCHES):
        deleted = await job_admin.delete_finished(
            db, before=before, workspace=workspace, batch=batch
        )
        total += deleted
        if deleted < batch:
            break
    return total
