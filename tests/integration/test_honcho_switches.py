"""The Honcho configuration switches a session's new messages obey: `reasoning.enabled`,
`summary.enabled` and the summaries' cadence, the session's own value first, then its
workspace's (before, they were kept and returned but every message was derived and summarized
by the service's settings alone)."""

from __future__ import annotations

import httpx
import pytest

from graph.repo import jobs, messages
from graph.repo.messages import MessageFilter
from reasoners.peers import invalidation
from resolvers.services import Services
from tests.integration.derive_helpers import beliefs, flush_and_drain, worker_for

pytestmark = pytest.mark.integration


async def queued(services: Services, workspace: str, session: str) -> list[tuple[str, object]]:
    found = await jobs.list_jobs(
        services.db,
        workspace,
        session=session,
        peer=None,
        statuses=None,
        with_errors=False,
        limit=100,
    )
    return sorted((j.kind, j.payload.get("up_to_seq")) for j in found)


async def talk(rest: httpx.AsyncClient, workspace: str, session: str, config: object) -> None:
    r = await rest.post(
        f"/workspaces/{workspace}/sessions",
        json={"id": session, "peers": {"alice": {}, "bot": {}}, "configuration": config},
    )
    assert r.status_code == 201, r.text
    turns = [{"peer_id": "alice", "content": f"I have {n} bikes."} for n in range(10)]
    r = await rest.post(
        f"/workspaces/{workspace}/sessions/{session}/messages", json={"messages": turns}
    )
    assert r.status_code == 201, r.text


async def test_sessions_obey_their_own_switches_then_their_workspaces(
    services: Services,
    workspace: str,
    rest: httpx.AsyncClient,
) -> None:
    off = {"reasoning": {"enabled": False}, "summary": {"messages_per_short_summary": 10}}
    r = await rest.put(f"/workspaces/{workspace}", json={"configuration": off})
    assert r.status_code == 200, r.text

    await talk(rest, workspace, "quiet", {})
    assert await queued(services, workspace, "quiet") == [("summarize", 9)]

    await talk(
        rest, workspace, "loud", {"reasoning": {"enabled": True}, "summary": {"enabled": False}}
    )
    assert await queued(services, workspace, "loud") == [("derive", None)]

    await talk(rest, workspace, "plain", {"summary": {"messages_per_short_summary": None}})
    assert await queued(services, workspace, "plain") == [("summarize", 9)]


async def test_an_edit_in_a_session_with_reasoning_off_is_not_derived(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    await talk(rest, workspace, "quiet", {"reasoning": {"enabled": False}})
    page = await messages.list_page(
        services.db, workspace, MessageFilter(session="quiet"), after=None, limit=1
    )
    [first] = page.items
    s = services
    await invalidation.edit_message(
        s.db, s.embedder, s.tokens, s.settings, workspace, first.id, "I have a red bike."
    )
    assert [kind for kind, _ in await queued(services, workspace, "quiet")] == []


async def test_a_messages_own_reasoning_switch_wins_over_its_sessions(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    """A message's `configuration.reasoning.enabled` was checked, then dropped."""
    derived: dict[str, list[str]] = {}
    for session, default in (("loud", True), ("quiet", False)):
        r = await rest.post(
            f"/workspaces/{workspace}/sessions",
            json={
                "id": session,
                "peers": {"alice": {}},
                "configuration": {"reasoning": {"enabled": default}},
            },
        )
        assert r.status_code == 201, r.text
        turns = [
            {"peer_id": "alice", "content": "I own a kayak.", "configuration": configuration}
            for configuration in (
                None,
                {"reasoning": {"enabled": not default}},
                {"reasoning": {"enabled": None}},
            )
        ]
        r = await rest.post(
            f"/workspaces/{workspace}/sessions/{session}/messages", json={"messages": turns}
        )
        assert r.status_code == 201, r.text
        ids = [m["id"] for m in r.json()]
        found = await jobs.list_jobs(
            services.db,
            workspace,
            session=session,
            peer=None,
            statuses=None,
            with_errors=False,
            limit=100,
        )
        queued = [i for j in found if j.kind == "derive" for i in j.payload["message_ids"]]
        derived[session] = [str(ids.index(i)) for i in queued]
    assert derived == {"loud": ["0", "2"], "quiet": ["1"]}


async def test_a_peer_that_does_not_observe_itself_gets_no_view_of_itself(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    """A peer's own `observe_me: false` was kept and returned; its self-view was derived."""
    r = await rest.post(
        f"/workspaces/{workspace}/peers",
        json={"id": "alice", "configuration": {"observe_me": False}},
    )
    assert r.status_code in (200, 201), r.text
    await talk(rest, workspace, "s1", {})
    await flush_and_drain(services, workspace, worker_for(services, workspace, None))
    assert await beliefs(services, workspace, "bot", "alice")  # others still observe her
    assert await beliefs(services, workspace, "alice", "alice") == []
    r = await rest.put(
        f"/workspaces/{workspace}/peers/alice", json={"configuration": {"observe_me": None}}
    )
    assert r.status_code == 200, r.text
    await talk(rest, workspace, "s2", {})
    await flush_and_drain(services, workspace, worker_for(services, workspace, None))
    assert await beliefs(services, workspace, "alice", "alice")
