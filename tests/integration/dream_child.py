"""A worker process for the dream crash test: its deduction specialist proposes one edit (which
is rehearsed, then rolled back), then hangs in its next model call until the test kills it.

Run as `python -m tests.integration.dream_child WORKSPACE` with BELIEFGRAPH_* settings in the
environment and the Neo4j password on stdin.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from tests.fakes.llm import ScriptedLLM
from tests.integration.child_worker import serve
from tests.integration.dream_helpers import call, id_of, tool_results, turn


def deduction(messages: Any, schema: Any) -> Any:
    if not tool_results(messages):
        lisbon = id_of(messages, "Lisbon")
        return turn(call("add_deduction", content="alice lives in Portugal.", premise_ids=[lisbon]))
    print("dreaming", flush=True)
    time.sleep(600)  # blocks the whole process, as a stuck model call would
    return "unreachable"


if __name__ == "__main__":
    asyncio.run(
        serve(ScriptedLLM({"dreamer-deduction": deduction, "dreamer-induction": ["No patterns."]}))
    )
