"""The Honcho v3 REST routes, one contract per route: status codes and response fields, in
process (httpx over ASGI), against the real graph."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from honcho.api_types import Evidence  # type: ignore[import-untyped]

from graph import validation
from graph.keys import Representation
from graph.repo import dream_writes, summaries
from reasoners.peers import invalidation
from reasoners.slots import Slots
from resolvers.app import create_app
from resolvers.auth import KeyScope, Principal, issue_key
from resolvers.services import Services
from tests import statements
from tests.conftest import GraphQLClient
from tests.pdfs import tiny_pdf

pytestmark = pytest.mark.integration

SECRET = "rest-contract-secret-" + "x" * 24
WORKSPACE_FIELDS = {"id", "metadata", "configuration", "created_at"}
PEER_FIELDS = {"id", "workspace_id", "metadata", "configuration", "created_at"}
SESSION_FIELDS = {"id", "workspace_id", "is_active", "metadata", "configuration", "created_at"}
MESSAGE_FIELDS = {
    "id",
    "content",
    "peer_id",
    "session_id",
    "workspace_id",
    "metadata",
    "created_at",
    "token_count",
}
CONCLUSION_FIELDS = {
    "id",
    "content",
    "observer_id",
    "observed_id",
    "session_id",
    "level",
    "created_at",
}
PAGE_FIELDS = {"items", "total", "page", "size", "pages"}


@pytest.fixture
async def secured(services: Services) -> AsyncIterator[httpx.AsyncClient]:
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    app = create_app(settings, dataclasses.replace(services, settings=settings))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1/v3") as http:
        yield http


def key(scope: KeyScope, workspace: str | None = None, **names: str) -> dict[str, str]:
    token = issue_key(SECRET, Principal(scope, workspace, names.get("peer"), names.get("session")))
    return {"Authorization": f"Bearer {token}"}


def fields(body: dict[str, Any], expected: set[str]) -> None:
    missing = expected - set(body)
    assert not missing, f"missing {missing} in {body}"


async def seed(rest: httpx.AsyncClient, ws: str) -> list[dict[str, Any]]:
    """Two peers in session s1 and three messages."""
    r = await rest.post(
        f"/workspaces/{ws}/sessions",
        json={"id": "s1", "peers": {"alice": {}, "bot": {"observe_me": False}}},
    )
    assert r.status_code == 201, r.text
    r = await rest.post(
        f"/workspaces/{ws}/sessions/s1/messages",
        json={
            "messages": [
                {"peer_id": "alice", "content": "I keep bees on my allotment in Leeds."},
                {"peer_id": "bot", "content": "How many hives do you have?"},
                {"peer_id": "alice", "content": "Three hives, and the honey is lovely."},
            ]
        },
    )
    assert r.status_code == 201, r.text
    created: list[dict[str, Any]] = r.json()
    return created


# --- workspaces --------------------------------------------------------------------------------


async def test_of_concurrent_get_or_creates_only_the_creator_gets_201(
    rest: httpx.AsyncClient, workspace: str
) -> None:
    """Each call looked first and created after; those that found nothing all said 201 (15 of
    20 at once for one session, in a probe of the served app)."""
    name = f"rest-{uuid.uuid4().hex[:10]}"
    await rest.post("/workspaces", json={"id": workspace})
    for path, body in (
        ("/workspaces", {"id": name}),
        (f"/workspaces/{workspace}/sessions", {"id": "sdup"}),
        (f"/workspaces/{workspace}/peers", {"id": "pdup"}),
    ):
        answers = await asyncio.gather(*[rest.post(path, json=body) for _ in range(12)])
        codes = sorted(r.status_code for r in answers)
        assert codes == [200] * 11 + [201], (path, codes)


async def test_workspace_get_or_create_update_list_delete(rest: httpx.AsyncClient) -> None:
    name = f"rest-{uuid.uuid4().hex[:10]}"
    r = await rest.post("/workspaces", json={"id": name, "metadata": {"a": 1}})
    assert r.status_code == 201
    fields(r.json(), WORKSPACE_FIELDS)
    assert r.json()["metadata"] == {"a": 1}
    again = await rest.post("/workspaces", json={"id": name, "metadata": {"a": 2}})
    assert again.status_code == 200 and again.json()["metadata"] == {"a": 1}
    r = await rest.put(f"/workspaces/{name}", json={"metadata": {"b": 2}})
    assert r.status_code == 200 and r.json()["metadata"] == {"b": 2}
    listed = await rest.post("/workspaces/list", params={"page": 1, "size": 100})
    assert listed.status_code == 200
    r = await rest.post("/workspaces/list", json={"filters": {"a": 1}})
    assert r.status_code == 422 and "no filters" in r.text
    fields(listed.json(), PAGE_FIELDS)
    await rest.post(f"/workspaces/{name}/sessions", json={"id": "live"})
    busy = await rest.delete(f"/workspaces/{name}")
    assert busy.status_code == 409 and "active sessions" in busy.json()["detail"]
    assert (await rest.delete(f"/workspaces/{name}/sessions/live")).status_code == 202
    r = await rest.delete(f"/workspaces/{name}")
    assert r.status_code == 202 and r.json() == {"message": "Workspace deletion accepted"}
    assert (await rest.put(f"/workspaces/{name}", json={})).status_code == 404


async def test_bad_bodies_are_422_with_details(rest: httpx.AsyncClient, workspace: str) -> None:
    r = await rest.post("/workspaces", json={"metadata": {}})
    assert r.status_code == 422
    assert r.json()["detail"][0]["loc"] == ["id"]
    r = await rest.post(f"/workspaces/{workspace}/peers", content=b"{not json")
    assert r.status_code == 422 and "JSON" in r.json()["detail"]
    r = await rest.post(f"/workspaces/{workspace}/peers", json={"id": "bad name!"})
    assert r.status_code == 422 and "not a valid name" in r.json()["detail"]


# --- peers -------------------------------------------------------------------------------------


async def test_configuration_a_client_cannot_read_back_is_refused(
    rest: httpx.AsyncClient, gql: GraphQLClient, services: Services, workspace: str
) -> None:
    """Stored, `reasoning.enabled: "sometimes"` made every Honcho client call naming the
    workspace fail (the client parses the workspace first), a peer's `observe_me: "yes"` every
    peer list; and no client could set it right."""
    await seed(rest, workspace)
    ws = f"/workspaces/{workspace}"
    for path, body in [
        (ws, {"configuration": {"reasoning": {"enabled": "sometimes"}}}),
        (f"{ws}/peers/alice", {"configuration": {"observe_me": "yes"}}),
        (f"{ws}/sessions/s1", {"configuration": {"summary": {"enabled": True, "x": 1}}}),
    ]:
        r = await rest.put(path, json=body)
        assert r.status_code == 422 and "configuration." in r.json()["detail"], (path, r.text)
    bad = [{"peer_id": "alice", "content": "hi", "configuration": {"reasoning": {"enabled": 2}}}]
    r = await rest.post(f"{ws}/sessions/s1/messages", json={"messages": bad})
    assert r.status_code == 422 and "messages[0]" in r.json()["detail"]
    update = """mutation($w: String!, $c: JSON) {
      updateWorkspace(name: $w, configuration: $c) { name } }"""
    refused = {"w": workspace, "c": {"dream": {"enabled": "no"}}}
    assert await gql.error_code(update, refused) == "INVALID_INPUT"
    ok = {"reasoning": {"enabled": False}, "my_app": {"anything": "goes"}}
    r = await rest.put(ws, json={"configuration": ok})
    assert r.status_code == 200 and r.json()["configuration"] == ok
    # A value stored before these checks is left out of what clients read.
    await statements.write(
        services.db,
        "set_workspace_configuration",
        workspace=workspace,
        configuration='{"reasoning": {"enabled": "sometimes"}, "my_app": 1}',
    )
    shown = await rest.post("/workspaces", json={"id": workspace})  # get-or-create: the same
    assert shown.status_code == 200
    assert shown.json()["configuration"] == {"reasoning": {}, "my_app": 1}
    # Nor is it held against an update that merges into it (the client cannot even see it).
    await statements.write(
        services.db,
        "set_session_configuration",
        workspace=workspace,
        session="s1",
        configuration='{"reasoning": {"enabled": "sometimes"}, "keep": true}',
    )
    merge = {"id": "s1", "configuration": {"summary": {"enabled": False}}}
    r = await rest.post(f"{ws}/sessions", json=merge)
    assert r.status_code == 200, r.text
    assert r.json()["configuration"] == {
        "reasoning": {},
        "keep": True,
        "summary": {"enabled": False},
    }


async def test_peer_get_or_create_update_list(rest: httpx.AsyncClient, workspace: str) -> None:
    r = await rest.post(f"/workspaces/{workspace}/peers", json={"id": "alice"})
    assert r.status_code == 201
    fields(r.json(), PEER_FIELDS)
    r = await rest.post(
        f"/workspaces/{workspace}/peers",
        json={"id": "alice", "metadata": {"x": 1}, "configuration": {"observe_me": False}},
    )
    assert r.status_code == 200
    assert r.json()["metadata"] == {"x": 1}
    assert r.json()["configuration"] == {"observe_me": False}
    r = await rest.put(f"/workspaces/{workspace}/peers/alice", json={"metadata": {"y": 2}})
    assert r.status_code == 200 and r.json()["metadata"] == {"y": 2}
    await rest.post(f"/workspaces/{workspace}/peers", json={"id": "bob"})
    r = await rest.post(f"/workspaces/{workspace}/peers/list", params={"page": 1, "size": 1})
    body = r.json()
    assert r.status_code == 200 and body["total"] == 2 and body["pages"] == 2
    assert [p["id"] for p in body["items"]] == ["alice"]  # oldest first
    r = await rest.post(
        f"/workspaces/{workspace}/peers/list",
        params={"page": 1, "size": 10, "reverse": "true"},
        json={"filters": {"metadata": {"y": 2}}},
    )
    assert [p["id"] for p in r.json()["items"]] == ["alice"]
    r = await rest.post(
        f"/workspaces/{workspace}/peers/list", json={"filters": {"token_count": {"gt": 1}}}
    )
    assert r.status_code == 422
    assert (await rest.put(f"/workspaces/{workspace}/peers/ghost", json={})).status_code == 404


async def test_implicit_workspace_creation(rest: httpx.AsyncClient) -> None:
    name = f"rest-{uuid.uuid4().hex[:10]}"
    r = await rest.post(
        f"/workspaces/{name}/sessions/s/messages",
        json={"messages": [{"peer_id": "p", "content": "hello there"}]},
    )
    assert r.status_code == 201, r.text
    assert (await rest.post("/workspaces", json={"id": name})).status_code == 200
    r = await rest.get(f"/workspaces/{name}/sessions/s/peers")
    assert [p["id"] for p in r.json()["items"]] == ["p"]


async def test_a_refused_batch_creates_nothing(rest: httpx.AsyncClient) -> None:
    """A batch refused for its content had already created the workspace, session and peers
    it named."""
    name = f"rest-{uuid.uuid4().hex[:10]}"
    nul_only = {"content": "\x00 \x00"}  # empty once its NULs are dropped, as stored
    for bad in [
        {"content": "x" * 30_000},
        {"content": "  "},
        nul_only,
        {"metadata": {"k": "v" * 20_000}},
    ]:
        r = await rest.post(
            f"/workspaces/{name}/sessions/s/messages",
            json={"messages": [{"peer_id": "p", "content": "hello", **bad}]},
        )
        assert r.status_code == 422, r.text
    assert (await rest.post("/workspaces", json={"id": name})).status_code == 201
    assert (await rest.post(f"/workspaces/{name}/sessions/list")).json()["items"] == []
    assert (await rest.post(f"/workspaces/{name}/peers/list")).json()["items"] == []


async def test_reads_of_a_missing_workspace_are_not_found_and_create_nothing(
    rest: httpx.AsyncClient, gql: GraphQLClient
) -> None:
    """Listing the peers or sessions of a misspelt workspace created it (a read that writes),
    and GraphQL's lists answered an empty page where every other read said NOT_FOUND."""
    name = f"rest-{uuid.uuid4().hex[:10]}"
    for what in ("peers", "sessions"):
        r = await rest.post(f"/workspaces/{name}/{what}/list")
        assert r.status_code == 404, r.text
    for path, body in (
        ("conclusions/list", {}),
        (
            "conclusions/query",
            {"query": "x", "filters": {"observer_id": "a", "observed_id": "b"}},
        ),
    ):
        assert (await rest.post(f"/workspaces/{name}/{path}", json=body)).status_code == 404
    # The peer's card, representation and context answered 200 with nothing in them.
    w = f"/workspaces/{name}"
    for method, path, body in (
        ("GET", f"{w}/peers/a/card", None),
        ("POST", f"{w}/peers/a/representation", {}),
        ("GET", f"{w}/peers/a/context", None),
        ("POST", f"{w}/peers/a/chat", {"query": "hi"}),
        ("POST", f"{w}/peers/a/search", {"query": "hi"}),
        ("GET", f"{w}/sessions/s/context", None),
        ("GET", f"{w}/sessions/s/summaries", None),
        ("GET", f"{w}/peers/a/members", None),
        ("GET", f"{w}/peers/a/files", None),
    ):
        r = await rest.request(method, path, json=body)
        assert (r.status_code, r.json()) == (
            404,
            {"detail": f"workspace {name!r} does not exist"},
        ), path
    for query in (
        "query($w: String!) { jobs(workspace: $w) { id } }",
        "query($w: String!) { peers(workspace: $w) { nodes { name } } }",
        "query($w: String!) { sessions(workspace: $w) { nodes { name } } }",
        "query($w: String!) { messages(workspace: $w) { nodes { id } } }",
    ):
        assert await gql.error_code(query, {"w": name}) == "NOT_FOUND", query
    assert (await rest.post("/workspaces", json={"id": name})).status_code == 201


