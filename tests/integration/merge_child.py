"""A worker process for the merge crash test: it commits the merge's first step, then hangs
before the second until the test kills it.

Run as `python -m tests.integration.merge_child WORKSPACE` with BELIEFGRAPH_* settings (a small
BELIEFGRAPH_RESTRUCTURE_BATCH) in the environment and the Neo4j password on stdin.
"""

from __future__ import annotations

import asyncio
import time

from graph.repo.jobs import JobRecord
from reasoners.peers.merges import RESTRUCTURE, RestructureHandler
from resolvers.services import Services
from tests.fakes.llm import ScriptedLLM
from tests.integration.child_worker import serve


class HangOnSecondStep:
    """Lets the first restructuring job run and commit, then blocks the whole process."""

    def __init__(self) -> None:
        self.jobs = 0

    async def before(self, job: JobRecord) -> None:
        self.jobs += 1
        if self.jobs == 2:
            print("merging", flush=True)
            time.sleep(600)


def handlers(services: Services) -> dict[str, RestructureHandler]:
    return {RESTRUCTURE: RestructureHandler(services.db, services.settings, HangOnSecondStep())}


if __name__ == "__main__":
    asyncio.run(serve(ScriptedLLM({}), handlers))
