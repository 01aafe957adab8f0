"""Shared by the restructuring tests: run an operation's jobs to the end, compare two
workspaces built alike, and kill a worker in the middle of an operation."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Mapping

from graph.repo import queue_status
from resolvers.services import Services
from tests import statements
from tests.integration.child_worker import worker_child
from tests.integration.derive_helpers import worker_for
from tests.integration.restructure_child import MARKER


async def run_all(services: Services, workspace: str) -> None:
    await worker_for(services, workspace, None).drain()


async def snapshot(services: Services, workspace: str) -> list[str]:
    """The workspace's graph without ids or times (tests/cypher/canonical_workspace.cypher)."""
    rows = await statements.read(services.db, "canonical_workspace", workspace=workspace)
    for row in rows:
        row["out"] = sorted(json.dumps(edge) for edge in row["out"])
    return sorted(json.dumps(row, sort_keys=True, default=str) for row in rows)


async def kill_after(
    services: Services, workspace: str, password: str, steps: int, env: Mapping[str, str]
) -> None:
    """Run the workspace's queued operation in a child worker that commits `steps` jobs and
    claims the next, then SIGKILL it there: that job stays running until its lease runs out."""
    async with worker_child(
        services,
        "tests.integration.restructure_child",
        workspace,
        password,
        MARKER,
        env,
        args=[str(steps)],
    ) as child:
        child.send_signal(signal.SIGKILL)
        child.wait(10)


async def resume(services: Services, workspace: str, timeout: float = 30) -> None:
    """A new worker takes over the killed worker's job once its lease runs out, and finishes
    the operation."""
    deadline = time.monotonic() + timeout
    worker = worker_for(services, workspace, None)
    while time.monotonic() < deadline:
        await worker.drain()
        status = await queue_status.status(services.db, workspace, None, None)
        if status.pending == 0 and status.running == 0:
            return
        await asyncio.sleep(0.5)
    raise AssertionError(f"the operation did not finish within {timeout} s")
