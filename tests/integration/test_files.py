"""Peer files on the real graph: CRUD with paths unique per peer, size limits, chunks replaced
with their file, search by meaning and down the sub-peer tree, peer cards as managed files
(and their migration from OBSERVES edges), and which keys may do what."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from graph import migrations
from graph.errors import InvalidInput, LimitExceeded
from graph.repo import members, peer_cards
from graph.schema import install_schema
from reasoners.peers.files import FileWriter, embed_missing_chunks
from reasoners.search.files import search_files
from resolvers.app import create_app
from resolvers.auth import KeyScope, Principal, issue_key
from resolvers.services import Services
from tests import statements
from tests.conftest import GraphQLClient
from tests.integration.derive_helpers import make_peers

pytestmark = pytest.mark.integration

CREATE = """mutation($w: String!, $p: String!, $path: String!, $c: String!, $m: JSON) {
  createFile(workspace: $w, peer: $p, path: $path, content: $c, metadata: $m) {
    id peer path content managedBy metadata createdAt updatedAt
  }
}"""
UPDATE = """mutation($w: String!, $p: String!, $path: String!, $c: String, $m: JSON) {
  updateFile(workspace: $w, peer: $p, path: $path, content: $c, metadata: $m) {
    path content metadata updatedAt
  }
}"""
DELETE = """mutation($w: String!, $p: String!, $path: String!) {
  deleteFile(workspace: $w, peer: $p, path: $path)
}"""
GET = """query($w: String!, $p: String!, $path: String!) {
  file(workspace: $w, peer: $p, path: $path) { path content managedBy metadata }
}"""
LIST = """query($w: String!, $p: String!, $first: Int, $after: String) {
  files(workspace: $w, peer: $p, first: $first, after: $after) {
    nodes { path } pageInfo { endCursor hasNextPage }
  }
}"""
SEARCH = """query($w: String!, $p: String!, $q: String!, $d: Depth) {
  searchFiles(workspace: $w, peer: $p, query: $q, depth: $d, limit: 5) {
    peer path chunkIndex content score vectorRank textRank
  }
}"""
SET_CARD = """mutation($w: String!, $o: String!, $d: String, $e: [String!]!) {
  setPeerCard(workspace: $w, observer: $o, observed: $d, entries: $e) { entries }
}"""
PEER_CARD = """query($w: String!, $o: String!, $d: String) {
  peerCard(workspace: $w, observer: $o, observed: $d) { entries support }
}"""

HANDBOOK = """# Team handbook

## Travel

Book trains through the shared account. Flights need a manager's approval first.

Keep every receipt; expenses are filed within thirty days of the trip.

## Health

Alice is allergic to peanuts and always carries an epinephrine pen when she eats out.
Tell the restaurant before ordering when she is with you.

## Office

