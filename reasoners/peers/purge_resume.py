"""Interrupted purges, finished by a worker: one whose record's lease ran out (its process died,
or Neo4j failed it) is taken up again from what is left (reasoners/peers/purge.py)."""

from __future__ import annotations

import logging
from datetime import timedelta
from functools import partial

from graph.db import Database
from graph.repo import purges
from graph.settings import Settings
from reasoners.peers.purge import (
    PURGE_LEASE,
    Checkpoint,
    Eraser,
    NoCheckpoint,
    PurgeReport,
)
from reasoners.peers.purge_leases import under_record
from reasoners.peers.purge_plan import messages_left, peer_left

RESUME_SECONDS = 30.0  # how often a worker looks for interrupted purges
MAX_RESUME_BACKOFF = timedelta(hours=1)  # between tries of a resumed purge that keeps failing
log = logging.getLogger(__name__)


async def resume_interrupted(
    db: Database,
    settings: Settings,
    *,
    workspace: str | None = None,
    lease: timedelta = PURGE_LEASE,
    checkpoint: Checkpoint | None = None,
) -> int:
    """Finish every purge whose record's lease ran out (of `workspace`, or of all); how many
    were taken up. One that fails again waits longer each time before the next try."""
    taken = 0
    while (record := await purges.claim_interrupted(db, lease, workspace=workspace)) is not None:
        taken += 1
        eraser = Eraser(
            db, settings, record.id, record.workspace, record.peer, checkpoint or NoCheckpoint()
        )
        if record.peer is not None and not record.peer_marked:
            # The purge had deleted the peer (its last step) before it stopped; a peer of that
            # name now is another one, made since. What it noted to do at the end is done.
            log.info("purge %s of %s: its peer is gone; finishing it", record.id, record.peer)
            work = _nothing_left
        elif record.peer is not None:
            work = partial(eraser.run, peer_left(record.workspace, record.peer))
        else:
            work = partial(eraser.run, messages_left(record.workspace, record.message_ids))
        wait = max(
            min(lease * 2**record.attempts, MAX_RESUME_BACKOFF),
            timedelta(seconds=RESUME_SECONDS),  # never taken up again in this same loop
        )
        try:
            report = await under_record(db, record.held, lease, work, eraser.finish, retry_in=wait)
        except Exception as exc:
            log.warning(
                "resuming purge %s (try %d) failed, next try in %s: %s",
                record.id,
                record.attempts,
                wait,
                exc,
            )
            continue
        log.info("finished interrupted purge %s in %s: %s", record.id, record.workspace, report)
    return taken


async def _nothing_left() -> PurgeReport:
    """A purge whose peer is gone has nothing left to erase, only its end to do."""
    return PurgeReport()