async def test_a_deleted_or_missing_session_takes_no_change_and_creates_no_peer(
    rest: httpx.AsyncClient, workspace: str
) -> None:
    await seed(rest, workspace)
    s = f"/workspaces/{workspace}/sessions"
    r = await rest.put(f"{s}/nosuch/peers", json={"zed": {}})
    assert r.status_code == 404
    assert (await rest.post(s, json={"id": "gone"})).status_code == 201
    assert (await rest.delete(f"{s}/gone")).status_code == 202
    for r in (
        await rest.post(f"{s}/gone/peers", json={"alice": {}}),
        await rest.put(f"{s}/gone/peers", json={"alice": {}}),
        await rest.put(f"{s}/gone", json={"metadata": {"topic": "bees"}}),
        await rest.request("DELETE", f"{s}/gone/peers", json=["alice"]),
    ):
        assert r.status_code == 404 and "was deleted" in r.json()["detail"], r.text
    listed = await rest.post(f"/workspaces/{workspace}/peers/list")
    assert "zed" not in [p["id"] for p in listed.json()["items"]]
    # Listed with the rest, unless `is_active` says which (it was refused).
    everyone = (await rest.post(f"{s}/list")).json()["items"]
    assert "gone" in [x["id"] for x in everyone]
    for active, expected in ((True, False), (False, True)):
        body = {"filters": {"is_active": active}}
        found = (await rest.post(f"{s}/list", json=body)).json()["items"]
        assert ("gone" in [x["id"] for x in found]) is expected
        assert all(x["is_active"] is active for x in found)
    bad = await rest.post(f"{s}/list", json={"filters": {"is_active": "yes"}})
    assert bad.status_code == 422


# --- sessions and messages ---------------------------------------------------------------------


async def test_sessions_peers_and_configs(rest: httpx.AsyncClient, workspace: str) -> None:
    await seed(rest, workspace)
    s = f"/workspaces/{workspace}/sessions"
    r = await rest.post(s, json={"id": "s1", "configuration": {"x": {"deep": 1}}})
    assert r.status_code == 200
    fields(r.json(), SESSION_FIELDS)
    r = await rest.post(s, json={"id": "s1", "configuration": {"y": 2}})
    assert r.json()["configuration"] == {"x": {"deep": 1}, "y": 2}  # merged
    # Scopes are not served: refused, not ignored (an empty list asks for none).
    assert (await rest.post(s, json={"id": "s9", "scopes": ["team"]})).status_code == 422
    assert (await rest.post(s, json={"id": "s1", "scopes": []})).status_code == 200
    r = await rest.get(f"{s}/s1/peers")
    assert {p["id"] for p in r.json()["items"]} == {"alice", "bot"}
    r = await rest.get(f"{s}/s1/peers/bot/config")
    assert r.json() == {"observe_me": False, "observe_others": True}
    r = await rest.put(f"{s}/s1/peers/bot/config", json={"observe_others": False})
    assert r.status_code == 204 and r.content == b""
    r = await rest.get(f"{s}/s1/peers/bot/config")
    assert r.json() == {"observe_me": False, "observe_others": False}
    # Added again with no settings (the SDK's plain add_peers): a member keeps its own.
    assert (await rest.post(f"{s}/s1/peers", json={"bot": {}})).status_code == 200
    r = await rest.get(f"{s}/s1/peers/bot/config")
    assert r.json() == {"observe_me": False, "observe_others": False}
    r = await rest.post(f"{s}/s1/peers", json={"carol": {"observe_me": True}})
    assert r.status_code == 200 and r.json()["id"] == "s1"
    r = await rest.request("DELETE", f"{s}/s1/peers", json=["carol"])
    assert r.status_code == 200
    r = await rest.put(f"{s}/s1/peers", json={"alice": {}})
    r = await rest.get(f"{s}/s1/peers")
    assert [p["id"] for p in r.json()["items"]] == ["alice"]
    r = await rest.put(f"{s}/s1", json={"metadata": {"topic": "bees"}})
    assert r.json()["metadata"] == {"topic": "bees"}
    r = await rest.post(f"{s}/list", json={"filters": {"metadata": {"topic": "bees"}}})
    assert [x["id"] for x in r.json()["items"]] == ["s1"]
    r = await rest.post(f"/workspaces/{workspace}/peers/alice/sessions")
    assert [x["id"] for x in r.json()["items"]] == ["s1"]
    r = await rest.delete(f"{s}/s1")
    assert r.status_code == 202 and r.json() == {"message": "Session deleted successfully"}
    assert (await rest.post(s, json={"id": "s1"})).status_code == 404
    assert (await rest.get(f"{s}/ghost/peers/alice/config")).status_code == 404


async def test_messages_create_list_get_and_limits(rest: httpx.AsyncClient, workspace: str) -> None:
    created = await seed(rest, workspace)
    for item in created:
        fields(item, MESSAGE_FIELDS)
    assert [x["peer_id"] for x in created] == ["alice", "bot", "alice"]
    m = f"/workspaces/{workspace}/sessions/s1/messages"
    r = await rest.post(f"{m}/list", params={"page": 2, "size": 2})
    body = r.json()
    assert body["total"] == 3 and body["pages"] == 2 and len(body["items"]) == 1
    assert [x["id"] for x in body["items"]] == [created[2]["id"]]  # the batch's own order
    r = await rest.post(f"{m}/list", params={"size": 2, "reverse": "true"})
    assert [x["id"] for x in r.json()["items"]] == [created[2]["id"], created[1]["id"]]
    r = await rest.post(f"{m}/list", json={"filters": {"peer_id": "bot"}})
    assert [x["content"] for x in r.json()["items"]] == ["How many hives do you have?"]
    r = await rest.get(f"{m}/{created[0]['id']}")
    assert r.status_code == 200 and r.json()["id"] == created[0]["id"]
    assert (await rest.get(f"{m}/nope")).status_code == 404
    too_many = [{"peer_id": "alice", "content": f"m{i}"} for i in range(101)]
    r = await rest.post(m, json={"messages": too_many})
    assert r.status_code == 422 and "the limit is 100" in r.json()["detail"]
    r = await rest.post(m, json={"messages": [{"peer_id": "alice", "content": "x" * 30_000}]})
    assert r.status_code == 422 and "limit" in r.json()["detail"]