The office opens at eight. The last person out switches off the coffee machine.
"""


def file_vars(workspace: str, peer: str, path: str, content: str, **more: Any) -> dict[str, Any]:
    return {"w": workspace, "p": peer, "path": path, "c": content, **more}


async def test_files_are_created_read_listed_updated_and_deleted(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    made = await gql.ok(CREATE, file_vars(workspace, "alice", "notes/todo.md", "- buy milk"))
    assert made["createFile"]["path"] == "notes/todo.md"
    assert made["createFile"]["managedBy"] is None and made["createFile"]["metadata"] == {}
    # The same path is another peer's own file; for the same peer it is a conflict.
    await gql.ok(CREATE, file_vars(workspace, "bob", "notes/todo.md", "- call alice"))
    again = file_vars(workspace, "alice", "notes/todo.md", "other")
    assert await gql.error_code(CREATE, again) == "CONFLICT"
    for path in ("a.md", "b/c.md", "z.txt"):
        await gql.ok(CREATE, file_vars(workspace, "alice", path, f"text of {path}"))

    got = await gql.ok(GET, {"w": workspace, "p": "alice", "path": "notes/todo.md"})
    assert got["file"]["content"] == "- buy milk"
    first = await gql.ok(LIST, {"w": workspace, "p": "alice", "first": 2})
    assert [n["path"] for n in first["files"]["nodes"]] == ["a.md", "b/c.md"]
    assert first["files"]["pageInfo"]["hasNextPage"] is True
    cursor = first["files"]["pageInfo"]["endCursor"]
    rest = await gql.ok(LIST, {"w": workspace, "p": "alice", "first": 5, "after": cursor})
    assert [n["path"] for n in rest["files"]["nodes"]] == ["notes/todo.md", "z.txt"]
    assert rest["files"]["pageInfo"]["hasNextPage"] is False

    updated = await gql.ok(
        UPDATE, file_vars(workspace, "alice", "notes/todo.md", "- buy oat milk", m={"k": 1})
    )
    assert updated["updateFile"]["content"] == "- buy oat milk"
    assert updated["updateFile"]["metadata"] == {"k": 1}
    meta_only = await gql.ok(
        UPDATE, {"w": workspace, "p": "alice", "path": "notes/todo.md", "m": {"k": 2}}
    )
    assert meta_only["updateFile"]["content"] == "- buy oat milk"
    nothing = {"w": workspace, "p": "alice", "path": "notes/todo.md"}
    assert await gql.error_code(UPDATE, nothing) == "INVALID_INPUT"
    missing = file_vars(workspace, "alice", "nope.md", "x")
    assert await gql.error_code(UPDATE, missing) == "NOT_FOUND"

    where = {"w": workspace, "p": "alice", "path": "notes/todo.md"}
    assert (await gql.ok(DELETE, where))["deleteFile"] is True
    assert (await gql.ok(DELETE, where))["deleteFile"] is False
    assert await gql.error_code(GET, where) == "NOT_FOUND"
    # bob's file at the same path is untouched.
    bobs = await gql.ok(GET, {**where, "p": "bob"})
    assert bobs["file"]["content"] == "- call alice"
    # A peer that does not exist has no files to write.
    assert await gql.error_code(CREATE, file_vars(workspace, "nobody", "a.md", "x")) == (
        "NOT_FOUND"
    )
    # Nor a list of files (an empty one said it had none), while a peer without files has one.
    assert await gql.error_code(LIST, {"w": workspace, "p": "nobody"}) == "NOT_FOUND"
    await make_peers(services, workspace, "carol")
    assert (await gql.ok(LIST, {"w": workspace, "p": "carol"}))["files"]["nodes"] == []


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/abs.md",
        "a//b.md",
        "../up.md",
        "a/../b.md",
        "a/./b.md",
        "dir/",
        "a\\b.md",
        "x" * 513,
        "card.md",
        "cards/bob.md",
    ],
)
async def test_bad_and_reserved_paths_are_refused(
    gql: GraphQLClient, services: Services, workspace: str, path: str
) -> None:
    await make_peers(services, workspace, "alice")
    body = await gql.raw(CREATE, file_vars(workspace, "alice", path, "x"))
    assert body["errors"][0]["extensions"]["code"] == "INVALID_INPUT", body
    assert body["errors"][0]["message"]


async def test_size_limits(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "alice", "bob", "carol")
    settings = dataclasses.replace(
        services.settings, max_file_chars=100, max_files_per_peer=2, max_metadata_bytes=50
    )
    writer = FileWriter(services.db, services.embedder, services.tokens, settings)
    # Cards others keep of alice are theirs: they neither count nor stop her own files (they
    # took her place, and a card written at the cap took her past it).
    for observer in ("alice", "bob", "carol"):
        await peer_cards.set_card(services.db, workspace, observer, "alice", ["Likes tea"])
    with pytest.raises(InvalidInput, match="BELIEFGRAPH_MAX_FILE_CHARS"):
        await writer.create(workspace, "alice", "big.md", "x" * 101)
    with pytest.raises(LimitExceeded, match=r"metadata is \d+ bytes"):
        await writer.create(workspace, "alice", "m.md", "x", {"k": "v" * 60})
    await writer.create(workspace, "alice", "one.md", "x" * 100)
    await writer.create(workspace, "alice", "two.md", "y")
    with pytest.raises(LimitExceeded, match="BELIEFGRAPH_MAX_FILES_PER_PEER"):
        await writer.create(workspace, "alice", "three.md", "z")
    with pytest.raises(InvalidInput, match="BELIEFGRAPH_MAX_FILE_CHARS"):
        await writer.update(workspace, "alice", "two.md", content="y" * 101)
    # With a cap of one, a peer with no file may make its first (the count read one file).
    one = FileWriter(
        services.db,
        services.embedder,
        services.tokens,
        dataclasses.replace(settings, max_files_per_peer=1),
    )
    await one.create(workspace, "bob", "first.md", "x")
    with pytest.raises(LimitExceeded, match="BELIEFGRAPH_MAX_FILES_PER_PEER"):
        await one.create(workspace, "bob", "second.md", "x")


async def chunks(services: Services, workspace: str, peer: str, path: str) -> dict[str, Any]:
    row = await statements.read_one(
        services.db, "count_file_chunks", workspace=workspace, peer=peer, path=path
    )
    assert row is not None
    return row


async def test_an_update_replaces_the_chunks(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice")
    await gql.ok(CREATE, file_vars(workspace, "alice", "h.md", HANDBOOK))
    before = await chunks(services, workspace, "alice", "h.md")
    assert before["chunks"] == before["embedded"] == before["counted"] == 3
    assert any("peanuts" in c for c in before["contents"])
    await gql.ok(UPDATE, file_vars(workspace, "alice", "h.md", "# Short\n\nJust one line."))
    after = await chunks(services, workspace, "alice", "h.md")
    assert after["chunks"] == after["embedded"] == after["counted"] == 1
    assert after["contents"] == ["# Short\n\nJust one line."]
    found = await gql.ok(SEARCH, {"w": workspace, "p": "alice", "q": "peanut allergy"})
    assert all("peanut" not in h["content"] for h in found["searchFiles"])


async def test_a_paragraph_is_found_by_meaning(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice")
    await gql.ok(CREATE, file_vars(workspace, "alice", "handbook.md", HANDBOOK))
    await gql.ok(CREATE, file_vars(workspace, "alice", "pets.md", "# Pets\n\nRex is a dog."))
    found = await gql.ok(
        SEARCH, {"w": workspace, "p": "alice", "q": "nut reaction emergency injection"}
    )
    top = found["searchFiles"][0]
    assert top["path"] == "handbook.md" and top["peer"] == "alice"
    assert top["chunkIndex"] == 1 and "epinephrine" in top["content"]
    assert top["content"].startswith("# Team handbook > ## Health")
    assert top["vectorRank"] == 1
    # Words find it too, through the fulltext half.
    by_words = await gql.ok(SEARCH, {"w": workspace, "p": "alice", "q": "epinephrine"})
    assert by_words["searchFiles"][0]["textRank"] == 1
    # The reasoner-level function the dialectic uses answers the same.
    hits = await search_files(
        services.db, services.embedder, workspace, ["alice"], "peanut allergy", 3
    )
    assert hits[0].item.path == "handbook.md" and hits[0].item.index == 1


async def test_depth_aggregates_sub_peers_files_and_never_parents(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "alice-dm", "carol")
    await members.add(services.db, workspace, "alice", "alice-dm", max_depth=10)
    await gql.ok(CREATE, file_vars(workspace, "alice", "a.md", "Alice likes sailing boats."))
    await gql.ok(
        CREATE, file_vars(workspace, "alice-dm", "dm.md", "In private Alice plays the cello.")
    )
    await gql.ok(CREATE, file_vars(workspace, "carol", "c.md", "Carol plays the cello too."))
    q = "which instrument is played"

    async def seen(peer: str, depth: int) -> set[tuple[str, str]]:
        data = await gql.ok(SEARCH, {"w": workspace, "p": peer, "q": q, "d": depth})
        return {(h["peer"], h["path"]) for h in data["searchFiles"]}

    assert await seen("alice", 1) == {("alice", "a.md"), ("alice-dm", "dm.md")}
    assert await seen("alice", 0) == {("alice", "a.md")}
    assert await seen("alice-dm", 1) == {("alice-dm", "dm.md")}
    all_levels = await gql.ok(SEARCH, {"w": workspace, "p": "alice", "q": q, "d": "ALL"})
    assert {h["peer"] for h in all_levels["searchFiles"]} == {"alice", "alice-dm"}


async def test_the_peer_card_is_a_managed_file(
    gql: GraphQLClient, services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    await gql.ok(SET_CARD, {"w": workspace, "o": "bob", "d": "alice", "e": ["Vet in Porto"]})
    await gql.ok(SET_CARD, {"w": workspace, "o": "alice", "e": ["Name: Alice", "Owns a dog"]})
    own = await gql.ok(GET, {"w": workspace, "p": "alice", "path": "card.md"})
    assert own["file"] == {
        "path": "card.md",
        "content": "- Name: Alice\n- Owns a dog\n",
        "managedBy": "system",
        "metadata": {},
    }
    bobs = await gql.ok(GET, {"w": workspace, "p": "alice", "path": "cards/bob.md"})
    assert bobs["file"]["content"] == "- Vet in Porto\n"
    card = await gql.ok(PEER_CARD, {"w": workspace, "o": "bob", "d": "alice"})
    assert card["peerCard"] == {"entries": ["Vet in Porto"], "support": [[]]}
    # Each entry is a searchable chunk of alice's files.
    found = await gql.ok(SEARCH, {"w": workspace, "p": "alice", "q": "veterinarian", "d": 0})
    assert found["searchFiles"][0]["path"] == "cards/bob.md"
    assert found["searchFiles"][0]["content"] == "Vet in Porto"
    assert (await chunks(services, workspace, "alice", "card.md"))["embedded"] == 2
    # Only setPeerCard (and dreams) write it.
    where = {"w": workspace, "p": "alice", "path": "card.md"}
    for document, variables in ((UPDATE, {**where, "c": "hacked"}), (DELETE, where)):
        body = await gql.raw(document, variables)
        assert body["errors"][0]["extensions"]["code"] == "INVALID_INPUT"
        assert "setPeerCard" in body["errors"][0]["message"]
    assert (await gql.ok(GET, where))["file"]["content"] == "- Name: Alice\n- Owns a dog\n"
    # A new card replaces the chunks too; an emptied card is an empty file.
    await gql.ok(SET_CARD, {"w": workspace, "o": "alice", "e": []})
    assert (await gql.ok(PEER_CARD, {"w": workspace, "o": "alice"}))["peerCard"]["entries"] == []
    assert (await chunks(services, workspace, "alice", "card.md"))["chunks"] == 0


async def test_a_card_on_an_observes_edge_is_moved_into_a_file(
    services: Services, workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "bob")
    await statements.write(
        services.db,
        "legacy_set_observes_card",
        workspace=workspace,
        observer="bob",
        observed="alice",
        card=["Plays the bassoon", "Lives in Lyon"],
        support=["obs-1 obs-2", ""],
    )
    await migrations.set_version(services.db, 2)
    await install_schema(services.db, services.settings.embedding_dim)
    assert await migrations.mark(services.db) == migrations.SCHEMA_VERSION
    card = await peer_cards.get(services.db, workspace, "bob", "alice")
    assert card.entries == ["Plays the bassoon", "Lives in Lyon"]
    assert card.support == [("obs-1", "obs-2"), ()]
    [edge] = await statements.read(
        services.db, "legacy_observes_card", workspace=workspace, observer="bob", observed="alice"
    )
    assert edge == {"card": None, "card_support": None, "updated_at": None}
    moved = await chunks(services, workspace, "alice", "cards/bob.md")
    assert moved["chunks"] == 2 and moved["embedded"] == 0
    # Start-up embeds what the migration could not.
    assert await embed_missing_chunks(services.db, services.embedder) >= 2
    assert (await chunks(services, workspace, "alice", "cards/bob.md"))["embedded"] == 2
    hits = await search_files(services.db, services.embedder, workspace, ["alice"], "oboe", 1)
    assert hits[0].item.content == "Plays the bassoon"
    # Run again, the migration finds nothing to move.
    assert await migrations.move_cards(services.db) == 0


# --- keys ----------------------------------------------------------------------------------

SECRET = "files-test-secret-" + "x" * 24


@pytest.fixture
async def keyed(services: Services) -> AsyncIterator[GraphQLClient]:
    settings = dataclasses.replace(services.settings, auth="on", auth_secret=SECRET)
    secured = dataclasses.replace(services, settings=settings)
    app = create_app(settings, secured)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        yield GraphQLClient(http)


def peer_key(workspace: str, peer: str) -> str:
    return issue_key(SECRET, Principal(KeyScope.PEER, workspace=workspace, peer=peer))


async def test_keys_reach_a_peers_files_and_down_its_tree_only(
    keyed: GraphQLClient, services: Services, workspace: str, other_workspace: str
) -> None:
    await make_peers(services, workspace, "alice", "alice-dm", "bob")
    await members.add(services.db, workspace, "alice", "alice-dm", max_depth=10)
    alice, dm = peer_key(workspace, "alice"), peer_key(workspace, "alice-dm")
    workspace_key = issue_key(SECRET, Principal(KeyScope.WORKSPACE, workspace=workspace))
    # Each peer writes its own files; the workspace key writes anyone's.
    await keyed.ok(CREATE, file_vars(workspace, "alice", "a.md", "Alice sails."), key=alice)
    await keyed.ok(CREATE, file_vars(workspace, "alice-dm", "d.md", "Alice knits."), key=dm)
    await keyed.ok(CREATE, file_vars(workspace, "bob", "b.md", "Bob sails."), key=workspace_key)
    where = {"w": workspace, "p": "alice", "path": "a.md"}
    documents: list[tuple[str, dict[str, Any]]] = [
        (CREATE, file_vars(workspace, "alice", "n.md", "new")),
        (UPDATE, {**where, "c": "changed"}),
        (GET, where),
        (LIST, {"w": workspace, "p": "alice"}),
        (SEARCH, {"w": workspace, "p": "alice", "q": "sails", "d": 1}),
        (SEARCH, {"w": workspace, "p": "alice", "q": "sails", "d": 0}),
        (DELETE, where),
    ]
    # A sub-peer's key and another peer's key are refused on alice's files, and so is a key
    # for another workspace; nothing changed.
    outsider = issue_key(SECRET, Principal(KeyScope.WORKSPACE, workspace=other_workspace))
    for key in (dm, peer_key(workspace, "bob"), outsider):
        for document, variables in documents:
            assert await keyed.error_code(document, variables, key=key) == "FORBIDDEN"
    assert (await keyed.ok(GET, where, key=alice))["file"]["content"] == "Alice sails."
    # alice's key reads down her tree, and not bob's files.
    found = await keyed.ok(SEARCH, {"w": workspace, "p": "alice", "q": "sails knits"}, key=alice)
    assert {h["peer"] for h in found["searchFiles"]} == {"alice", "alice-dm"}
    dm_where = {"w": workspace, "p": "alice-dm", "path": "d.md"}
    assert (await keyed.ok(GET, dm_where, key=dm))["file"]["content"] == "Alice knits."
    bob_search = {"w": workspace, "p": "bob", "q": "sails"}
    assert await keyed.error_code(SEARCH, bob_search, key=alice) == "FORBIDDEN"
    # And it does everything on her own files.
    for document, variables in documents:
        await keyed.ok(document, variables, key=alice)


async def test_concurrent_card_writes_leave_only_the_last_cards_chunks(
    services: Services, workspace: str
) -> None:
    """Each write read the card's chunks before it held the file, so concurrent writes each
    deleted what they read and left the others' chunks: lines no longer on the card stayed
    searchable."""
    await make_peers(services, workspace, "agent", "alice")
    for _ in range(3):
        await asyncio.gather(
            *[
                peer_cards.set_card(services.db, workspace, "agent", "alice", [f"{k} a", f"{k} b"])
                for k in range(6)
            ]
        )
        row = await statements.read_one(
            services.db,
            "count_file_chunks",
            workspace=workspace,
            peer="alice",
            path=peer_cards.card_path("agent", "alice"),
        )
        assert row is not None
        assert (row["chunks"], row["counted"]) == (2, 2), row["contents"]


PURGE_PEER = """mutation($w: String!, $p: String!) {
  purgePeer(workspace: $w, peer: $p) { files fileChunks peers }
}"""


@pytest.mark.parametrize("erase", ["purgePeer", "deleteFile"])
async def test_a_file_erased_while_a_write_adds_chunks_leaves_none_behind(
    services: Services, workspace: str, gql: GraphQLClient, erase: str
) -> None:
    """The erasing statement read the file's chunks before it held the file, so a chunk that a
    write holding it added (setPeerCard's first lines on an emptied card, an update's new
    chunks) stayed behind with no file: searchable text of a peer erased on request."""
    await make_peers(services, workspace, "alice")
    w, params = {"w": workspace, "p": "alice"}, {"workspace": workspace, "peer": "alice"}
    await gql.ok(CREATE, {**w, "path": "notes.md", "c": "Alice's notes."})
    held = {**params, "path": "notes.md"}
    async with services.db.driver.session(database=services.db.database) as session:
        tx = await session.begin_transaction()
        await statements.rows(tx, "add_file_chunk", **held)
        if erase == "purgePeer":
            erasing = asyncio.create_task(gql.ok(PURGE_PEER, w))
        else:
            erasing = asyncio.create_task(gql.ok(DELETE, {**w, "path": "notes.md"}))
        await asyncio.sleep(1.0)
        assert not erasing.done()  # it waits for the write's lock on the file
        await tx.commit()
    answer = await erasing
    if erase == "purgePeer":
        assert answer["purgePeer"] == {"files": 1, "fileChunks": 2, "peers": 1}
    assert await statements.read(services.db, "count_orphan_chunks", workspace=workspace) == [
        {"orphans": 0}
    ]
