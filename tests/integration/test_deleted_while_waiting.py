"""Writes beside deletions: an update that waits on a node another transaction deletes answers
NOT_FOUND, and a write that commits after its workspace was deleted leaves nothing a new
workspace of that name shows.

The update matched the node, then waited for the deletion's lock; once the deletion committed,
the update's SET went to a node that no longer existed and returned an empty map, which failed
as INTERNAL (a KeyError reading the record)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from graph.db import Tx
from graph.errors import Conflict, NotFound
from graph.paging import encode
from graph.props import Meta
from graph.repo import peers, sessions, workspaces
from graph.repo.sessions import MemberSettings
from graph.repo.workspaces import WORKSPACES
from graph.validation import now
from reasoners.queue.deletions import resume_deletions
from resolvers.graphql.context import Context
from resolvers.graphql.schema import build_schema
from resolvers.services import Services
from tests import statements
from tests.conftest import GraphQLClient
from tests.integration.derive_helpers import make_peers, make_session, post
from tests.integration.tx_helpers import closing, while_held

pytestmark = pytest.mark.integration


async def waiting_on(
    services: Services, delete: Callable[[Tx], Awaitable[object]], update: Awaitable[object]
) -> BaseException | None:
    """Run `delete` in a transaction, start `update` (which waits for its lock), commit the
    deletion a second later: what the update raised, or None."""
    db = services.db
    async with db.driver.session(database=db.database) as session:
        tx = await session.begin_transaction()
        await delete(Tx(tx))
        waiting = asyncio.ensure_future(update)
        await asyncio.sleep(1.0)
        assert not waiting.done(), "the update waits for the deletion's lock"
        await tx.commit()
    try:
        await waiting
    except Exception as exc:
        return exc
    return None


async def test_a_peer_updated_while_deleted(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "alice")
    raised = await waiting_on(
        services,
        lambda tx: tx.rows("delete_peer", workspace=workspace, peer="alice"),
        peers.update(
            services.db,
            workspace,
            "alice",
            Meta.of({"k": 1}, None, limit=1000),
            extraction_context=None,
            set_extraction_context=False,
        ),
    )
    assert isinstance(raised, NotFound), repr(raised)


async def test_a_workspace_updated_while_deleted(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "alice")
    raised = await waiting_on(
        services,
        lambda tx: tx.rows("delete_workspace", workspace=workspace),
        workspaces.update(services.db, workspace, Meta.of({"k": 1}, None, limit=1000)),
    )
    assert isinstance(raised, NotFound), repr(raised)


async def test_a_session_updated_while_its_workspace_is_deleted(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    raised = await waiting_on(
        services,
        lambda tx: tx.rows("delete_workspace_nodes", workspace=workspace, batch=10_000),
        sessions.update(
            services.db,
            workspace,
            "s1",
            Meta.of({"k": 1}, None, limit=1000),
            active=None,
            context=None,
            set_context=False,
        ),
    )
    assert isinstance(raised, NotFound), repr(raised)


async def test_a_write_committed_after_its_workspace_went_is_not_in_a_new_one(
    services: Services, workspace: str
) -> None:
    """A session made while its workspace was deleted (it had matched the workspace first) came
    back, with its messages, when a workspace of that name was made again. The deletion's last
    sweep now waits for such a write; what commits later still is deleted when the name is made
    again."""
    await make_peers(services, workspace, "alice")
    db = services.db
    async with db.driver.session(database=db.database) as session:
        tx = await session.begin_transaction()
        props = {"workspace": workspace, "name": "late", "created_at": now()}
        await Tx(tx).rows("merge_session", props=props)
        deleting = asyncio.ensure_future(workspaces.delete(db, workspace))
        await asyncio.sleep(1.0)
        await tx.commit()
    await deleting
    left = await statements.read_one(db, "count_workspace_nodes", workspace=workspace)
    assert left == {"total": 0}
    # A write that commits after the deletion returned (here: one made by hand).
    late = {"name": "later", "workspace": workspace, "created_at": now()}
    await statements.write(db, "bench_create_sessions", workspace=workspace, sessions=[late])
    await workspaces.get_or_create(db, workspace)
    left = await statements.read_one(db, "count_workspace_nodes", workspace=workspace)
    assert left == {"total": 0}
    page = await sessions.list_page(
        db, workspace, metadata=None, active=None, peer=None, after=None, limit=10
    )
    assert page.items == []


async def test_messages_whose_sender_is_purged_meanwhile(
    services: Services, workspace: str
) -> None:
    """A batch whose sender went between the batch's check and its write failed INTERNAL."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    raised = await waiting_on(
        services,
        lambda tx: tx.rows("delete_peer", workspace=workspace, peer="alice"),
        post(services, workspace, "s1", ("alice", "I live in Paris.")),
    )
    assert isinstance(raised, NotFound), repr(raised)


