"""The Honcho configuration switches a session's new messages obey: `reasoning.enabled`,
`summary.enabled` and the summaries' cadence, the session's own value first, then its
workspace's (before, they were kept and returned but every message was derived and summarized
by the service's settings alone)."""

from __future__ import annotations

import dataclasses
import json

import httpx
import pytest

from graph.repo import job_admin, messages
from graph.repo.jobs import JobRecord
from graph.repo.messages import MessageFilter
from reasoners.peers import invalidation
from resolvers.app import create_app
from resolvers.auth import KeyScope, Principal, issue_key
from resolvers.services import Services
from tests.fakes.llm import ScriptedLLM
from tests.integration.derive_helpers import beliefs, echo_deriver, flush_and_drain, worker_for

pytestmark = pytest.mark.integration

SECRET = "switches-secret"


async def session_jobs(services: Services, workspace: str, session: str) -> list[JobRecord]:
    return await job_admin.list_jobs(
        services.db,
        workspace,
        session=session,
        peer=None,
        statuses=None,
        with_errors=False,
        limit=100,
    )


async def queued(services: Services, workspace: str, session: str) -> list[tuple[str, object]]:
    found = await session_jobs(services, workspace, session)
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
        waiting = await queued_messages(services, workspace, session)
        derived[session] = [str(ids.index(i)) for i in waiting]
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


