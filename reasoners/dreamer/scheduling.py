"""When dreams are scheduled: a threshold of new beliefs, an idle representation, or a request.

A dream is a Job like any other (kind "dream", one work unit per representation), so it
survives restarts and runs once at a time per representation. Which representation claimed one
is kept on its OBSERVES edge, inside the transaction that enqueues the job, so no trigger ever
schedules a second dream while one waits or runs: the deriver's write claims as it counts
(create_explicit_observations.cypher), a dream's finish claims its follow-up
(finish_dream.cypher), the other triggers through graph/repo/dreams.py.

- Threshold: the deriver's write counts its new explicit beliefs per representation; at
  BELIEFGRAPH_DREAM_THRESHOLD the dream is enqueued, runnable BELIEFGRAPH_DREAM_MIN_INTERVAL
  after the previous dream of the representation (at once if there was none).
- Idle: a worker scans every `IDLE_SCAN_SECONDS` for representations that got no new belief for
  BELIEFGRAPH_DREAM_IDLE seconds and still have undreamed ones.
- On demand: `scheduleDream` enqueues one now, or makes the waiting one runnable now; an edit,
  deletion, correction or merge does the same to settle what it made stale (trigger
  "reconcile": with `dream.enabled: false` in the workspace, such a dream only reconciles).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from graph.db import Database, Tx
from graph.keys import Representation
from graph.records import DreamClaim
from graph.repo import dreams, jobs, peers
from graph.repo.jobs import NewJob
from graph.settings import Settings
from graph.validation import now as utc_now

DREAM = "dream"
MANUAL, RECONCILE = "manual", "reconcile"  # on-demand triggers: the app's, and a change's
# A unit's jobs run as one dream, under the first of their triggers in this order.
TRIGGER_ORDER = (MANUAL, "threshold", "idle", RECONCILE)


def unit_trigger(triggers: set[str]) -> str:
    """The trigger a dream of several jobs runs under (an unknown one ranks last)."""
    return min(triggers, key=lambda t: (TRIGGER_ORDER.index(t) if t in TRIGGER_ORDER else 9, t))


def dream_payload(view: Representation, trigger: str) -> dict[str, str]:
    return {"observer": view.observer, "observed": view.observed, "trigger": trigger}


IDLE_SCAN_SECONDS = 30.0
IDLE_SCAN_LIMIT = 100  # claims per scan; the next scan takes the rest


def dream_unit(workspace: str, observer: str, observed: str) -> str:
    # "/" cannot occur in names, so the key is unambiguous.
    return f"{DREAM}/{workspace}/{observer}/{observed}"


def enabled(settings: Settings) -> bool:
    return settings.dream_mode != "off"


def idle_at(settings: Settings, stamp: datetime) -> datetime | None:
    if not enabled(settings) or settings.dream_idle <= 0:
        return None
    return stamp + timedelta(seconds=settings.dream_idle)


def threshold(settings: Settings) -> int:
    return settings.dream_threshold if enabled(settings) else 0


def dream_job(settings: Settings, claim: DreamClaim, trigger: str, run_after: datetime) -> NewJob:
    view = Representation(claim.workspace, claim.observer, claim.observed)
    return NewJob(
        workspace=claim.workspace,
        kind=DREAM,
        work_unit=dream_unit(claim.workspace, claim.observer, claim.observed),
        payload=dream_payload(view, trigger),
        run_after=run_after,
        peer=claim.observed,
        max_attempts=settings.job_max_attempts,
        id=claim.job_id,
    )


def pace(settings: Settings, claim: DreamClaim, stamp: datetime) -> datetime:
    """When a threshold dream may run: the minimum interval after the previous one."""
    if claim.last_dream_at is None:
        return stamp
    return max(stamp, claim.last_dream_at + timedelta(seconds=settings.dream_min_interval))


async def after_derivation(tx: Tx, settings: Settings, claims: Sequence[DreamClaim]) -> list[str]:
    """In the deriver's transaction: enqueue the dreams its write claimed (the representations
    that reached the threshold, `write_explicit(dream_threshold=threshold(settings))`)."""
    stamp = utc_now()
    return await jobs.enqueue(
        tx, [dream_job(settings, c, "threshold", pace(settings, c, stamp)) for c in claims]
    )


async def follow_up(
    tx: Tx,
    settings: Settings,
    view: Representation,
    claimed: str | None,
    *,
    more_waiting: bool,
    paced: datetime | None = None,
    trigger: str = "threshold",
) -> list[str]:
    """In a dream's transaction: enqueue the follow-up dream its finish claimed, if any, at once
    if the batch limit left some unread, else paced like any threshold dream, from the last
    dream that dreamed (`paced`, as the finish returned it). `trigger` is RECONCILE for one
    that only goes on reconciling what the batch limit left stale, with dreams off."""
    if claimed is None:
        return []
    stamp = utc_now()
    claim = DreamClaim(view.workspace, view.observer, view.observed, claimed, paced)
    run_after = stamp if more_waiting else pace(settings, claim, stamp)
    return await jobs.enqueue(tx, [dream_job(settings, claim, trigger, run_after)])


async def idle_scan(db: Database, settings: Settings, workspace: str | None = None) -> int:
    """Enqueue dreams for idle representations; returns how many."""
    if idle_at(settings, utc_now()) is None:
        return 0

    async def work(tx: Tx) -> int:
        stamp = utc_now()
        claims = await dreams.claim_idle(tx, now=stamp, workspace=workspace, limit=IDLE_SCAN_LIMIT)
        await jobs.enqueue(tx, [dream_job(settings, c, "idle", stamp) for c in claims])
        return len(claims)

    return await db.write_tx(work)


async def on_demand(db: Database, settings: Settings, view: Representation) -> tuple[str, bool]:
    """Schedule a dream now: (job id, whether a new job was created). A dream of the
    representation still waiting is reused (and made runnable now); one already running read
    the beliefs before this call, so a new one is queued behind it."""

    async def work(tx: Tx) -> tuple[str, bool] | None:
        return await on_demand_in(tx, settings, view)

    result = await db.write_tx(work)
    if result is None:
        raise peers.pair_missing(view.workspace, view.observer, view.observed)
    return result


async def on_demand_in(
    tx: Tx,
    settings: Settings,
    view: Representation,
    *,
    at: datetime | None = None,
    trigger: str = MANUAL,
) -> tuple[str, bool] | None:
    """`on_demand` inside a caller's transaction, runnable `at` (default: now); None when a
    peer of the view is missing. `trigger` is MANUAL for what the app asks, RECONCILE for the
    dream a change schedules to settle what it made stale (which, with dreams off in the
    workspace, only reconciles); a waiting dream the app asks for becomes MANUAL."""
    stamp = at or utc_now()
    asked = dream_payload(view, MANUAL) if trigger == MANUAL else None
    claimed = await dreams.claim_now(tx, view, now=stamp, payload=asked)
    if claimed is None:
        return None
    job_id, created = claimed
    if created:
        claim = DreamClaim(view.workspace, view.observer, view.observed, job_id, None)
        await jobs.enqueue(tx, [dream_job(settings, claim, trigger, stamp)])
    return job_id, created