async def test_messages_into_a_session_deleted_meanwhile(
    services: Services, workspace: str
) -> None:
    """The batch waited for the session's counter while its workspace was deleted, then failed
    INTERNAL (a TypeError on the counter it read back)."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    raised = await waiting_on(
        services,
        lambda tx: tx.rows("delete_workspace_nodes", workspace=workspace, batch=10_000),
        post(services, workspace, "s1", ("alice", "I live in Paris.")),
    )
    assert isinstance(raised, NotFound), repr(raised)


async def test_the_sweep_after_a_deletion_spares_a_workspace_made_again(
    services: Services, workspace: str
) -> None:
    """The deletion's last sweep deleted by name: a workspace made again under that name in the
    meantime lost what it had written."""
    db = services.db
    await make_peers(services, workspace, "alice")
    await workspaces.delete(db, workspace)
    await workspaces.get_or_create(db, workspace)  # the name made again, and written to
    await make_peers(services, workspace, "bob")
    assert await db.write_tx(lambda tx: workspaces.sweep_deleted(tx, workspace)) == 0
    assert await peers.existing(db, workspace, ["alice", "bob"]) == {"bob"}


async def test_a_session_made_while_its_workspace_is_marked_for_deletion(
    services: Services, workspace: str
) -> None:
    # A new session waits for a deletion that holds the workspace's lock, then sees its mark:
    # it was created, confirmed, and deleted with the workspace a moment later.
    async def mark(tx: Tx) -> None:
        await tx.rows("mark_workspace_deleting", workspace=workspace, now=now())

    made = while_held(services, mark, lambda: sessions.ensure(services.db, workspace, "late"))
    with pytest.raises(NotFound, match="is being deleted"):
        await made


async def test_a_rest_style_deletion_waits_for_a_session_being_made(
    services: Services, workspace: str
) -> None:
    # A deletion refused while a session is active checked before the session committed,
    # then deleted the session its maker had been told was created.
    async def make(tx: Tx) -> None:
        await tx.rows(
            "merge_session",
            props={"workspace": workspace, "name": "early", "active": True, "created_at": now()},
        )
        await tx.rows("lock_workspace", workspace=workspace)

    deletion = while_held(
        services,
        make,
        lambda: workspaces.delete(services.db, workspace, unless_active_sessions=True),
    )
    with pytest.raises(Conflict, match="has active sessions"):
        await deletion
    assert (await sessions.get(services.db, workspace, "early")).active
    assert (await workspaces.get(services.db, workspace)).name == workspace
    # The refused deletion left no mark: sessions are still made.
    assert (await sessions.ensure(services.db, workspace, "after"))[1]


async def test_a_rest_post_into_a_session_deleted_meanwhile(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    # Found open by the route, closed (REST's deletion) before the write took the session's
    # lock: the answer was GraphQL's 409, telling the app to reopen it with updateSession.
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])

    said = {
        "messages": [{"peer_id": "alice", "content": "hello"}, {"peer_id": "dora", "content": "hi"}]
    }
    url = f"/workspaces/{workspace}/sessions/s1/messages"
    answer = await while_held(services, closing(workspace, "s1"), lambda: rest.post(url, json=said))
    assert answer.status_code == 404 and "was deleted" in answer.text, answer.text
    # The sender it would have created is not left behind.
    assert await peers.existing(services.db, workspace, ["alice", "dora"]) == {"alice"}


async def test_a_post_from_a_new_peer_beside_an_add_of_it_takes_the_locks_in_order(
    rest: httpx.AsyncClient, services: Services, workspace: str
) -> None:
    """A post made its new sender before the session's lock, a membership change the other
    way round: each held what the other waited for (the diff review)."""
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    said = {"messages": [{"peer_id": "dora", "content": "hi"}]}
    db = services.db
    async with db.driver.session(database=db.database) as session:
        tx = await session.begin_transaction()
        try:
            # An add of dora, half done: the session's lock taken, dora not made yet.
            await sessions.lock(Tx(tx), workspace, "s1")
            post = asyncio.create_task(
                rest.post(f"/workspaces/{workspace}/sessions/s1/messages", json=said)
            )
            await asyncio.sleep(1.0)
            assert not post.done(), "the post waits for the session's lock"
            await asyncio.wait_for(peers.ensure_in(Tx(tx), workspace, ["dora"]), 20)
            await tx.commit()
        finally:
            if not tx.closed():
                await tx.rollback()
    answer = await post
    assert answer.status_code == 201, answer.text


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("PUT", "", {"metadata": {"k": 1}}),
        ("POST", "/peers", {"bob": {}}),
        ("POST", "/peers", {"bob": {}, "carol": {}}),  # carol does not exist
        ("PUT", "/peers", {"alice": {}}),
        ("PUT", "/peers", {"carol": {}}),
        ("DELETE", "/peers", ["alice"]),
        ("PUT", "/peers/alice/config", {"observe_me": False}),
    ],
)
async def test_a_rest_change_of_a_session_deleted_meanwhile(
    rest: httpx.AsyncClient,
    services: Services,
    workspace: str,
    method: str,
    path: str,
    body: object,
) -> None:
    """Found open by the route, deleted before the write took the session's lock: the change
    was made to the deleted session and answered; refused, it left the peers it created."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    before = await sessions.get(services.db, workspace, "s1")
    members = await sessions.list_members(services.db, workspace, "s1", include_past=True)

    url = f"/workspaces/{workspace}/sessions/s1{path}"
    answer = await while_held(
        services, closing(workspace, "s1"), lambda: rest.request(method, url, json=body)
    )
    assert answer.status_code == 404 and "was deleted" in answer.text, answer.text
    after = await sessions.get(services.db, workspace, "s1")
    assert (after.metadata, after.active) == (before.metadata, False)
    assert await sessions.list_members(services.db, workspace, "s1", include_past=True) == members
    assert await peers.existing(services.db, workspace, ["alice", "bob", "carol"]) == {
        "alice",
        "bob",
    }


