"""Finished jobs are kept BELIEFGRAPH_JOB_RETENTION_DAYS, then a worker deletes them with the
units they leave empty (before, every job stayed for good, and a renamed peer's old name with
them)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from datetime import timedelta

import pytest

from graph.db import Tx
from graph.repo import jobs
from graph.repo.jobs import NewJob
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.queue import retention
from resolvers.services import Services
from tests import statements
from tests.integration.derive_helpers import (
    flush_and_drain,
    make_peers,
    make_session,
    post,
    worker_for,
)

pytestmark = pytest.mark.integration


async def derived(services: Services, workspace: str, *senders: str) -> None:
    """One derive job per sender, run to done."""
    await make_peers(services, workspace, *senders)
    members = [MemberSettings(name) for name in senders]
    await make_session(services, workspace, "s1", members)
    await post(services, workspace, "s1", *((name, f"I am {name}.") for name in senders))
    await flush_and_drain(services, workspace, worker_for(services, workspace, None))


async def age(services: Services, workspace: str, peer: str, days: float) -> None:
    at = now() - timedelta(days=days)
    await statements.write(services.db, "age_peer_jobs", workspace=workspace, peer=peer, at=at)


async def units(services: Services, workspace: str) -> list[str]:
    rows = await statements.read(services.db, "list_work_units", workspace=workspace)
    return [str(r["key"]) for r in rows]


async def test_jobs_finished_before_the_window_go_with_their_empty_units(
    services: Services, workspace: str
) -> None:
    await derived(services, workspace, "alice", "bob", "carol")
    await age(services, workspace, "alice", 8)  # past the 7 days
    await age(services, workspace, "bob", 6)  # within them
    await age(services, workspace, "carol", 8)
    await statements.write(  # carol's failed for good: an operator's to retry
        services.db, "set_peer_job_status", workspace=workspace, peer="carol", status="dead"
    )

    assert await retention.delete_finished_jobs(services.db, services.settings, workspace) == 1
    assert await units(services, workspace) == [
        f"derive/{workspace}/s1/bob",
        f"derive/{workspace}/s1/carol",
    ]
    assert await retention.delete_finished_jobs(services.db, services.settings, workspace) == 0


async def test_a_unit_with_a_job_left_stays_and_zero_keeps_everything(
    services: Services, workspace: str, other_workspace: str
) -> None:
    await derived(services, workspace, "alice")
    await age(services, workspace, "alice", 8)
    await post(services, workspace, "s1", ("alice", "I moved to Lisbon."))  # a pending job
    await derived(services, other_workspace, "alice")
    await age(services, other_workspace, "alice", 8)

    keep = replace(services.settings, job_retention_days=0)
    assert await retention.delete_finished_jobs(services.db, keep, workspace) == 0
    assert await retention.delete_finished_jobs(services.db, services.settings, workspace) == 1
    assert await units(services, workspace) == [f"derive/{workspace}/s1/alice"]
    # Another workspace's jobs are its own worker's, when a worker serves one workspace.
    assert await units(services, other_workspace) == [f"derive/{other_workspace}/s1/alice"]


async def test_a_backlog_goes_in_batches(services: Services, workspace: str) -> None:
    await derived(services, workspace, "alice", "bob", "carol")
    for peer in ("alice", "bob", "carol"):
        await age(services, workspace, peer, 30)
    deleted = await retention.delete_finished_jobs(
        services.db, services.settings, workspace, batch=1
    )
    assert deleted == 3 and await units(services, workspace) == []


async def test_a_job_queued_as_its_empty_unit_is_deleted_makes_the_unit_again(
    services: Services, workspace: str
) -> None:
    """The enqueue waits for the deleting transaction's lock, finds its unit deleted, fails
    transiently and runs again (graph/db.py): its job lands in a unit made anew, first."""
    await derived(services, workspace, "alice")
    await age(services, workspace, "alice", 8)
    [key] = await units(services, workspace)
    locked, release = asyncio.Event(), asyncio.Event()

    async def delete_when_released(tx: Tx) -> None:
        await tx.rows("delete_finished_jobs", before=now(), workspace=workspace, batch=10)
        await tx.rows("lock_work_unit", key=key, owner="retention-test")
        locked.set()
        await release.wait()
        await tx.rows("delete_empty_units", keys=[key])

    deleting = asyncio.ensure_future(services.db.write_tx(delete_when_released))
    await locked.wait()
    job = NewJob(workspace, "derive", key, {"message_ids": []}, now(), "s1", "alice")
    enqueuing = asyncio.ensure_future(services.db.write_tx(lambda tx: jobs.enqueue(tx, [job])))
    await asyncio.sleep(1.0)  # the enqueue waits for the unit's lock
    assert not enqueuing.done()
    release.set()
    await deleting
    [queued] = await enqueuing
    assert await units(services, workspace) == [key]
    rows = await statements.read(services.db, "get_job_seq", id=queued)
    assert rows == [{"seq": 1}]
