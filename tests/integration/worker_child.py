"""A worker process for the crash test: its deriver's LLM call hangs until the test kills it.

Run as `python -m tests.integration.worker_child WORKSPACE` with BELIEFGRAPH_* settings in the
environment and the Neo4j password on stdin.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.fakes.llm import ScriptedLLM
from tests.integration.child_worker import serve
from tests.integration.derive_helpers import echo_deriver


def hang(messages: Any, schema: Any) -> Any:
    print("deriving", flush=True)
    time.sleep(600)  # blocks the whole process, as a stuck model call would
    return echo_deriver(messages, schema)


if __name__ == "__main__":
    asyncio.run(serve(ScriptedLLM({"deriver": hang})))