async def test_a_reopen_while_its_workspace_is_marked_for_deletion(
    services: Services, workspace: str
) -> None:
    # A closed session reopened after REST's delete found no active session was deleted
    # with the workspace, active, a moment after the reopen was confirmed.
    await sessions.ensure(services.db, workspace, "s1")
    await sessions.update(
        services.db, workspace, "s1", Meta(), active=False, context=None, set_context=False
    )

    async def mark(tx: Tx) -> None:
        await tx.rows("mark_workspace_deleting", workspace=workspace, now=now())

    reopen = sessions.update(
        services.db, workspace, "s1", Meta(), active=True, context=None, set_context=False
    )
    with pytest.raises(NotFound, match="is being deleted"):
        await while_held(services, mark, lambda: reopen)


async def test_a_deletion_cut_short_refuses_new_sessions_until_a_worker_finishes_it(
    services: Services, workspace: str
) -> None:
    # A deletion whose process died left its workspace half deleted for good: beliefs served
    # as current with their messages gone, new sessions refused (probe C).
    await make_peers(services, workspace, "alice")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await post(services, workspace, "s1", ("alice", "I live in Lisbon."))
    stamp = now()
    await services.db.write("mark_workspace_deleting", workspace=workspace, now=stamp)
    with pytest.raises(NotFound, match="is being deleted"):
        await sessions.ensure(services.db, workspace, "during")
    # Renewed within its lease, it is a deletion still running: left to it.
    assert await resume_deletions(services.db, workspace=workspace) == 0
    lapsed = stamp - workspaces.DELETION_LEASE - timedelta(seconds=1)
    await services.db.write("mark_workspace_deleting", workspace=workspace, now=lapsed)
    with pytest.raises(NotFound, match="is being deleted"):
        await sessions.ensure(services.db, workspace, "still")
    # Nor messages into its sessions, nor new peers: they were answered, then deleted with it
    # once a worker took the deletion up (probe D).
    with pytest.raises(NotFound, match="is being deleted"):
        await post(services, workspace, "s1", ("alice", "I moved to Paris."))
    with pytest.raises(NotFound, match="is being deleted"):
        await peers.ensure(services.db, workspace, "carol")
    assert await resume_deletions(services.db, workspace=workspace) == 1
    with pytest.raises(NotFound):
        await workspaces.get(services.db, workspace)
    records, _, _ = await services.db.driver.execute_query(
        "MATCH (n {workspace: $w}) RETURN count(n) AS left",
        {"w": workspace},
        database_=services.db.database,
    )
    assert records[0]["left"] == 0


