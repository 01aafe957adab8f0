"""A dream killed with SIGKILL mid-run leaves no partial write, and is retried."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graph.keys import Representation
from graph.repo import dreams, jobs
from reasoners.dreamer import scheduling
from resolvers.services import Services
from tests.fakes.llm import ScriptedLLM
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
ROOT = Path(__file__).resolve().parents[2]


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

    settings = services.settings
    env = {
        **os.environ,
        "BELIEFGRAPH_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
        "BELIEFGRAPH_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
        "BELIEFGRAPH_AUTH": "off",
    }
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.integration.dream_child", workspace],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(neo4j_password + "\n")
        child.stdin.flush()
        lines: list[str] = []
        while "dreaming" not in lines:
            line = await asyncio.to_thread(child.stdout.readline)
            assert line, f"the child exited early: {lines}"
            lines.append(line.strip())
        # The child has had one edit accepted (rehearsed) and hangs in its next model call.
        assert (await jobs.status(services.db, workspace, None, "alice")).running == 1
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        for stream in (child.stdout, child.stdin):
            if stream is not None:
                stream.close()

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
        for j in await jobs.list_jobs(
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