async def test_time_filters_keep_their_bounds(rest: httpx.AsyncClient, workspace: str) -> None:
    t = "2026-12-04T16:44:00.655603+00:00"
    m = f"/workspaces/{workspace}/sessions/s1/messages"
    body = {
        "messages": [
            {"peer_id": "alice", "content": "first at T", "created_at": t},
            {"peer_id": "alice", "content": "second at T", "created_at": t},
            {"peer_id": "alice", "content": "later", "created_at": "2026-12-04T17:00:00+00:00"},
        ]
    }
    assert (await rest.post(m, json=body)).status_code == 201
    for bounds, expected in [
        ({"gt": t}, ["later"]),
        ({"gte": t}, ["first at T", "second at T", "later"]),
        ({"lte": t}, ["first at T", "second at T"]),
        ({"lt": t}, []),
        ({"gte": t, "gt": t}, ["later"]),
        ({"lt": "2026-12-04T17:00:00+00:00", "lte": t}, ["first at T", "second at T"]),
        # The same instant in another offset: Neo4j ordered it after T, so gte left out the
        # messages at T and lt took them.
        ({"gte": "2026-12-04T18:44:00.655603+02:00"}, ["first at T", "second at T", "later"]),
        ({"lt": "2026-12-04T18:44:00.655603+02:00"}, []),
    ]:
        r = await rest.post(f"{m}/list", json={"filters": {"created_at": bounds}})
        assert [x["content"] for x in r.json()["items"]] == expected, bounds


async def test_three_searches(rest: httpx.AsyncClient, workspace: str) -> None:
    await seed(rest, workspace)
    body = {"query": "bees allotment", "filters": None, "limit": 5}
    for path in ("search", "sessions/s1/search", "peers/alice/search"):
        r = await rest.post(f"/workspaces/{workspace}/{path}", json=body)
        assert r.status_code == 200, r.text
        hits = r.json()
        assert isinstance(hits, list) and hits, path
        fields(hits[0], MESSAGE_FIELDS)
        assert "bees" in hits[0]["content"]
    r = await rest.post(f"/workspaces/{workspace}/peers/bot/search", json=body)
    assert all(h["peer_id"] == "bot" for h in r.json())
    r = await rest.post(f"/workspaces/{workspace}/search", json={"query": "", "limit": 5})
    assert r.status_code == 422


# --- dialectic, representation, cards and contexts ---------------------------------------------


async def test_a_session_context_budget_counts_the_messages_it_returns(
    rest: httpx.AsyncClient, workspace: str
) -> None:
    """The budget was spent on the headings, times and speakers of a rendered text this answer
    does not return: `tokens` of the last two messages' size held one of them."""
    created = await seed(rest, workspace)
    counts = [m["token_count"] for m in created]
    s = f"/workspaces/{workspace}/sessions/s1/context"
    for last, budget in ((1, counts[2]), (2, counts[1] + counts[2]), (3, sum(counts))):
        r = await rest.get(s, params={"tokens": budget, "summary": "false"})
        assert r.status_code == 200
        assert [m["id"] for m in r.json()["messages"]] == [m["id"] for m in created[-last:]]
    r = await rest.get(s, params={"tokens": counts[2] - 1, "summary": "false"})
    assert r.json()["messages"] == []


async def test_chat_json_and_stream(rest: httpx.AsyncClient, workspace: str) -> None:
    await seed(rest, workspace)
    c = f"/workspaces/{workspace}/peers/alice/chat"
    r = await rest.post(c, json={"query": "Where are the bees?", "stream": False})
    assert r.status_code == 200 and isinstance(r.json()["content"], str)
    r = await rest.post(c, json={"query": "bees?", "stream": False, "include_evidence": True})
    assert set(r.json()["evidence"]) >= {"conclusions", "messages"}
    async with rest.stream("POST", c, json={"query": "bees?", "stream": True}) as s:
        assert s.status_code == 200
        assert s.headers["content-type"].startswith("text/event-stream")
        lines = [line async for line in s.aiter_lines() if line.startswith("data:")]
    assert lines[-1] == 'data: {"done": true}'
    assert all('"done": false' in line and '"delta"' in line for line in lines[:-1])
    r = await rest.post(c, json={"query": "x", "stream": False, "reasoning_level": "huge"})
    assert r.status_code == 422
    r = await rest.post(c, json={"query": "x", "stream": True, "filters": {"peer_id": "a"}})
    assert r.status_code == 422


async def test_representation_cards_and_contexts(rest: httpx.AsyncClient, workspace: str) -> None:
    await seed(rest, workspace)
    p = f"/workspaces/{workspace}/peers"
    r = await rest.post(f"{p}/nobody/representation", json={})
    assert r.status_code == 200 and r.json() == {"representation": ""}
    r = await rest.post(
        f"/workspaces/{workspace}/conclusions",
        json={
            "conclusions": [{"content": "Keeps bees", "observer_id": "bot", "observed_id": "alice"}]
        },
    )
    assert r.status_code == 201
    r = await rest.post(f"{p}/bot/representation", json={"target": "alice"})
    text = r.json()["representation"]
    assert text.startswith("## Explicit Observations\n[") and "Keeps bees" in text
    assert (await rest.get(f"{p}/alice/card")).json() == {"peer_card": None}
    r = await rest.put(
        f"{p}/bot/card",
        params={"target": "alice"},
        json={"peer_card": ["Beekeeper", "Lives in Leeds"]},
    )
    assert r.status_code == 200 and r.json() == {"peer_card": ["Beekeeper", "Lives in Leeds"]}
    r = await rest.get(f"{p}/bot/card", params={"target": "alice"})
    assert r.json()["peer_card"] == ["Beekeeper", "Lives in Leeds"]
    # An emptied card answers as a read of it does afterwards (it answered [], reads null).
    cleared = await rest.put(f"{p}/bot/card", params={"target": "alice"}, json={"peer_card": []})
    read = await rest.get(f"{p}/bot/card", params={"target": "alice"})
    assert cleared.json() == read.json() == {"peer_card": None}
    await rest.put(
        f"{p}/bot/card",
        params={"target": "alice"},
        json={"peer_card": ["Beekeeper", "Lives in Leeds"]},
    )
    r = await rest.get(f"{p}/bot/context", params={"target": "alice"})
    body = r.json()
    assert (body["peer_id"], body["target_id"]) == ("bot", "alice")
    assert "Keeps bees" in body["representation"] and body["peer_card"][0] == "Beekeeper"
    s = f"/workspaces/{workspace}/sessions/s1"
    r = await rest.get(f"{s}/context", params={"summary": "true", "limit_to_session": "false"})
    body = r.json()
    assert r.status_code == 200 and body["id"] == "s1" and len(body["messages"]) == 3
    assert body["summary"] is None and body["peer_representation"] is None
    r = await rest.get(
        f"{s}/context",
        params={"peer_target": "alice", "peer_perspective": "bot", "tokens": 2000},
    )
    assert "Keeps bees" in r.json()["peer_representation"]
    assert r.json()["peer_card"] == ["Beekeeper", "Lives in Leeds"]
    # A search query picks beliefs; the messages stay the session's whole tail, each once.
    r = await rest.get(
        f"{s}/context",
        params={
            "peer_target": "alice",
            "peer_perspective": "bot",
            "search_query": "bees on my allotment",
        },
    )
    assert r.status_code == 200 and len(r.json()["messages"]) == 3
    r = await rest.get(f"{s}/context", params={"peer_perspective": "bot"})
    assert r.status_code == 422 and "peer_perspective needs a peer_target" in r.text
    # With sessions listed the card is left out, and takes none of the budget: it was packed
    # first, then dropped from the answer, with the messages it had crowded out.
    long_card = [f"Keeps hive number {i} on the allotment" for i in range(16)]
    await rest.put(f"{p}/bot/card", params={"target": "alice"}, json={"peer_card": long_card})
    narrowed = {"peer_target": "alice", "peer_perspective": "bot", "tokens": 160}
    r = await rest.get(f"{s}/context", params={**narrowed, "limit_to_session": "true"})
    assert r.json()["peer_card"] is None and len(r.json()["messages"]) == 3
    r = await rest.get(f"{s}/context", params={**narrowed, "limit_to_session": "false"})
    assert r.json()["peer_card"] == long_card and len(r.json()["messages"]) < 3


async def test_summaries_shape(rest: httpx.AsyncClient, services: Services, workspace: str) -> None:
    created = await seed(rest, workspace)
    r = await rest.get(f"/workspaces/{workspace}/sessions/s1/summaries")
    assert r.json() == {"id": "s1", "short_summary": None, "long_summary": None}
    await services.db.write_tx(
        lambda tx: summaries.create(
            tx, workspace, "s1", kind="short", content="Bees.", up_to_message=1, token_count=2
        )
    )
    short = (await rest.get(f"/workspaces/{workspace}/sessions/s1/summaries")).json()[
        "short_summary"
    ]
    assert set(short) == {"content", "message_id", "summary_type", "created_at", "token_count"}
    assert short["message_id"] == created[1]["id"] and short["summary_type"] == "short"
    assert isinstance(short["created_at"], str)
    # The message a summary names purged since: the last covered one left (it was "").
    await services.db.write_tx(
        lambda tx: summaries.create(
            tx, workspace, "s1", kind="long", content="Bees.", up_to_message=99, token_count=2
        )
    )
    body = (await rest.get(f"/workspaces/{workspace}/sessions/s1/summaries")).json()
    assert body["long_summary"]["message_id"] == created[-1]["id"]


# --- queue, dreams and conclusions -------------------------------------------------------------