GONE_TO_GRAPHQL = {
    "workspace": "workspace(name: $w) { name }",
    "peers": "peers(workspace: $w) { nodes { name } }",
    "observations": 'observations(workspace: $w, observer: "alice", observed: "alice") '
    "{ nodes { id } }",
    "createWorkspace": "createWorkspace(name: $w) { name }",
    "updateWorkspace": "updateWorkspace(name: $w, metadata: {k: 1}) { name }",
    "updatePeer": 'updatePeer(workspace: $w, name: "alice", metadata: {k: 1}) { name }',
    "updateSession": 'updateSession(workspace: $w, name: "s1", metadata: {k: 1}) { name }',
    "addSessionPeers": 'addSessionPeers(workspace: $w, session: "s1", peers: [{peer: "bob"}]) '
    "{ peer }",
    "addSubPeer": 'addSubPeer(workspace: $w, parent: "alice", child: "bob") { changed }',
    "createFile": 'createFile(workspace: $w, peer: "alice", path: "a.md", content: "x") { path }',
    "setPeerCard": 'setPeerCard(workspace: $w, observer: "alice", observed: "alice", '
    'entries: ["x"]) { entries }',
    "scheduleDream": 'scheduleDream(workspace: $w, observer: "alice", observed: "alice") '
    "{ created }",
    "createKey": "createKey(workspace: $w, scope: WORKSPACE) ",
}
# Streams too: chatStream answered from what the deletion had left (probe G).
GONE_TO_STREAMS = {
    "chatStream": 'chatStream(workspace: $w, peer: "alice", query: "x") { delta }',
    "dreamEvents": 'dreamEvents(workspace: $w, observer: "alice", observed: "alice") { runNumber }',
    "queueStatus": "queueStatus(workspace: $w) { pending }",
}
GONE_TO_REST = [
    ("POST", "/workspaces", {"id": "{w}"}),
    ("POST", "/workspaces/{w}/peers/list", {}),
    ("POST", "/workspaces/{w}/sessions", {"id": "s1", "metadata": {"k": 1}}),
    ("PUT", "/workspaces/{w}/peers/alice", {"metadata": {"k": 1}}),
    ("POST", "/workspaces/{w}/sessions/s1/peers", {"bob": {}}),
    ("PUT", "/workspaces/{w}/peers/alice/card", {"peer_card": ["x"]}),
    (
        "POST",
        "/workspaces/{w}/conclusions",
        {"conclusions": [{"content": "x", "observer_id": "alice", "observed_id": "alice"}]},
    ),
]


async def test_a_workspace_being_deleted_is_gone_to_every_request_but_its_deletion(
    services: Services, workspace: str, gql: GraphQLClient, rest: httpx.AsyncClient
) -> None:
    """Files, cards, conclusions, metadata, memberships, sub-peers, dreams and keys were
    answered while a deletion ran (and for five minutes after one was cut short), then deleted
    with it; `createWorkspace` and REST's create answered with the workspace (probe E)."""
    await make_peers(services, workspace, "alice", "bob")
    await make_session(services, workspace, "s1", [MemberSettings("alice")])
    await services.db.write("mark_workspace_deleting", workspace=workspace, now=now())
    for case, field in GONE_TO_GRAPHQL.items():
        kind = "query" if case in ("workspace", "peers", "observations") else "mutation"
        body = await gql.raw(f"{kind}($w: String!) {{ {field} }}", {"w": workspace})
        [error] = body["errors"]
        assert error["extensions"]["code"] == "NOT_FOUND", (case, body)
        assert "is being deleted" in error["message"], (case, body)
    # The admin's list shows it as being deleted (probe G: listed as any other), so that a
    # deletion cut short can be found and finished.
    just_before = encode(WORKSPACES, workspace[:-1])
    listed = await gql.ok(
        "query($a: String!) { workspaces(first: 3, after: $a) { nodes { name beingDeleted } } }",
        {"a": just_before},
    )
    assert {"name": workspace, "beingDeleted": True} in listed["workspaces"]["nodes"]
    # REST's list, whose Honcho shape has no such mark, leaves it out.
    rest_list = await rest.post("/workspaces/list", json={}, params={"size": 100})
    pages = rest_list.json()["pages"]
    names = [w["id"] for w in rest_list.json()["items"]]
    for number in range(2, pages + 1):
        more = await rest.post("/workspaces/list", json={}, params={"size": 100, "page": number})
        names += [w["id"] for w in more.json()["items"]]
    assert workspace not in names and len(names) == rest_list.json()["total"]
    schema = build_schema(services.settings)
    for case, field in GONE_TO_STREAMS.items():
        document = f"subscription($w: String!) {{ {field} }}"
        stream: Any = await schema.subscribe(
            document, variable_values={"w": workspace}, context_value=Context(services, None)
        )
        first = await anext(stream)
        [failure] = first.errors
        assert isinstance(failure.original_error, NotFound), (case, failure)
        assert "is being deleted" in failure.message, (case, failure)
    for method, path, payload in GONE_TO_REST:
        sent = json.loads(json.dumps(payload).replace("{w}", workspace))
        answer = await rest.request(method, path.replace("{w}", workspace), json=sent)
        assert answer.status_code == 404 and "is being deleted" in answer.text, (path, answer.text)
    # The deletion itself is answered: it finishes what is left.
    finished = await rest.delete(f"/workspaces/{workspace}")
    assert finished.status_code == 202, finished.text
    with pytest.raises(NotFound):
        await workspaces.get(services.db, workspace)
