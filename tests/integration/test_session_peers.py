"""A session's members, listed a page at a time.

`sessionPeers` returned every window of the session at once, and the REST list of a session's
peers read every member, then each member's record in a read of its own, to show one page.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from graph.repo import peers, sessions
from graph.repo.sessions import MemberSettings
from resolvers.rest.paging import MAX_LISTED
from resolvers.services import Services
from tests.conftest import GraphQLClient

pytestmark = pytest.mark.integration

PAGE = """query($w: String!, $past: Boolean!, $first: Int, $after: String) {
  sessionPeers(workspace: $w, session: "s", includePast: $past, first: $first, after: $after) {
    peer leftAt cursor
  }
}"""


async def every_window(gql: GraphQLClient, w: str, *, past: bool, first: int) -> list[Any]:
    """Every window, page by page; asserts no page is larger than asked."""
    windows: list[Any] = []
    after = None
    while True:
        got = await gql.ok(PAGE, {"w": w, "past": past, "first": first, "after": after})
        page = got["sessionPeers"]
        assert len(page) <= first
        windows += page
        if len(page) < first:
            return windows
        after = page[-1]["cursor"]


async def five_members(services: Services, w: str) -> None:
    """p0..p4 joined at once (one join time: pages order them by name), then p1 left and came
    back (a past window and a later open one)."""
    names = [f"p{i}" for i in range(5)]
    for name in names:
        await peers.get_or_create(services.db, w, name)
    await sessions.get_or_create(services.db, w, "s")
    await sessions.add_peers(services.db, w, "s", [MemberSettings(n) for n in names])
    await sessions.remove_peers(services.db, w, "s", ["p1"])
    await sessions.add_peers(services.db, w, "s", [MemberSettings("p1")])


async def test_session_peers_page_by_cursor(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await five_members(services, workspace)
    whole = (await gql.ok(PAGE, {"w": workspace, "past": True}))["sessionPeers"]
    assert [(m["peer"], m["leftAt"] is None) for m in whole] == [
        ("p0", True),
        ("p1", False),
        ("p2", True),
        ("p3", True),
        ("p4", True),
        ("p1", True),
    ]
    for first in (1, 2, 4):
        assert await every_window(gql, workspace, past=True, first=first) == whole
        present = await every_window(gql, workspace, past=False, first=first)
        assert [m["peer"] for m in present] == ["p0", "p2", "p3", "p4", "p1"]

    for bad in ({"first": 0}, {"first": 101}, {"after": "not a cursor"}):
        variables = {"w": workspace, "past": True, **bad}
        assert await gql.error_code(PAGE, variables) == "INVALID_INPUT", bad
    peers_cursor = await gql.ok(
        "query($w: String!) { peers(workspace: $w, first: 1) { pageInfo { endCursor } } }",
        {"w": workspace},
    )
    other = peers_cursor["peers"]["pageInfo"]["endCursor"]
    variables = {"w": workspace, "past": True, "after": other}
    assert await gql.error_code(PAGE, variables) == "INVALID_INPUT"


async def test_rest_lists_a_sessions_peers_and_reads_one(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    await five_members(services, workspace)
    r = await rest.get(f"/workspaces/{workspace}/sessions/s/peers", params={"size": 2})
    assert r.status_code == 200, r.text
    assert [p["id"] for p in r.json()["items"]] == ["p0", "p2"]
    assert (r.json()["total"], r.json()["pages"]) == (5, 3)
    r = await rest.get(f"/workspaces/{workspace}/sessions/s/peers", params={"page": 3, "size": 2})
    assert [p["id"] for p in r.json()["items"]] == ["p1"]

    r = await rest.get(f"/workspaces/{workspace}/sessions/s/peers/p1/config")
    assert r.status_code == 200 and r.json() == {"observe_me": True, "observe_others": True}
    await sessions.remove_peers(services.db, workspace, "s", ["p1"])
    r = await rest.get(f"/workspaces/{workspace}/sessions/s/peers/p1/config")
    assert r.status_code == 404 and "not in session" in r.text, r.text


FILL = """
MATCH (s:Session {workspace: $w, name: 's'})
UNWIND range(1, $n) AS i
CREATE (p:Peer {workspace: $w, name: 'many-' + toString(i), metadata: '{}',
                configuration: '{}', meta_kv: [], created_at: datetime()})
CREATE (p)-[:PARTICIPATES_IN {joined_at: datetime(), observe_me: true,
                              observe_others: true}]->(s)"""


async def test_rest_refuses_a_peer_list_longer_than_it_lists(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    await sessions.get_or_create(services.db, workspace, "s")
    await services.db.driver.execute_query(
        FILL, {"w": workspace, "n": MAX_LISTED + 1}, database_=services.db.database
    )
    r = await rest.get(f"/workspaces/{workspace}/sessions/s/peers")
    assert r.status_code == 422, r.text
    assert "sessionPeers" in r.text
