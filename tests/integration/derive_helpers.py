"""Shared setup for write-path tests: a workspace's conversation and a worker to process it."""

from __future__ import annotations

import re
import uuid
from datetime import datetime
from typing import Any

from graph.keys import scope_key
from graph.repo import job_admin, observations, peers, sessions
from graph.repo.observation_search import ObservationQuery
from graph.repo.sessions import MemberSettings
from graph.validation import now
from reasoners.deriver.dedup import exact_key
from reasoners.deriver.schema import DeriverOutput
from reasoners.ingest.messages import MessageInput, add_messages
from reasoners.llm.interface import ChatMessage
from reasoners.queue.worker import Worker, WorkerConfig
from resolvers.runtime import build_handlers
from resolvers.services import Services

_TARGET = re.compile(r"^\[(\d+)\] (\S+) \*TARGET\* at [^\n]*:\n((?:    .*\n?|\n)+)", re.MULTILINE)


def target_messages(messages: list[ChatMessage]) -> list[tuple[int, str, str]]:
    """(prompt index, speaker, text) of each *TARGET* message in a deriver prompt."""
    prompt = str(messages[-1]["content"])
    found = []
    for match in _TARGET.finditer(prompt):
        text = "\n".join(line[4:] for line in match.group(3).rstrip("\n").split("\n"))
        found.append((int(match.group(1)), match.group(2), text.strip()))
    return found


def echo_deriver(messages: list[ChatMessage], schema: Any) -> DeriverOutput:
    """A scripted deriver that states each target message as one fact, citing all of it."""
    return DeriverOutput.model_validate(
        {
            "observations": [
                {
                    "content": f"{peer} said: {text[:200]}",
                    "source_message_index": i,
                    "source_span": text[:200],
                }
                for i, peer, text in target_messages(messages)
            ]
        }
    )


async def make_peers(services: Services, workspace: str, *names: str) -> None:
    for name in names:
        await peers.get_or_create(services.db, workspace, name)


async def make_session(
    services: Services, workspace: str, name: str, members: list[MemberSettings]
) -> None:
    await sessions.get_or_create(services.db, workspace, name)
    if members:
        await sessions.add_peers(services.db, workspace, name, members)


async def post(
    services: Services,
    workspace: str,
    session: str,
    *turns: tuple[str, str] | tuple[str, str, datetime],
) -> None:
    """Send (peer, content[, created_at]) turns through add_messages."""
    await add_messages(
        services.db,
        services.embedder,
        services.tokens,
        services.settings,
        workspace,
        session,
        [
            MessageInput(peer=t[0], content=t[1], created_at=t[2] if len(t) == 3 else None)
            for t in turns
        ],
    )


def worker_for(
    services: Services, workspace: str, llm: Any, *, db: Any = None, **config: Any
) -> Worker:
    """A worker over `workspace` only: other tests' jobs in the shared Neo4j are not its own.
    `db`, if given, is the one the worker commits through (the handlers read services.db)."""
    handlers = build_handlers(
        services.db, services.embedder, services.tokens, llm, services.settings
    )
    return Worker(db or services.db, handlers, WorkerConfig(workspace=workspace, **config))


async def flush_and_drain(services: Services, workspace: str, worker: Worker) -> int:
    await job_admin.flush(services.db, workspace, None, None)
    return await worker.drain()


async def beliefs(services: Services, workspace: str, observer: str, observed: str) -> list[str]:
    page = await observations.list_page(
        services.db, workspace, ObservationQuery(observer, observed), after=None, limit=100
    )
    return [o.content for o in page.items]


async def observes_counts(services: Services, workspace: str) -> dict[tuple[str, str], int]:
    """What the OBSERVES edges of the workspace count."""
    rows = await services.db.read("largest_views", limit=1_000_000)
    return {
        (r["observer"], r["observed"]): int(r["beliefs"])
        for r in rows
        if r["workspace"] == workspace
    }


def stated_belief(workspace: str, content: str, **extra: Any) -> dict[str, Any]:
    """A belief of bob's about alice as an app states it (`extra`: more properties, such as its
    embedding or session)."""
    return {
        "id": str(uuid.uuid4()),
        "workspace": workspace,
        "observer": "bob",
        "observed": "alice",
        "scope_key": scope_key(workspace, "bob", "alice"),
        "content": content,
        "content_key": exact_key(content),
        "level": "explicit",
        "created_at": now(),
        **extra,
    }
