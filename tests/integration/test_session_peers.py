"""A session's members, listed a page at a time.

`sessionPeers` returned every window of the session at once, and the REST list of a session's
peers read every member, then each member's record in a read of its own, to show one page.
"""

from __future__ import annotations

import base64
from typing import Any

import httpx
import pytest

from graph.paging import MAX_LISTED
from graph.repo import peers, sessions
from graph.repo.sessions import MemberSettings
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
    for _ in range(100):  # a cursor that loops fails, not hangs
        got = await gql.ok(PAGE, {"w": w, "past": past, "first": first, "after": after})
        page = got["sessionPeers"]
        assert len(page) <= first
        windows += page
        if len(page) < first:
            return windows
        after = page[-1]["cursor"]
    raise AssertionError("more than 100 pages")


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


TWIN = """
MATCH (p:Peer {workspace: $w, name: 'p2'})-[r:PARTICIPATES_IN]->(s:Session {workspace: $w})
CREATE (p)-[:PARTICIPATES_IN {joined_at: r.joined_at, left_at: datetime(), observe_me: true,
                              observe_others: false}]->(s)"""


async def test_windows_of_one_peer_joined_at_one_time_page_apart(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    # A merge copies the source's windows onto the target with their times: two windows of
    # one peer with one join time had one cursor, and a page ending on the first skipped the
    # second.
    await five_members(services, workspace)
    await services.db.driver.execute_query(TWIN, {"w": workspace}, database_=services.db.database)
    whole = (await gql.ok(PAGE, {"w": workspace, "past": True}))["sessionPeers"]
    assert [m["peer"] for m in whole] == ["p0", "p1", "p2", "p2", "p3", "p4", "p1"]
    assert len({m["cursor"] for m in whole}) == 7
    for first in (1, 2, 3):
        assert await every_window(gql, workspace, past=True, first=first) == whole


async def test_a_cursor_does_not_show_the_database_id(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    # A window's element id starts with the database's id, which a client has no need to see.
    await five_members(services, workspace)
    records, _, _ = await services.db.driver.execute_query(
        "MATCH ()-[r:PARTICIPATES_IN]->(:Session {workspace: $w}) RETURN elementId(r) AS id",
        {"w": workspace},
        database_=services.db.database,
    )
    ids = [r["id"] for r in records]
    shown = {
        m["cursor"] for m in (await gql.ok(PAGE, {"w": workspace, "past": True}))["sessionPeers"]
    }
    prefixes = {i.rsplit(":", 1)[0] for i in ids if ":" in i}
    assert prefixes, ids  # this Neo4j's ids have the parts the test reads
    for cursor in shown:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        assert not any(p in text for p in prefixes), text


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


async def test_lists_longer_than_a_list_read_whole_are_refused(
    rest: httpx.AsyncClient, gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await sessions.get_or_create(services.db, workspace, "s")
    await services.db.driver.execute_query(
        FILL, {"w": workspace, "n": MAX_LISTED + 1}, database_=services.db.database
    )
    r = await rest.get(f"/workspaces/{workspace}/sessions/s/peers")
    assert r.status_code == 422, r.text
    assert "sessionPeers" in r.text
    # GraphQL's list without a page is bounded the same way; its pages are not.
    body = await gql.raw(PAGE, {"w": workspace, "past": False})
    assert body["errors"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "listed"}
    page = await gql.ok(PAGE, {"w": workspace, "past": False, "first": 100})
    assert len(page["sessionPeers"]) == 100


async def test_a_membership_changes_cursors_page_as_the_lists_do(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    # Its windows came without their ids: a page after one listed that window again.
    await five_members(services, workspace)
    changed = await gql.ok(
        """mutation($w: String!) {
          addSessionPeers(workspace: $w, session: "s", peers: [{peer: "p0"}]) { peer cursor }
        }""",
        {"w": workspace},
    )
    first = changed["addSessionPeers"][0]
    assert first["peer"] == "p0"
    after = {"w": workspace, "past": False, "first": 10, "after": first["cursor"]}
    rest = (await gql.ok(PAGE, after))["sessionPeers"]
    assert [m["peer"] for m in rest] == ["p2", "p3", "p4", "p1"]