async def test_a_messages_own_instructions_become_its_context(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    await talk(rest, workspace, "s1", {})
    told = {"reasoning": {"custom_instructions": "A quote from a film, not her own view."}}
    url = f"/workspaces/{workspace}/sessions/s1/messages"
    turn = {"peer_id": "alice", "content": "I'll be back.", "configuration": told}
    r = await rest.post(url, json={"messages": [turn]})
    assert r.status_code == 201, r.text
    [stored] = await messages.by_ids(services.db, workspace, [r.json()[0]["id"]])
    assert stored.context == "A quote from a film, not her own view."
    long = {"reasoning": {"custom_instructions": "x" * 4001}}
    r = await rest.post(url, json={"messages": [{**turn, "configuration": long}]})
    assert r.status_code == 422 and "the limit is 4000" in r.text, r.text


async def queued_messages(services: Services, workspace: str, session: str) -> list[str]:
    found = await session_jobs(services, workspace, session)
    return [i for j in found if j.kind == "derive" for i in j.payload["message_ids"]]


async def test_an_uploads_configuration_is_checked_and_obeyed(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    """The upload read only its file, peer, metadata and time: a document sent with reasoning
    off was derived, and a configuration no client could read back was taken."""
    await talk(rest, workspace, "s1", {})
    before = await queued_messages(services, workspace, "s1")
    url = f"/workspaces/{workspace}/sessions/s1/messages/upload"
    files = {"file": ("notes.txt", b"I live in Porto. I work as a sailor.", "text/plain")}
    off = {"peer_id": "alice", "configuration": json.dumps({"reasoning": {"enabled": False}})}
    r = await rest.post(url, files=files, data=off)
    assert r.status_code == 201, r.text
    assert await queued_messages(services, workspace, "s1") == before
    bad = {"peer_id": "alice", "configuration": json.dumps({"reasoning": {"enabled": "nope"}})}
    r = await rest.post(url, files=files, data=bad)
    assert r.status_code == 422 and "reasoning.enabled" in r.text, r.text
    # null is no configuration, as in a JSON body; a file part is not one
    other = {"file": ("more.txt", b"I own a horse.", "text/plain")}
    r = await rest.post(url, files=other, data={"peer_id": "alice", "configuration": "null"})
    assert r.status_code == 201, r.text
    parts = {**other, "configuration": ("c.json", b"{}", "application/json")}
    r = await rest.post(url, files=parts, data={"peer_id": "alice"})
    assert r.status_code == 422 and "not a file" in r.text, r.text


async def test_a_peer_keys_message_cannot_turn_derivation_on_where_it_is_off(
    services: Services, workspace: str
) -> None:
    await talk_as_admin(services, workspace)
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    secured = dataclasses.replace(services, settings=settings)
    keys = {
        scope: issue_key(SECRET, Principal(scope, workspace=workspace, peer=peer))
        for scope, peer in ((KeyScope.PEER, "alice"), (KeyScope.WORKSPACE, None))
    }
    transport = httpx.ASGITransport(app=create_app(settings, secured))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1/v3") as http:
        ids = {}
        for scope, key in keys.items():
            on = {"reasoning": {"enabled": True}}
            turn = {"peer_id": "alice", "content": "I own a kayak.", "configuration": on}
            r = await http.post(
                f"/workspaces/{workspace}/sessions/quiet/messages",
                json={"messages": [turn]},
                headers={"Authorization": f"Bearer {key}"},
            )
            assert r.status_code == 201, r.text
            ids[scope] = r.json()[0]["id"]
    assert await queued_messages(services, workspace, "quiet") == [ids[KeyScope.WORKSPACE]]


async def test_a_peer_key_cannot_turn_its_observation_back_on(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    """The app set alice's `observe_me` false; alice's own key set it back to true (or, sending
    a configuration without it, to the default, true)."""
    r = await rest.post(
        f"/workspaces/{workspace}/peers",
        json={"id": "alice", "configuration": {"observe_me": False}},
    )
    assert r.status_code in (200, 201), r.text
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    secured = dataclasses.replace(services, settings=settings)
    keys = {
        scope: issue_key(SECRET, Principal(scope, workspace=workspace, peer=peer))
        for scope, peer in ((KeyScope.PEER, "alice"), (KeyScope.WORKSPACE, None))
    }
    app = create_app(settings, secured)
    transport = httpx.ASGITransport(app=app)
    peer_key = {"Authorization": f"Bearer {keys[KeyScope.PEER]}"}
    update = (
        'mutation($w: String!, $c: JSON) { updatePeer(workspace: $w, name: "alice", '
        "configuration: $c) { configuration } }"
    )
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        for config in ({"observe_me": True}, {}, {"observe_me": None}):
            put = await http.put(
                f"/v3/workspaces/{workspace}/peers/alice",
                json={"configuration": config},
                headers=peer_key,
            )
            assert put.status_code == 403, put.text
            assert "observe_me" in put.json()["detail"]
            post = await http.post(
                f"/v3/workspaces/{workspace}/peers",
                json={"id": "alice", "configuration": config},
                headers=peer_key,
            )
            assert post.status_code == 403, post.text
            gql = await http.post(
                "/graphql",
                json={"query": update, "variables": {"w": workspace, "c": config}},
                headers=peer_key,
            )
            assert gql.json()["errors"][0]["extensions"]["code"] == "FORBIDDEN", gql.text
        # Keeping it off, and changing nothing of the configuration, are the peer's to do.
        off = await http.put(
            f"/v3/workspaces/{workspace}/peers/alice",
            json={"configuration": {"observe_me": False}, "metadata": {"tz": "CET"}},
            headers=peer_key,
        )
        assert off.status_code == 200, off.text
        meta = await http.put(
            f"/v3/workspaces/{workspace}/peers/alice", json={"metadata": {}}, headers=peer_key
        )
        assert meta.status_code == 200, meta.text
        assert meta.json()["configuration"] == {"observe_me": False}
        # The app's key turns it back on.
        on = await http.put(
            f"/v3/workspaces/{workspace}/peers/alice",
            json={"configuration": {"observe_me": True}},
            headers={"Authorization": f"Bearer {keys[KeyScope.WORKSPACE]}"},
        )
        assert on.status_code == 200, on.text
        assert on.json()["configuration"] == {"observe_me": True}
        # Once on, the peer may turn it off; then only the app turns it on again.
        for config, status in (({"observe_me": True}, 200), ({"observe_me": False}, 200)):
            put = await http.put(
                f"/v3/workspaces/{workspace}/peers/alice",
                json={"configuration": config},
                headers=peer_key,
            )
            assert put.status_code == status, put.text
        again = await http.put(
            f"/v3/workspaces/{workspace}/peers/alice",
            json={"configuration": {"observe_me": True}},
            headers=peer_key,
        )
        assert again.status_code == 403, again.text


async def talk_as_admin(services: Services, workspace: str) -> None:
    """A session `quiet` with reasoning off, alice in it."""
    app = create_app(services.settings, services)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1/v3") as http:
        await talk(http, workspace, "quiet", {"reasoning": {"enabled": False}})


async def test_messages_no_view_takes_facts_from_are_not_read_by_the_model(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    """A peer that does not observe itself, alone in a session: each of its messages still
    cost a deriver call whose facts no view took."""
    alone = {"id": "alice", "configuration": {"observe_me": False}}
    assert (await rest.post(f"/workspaces/{workspace}/peers", json=alone)).status_code == 201
    r = await rest.post(
        f"/workspaces/{workspace}/sessions", json={"id": "s1", "peers": {"alice": {}}}
    )
    assert r.status_code == 201, r.text
    turns = [{"peer_id": "alice", "content": "I own a kayak."}]
    r = await rest.post(f"/workspaces/{workspace}/sessions/s1/messages", json={"messages": turns})
    assert r.status_code == 201, r.text
    llm = ScriptedLLM({"deriver": echo_deriver})
    await flush_and_drain(services, workspace, worker_for(services, workspace, llm))
    assert llm.calls_for("deriver") == []
    found = await session_jobs(services, workspace, "s1")
    assert [(j.kind, j.status) for j in found] == [("derive", "done")]


async def test_a_messages_own_switch_holds_for_its_edits(
    services: Services, workspace: str, rest: httpx.AsyncClient
) -> None:
    """It was dropped: an edit of a message sent with reasoning off derived its new text."""
    await talk(rest, workspace, "s1", {})
    turns = [
        {"peer_id": "alice", "content": "My PIN is 4321.", "configuration": {"reasoning": r}}
        for r in ({"enabled": False}, {"enabled": None})
    ]
    url = f"/workspaces/{workspace}/sessions/s1/messages"
    r = await rest.post(url, json={"messages": turns})
    assert r.status_code == 201, r.text
    quiet, plain = (m["id"] for m in r.json())
    before = await queued_messages(services, workspace, "s1")
    s = services
    for message in (quiet, plain):
        await invalidation.edit_message(
            s.db, s.embedder, s.tokens, s.settings, workspace, message, "My PIN is 9999."
        )
    after = await queued_messages(services, workspace, "s1")
    assert quiet not in before and sorted(after) == sorted([*before, plain])
