"""A dream killed with SIGKILL mid-run leaves no partial write, and is retried."""

from __future__ import annotations

import asyncio
import signal
from typing import Any

import pytest

from graph.keys import Representation
from graph.repo import dreams, job_admin, queue_status
from reasoners.dreamer import scheduling
from resolvers.services import Services
from tests.fakes.llm import ScriptedLLM
from tests.integration.child_worker import worker_child
from tests.integration.derive_helpers import worker_for
from tests.integration.dream_helpers import (
    call,
    contents,
    conversation,
    derive,
    id_of,
    runs,
    say,
    tool_results,
    turn,
)

pytestmark = pytest.mark.integration


def deduction(messages: Any, schema: Any) -> Any:
    if not tool_results(messages):
        lisbon = id_of(messages, "Lisbon")
        return turn(call("add_deduction", content="alice lives in Portugal.", premise_ids=[lisbon]))
    return "Done."


async def test_sigkill_mid_dream_leaves_nothing_and_the_dream_is_retried(
    services: Services, workspace: str, neo4j_password: str
) -> None:
    await conversation(services, workspace, "s1")
    await say(services, workspace, "s1", "2024-06-01", "I moved to Lisbon last month.")
    await derive(services, workspace)
    view = Representation(workspace, "agent", "alice")
    job_id, _ = await scheduling.on_demand(services.db, services.settings, view)
    pending_before = await dreams.pending(services.db, view, limit=10, with_embeddings=False)

    async with worker_child(
        services, "tests.integration.dream_child", workspace, neo4j_password, "dreaming"
    ) as child:
        # The child has had one edit accepted (rehearsed) and hangs in its next model call.
        assert (await queue_status.status(services.db, workspace, None, "alice")).running == 1
        child.send_signal(signal.SIGKILL)
        child.wait(10)

    # Nothing of the killed dream is in the graph: no belief, no run, nothing marked dreamed.
    assert await contents(services, workspace, levels=["deductive"]) == []
    assert await runs(services, workspace) == []
    assert await dreams.pending(services.db, view, limit=10, with_embeddings=False) == (
        pending_before
    )

    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": ["No patterns."]})
    worker = worker_for(services, workspace, llm)
    assert await worker.drain() == 0, "the dead worker's dream is still leased"
    await asyncio.sleep(3.5)  # the child's lease runs out
    assert await worker.drain() == 1
    assert await contents(services, workspace, levels=["deductive"]) == ["alice lives in Portugal."]
    (run,) = await runs(services, workspace)
    assert run.created == 1 and run.observations == len(pending_before)
    (job,) = [
        j
        for j in await job_admin.list_jobs(
            services.db,
            workspace,
            session=None,
            peer="alice",
            statuses=["done"],
            with_errors=False,
            limit=10,
        )
        if j.id == job_id
    ]
    assert job.attempts == 2, "the killed attempt counted, then one more"
