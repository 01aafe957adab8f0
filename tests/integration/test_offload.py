"""The worker's CPU-bound steps run off the event loop: `serve` runs the worker in its process,
and the zero-key dreamer's plan of a large view and the deriver's checks of a batch's facts
stalled every request on the loop for seconds (/health up to 7 s: probe E)."""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any, TypeVar

import pytest

from graph.keys import Representation
from graph.repo import job_admin
from reasoners.deriver.handler import DeriverHandler
from reasoners.dreamer import scheduling
from reasoners.dreamer.handler import DreamHandler
from reasoners.offload import off_loop
from reasoners.queue.worker import Worker, WorkerConfig
from resolvers.runtime import build_handlers
from resolvers.services import Services
from tests.integration.dream_helpers import conversation, say, with_dreams

pytestmark = pytest.mark.integration

T = TypeVar("T")


class RecordingOffload:
    """Runs work where the service does, noting the thread it ran on."""

    def __init__(self) -> None:
        self.threads: list[int] = []

    async def __call__(self, work: Callable[[], T]) -> T:
        def noted() -> T:
            self.threads.append(threading.get_ident())
            return work()

        return await off_loop(noted)


async def test_the_dreamers_plan_and_the_derivers_checks_run_off_the_loop(
    services: Services, workspace: str
) -> None:
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1")
    await say(s, workspace, "s1", "2024-01-05", "I live in Lisbon.", "I keep bees.")
    handlers: dict[str, Any] = build_handlers(s.db, s.embedder, s.tokens, None, s.settings)
    offloads = {kind: RecordingOffload() for kind in handlers}
    for kind, handler in handlers.items():
        if isinstance(handler, DeriverHandler | DreamHandler):
            handlers[kind] = dataclasses.replace(handler, offload=offloads[kind])
    worker = Worker(s.db, handlers, WorkerConfig(workspace=workspace))
    await job_admin.flush(s.db, workspace, None, None)
    await worker.drain()
    await scheduling.on_demand(s.db, s.settings, Representation(workspace, "agent", "alice"))
    await worker.drain()
    loop = threading.get_ident()
    ran = {kind: o.threads for kind, o in offloads.items() if o.threads}
    assert set(ran) == {"derive", "dream"}, ran
    assert all(t != loop for threads in ran.values() for t in threads)
