"""A worker killed with SIGKILL mid-job loses nothing and duplicates nothing."""

from __future__ import annotations

import asyncio
import signal

import pytest

from graph.repo import job_admin, queue_status
from graph.repo.sessions import MemberSettings
from resolvers.services import Services
from tests.fakes.llm import ScriptedLLM
from tests.integration.child_worker import worker_child
from tests.integration.derive_helpers import (
    beliefs,
    echo_deriver,
    make_peers,
    make_session,
    post,
    worker_for,
)

pytestmark = pytest.mark.integration


async def test_sigkill_mid_job_loses_and_duplicates_nothing(
    services: Services, workspace: str, neo4j_password: str
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice"), MemberSettings("bob")])
    await post(services, workspace, "s1", ("alice", "I moved to Porto."), ("bob", "Nice."))
    await job_admin.flush(services.db, workspace, None, None)

    async with worker_child(
        services, "tests.integration.worker_child", workspace, neo4j_password, "deriving"
    ) as child:
        # The child holds the alice unit and is inside its LLM call: kill it there.
        assert (await queue_status.status(services.db, workspace, None, None)).running >= 1
        child.send_signal(signal.SIGKILL)
        child.wait(10)

    worker = worker_for(services, workspace, ScriptedLLM({"deriver": echo_deriver}))
    assert await worker.drain() <= 1, "the dead worker's unit is still leased"
    await asyncio.sleep(3.5)  # the child's lease runs out
    await worker.drain()
    status = await queue_status.status(services.db, workspace, None, None)
    assert (status.pending, status.running, status.dead) == (0, 0, 0)
    assert await beliefs(services, workspace, "alice", "alice") == ["alice said: I moved to Porto."]
    assert await beliefs(services, workspace, "bob", "alice") == ["alice said: I moved to Porto."]
    finished = await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer="alice",
        statuses=["done"],
        with_errors=False,
        limit=5,
    )
    assert [j.attempts for j in finished] == [2], "the killed attempt counted, then one more"
