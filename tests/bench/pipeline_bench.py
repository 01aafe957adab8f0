"""Write-path benchmark: the deriver pipeline with the scripted LLM and with the extractive
provider, and raw embedding throughput.

- embedding: sentences/s of the sentence-transformers model at several batch sizes.
- pipeline (scripted LLM): a corpus of sessions is stored, flushed, and drained by one worker;
  the scripted deriver answers instantly with one grounded fact per message, so the time is the
  pipeline's own: loading, batching, prompting, grounding, embedding the facts, routing, dedup,
  writing and the queue. The time spent inside the LLM call is measured and subtracted to give
  the overhead per job. Baseline in the same run: embedding the same facts alone (the one cost
  the pipeline cannot avoid), as a ratio.
- pipeline (extractive): the same corpus with no LLM.

Run: ``python -m tests.bench.pipeline_bench --sessions 20 --messages 50``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shlex
import sys
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph.repo import job_admin, peers, queue_status, sessions, workspaces
from graph.repo.sessions import MemberSettings
from reasoners.deriver.handler import DeriverHandler
from reasoners.deriver.schema import DeriverOutput
from reasoners.embeddings.model import Embedder
from reasoners.ingest.messages import MessageInput, add_messages
from reasoners.llm.interface import ChatMessage
from reasoners.queue.worker import Worker, WorkerConfig
from resolvers.runtime import build_handlers
from resolvers.services import Services
from tests.bench.api_bench import ASSISTANT_TEMPLATES, USER_TEMPLATES, sentence
from tests.bench.common import DOCS, add_instance_args, machine, run_bench, table
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import echo_deriver

BOLT_PORT = 57687
HTTP_PORT = 57474


@dataclass
class TimedLLM:
    """The scripted deriver, timed: what it spends is what a real model call would replace."""

    seconds: float = 0.0
    calls: int = 0

    def __call__(self, messages: list[ChatMessage], schema: Any) -> DeriverOutput:
        start = time.perf_counter()
        answer = echo_deriver(messages, schema)
        self.seconds += time.perf_counter() - start
        self.calls += 1
        return answer


def corpus(sessions_count: int, per_session: int, seed: int) -> list[list[tuple[str, str]]]:
    rng = random.Random(seed)
    return [
        [
            ("user", sentence(rng, USER_TEMPLATES))
            if i % 2 == 0
            else ("assistant", sentence(rng, ASSISTANT_TEMPLATES))
            for i in range(per_session)
        ]
        for _ in range(sessions_count)
    ]


def embedding_throughput(
    embedder: Embedder, texts: list[str], sizes: Sequence[int]
) -> list[dict[str, float]]:
    rows = []
    embedder.embed(texts[:8])  # warm-up
    for size in sizes:
        start = time.perf_counter()
        for i in range(0, len(texts), size):
            embedder.embed(texts[i : i + size])
        seconds = time.perf_counter() - start
        rows.append({"batch": size, "sentences": len(texts), "per_second": len(texts) / seconds})
    return rows


async def load(
    services: Services, workspace: str, conversations: list[list[tuple[str, str]]]
) -> int:
    db, settings = services.db, services.settings
    await workspaces.get_or_create(db, workspace)
    for name in ("user", "assistant"):
        await peers.get_or_create(db, workspace, name)
    total = 0
    for index, turns in enumerate(conversations):
        session = f"s{index}"
        await sessions.get_or_create(db, workspace, session)
        await sessions.add_peers(
            db, workspace, session, [MemberSettings("user"), MemberSettings("assistant")]
        )
        for start in range(0, len(turns), 100):
            chunk = turns[start : start + 100]
            await add_messages(
                db,
                services.embedder,
                services.tokens,
                settings,
                workspace,
                session,
                [MessageInput(peer=p, content=c) for p, c in chunk],
            )
            total += len(chunk)
    return total


async def drain(services: Services, workspace: str, llm: Any) -> tuple[float, int, DeriverHandler]:
    handlers = build_handlers(
        services.db, services.embedder, services.tokens, llm, services.settings
    )
    worker = Worker(services.db, handlers, WorkerConfig(workspace=workspace, concurrency=2))
    await job_admin.flush(services.db, workspace, None, None)
    stop = asyncio.Event()
    start = time.perf_counter()
    task = asyncio.create_task(worker.run(stop))
    while True:
        status = await queue_status.status(services.db, workspace, None, None)
        if status.pending == 0 and status.running == 0:
            break
        await asyncio.sleep(0.05)
    seconds = time.perf_counter() - start
    stop.set()
    await task
    deriver = handlers["derive"]
    assert isinstance(deriver, DeriverHandler)
    return seconds, status.done, deriver


async def run(services: Services, args: argparse.Namespace) -> dict[str, Any]:
    conversations = corpus(args.sessions, args.messages, args.seed)
    texts = [c for turns in conversations for _, c in turns]
    report: dict[str, Any] = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine(),
        "command": "beliefgraph bench pipeline " + shlex.join(sys.argv[1:]),
        "embedding": embedding_throughput(services.embedder, texts, (1, 16, 64, 128)),
    }
    run_id = uuid.uuid4().hex[:8]
    for mode in ("scripted", "extractive"):
        workspace = f"bench-pipeline-{mode}-{run_id}"
        messages = await load(services, workspace, conversations)
        timer = TimedLLM()
        llm = (
            ScriptedLLM({"deriver": timer, "summarizer": lambda m, s: {"summary": "s"}})
            if mode == "scripted"
            else None
        )
        seconds, jobs_done, deriver = await drain(services, workspace, llm)
        facts = [f"fact about {t}" for t in texts if t]  # the baseline: embed as many facts
        start = time.perf_counter()
        for i in range(0, deriver.stats.written + deriver.stats.repeats, 64):
            services.embedder.embed(facts[i : i + 64] or ["x"])
        embed_only = time.perf_counter() - start
        report[mode] = {
            "messages": messages,
            "jobs": jobs_done,
            "seconds": seconds,
            "messages_per_second": messages / seconds,
            "observations_written": deriver.stats.written,
            "llm_seconds": timer.seconds,
            "overhead_ms_per_job": (seconds - timer.seconds) / max(jobs_done, 1) * 1000,
            "embed_only_seconds": embed_only,
            "ratio_to_embedding": seconds / embed_only if embed_only else None,
        }
        if not args.keep:
            await workspaces.delete(services.db, workspace)
    return report


def render(report: dict[str, Any]) -> str:
    m = report["machine"]
    lines = [
        "## Write path: deriver pipeline and embeddings",
        "",
        f"Measured {report['date']} on {m.get('cores')} cores, {m.get('ram_gib')} GiB "
        f"({m.get('cpu', 'unknown CPU')}), with `{report['command']}`. One worker, 2 units at "
        "once. The scripted deriver answers instantly with one grounded fact per message, so "
        "its rows show the pipeline's own cost; the baseline is embedding the same number of "
        "facts alone, in the same run.",
        "",
        table(
            ["embedding batch", "sentences/s"],
            [[str(r["batch"]), f"{r['per_second']:.0f}"] for r in report["embedding"]],
        ),
        "",
    ]
    rows = []
    for mode in ("scripted", "extractive"):
        r = report[mode]
        rows.append(
            [
                mode,
                str(r["messages"]),
                str(r["jobs"]),
                f"{r['seconds']:.1f}",
                f"{r['messages_per_second']:.1f}",
                str(r["observations_written"]),
                f"{r['overhead_ms_per_job']:.0f}",
                f"{r['embed_only_seconds']:.1f}",
                f"{r['ratio_to_embedding']:.1f}x" if r["ratio_to_embedding"] else "-",
            ]
        )
    lines.append(
        table(
            [
                "provider",
                "messages",
                "jobs",
                "seconds",
                "messages/s",
                "observations",
                "overhead ms/job (LLM time excluded)",
                "embed facts alone (s)",
                "pipeline / embedding",
            ],
            rows,
        )
    )
    return "\n".join(lines)


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="beliefgraph bench pipeline")
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--messages", type=int, default=50, help="messages per session")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--report", type=Path, default=DOCS / "BENCHMARKS.md")
    parser.add_argument("--json", type=Path, default=DOCS / "bench-pipeline.json")
    parser.add_argument("--keep", action="store_true", help="keep the bench workspaces")
    add_instance_args(parser, instance="pipeline-bench", bolt_port=BOLT_PORT, http_port=HTTP_PORT)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    return run_bench("pipeline", argv, parse, run, render)


if __name__ == "__main__":
    raise SystemExit(main())
