"""A worker process for the restructuring crash tests: it commits the first STEPS jobs of a
merge, rename or split, then hangs before the next one until the test kills it.

Run as `python -m tests.integration.restructure_child WORKSPACE STEPS` with BELIEFGRAPH_*
settings (a small BELIEFGRAPH_RESTRUCTURE_BATCH) in the environment and the Neo4j password on
stdin.
"""

from __future__ import annotations

import asyncio
import sys
import time

from graph.repo.jobs import JobRecord
from reasoners.peers.merges import RestructureHandler
from reasoners.peers.restructure_steps import StepHandler
from reasoners.peers.splits import SPLIT, SplitHandler
from reasoners.peers.starts import RESTRUCTURE
from resolvers.services import Services
from tests.fakes.llm import ScriptedLLM
from tests.integration.child_worker import serve

MARKER = "restructuring"


class HangAfter:
    """Lets `steps` restructuring jobs run and commit, then blocks the whole process."""

    def __init__(self, steps: int) -> None:
        self.steps = steps
        self.jobs = 0

    async def before(self, job: JobRecord) -> None:
        self.jobs += 1
        if self.jobs > self.steps:
            print(MARKER, flush=True)
            time.sleep(600)


def handlers(services: Services) -> dict[str, StepHandler]:
    pace = HangAfter(int(sys.argv[2]))
    return {
        RESTRUCTURE: RestructureHandler(
            services.db, services.settings, pace, embedder=services.embedder
        ),
        SPLIT: SplitHandler(services.db, services.settings, pace),
    }


if __name__ == "__main__":
    asyncio.run(serve(ScriptedLLM({}), handlers))