async def test_queue_status_and_schedule_dream(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    await seed(rest, workspace)
    r = await rest.get(f"/workspaces/{workspace}/queue/status")
    body = r.json()
    fields(
        body,
        {
            "total_work_units",
            "completed_work_units",
            "in_progress_work_units",
            "pending_work_units",
        },
    )
    assert body["pending_work_units"] >= 1
    r = await rest.get(f"/workspaces/{workspace}/queue/status", params={"session_id": "s1"})
    assert r.status_code == 200
    status = f"/workspaces/{workspace}/queue/status"
    same = {"observer_id": "alice", "sender_id": "alice"}
    assert (await rest.get(status, params=same)).json() == (
        await rest.get(status, params={"sender_id": "alice"})
    ).json()
    # Two different peers: one was silently dropped (observer_id won).
    r = await rest.get(status, params={"observer_id": "alice", "sender_id": "bot"})
    assert r.status_code == 422 and "not two different peers" in r.json()["detail"]
    for empty in ("observer_id", "sender_id", "session_id"):  # answered zeros for nobody
        assert (await rest.get(status, params={empty: ""})).status_code == 422
    # Names that do not exist: their zeros read as a queue already drained.
    for params in ({"session_id": "nosuch"}, {"sender_id": "nobody"}):
        assert (await rest.get(status, params=params)).status_code == 404, params
    assert (await rest.get(f"/workspaces/{workspace}-nosuch/queue/status")).status_code == 404
    # A dead job is finished for a client polling until nothing is pending; it was counted
    # as completed with nothing to tell it from a success.
    [row] = await statements.write(
        services.db, "dead_letter_jobs", workspace=workspace, error="ValueError: scripted"
    )
    r = await rest.get(status)
    body = r.json()
    assert body["failed_work_units"] == row["dead"] >= 1 and body["pending_work_units"] == 0
    assert body["completed_work_units"] >= body["failed_work_units"]
    r = await rest.post(
        f"/workspaces/{workspace}/schedule_dream",
        json={"observer": "alice", "dream_type": "omni", "session_id": None},
    )
    assert r.status_code in (204, 400)
    if r.status_code == 204:
        assert r.content == b""
    r = await rest.post(f"/workspaces/{workspace}/schedule_dream", json={"observer": "ghost"})
    assert r.status_code == 404
    # Switches a dream would not act on were taken and ignored (204, a whole dream).
    dream = f"/workspaces/{workspace}/schedule_dream"
    for extra in ({"dream_type": "card_refresh"}, {"rebuild": True}):
        r = await rest.post(dream, json={"observer": "alice", **extra})
        assert r.status_code == 422, (extra, r.text)
    r = await rest.post(dream, json={"observer": "alice", "session_id": "nosuch"})
    assert r.status_code == 404 and "nosuch" in r.text
    r = await rest.post(dream, json={"observer": "alice", "session_id": "s1"})
    assert r.status_code in (204, 400)


async def test_conclusions_lifecycle(rest: httpx.AsyncClient, workspace: str) -> None:
    await seed(rest, workspace)
    c = f"/workspaces/{workspace}/conclusions"
    r = await rest.post(
        c,
        json={
            "conclusions": [
                {"content": "Alice keeps\x00 bees", "observer_id": "bot", "observed_id": "alice"},
                {
                    "content": "Alice lives in Leeds",
                    "observer_id": "bot",
                    "observed_id": "alice",
                    "session_id": "s1",
                },
            ]
        },
    )
    assert r.status_code == 201, r.text
    made = r.json()
    for item in made:
        fields(item, CONCLUSION_FIELDS)
        assert item["level"] == "explicit"
    scope = {"observer_id": "bot", "observed_id": "alice"}
    r = await rest.post(f"{c}/list", params={"page": 1, "size": 10}, json={"filters": scope})
    # NUL characters are dropped, as from messages; nothing but NULs is empty.
    assert [x["content"] for x in r.json()["items"]] == ["Alice lives in Leeds", "Alice keeps bees"]
    only_nul = {"content": "\x00", **scope}
    assert (await rest.post(c, json={"conclusions": [only_nul]})).status_code == 422
    r = await rest.post(f"{c}/list", json={"filters": {"id": {"in": [made[0]["id"]]}}})
    assert [x["id"] for x in r.json()["items"]] == [made[0]["id"]]
    # Ids it does not hold are left out; a workspace that does not exist is 404.
    some = {"filters": {"id": {"in": ["nosuch", made[0]["id"], "nosuch-2", made[0]["id"]]}}}
    r = await rest.post(f"{c}/list", json=some)
    assert [x["id"] for x in r.json()["items"]] == [made[0]["id"]]
    r = await rest.post("/workspaces/no-such-workspace/conclusions/list", json=some)
    assert r.status_code == 404 and "does not exist" in r.text, r.text
    r = await rest.post(f"{c}/query", json={"query": "Leeds", "top_k": 1, "filters": scope})
    assert r.status_code == 200 and r.json()[0]["content"] == "Alice lives in Leeds"
    r = await rest.post(f"{c}/query", json={"query": "Leeds", "filters": {"observer_id": "bot"}})
    assert r.status_code == 422
    r = await rest.get(f"{c}/{made[0]['id']}")
    assert r.status_code == 200 and r.json()["content"] == "Alice keeps bees"
    r = await rest.delete(f"{c}/{made[0]['id']}")
    assert r.status_code == 204 and r.content == b""
    assert (await rest.get(f"{c}/{made[0]['id']}")).status_code == 404
    assert (await rest.delete(f"{c}/{made[0]['id']}")).status_code == 404
    r = await rest.post(f"{c}/list", json={"filters": scope})
    assert [x["content"] for x in r.json()["items"]] == ["Alice lives in Leeds"]
    r = await rest.post(
        c, json={"conclusions": [{"content": "x", "observer_id": "ghost", "observed_id": "alice"}]}
    )
    assert r.status_code == 404
    # Longer than a belief may be: refused, where 9,000 characters got a 500 from the index.
    for long in ("x" * 2_001, "\ufdfa" * 400):  # the second is 7,200 characters normalized
        one = {"content": long, "observer_id": "bot", "observed_id": "alice"}
        r = await rest.post(c, json={"conclusions": [one]})
        assert r.status_code == 422 and "a belief may hold 2000" in r.text, r.text
    one = {"content": "x" * 2_000, "observer_id": "bot", "observed_id": "alice"}
    assert (await rest.post(c, json={"conclusions": [one]})).status_code in (200, 201)


async def test_filters_and_thresholds_are_applied_or_refused_never_ignored(
    rest: httpx.AsyncClient, workspace: str
) -> None:
    """Each of these answered as if it had not been sent (all levels, every session, alice's
    tree for bob, beliefs far from the query) or, for a list of levels, 500."""
    await seed(rest, workspace)
    ws = f"/workspaces/{workspace}"
    c = f"{ws}/conclusions"
    about = {"observer_id": "bot", "observed_id": "alice"}
    made = await rest.post(
        c,
        json={
            "conclusions": [
                {**about, "content": "Alice studies quantum chromodynamics"},
                {**about, "content": "Alice keeps bees on her allotment"},
            ]
        },
    )
    assert made.status_code == 201, made.text
    for level in (["explicit"], "explicit", {"in": ["explicit"]}):
        r = await rest.post(f"{c}/list", json={"filters": {**about, "level": level}})
        assert r.status_code == 200 and r.json()["total"] == 2, (level, r.text)
    r = await rest.post(f"{c}/list", json={"filters": {**about, "level": ["deductive"]}})
    assert r.json()["total"] == 0
    for level in ({"nin": ["explicit"]}, {"eq": "deductive"}, {}, [], 5, True, ["nope"]):
        r = await rest.post(f"{c}/list", json={"filters": {**about, "level": level}})
        assert r.status_code == 422 and "filters.level" in r.text, (level, r.status_code)
        r = await rest.post(
            f"{c}/query", json={"query": "bees", "filters": {**about, "level": level}}
        )
        assert r.status_code == 422, level
    for empty in ("", [], 0, False):
        r = await rest.post(
            f"{ws}/search", json={"query": "bees", "filters": {"session_id": empty}}
        )
        assert r.status_code == 422, (empty, r.text)
        r = await rest.post(f"{c}/list", json={"filters": {**about, "session_id": empty}})
        assert r.status_code == 422, (empty, r.text)
    r = await rest.post(
        f"{ws}/peers/alice/search", json={"query": "bees", "filters": {"peer_id": "bot"}}
    )
    assert r.status_code == 422 and "this peer or one of its sub-peers" in r.text
    r = await rest.post(
        f"{ws}/peers/alice/search", json={"query": "bees", "filters": {"peer_id": "alice"}}
    )
    assert r.status_code == 200 and r.json()
    # Distances (1 - cos): near 0 keeps only the same words; 1 keeps what is not opposed.
    query = {"query": "Alice keeps bees on her allotment", "top_k": 5, "filters": about}
    r = await rest.post(f"{c}/query", json={**query, "distance": 0.01})
    assert [x["content"] for x in r.json()] == ["Alice keeps bees on her allotment"]
    r = await rest.post(f"{c}/query", json={**query, "query": "cosmology", "distance": 0.01})
    assert r.json() == []
    r = await rest.post(f"{c}/query", json={**query, "distance": 1.0})
    assert "Alice keeps bees on her allotment" in [x["content"] for x in r.json()]
    # One belief: the search's best (chromodynamics) unless the threshold leaves it out, when
    # the most recent (bees) fills the place.
    one = {
        "target": "alice",
        "search_query": "quantum physics",
        "max_conclusions": 1,
        "include_most_frequent": False,
    }
    for path in ("representation", "context"):
        for limit, expected in ((None, "chromodynamics"), (0.01, "bees")):
            given = one if limit is None else {**one, "search_max_distance": limit}
            if path == "representation":
                r = await rest.post(f"{ws}/peers/bot/representation", json=given)
            else:
                r = await rest.get(
                    f"{ws}/peers/bot/context", params={**given, "include_most_frequent": "false"}
                )
            assert r.status_code == 200, r.text
            text = r.json()["representation"]
            assert expected in text and text.count("\n[") == 1, (path, limit, text)
    session = {"peer_target": "alice", "peer_perspective": "bot", "search_query": "quantum physics"}
    for limit, expected, left_out in ((None, "chromodynamics", ""), (0.01, "bees", "chromo")):
        given: dict[str, Any] = {**session, "max_conclusions": 1, "search_top_k": 1}
        if limit is not None:
            given["search_max_distance"] = limit
        r = await rest.get(f"{ws}/sessions/s1/context", params=given)
        text = r.json()["peer_representation"]
        assert expected in text and (not left_out or left_out not in text), (limit, text)


async def test_what_the_sdk_sends_is_applied_or_refused(
    rest: httpx.AsyncClient, workspace: str
) -> None:
    """Found with the Honcho SDK: `scope` on searches and session contexts, an `id` filter on a
    conclusion query and an operator in a metadata filter were dropped (every session, every
    conclusion, nothing matched); a peer's search by its own peer_id kept its sub-peers'
    messages, and by a sub-peer's was refused though they were in its answer."""
    await seed(rest, workspace)
    ws = f"/workspaces/{workspace}"
    r = await rest.post(f"{ws}/search", json={"query": "bees", "scope": "sc1"})
    assert r.status_code == 422 and "scope" in r.text
    r = await rest.get(f"{ws}/sessions/s1/context", params={"peer_target": "alice", "scope": "x"})
    assert r.status_code == 422 and "scope is not supported" in r.text
    # What chooses among a target's beliefs, given without one, was answered 200 as if unsent.
    for given in (
        {"search_query": "bees"},
        {"search_top_k": 3},
        {"max_conclusions": 2},
        {"include_most_frequent": "true"},
        {"limit_to_session": "true"},
        {"sessions": "s1"},
    ):
        r = await rest.get(f"{ws}/sessions/s1/context", params={"limit_to_session": False, **given})
        assert r.status_code == 422 and "needs a peer_target" in r.text, (given, r.text)
    plain = {"summary": "true", "limit_to_session": "false", "tokens": 100}  # what the SDK sends
    assert (await rest.get(f"{ws}/sessions/s1/context", params=plain)).status_code == 200
    about = {"observer_id": "bot", "observed_id": "alice"}
    made = await rest.post(
        f"{ws}/conclusions", json={"conclusions": [{**about, "content": "Keeps bees"}]}
    )
    ident = made.json()[0]["id"]
    r = await rest.post(
        f"{ws}/conclusions/query", json={"query": "bees", "filters": {**about, "id": ident}}
    )
    assert r.status_code == 422 and "filters.id" in r.text
    for where in ("search", "sessions/s1/messages/list"):
        body = {"query": "bees", "filters": {"metadata": {"i": {"gte": 2}}}}
        r = await rest.post(f"{ws}/{where}", json=body)
        assert r.status_code == 422 and "operators" in r.text, where
    r = await rest.post(
        f"{ws}/search", json={"query": "bees", "filters": {"metadata": {"i": {"x": 1}}}}
    )
    assert r.status_code == 200  # an object value is compared as it is

    await rest.post(f"{ws}/peers", json={"id": "kid"})
    assert (
        await rest.post(f"{ws}/peers/alice/members", json={"peer_id": "kid"})
    ).status_code == 201
    said = {"messages": [{"peer_id": "kid", "content": "I keep bees too, on the roof."}]}
    assert (await rest.post(f"{ws}/sessions/s1/messages", json=said)).status_code == 201

    async def senders(peer_id: str | None) -> set[str]:
        filters = {"peer_id": peer_id} if peer_id else None
        r = await rest.post(
            f"{ws}/peers/alice/search", json={"query": "keep bees", "filters": filters}
        )
        assert r.status_code == 200, r.text
        return {m["peer_id"] for m in r.json()}

    assert await senders(None) == {"alice", "kid"}
    assert await senders("alice") == {"alice"}
    assert await senders("kid") == {"kid"}
    r = await rest.post(
        f"{ws}/peers/alice/search", json={"query": "bees", "filters": {"peer_id": "bot"}}
    )
    assert r.status_code == 422


async def test_conclusions_carry_their_sources_and_list_what_was_derived_from_one(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    """`source_ids` was always null and its filter (the SDK's `derived`) always 422, though
    every derived belief keeps DERIVED_FROM edges to its premises."""
    await seed(rest, workspace)
    c = f"/workspaces/{workspace}/conclusions"
    about = {"observer_id": "bot", "observed_id": "alice"}
    made = (await rest.post(c, json={"conclusions": [{**about, "content": "Keeps bees"}]})).json()
    bees = made[0]["id"]
    assert made[0]["source_ids"] is None  # it rests on no other belief
    honey = dream_writes.DerivedWrite(
        str(uuid.uuid4()), "deductive", "Alice likes honey", [0.1] * 384, (bees,)
    )
    view = Representation(workspace, "bot", "alice")
    await services.db.write_tx(
        lambda tx: dream_writes.create_derived(
            tx, view, [honey], origin="dreamer:rules", now=validation.now()
        )
    )
    assert (await rest.get(f"{c}/{honey.id}")).json()["source_ids"] == [bees]
    derived = {"filters": {**about, "source_ids": {"contains": bees}}}
    listed = (await rest.post(f"{c}/list", json=derived)).json()
    assert [(x["id"], x["source_ids"]) for x in listed["items"]] == [(honey.id, [bees])]
    unknown = {"filters": {**about, "source_ids": {"contains": "no-such-id"}}}
    assert (await rest.post(f"{c}/list", json=unknown)).json()["total"] == 0
    for bad in ({"in": [bees]}, bees, {"contains": ""}):
        r = await rest.post(f"{c}/list", json={"filters": {**about, "source_ids": bad}})
        assert r.status_code == 422, bad
    both = {"filters": {"id": bees, "source_ids": {"contains": bees}}}
    assert (await rest.post(f"{c}/list", json=both)).status_code == 422
    hits = (await rest.post(f"{c}/query", json={"query": "honey", "filters": about})).json()
    assert {h["id"]: h["source_ids"] for h in hits}[honey.id] == [bees]
    # Chat evidence lists them too, never null: the SDK's Evidence refused a null (the answer
    # with evidence raised in the client).
    chat = {"query": "honey bees", "target": "alice", "include_evidence": True}
    said = (await rest.post(f"/workspaces/{workspace}/peers/bot/chat", json=chat)).json()
    evidence = Evidence.model_validate(said["evidence"])
    cited = {o.id: o.source_ids for o in evidence.conclusions}
    assert cited == {bees: [], honey.id: [bees]}, cited
    # A deleted premise is none any more: the stale belief it grounded lists no id that reads
    # as a 404 (null, as for one that rests on no other belief).
    assert (await rest.delete(f"{c}/{bees}")).status_code in (200, 204)
    assert (await rest.get(f"{c}/{honey.id}")).json()["source_ids"] is None


async def test_conclusions_list_across_representations(
    rest: httpx.AsyncClient, secured: httpx.AsyncClient, workspace: str
) -> None:
    """The SDK's workspace-wide `conclusions.list()` (and by observed peer or session alone)
    was 422: lists needed both observer_id and observed_id."""
    await seed(rest, workspace)
    c = f"/workspaces/{workspace}/conclusions"
    facts = [
        ("bot", "alice", "Alice keeps bees", "s1"),
        ("alice", "alice", "I keep three hives", None),
        ("alice", "bot", "The bot asks about hives", "s1"),
    ]
    made = await rest.post(
        c,
        json={
            "conclusions": [
                {"observer_id": o, "observed_id": d, "content": text, "session_id": s}
                for o, d, text, s in facts
            ]
        },
    )
    assert made.status_code == 201, made.text

    async def listed(filters: dict[str, Any] | None, **headers: str) -> list[str]:
        client = secured if headers else rest
        r = await client.post(f"{c}/list", json={"filters": filters}, headers=headers)
        assert r.status_code == 200, r.text
        return sorted(x["content"] for x in r.json()["items"])

    assert await listed(None) == sorted(text for *_, text, _ in facts)
    assert await listed({"observed_id": "alice"}) == ["Alice keeps bees", "I keep three hives"]
    assert await listed({"session_id": "s1"}) == ["Alice keeps bees", "The bot asks about hives"]
    assert await listed({"observer_id": "alice", "level": "deductive"}) == []
    # A peer key lists the views it may read, naming itself; the whole workspace is not one.
    bot = key(KeyScope.PEER, workspace, peer="bot")
    assert await listed({"observed_id": "bot"}, **bot) == ["The bot asks about hives"]
    r = await secured.post(f"{c}/list", json={"filters": None}, headers=bot)
    assert r.status_code == 403
    r = await secured.post(f"{c}/list", json={"filters": {"observed_id": "alice"}}, headers=bot)
    assert r.status_code == 403


async def test_a_conclusion_in_a_session_is_between_two_of_its_members(
    rest: httpx.AsyncClient, workspace: str
) -> None:
    """Any session_id was taken (one that does not exist, a name refused everywhere else, a
    session neither peer was in), and reads filtered by that session then showed the belief."""
    await seed(rest, workspace)
    ws = f"/workspaces/{workspace}"
    r = await rest.post(f"{ws}/sessions", json={"id": "s2", "peers": {"carol": {}}})
    assert r.status_code == 201
    c = f"{ws}/conclusions"
    about = {"observer_id": "bot", "observed_id": "alice", "content": "Alice keeps bees"}
    for session in ("no-such-session", "s2"):
        r = await rest.post(c, json={"conclusions": [{**about, "session_id": session}]})
        assert r.status_code == 422 and "has never been in session" in r.text, (session, r.text)
    r = await rest.post(c, json={"conclusions": [{**about, "session_id": "../../etc"}]})
    assert r.status_code == 422 and "session_id" in r.text
    r = await rest.post(c, json={"conclusions": [{**about, "session_id": "s1"}]})
    assert r.status_code == 201, r.text
    # Nothing is added to a deleted session, as no message is.
    await rest.post(f"{ws}/sessions", json={"id": "s3", "peers": {"alice": {}, "bot": {}}})
    assert (await rest.delete(f"{ws}/sessions/s3")).status_code in (200, 202, 204)
    r = await rest.post(c, json={"conclusions": [{**about, "session_id": "s3"}]})
    assert r.status_code == 404 and "was deleted" in r.text
    listed = await rest.post(
        f"{c}/list",
        json={"filters": {"observer_id": "bot", "observed_id": "alice", "session_id": "s1"}},
    )
    assert [x["content"] for x in listed.json()["items"]] == ["Alice keeps bees"]


async def test_no_key_posts_into_a_deleted_session(
    rest: httpx.AsyncClient, secured: httpx.AsyncClient, workspace: str
) -> None:
    """A member's peer key posted into a deleted session (201, stored); other keys got 404."""
    await seed(rest, workspace)
    ws = f"/workspaces/{workspace}"
    assert (await rest.delete(f"{ws}/sessions/s1")).status_code in (200, 202, 204)
    one = {"messages": [{"peer_id": "alice", "content": "Still here?"}]}
    for headers in (
        key(KeyScope.PEER, workspace, peer="alice"),
        key(KeyScope.WORKSPACE, workspace),
    ):
        r = await secured.post(f"{ws}/sessions/s1/messages", json=one, headers=headers)
        assert r.status_code == 404 and "was deleted" in r.text, r.text
    listed = await rest.post(f"{ws}/sessions/s1/messages/list")
    assert [m["content"] for m in listed.json()["items"]] == [
        "I keep bees on my allotment in Leeds.",
        "How many hives do you have?",
        "Three hives, and the honey is lovely.",
    ]


# --- sub-peers and files -----------------------------------------------------------------------


async def test_members_and_parents(
    rest: httpx.AsyncClient, secured: httpx.AsyncClient, workspace: str
) -> None:
    p = f"/workspaces/{workspace}/peers"
    for name in ("team", "ann", "ben"):
        await rest.post(p, json={"id": name, "metadata": {"secret": name}})
    assert (await rest.post(f"{p}/team/members", json={"peer_id": "ann"})).status_code == 201
    assert (await rest.post(f"{p}/team/members", json={"peer_id": "ann"})).status_code == 200
    await rest.post(f"{p}/team/members", json={"peer_id": "ben"})
    r = await rest.get(f"{p}/team/members")
    assert sorted(x["id"] for x in r.json()["items"]) == ["ann", "ben"]
    assert r.json()["items"][0]["distance"] == 1
    r = await rest.get(f"{p}/ann/parents")
    assert [x["id"] for x in r.json()["items"]] == ["team"]
    assert r.json()["items"][0]["metadata"] == {"secret": "team"}
    # ann's key is told its parent's name, not the app's metadata of a peer it may not read.
    ann = key(KeyScope.PEER, workspace, peer="ann")
    r = await secured.get(f"{p}/ann/parents", headers=ann)
    assert [(x["id"], x["metadata"]) for x in r.json()["items"]] == [("team", {})]
    r = await rest.post(f"{p}/ann/members", json={"peer_id": "team"})
    assert r.status_code == 422  # a cycle
    assert (await rest.delete(f"{p}/team/members/ann")).status_code == 204
    assert (await rest.delete(f"{p}/team/members/ann")).status_code == 404
    assert (await rest.get(f"{p}/ghost/members")).status_code == 404
    assert (await rest.get(f"{p}/ghost/parents")).status_code == 404


async def test_member_pages_cover_the_whole_list(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    """The list was read up to the aggregation limit (2,000): `total` said 2,000 of 2,005 and
    the pages past it were empty. Here the limit is 3, and the list 5 long."""
    p = f"/workspaces/{workspace}/peers"
    names = [f"m{i}" for i in range(5)]
    for name in ("hub", *names):
        await rest.post(p, json={"id": name})
    for name in names:
        assert (await rest.post(f"{p}/hub/members", json={"peer_id": name})).status_code == 201
    small = dataclasses.replace(services.settings, max_aggregation_peers=3)
    app = create_app(small, dataclasses.replace(services, settings=small))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1/v3") as capped:
        pages = [
            (await capped.get(f"{p}/hub/members", params={"size": 2, "page": n})).json()
            for n in (1, 2, 3, 4)
        ]
        assert [[x["id"] for x in page["items"]] for page in pages] == [
            ["m0", "m1"],
            ["m2", "m3"],
            ["m4"],
            [],
        ]
        assert {(page["total"], page["pages"]) for page in pages} == {(5, 3)}
        back = await capped.get(f"{p}/hub/members", params={"size": 2, "page": 1, "reverse": True})
        assert [x["id"] for x in back.json()["items"]] == ["m4", "m3"]
        reversed_pages = [
            (
                await capped.get(f"{p}/hub/members", params={"size": 2, "page": n, "reverse": True})
            ).json()
            for n in (2, 3, 4)
        ]
        assert [[x["id"] for x in page["items"]] for page in reversed_pages] == [
            ["m2", "m1"],
            ["m0"],
            [],
        ]
        assert {page["total"] for page in reversed_pages} == {5}
        up = await capped.get(f"{p}/m0/parents", params={"reverse": True})
        assert [x["id"] for x in up.json()["items"]] == ["hub"]


async def test_a_peer_past_the_aggregation_limit_is_read_at_a_smaller_depth(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    """Chat and search of a peer with more sub-peers than the aggregation limit were 422 with
    no way to read the peer alone: REST had no `depth`, and even the peer's own `peer_id`
    filter listed its sub-peers first."""
    p = f"/workspaces/{workspace}/peers"
    for name in ("hub", "m0", "m1", "m2"):
        await rest.post(p, json={"id": name})
    for name in ("m0", "m1", "m2"):
        assert (await rest.post(f"{p}/hub/members", json={"peer_id": name})).status_code == 201
    small = dataclasses.replace(services.settings, max_aggregation_peers=2)
    app = create_app(small, dataclasses.replace(services, settings=small))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1/v3") as capped:
        chat, search = f"{p}/hub/chat", f"{p}/hub/search"
        r = await capped.post(chat, json={"query": "bees?"})
        assert r.status_code == 422 and "BELIEFGRAPH_MAX_AGGREGATION_PEERS" in r.text
        assert (await capped.post(search, json={"query": "bees"})).status_code == 422
        assert (await capped.post(chat, json={"query": "bees?", "depth": 0})).status_code == 200
        for body in (
            {"query": "bees", "depth": 0},
            {"query": "bees", "filters": {"peer_id": "hub"}},
        ):
            assert (await capped.post(search, json=body)).status_code == 200, body
        r = await capped.post(search, json={"query": "x", "depth": 0, "filters": {"peer_id": "m0"}})
        assert r.status_code == 422 and "within `depth`" in r.text
        for bad in ("deep", -1, True, 1.5):  # true was read as 1
            r = await capped.post(chat, json={"query": "bees?", "depth": bad})
            assert r.status_code == 422, bad
    r = await rest.post(f"{p}/hub/search", json={"query": "x", "filters": {"peer_id": "m0"}})
    assert r.status_code == 200


async def test_peer_files(rest: httpx.AsyncClient, workspace: str) -> None:
    await rest.post(f"/workspaces/{workspace}/peers", json={"id": "ann"})
    f = f"/workspaces/{workspace}/peers/ann/files"
    r = await rest.post(f, json={"path": "notes/bees.md", "content": "# Bees\nThree hives."})
    assert r.status_code == 201 and r.json()["path"] == "notes/bees.md"
    assert (await rest.post(f, json={"path": "notes/bees.md", "content": "x"})).status_code == 409
    r = await rest.get(f"{f}/notes/bees.md")
    assert r.status_code == 200 and "Three hives" in r.json()["content"]
    r = await rest.put(f"{f}/notes/bees.md", json={"content": "Four hives."})
    assert r.json()["content"] == "Four hives."
    r = await rest.get(f)
    assert [x["path"] for x in r.json()["items"]] == ["notes/bees.md"]
    assert (await rest.delete(f"{f}/notes/bees.md")).status_code == 204
    assert (await rest.get(f"{f}/notes/bees.md")).status_code == 404
    # Numbered pages, cut where they are read: each page's files only, and the total.
    for i in range(5):
        r = await rest.post(f, json={"path": f"p{i}.md", "content": f"page {i}"})
        assert r.status_code == 201, r.text
    for query, paths in (
        ("?size=2", ["p0.md", "p1.md"]),
        ("?size=2&page=3", ["p4.md"]),
        ("?size=2&reverse=true", ["p4.md", "p3.md"]),
        ("?size=2&page=2&reverse=true", ["p2.md", "p1.md"]),
        ("?size=2&page=4", []),
    ):
        body = (await rest.get(f"{f}{query}")).json()
        assert [x["path"] for x in body["items"]] == paths, query
        assert (body["total"], body["pages"]) == (5, 3), query
    assert body["items"] == [] and body["page"] == 4
    r = await rest.get(f"/workspaces/{workspace}/peers/nobody/files")
    assert (r.status_code, r.json()["detail"]) == (
        404,
        f"peer 'nobody' does not exist in workspace '{workspace}'",
    )


# --- auth and isolation ------------------------------------------------------------------------


# Bodies that pass validation, so a refusal is the key's, not the body's.
VALID_BODIES: dict[str, dict[str, Any]] = {
    "/peers": {"id": "intruder"},
    "/sessions": {"id": "intruder"},
    "/messages": {"messages": [{"peer_id": "alice", "content": "planted"}]},
    "/messages/": {"messages": [{"peer_id": "alice", "content": "planted"}]},
    "/conclusions": {
        "conclusions": [{"content": "planted", "observer_id": "alice", "observed_id": "alice"}]
    },
    "/conclusions/list": {"filters": {"observer_id": "alice", "observed_id": "alice"}},
    "/conclusions/query": {
        "query": "bees",
        "filters": {"observer_id": "alice", "observed_id": "alice"},
    },
    "/chat": {"query": "bees"},
    "/search": {"query": "bees"},
    "/schedule_dream": {"observer": "alice", "observed": "alice"},
}


def filled(path: str, message: str) -> str | None:
    """A route's path with its parameters filled in, for workspace `other`; None if a
    parameter is unknown here."""
    for name, value in {
        "{workspace}": "{other}",
        "{session}": "s1",
        "{peer}": "alice",
        "{message}": message,
        "{message_id}": message,
        "{conclusion}": "x",
        "{child}": "bot",
        "{path:path}": "card.md",
    }.items():
        path = path.replace(name, value)
    return None if "{" in path.replace("{other}", "") else path


async def test_no_route_serves_another_workspaces_keys(
    rest: httpx.AsyncClient, secured: httpx.AsyncClient, workspace: str, other_workspace: str
) -> None:
    """Every route, asked by each non-admin key of one workspace about another, with a valid
    body or one that cannot be parsed: always 403, and nothing in the other workspace
    changes."""
    from resolvers.rest import PREFIX, routes

    await seed(rest, workspace)
    [message, *_] = await seed(rest, other_workspace)
    before = (await rest.post(f"/workspaces/{other_workspace}/sessions/s1/messages/list")).json()
    keys = [
        key(KeyScope.WORKSPACE, workspace),
        key(KeyScope.PEER, workspace, peer="alice"),
        key(KeyScope.SESSION, workspace, session="s1"),
    ]
    asked = 0
    for route in routes(lambda: None):  # type: ignore[arg-type, return-value]
        template = filled(route.path.removeprefix(PREFIX), message["id"])
        if template is None or "{rest" in route.path or "{workspace}" not in route.path:
            continue
        path = template.replace("{other}", other_workspace)
        body = next((b for end, b in VALID_BODIES.items() if path.endswith(end)), {})
        for method in sorted(route.methods - {"HEAD"}):
            for headers in keys:
                r = await secured.request(method, path, headers=headers, json=body)
                assert r.status_code == 403, (method, path, r.status_code, r.text)
                # A body that cannot be read is refused for the key too, not for the body.
                broken = {**headers, "content-type": "application/json"}
                r = await secured.request(method, path, headers=broken, content=b"{")
                assert r.status_code == 403, (method, path, r.status_code, r.text)
                asked += 1
    assert asked >= 3 * 45, asked  # every route was reached
    after = (await rest.post(f"/workspaces/{other_workspace}/sessions/s1/messages/list")).json()
    assert after == before
    peers = (await rest.post(f"/workspaces/{other_workspace}/peers/list")).json()
    assert sorted(p["id"] for p in peers["items"]) == ["alice", "bot"]


async def test_a_session_key_is_told_only_that_another_sessions_message_is_not_in_its_own(
    rest: httpx.AsyncClient, secured: httpx.AsyncClient, workspace: str
) -> None:
    """Read through its own session's path, a message of another session was 403 (so it
    exists, elsewhere), where the update of it was 404."""
    await seed(rest, workspace)
    r = await rest.post(
        f"/workspaces/{workspace}/sessions/s2/messages",
        json={"messages": [{"peer_id": "alice", "content": "in s2"}]},
    )
    assert r.status_code == 201, r.text
    elsewhere = r.json()[0]["id"]
    in_s1 = key(KeyScope.SESSION, workspace, session="s1")
    path = f"/workspaces/{workspace}/sessions/s1/messages/{elsewhere}"
    read = await secured.get(path, headers=in_s1)
    changed = await secured.put(path, json={"metadata": {"k": 1}}, headers=in_s1)
    unknown = await secured.get(f"{path}-nosuch", headers=in_s1)
    assert [r.status_code for r in (read, changed, unknown)] == [404, 404, 404]
    # In the same words (probe G: "is not in session" for one, "does not exist" for the other).
    assert read.json() == changed.json()
    assert read.text.replace(elsewhere, "ID") == unknown.text.replace(f"{elsewhere}-nosuch", "ID")
    # Through the other session's path: 403 whether or not the id exists there.
    for listed in (elsewhere, "nosuch"):
        theirs = await secured.get(
            f"/workspaces/{workspace}/sessions/s2/messages/{listed}", headers=in_s1
        )
        assert theirs.status_code == 403, theirs.text


async def test_a_peer_key_opens_its_sub_peers_messages_and_conclusions_by_id(
    rest: httpx.AsyncClient, secured: httpx.AsyncClient, workspace: str
) -> None:
    """Its aggregated reads list them; opened by id, they were "does not exist"."""
    [_, bots, *_] = await seed(rest, workspace)
    ws = f"/workspaces/{workspace}"
    assert (await rest.post(f"{ws}/peers", json={"id": "carol"})).status_code == 201
    r = await rest.post(
        f"{ws}/conclusions",
        json={
            "conclusions": [
                {"content": "Asks", "observer_id": "bot", "observed_id": "bot"},
                {"content": "Sells honey", "observer_id": "bot", "observed_id": "carol"},
            ]
        },
    )
    assert r.status_code == 201, r.text
    conclusion, outsider = (c["id"] for c in r.json())
    alice = key(KeyScope.PEER, workspace, peer="alice")
    message = f"{ws}/sessions/s1/messages/{bots['id']}"
    by_ids = {"filters": {"id": {"in": [conclusion]}}}

    async def reads() -> list[int]:
        return [
            (await secured.get(message, headers=alice)).status_code,
            (await secured.get(f"{ws}/conclusions/{conclusion}", headers=alice)).status_code,
            len(
                (await secured.post(f"{ws}/conclusions/list", json=by_ids, headers=alice)).json()[
                    "items"
                ]
            ),
        ]

    assert await reads() == [404, 404, 0]  # bot is not below alice yet
    assert (
        await rest.post(f"{ws}/peers/alice/members", json={"peer_id": "bot"})
    ).status_code == 201
    assert await reads() == [200, 200, 1]
    # A sub-peer's belief about a peer outside the key's tree is no read of it: unseen.
    r = await secured.get(f"{ws}/conclusions/{outsider}", headers=alice)
    unknown = await secured.get(f"{ws}/conclusions/no-such-id", headers=alice)
    assert r.status_code == unknown.status_code == 404
    assert r.text.replace(outsider, "ID") == unknown.text.replace("no-such-id", "ID")
    # Read, not changed: its key acts as alice only, and says so.
    r = await secured.delete(f"{ws}/conclusions/{conclusion}", headers=alice)
    assert r.status_code == 403, r.text


async def test_a_deleted_sessions_messages_take_no_new_metadata(
    rest: httpx.AsyncClient, workspace: str
) -> None:
    """Every other change of a deleted session answered 404; this one 200."""
    [first, *_] = await seed(rest, workspace)
    assert (await rest.delete(f"/workspaces/{workspace}/sessions/s1")).status_code == 202
    path = f"/workspaces/{workspace}/sessions/s1/messages/{first['id']}"
    changed = await rest.put(path, json={"metadata": {"k": 1}})
    assert changed.status_code == 404 and "was deleted" in changed.text, changed.text
    assert (await rest.get(path)).json()["metadata"] == first["metadata"]


async def test_auth_and_isolation(
    rest: httpx.AsyncClient, secured: httpx.AsyncClient, workspace: str, other_workspace: str
) -> None:
    await seed(rest, workspace)
    await seed(rest, other_workspace)
    r = await secured.post(f"/workspaces/{workspace}/peers/list")
    assert r.status_code == 401 and "API key" in r.json()["detail"]
    r = await secured.post(
        f"/workspaces/{workspace}/peers/list", headers={"Authorization": "Bearer nope"}
    )
    assert r.status_code == 401
    mine = key(KeyScope.WORKSPACE, workspace)
    assert (
        await secured.post(f"/workspaces/{workspace}/peers/list", headers=mine)
    ).status_code == 200
    for method, path in [
        ("POST", f"/workspaces/{other_workspace}/peers/list"),
        ("POST", f"/workspaces/{other_workspace}/sessions/s1/messages/list"),
        ("POST", f"/workspaces/{other_workspace}/peers/alice/representation"),
        ("GET", f"/workspaces/{other_workspace}/peers/alice/card"),
        ("POST", "/workspaces/list"),
    ]:
        r = await secured.request(method, path, headers=mine, json={})
        assert r.status_code == 403, (path, r.text)
    # An id from the other workspace is not found in this one.
    theirs = (await rest.post(f"/workspaces/{other_workspace}/sessions/s1/messages/list")).json()
    r = await secured.get(
        f"/workspaces/{workspace}/sessions/s1/messages/{theirs['items'][0]['id']}", headers=mine
    )
    assert r.status_code == 404
    alice = key(KeyScope.PEER, workspace, peer="alice")
    r = await secured.post("/workspaces", json={"id": workspace}, headers=alice)
    assert r.status_code == 200
    # Honcho clients get-or-create a session before posting into it, and a peer before posting
    # as it: a peer key in the session, a session key of a peer's session, are answered (403).
    sessions_path, peers_path = (
        f"/workspaces/{workspace}/sessions",
        f"/workspaces/{workspace}/peers",
    )
    r = await secured.post(sessions_path, json={"id": "s1"}, headers=alice)
    assert r.status_code == 200 and r.json()["id"] == "s1"
    for body in ({"id": "s1", "metadata": {"x": 1}}, {"id": "elsewhere"}):
        r = await secured.post(sessions_path, json=body, headers=alice)
        assert r.status_code == 403, body
    # Whether a name out of the key's reach exists is not told: zeros either way.
    status = f"/workspaces/{workspace}/queue/status"
    for session in ("s1", "nosuch"):
        r = await secured.get(
            status, params={"sender_id": "alice", "session_id": session}, headers=alice
        )
        assert r.status_code == 200, (session, r.text)
    r = await secured.get(status, params={"session_id": "nosuch"}, headers=mine)
    assert r.status_code == 404
    in_s1 = key(KeyScope.SESSION, workspace, session="s1")
    r = await secured.post(peers_path, json={"id": "bot"}, headers=in_s1)
    assert r.status_code == 200 and r.json()["id"] == "bot"
    # Deleting is for workspace keys, as GraphQL's deleteSession (a session key deleted its
    # session here, then reopened it through GraphQL).
    r = await secured.delete(f"/workspaces/{workspace}/sessions/s1", headers=in_s1)
    assert r.status_code == 403, r.text
    r = await rest.post(f"/workspaces/{workspace}/sessions/list", json={})
    assert {x["id"]: x["is_active"] for x in r.json()["items"]}["s1"] is True
    await rest.post(peers_path, json={"id": "stranger"})
    for body in ({"id": "bot", "metadata": {"x": 1}}, {"id": "stranger"}):
        r = await secured.post(peers_path, json=body, headers=in_s1)
        assert r.status_code == 403, body
    # Posting as a peer that does not exist created it (and joined it to the session), though
    # the same key may not create peers.
    r = await secured.post(
        f"/workspaces/{workspace}/sessions/s1/messages",
        json={"messages": [{"peer_id": "made-by-session-key", "content": "hi"}]},
        headers=in_s1,
    )
    assert r.status_code == 403, r.text
    r = await rest.get(f"{peers_path}/made-by-session-key/card")
    assert r.status_code == 404 or r.json() == {"peer_card": None}
    listed = (await rest.post(f"{peers_path}/list", json={})).json()["items"]
    assert "made-by-session-key" not in {p["id"] for p in listed}
    # Refused before anything is created: the key's session, new, is not left behind.
    fresh = key(KeyScope.SESSION, workspace, session="s-fresh")
    r = await secured.post(
        f"/workspaces/{workspace}/sessions/s-fresh/messages",
        json={"messages": [{"peer_id": "made-by-session-key", "content": "hi"}]},
        headers=fresh,
    )
    assert r.status_code == 403, r.text
    sessions_listed = (await rest.post(f"/workspaces/{workspace}/sessions/list", json={})).json()
    assert "s-fresh" not in {s["id"] for s in sessions_listed["items"]}
    r = await secured.post(
        f"/workspaces/{workspace}/peers/alice/chat",
        json={"query": "bees?", "stream": False},
        headers=alice,
    )
    assert r.status_code == 200
    r = await secured.post(
        f"/workspaces/{workspace}/peers/bot/chat",
        json={"query": "bees?", "stream": False},
        headers=alice,
    )
    assert r.status_code == 403
    r = await secured.post(
        f"/workspaces/{workspace}/sessions/s1/messages",
        json={"messages": [{"peer_id": "bot", "content": "pretending to be bot"}]},
        headers=alice,
    )
    assert r.status_code == 403
    r = await secured.put(
        f"/workspaces/{workspace}/peers/bot/card", json={"peer_card": ["x"]}, headers=alice
    )
    assert r.status_code == 403
    r = await secured.post("/workspaces", json={"id": f"new-{uuid.uuid4().hex[:8]}"}, headers=mine)
    assert r.status_code == 403
    # Conclusions: another workspace's id is not found here; a peer key states and deletes only
    # its own beliefs, though it may read those held about it.
    about = {"content": "Alice keeps bees", "observer_id": "bot", "observed_id": "alice"}
    theirs_c = (
        await rest.post(f"/workspaces/{other_workspace}/conclusions", json={"conclusions": [about]})
    ).json()[0]
    r = await secured.get(f"/workspaces/{workspace}/conclusions/{theirs_c['id']}", headers=mine)
    assert r.status_code == 404
    mine_c = (
        await rest.post(f"/workspaces/{workspace}/conclusions", json={"conclusions": [about]})
    ).json()[0]
    c = f"/workspaces/{workspace}/conclusions"
    assert (await secured.get(f"{c}/{mine_c['id']}", headers=alice)).status_code == 200
    assert (await secured.delete(f"{c}/{mine_c['id']}", headers=alice)).status_code == 403
    r = await secured.post(c, json={"conclusions": [about]}, headers=alice)
    assert r.status_code == 403
    # A key outside the belief's view is told it does not exist, as for an id that does not.
    carol = key(KeyScope.PEER, workspace, peer="carol")
    hidden = await secured.get(f"{c}/{mine_c['id']}", headers=carol)
    made_up = await secured.get(f"{c}/no-such-id", headers=carol)
    assert hidden.status_code == made_up.status_code == 404
    assert hidden.text.replace(mine_c["id"], "ID") == made_up.text.replace("no-such-id", "ID")


async def test_an_upload_sent_again_stores_nothing_twice(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    """A large upload is stored in batches; a client that lost its connection midway and sent
    it again stored every piece a second time. Once deleted, it can be uploaded again: the
    upload answered the deleted messages instead."""
    m = f"/workspaces/{workspace}/sessions/docs/messages"
    big = ("word " * 12_000).encode()  # three pieces
    form = {"peer_id": "alice"}
    first = await rest.post(f"{m}/upload", files={"file": ("b.txt", big, "text/plain")}, data=form)
    again = await rest.post(f"{m}/upload", files={"file": ("b.txt", big, "text/plain")}, data=form)
    assert first.status_code == again.status_code == 201, again.text
    assert [x["id"] for x in again.json()] == [x["id"] for x in first.json()]
    listed = await rest.post(f"{m}/list", json={})
    assert listed.json()["total"] == 3, listed.json()
    # Another peer's upload of the same text is its own.
    other = await rest.post(
        f"{m}/upload", files={"file": ("b.txt", big, "text/plain")}, data={"peer_id": "bob"}
    )
    assert (
        other.status_code == 201
        and len({x["id"] for x in other.json()} & {x["id"] for x in first.json()}) == 0
    )
    ids = [x["id"] for x in first.json()]
    await invalidation.delete_messages(
        services.db, services.embedder, services.settings, workspace, ids
    )
    anew = await rest.post(f"{m}/upload", files={"file": ("b.txt", big, "text/plain")}, data=form)
    assert anew.status_code == 201, anew.text
    assert not {x["id"] for x in anew.json()} & set(ids)
    listed = await rest.post(f"{m}/list", json={})
    assert listed.json()["total"] == 6, listed.json()


async def test_uploads_past_their_slots_are_refused_at_once(
    services: Services, workspace: str
) -> None:
    """Uploads had no bound: three at once took 2.9 GB (a 3.9 MB text took 750 MB)."""
    limited = dataclasses.replace(services, uploads=Slots(1, 0, "uploads"))
    app = create_app(limited.settings, limited)
    transport = httpx.ASGITransport(app=app)
    m = f"/workspaces/{workspace}/sessions/docs/messages/upload"
    form = {
        "files": {"file": ("notes.md", b"# Bees\n\nThree hives in Leeds.", "text/markdown")},
        "data": {"peer_id": "alice"},
    }
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1/v3") as client:
        async with limited.uploads.take():  # the one slot, taken; none may wait
            r = await client.post(m, **form)  # type: ignore[arg-type]
            assert r.status_code == 503 and "uploads are in progress" in r.json()["detail"]
        r = await client.post(m, **form)  # type: ignore[arg-type]
        assert r.status_code == 201, r.text


async def test_one_workspace_takes_one_upload_slot(
    services: Services, workspace: str, other_workspace: str, rest: httpx.AsyncClient
) -> None:
    """Two keys of one tenant keeping uploads going refused every other tenant's (the process
    reads two at once)."""
    form = {
        "files": {"file": ("notes.md", b"# Bees\n\nThree hives in Leeds.", "text/markdown")},
        "data": {"peer_id": "alice"},
    }
    busy = services.workspace_uploads.of(workspace, 1, 0, "uploads of this workspace")
    async with busy.take():  # the workspace's one slot, taken
        r = await rest.post(f"/workspaces/{workspace}/sessions/docs/messages/upload", **form)  # type: ignore[arg-type]
        assert r.status_code == 503 and "uploads of this workspace" in r.json()["detail"]
        r = await rest.post(f"/workspaces/{other_workspace}/sessions/docs/messages/upload", **form)  # type: ignore[arg-type]
        assert r.status_code == 201, r.text


async def test_requests_without_a_key_take_turns(services: Services) -> None:
    """With auth on, a dozen clients without a key, each sending a small document of unknown
    fields, kept /health waiting 16 s: nothing bounded how many were read at once."""
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    limited = dataclasses.replace(
        services, settings=settings, keyless=Slots(1, 0, "requests without a key")
    )
    transport = httpx.ASGITransport(app=create_app(settings, limited))
    health = {"query": "{ health { ok } }"}
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        async with limited.keyless.take():  # the one turn, taken; none may wait
            r = await client.post("/graphql", json=health)
            assert r.status_code == 503
            assert r.json()["errors"][0]["extensions"]["code"] == "UNAVAILABLE"
            r = await client.post("/graphql", json=health, headers=key(KeyScope.ADMIN))
            assert r.status_code == 200 and r.json()["data"]["health"]["ok"] is True
        assert (await client.post("/graphql", json=health)).status_code == 200


async def test_upload_and_message_metadata(rest: httpx.AsyncClient, workspace: str) -> None:
    m = f"/workspaces/{workspace}/sessions/docs/messages"
    r = await rest.post(
        f"{m}/upload",
        files={"file": ("notes.md", b"# Bees\n\nThree hives in Leeds.", "text/markdown")},
        data={"peer_id": "alice", "metadata": '{"source": "upload"}'},
    )
    assert r.status_code == 201, r.text
    [made] = r.json()
    assert made["peer_id"] == "alice" and made["metadata"] == {"source": "upload"}
    assert "Three hives" in made["content"]
    r = await rest.post(
        f"{m}/upload",
        files={"file": ("d.json", b'{"a": [1, 2]}', "application/json")},
        data={"peer_id": "alice"},
    )
    assert r.json()[0]["content"] == '{"a":[1,2]}'
    r = await rest.post(
        f"{m}/upload",
        files={"file": ("d.pdf", tiny_pdf("Hello from a PDF"), "application/pdf")},
        data={"peer_id": "alice"},
    )
    assert r.status_code == 201 and "Hello from a PDF" in r.json()[0]["content"]
    big = ("word " * 12_000).encode()  # 60,000 characters: three messages of at most 25,000
    r = await rest.post(
        f"{m}/upload", files={"file": ("big.txt", big, "text/plain")}, data={"peer_id": "alice"}
    )
    assert r.status_code == 201 and len(r.json()) == 3
    assert all(len(x["content"]) <= 25_000 for x in r.json())
    r = await rest.post(
        f"{m}/upload",
        files={"file": ("x.png", b"\x89PNG", "image/png")},
        data={"peer_id": "alice"},
    )
    assert r.status_code == 415
    for name, form, body in [
        ("metadata", '{"n": NaN}', b"x"),
        ("metadata", "[" * 5000 + "]" * 5000, b"x"),
        ("file", "{}", b"[" * 100_000 + b"]" * 100_000),  # deeper than the parser can go
        ("file", "{}", b'{"s": "\\ud800"}'),
    ]:
        r = await rest.post(
            f"{m}/upload",
            files={"file": ("f.json", body, "application/json")},
            data={"peer_id": "alice", "metadata": form},
        )
        assert r.status_code == 422, (name, r.text)
    r = await rest.put(f"{m}/{made['id']}", json={"metadata": {"edited": True}})
    assert r.status_code == 200 and r.json()["metadata"] == {"edited": True}
    assert r.json()["content"] == made["content"]
    assert (await rest.put(f"{m}/nope", json={"metadata": {}})).status_code == 404


async def test_an_upload_is_checked_before_its_file_is_read(
    rest: httpx.AsyncClient, secured: httpx.AsyncClient, workspace: str
) -> None:
    """A peer key posting as another peer had its PDF read (seconds of pure Python each) before
    the refusal; a malformed form (Starlette's own 400) answered 500."""
    await seed(rest, workspace)
    m = f"/workspaces/{workspace}/sessions/s1/messages"
    bob = key(KeyScope.PEER, workspace, peer="bob")
    unreadable = b"%PDF-1.4\n" + b"\0" * 1000  # pypdf cannot read it: 422 once read
    r = await secured.post(
        f"{m}/upload",
        files={"file": ("x.pdf", unreadable, "application/pdf")},
        data={"peer_id": "alice"},
        headers=bob,
    )
    assert r.status_code == 403, r.text
    # A peer key posting as itself into a session it is not in: refused before the read too
    # (it was refused only when the pieces were written, after reading and embedding them).
    assert (await rest.post(f"/workspaces/{workspace}/peers", json={"id": "carol"})).is_success
    carol = key(KeyScope.PEER, workspace, peer="carol")
    r = await secured.post(
        f"{m}/upload",
        files={"file": ("x.pdf", unreadable, "application/pdf")},
        data={"peer_id": "carol"},
        headers=carol,
    )
    assert r.status_code == 403 and "not in session" in r.json()["detail"], r.text
    r = await rest.post(
        f"{m}/upload",
        files={"file": ("x" * 5_000 + ".txt", b"hello", "text/plain")},
        data={"peer_id": "alice"},
    )
    assert r.status_code == 400 and r.json()["detail"], r.text
    many = {f"f{i}": "x" for i in range(1_001)}
    r = await rest.post(
        f"{m}/upload",
        files={"file": ("a.txt", b"hello", "text/plain")},
        data={**many, "peer_id": "alice"},
    )
    assert r.status_code == 400 and r.json()["detail"], r.text
