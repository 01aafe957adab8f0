"""A worker in a child process that the crash tests kill with SIGKILL mid-work.

Child side: `serve(llm)` runs a worker for the workspace in argv[1], with BELIEFGRAPH_*
settings from the environment and the Neo4j password on stdin, and a short lease so the test
sees the dead worker's work retried within seconds. Parent side: `worker_child` starts such a
module, waits until it prints its marker (its scripted LLM is then stuck inside a call), and
always reaps it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path

from graph.settings import Settings
from reasoners.llm.interface import LLM
from reasoners.queue.worker import Handler, Worker, WorkerConfig
from resolvers.runtime import build_handlers, open_services
from resolvers.services import Services

ROOT = Path(__file__).resolve().parents[2]
LEASE = timedelta(seconds=3)


async def serve(llm: LLM, extra: Callable[[Services], Mapping[str, Handler]] | None = None) -> None:
    """`extra`: handlers that replace the standard ones of their job kinds."""
    settings = Settings.from_env()
    services = await open_services(settings, password=sys.stdin.readline().strip())
    handlers = build_handlers(services.db, services.embedder, services.tokens, llm, settings)
    handlers.update(extra(services) if extra else {})
    worker = Worker(
        services.db, handlers, WorkerConfig(lease=LEASE, workspace=sys.argv[1]), owner="child"
    )
    print("ready", flush=True)
    await worker.run(asyncio.Event())


@asynccontextmanager
async def worker_child(
    services: Services,
    module: str,
    workspace: str,
    password: str,
    marker: str,
    env_extra: Mapping[str, str] | None = None,
    args: Sequence[str] = (),
) -> AsyncIterator[subprocess.Popen[str]]:
    """The child running `module`, once it has printed `marker` (`env_extra`: settings;
    `args`: its arguments after the workspace)."""
    settings = services.settings
    env = {
        **os.environ,
        **(env_extra or {}),
        "BELIEFGRAPH_NEO4J_BOLT_PORT": str(settings.neo4j_bolt_port),
        "BELIEFGRAPH_NEO4J_HTTP_PORT": str(settings.neo4j_http_port),
        "BELIEFGRAPH_AUTH": "off",
    }
    child = subprocess.Popen(
        [sys.executable, "-m", module, workspace, *args],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(password + "\n")
        child.stdin.flush()
        lines: list[str] = []
        while marker not in lines:
            line = await asyncio.to_thread(child.stdout.readline)
            assert line, f"the child exited early: {lines}"
            lines.append(line.strip())
        yield child
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(10)
        for stream in (child.stdout, child.stdin):
            if stream is not None:
                stream.close()
