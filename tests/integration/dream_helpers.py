"""Shared setup for dream tests: a representation filled through the real deriver, a worker,
and scripted specialists that find belief ids in their prompts."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from typing import Any

from graph.keys import Representation
from graph.repo import dream_runs, job_admin, jobs, observations
from graph.repo.observation_search import ObservationQuery
from graph.repo.sessions import MemberSettings
from reasoners.dreamer import scheduling
from reasoners.llm.interface import ChatMessage, ChatTurn, ToolCall
from reasoners.queue.worker import Worker
from resolvers.services import Services
from tests.integration.derive_helpers import make_peers, make_session, post, worker_for

_SHOWN = re.compile(r"\[obs:([0-9a-f-]+)\] \([^)]*\) (.*)")


def with_dreams(services: Services, **settings: Any) -> Services:
    """The services with dream settings changed (e.g. dream_threshold=3)."""
    return dataclasses.replace(
        services, settings=dataclasses.replace(services.settings, **settings)
    )


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


async def conversation(services: Services, workspace: str, *sessions: str) -> None:
    """alice and agent, in the given sessions; agent observes alice."""
    await make_peers(services, workspace, "alice", "agent")
    for name in sessions:
        await make_session(
            services, workspace, name, [MemberSettings("alice"), MemberSettings("agent")]
        )


async def say(services: Services, workspace: str, session: str, when: str, *lines: str) -> None:
    await post(services, workspace, session, *((("alice", line, day(when))) for line in lines))


async def derive(services: Services, workspace: str, llm: Any = None) -> Worker:
    """Flush and run every derive job (the worker runs dreams too, if any are due)."""
    worker = worker_for(services, workspace, llm)
    await job_admin.flush(services.db, workspace, None, None)
    await worker.drain()
    return worker


async def dream_now(
    services: Services, workspace: str, observer: str, observed: str, llm: Any = None
) -> None:
    await scheduling.on_demand(
        services.db, services.settings, Representation(workspace, observer, observed)
    )
    await worker_for(services, workspace, llm).drain()


async def contents(
    services: Services,
    workspace: str,
    observer: str = "agent",
    observed: str = "alice",
    **filters: Any,
) -> list[str]:
    page = await observations.list_page(
        services.db,
        workspace,
        ObservationQuery(observer, observed, **filters),
        after=None,
        limit=100,
    )
    return [o.content for o in page.items]


async def belief_id(
    services: Services, workspace: str, text: str, observer: str = "agent", observed: str = "alice"
) -> str:
    page = await observations.list_page(
        services.db,
        workspace,
        ObservationQuery(observer, observed, include_superseded=True, include_stale=True),
        after=None,
        limit=200,
    )
    (found,) = [o.id for o in page.items if text in o.content]
    return found


async def runs(
    services: Services, workspace: str, observer: str = "agent", observed: str = "alice"
) -> list[dream_runs.DreamRunRecord]:
    view = Representation(workspace, observer, observed)
    return await dream_runs.list_runs(services.db, view, before=None, limit=50)


def shown_ids(messages: list[ChatMessage]) -> dict[str, str]:
    """belief content -> id, for every [obs:<id>] a specialist was shown so far."""
    found: dict[str, str] = {}
    for message in messages:
        for match in _SHOWN.finditer(str(message.get("content") or "")):
            found[match.group(2).strip()] = match.group(1)
    return found


def id_of(messages: list[ChatMessage], text: str) -> str:
    (found,) = [i for content, i in shown_ids(messages).items() if text in content]
    return found


def call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(id=f"call-{name}", name=name, arguments=arguments)


def tool_results(messages: list[ChatMessage]) -> list[str]:
    return [str(m["content"]) for m in messages if m["role"] == "tool"]


def turn(*calls: ToolCall) -> ChatTurn:
    return ChatTurn(content=None, tool_calls=list(calls))


async def all_jobs(services: Services, workspace: str) -> list[jobs.JobRecord]:
    """The workspace's jobs, whatever their kind and status (at most 100)."""
    return await job_admin.list_jobs(
        services.db,
        workspace,
        session=None,
        peer=None,
        statuses=None,
        with_errors=False,
        limit=100,
    )
