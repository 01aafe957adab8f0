"""A worker process for the dream crash test: its deduction specialist proposes one edit (which
is rehearsed, then rolled back), then hangs in its next model call until the test kills it.

Run as `python -m tests.integration.dream_child WORKSPACE` with BELIEFGRAPH_* settings in the
environment and the Neo4j password on stdin.
"""

from __future__ import annotations

import asyncio
import sys
import time
from datetime import timedelta
from typing import Any

from graph.settings import Settings
from reasoners.queue.worker import Worker, WorkerConfig
from resolvers.runtime import build_handlers, open_services
from tests.fakes.llm import ScriptedLLM
from tests.integration.dream_helpers import call, id_of, tool_results, turn


def deduction(messages: Any, schema: Any) -> Any:
    if not tool_results(messages):
        lisbon = id_of(messages, "Lisbon")
        return turn(call("add_deduction", content="alice lives in Portugal.", premise_ids=[lisbon]))
    print("dreaming", flush=True)
    time.sleep(600)  # blocks the whole process, as a stuck model call would
    return "unreachable"


async def main() -> None:
    settings = Settings.from_env()
    services = await open_services(settings, password=sys.stdin.readline().strip())
    llm = ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": ["No patterns."]})
    handlers = build_handlers(services.db, services.embedder, services.tokens, llm, settings)
    worker = Worker(
        services.db,
        handlers,
        WorkerConfig(lease=timedelta(seconds=3), workspace=sys.argv[1]),
        owner="child",
    )
    print("ready", flush=True)
    await worker.run(asyncio.Event())


if __name__ == "__main__":
    asyncio.run(main())
