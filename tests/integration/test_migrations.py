"""A graph written in an earlier layout is brought up to date at start-up, and search works."""

from __future__ import annotations

import logging
from datetime import UTC, timedelta
from typing import Any

import pytest

from graph import migrations
from graph.repo import message_search, messages, observation_search
from graph.repo.messages import MessageFilter
from graph.repo.observation_search import ObservationQuery
from graph.repo.retrieval import MESSAGE_INDEX_GRAPH
from graph.schema import install_schema
from resolvers.services import Services
from tests import statements
from tests.integration.test_read_path import seed_beliefs

pytestmark = pytest.mark.integration


async def test_an_earlier_layout_is_migrated(services: Services, workspace: str) -> None:
    await seed_beliefs(services, workspace)
    await statements.write(services.db, "legacy_create_vector_index")
    await statements.write(services.db, "legacy_create_fulltext_index")
    [marked] = await statements.write(services.db, "legacy_mark_workspace", workspace=workspace)
    assert marked["beliefs"] == 5 and marked["messages"] == 2 and marked["edges"] == 2
    query = ObservationQuery("bob", "alice")
    assert (
        await observation_search.text_candidates(services.db, workspace, "bassoon", query, 5) == []
    )

    await install_schema(services.db, services.settings.embedding_dim)

    [left] = await statements.read(services.db, "legacy_leftovers", workspace=workspace)
    assert left == {
        "labelled": 0,
        "unkeyed_beliefs": 0,
        "unkeyed_messages": 0,
        "marked_edges": 0,
        "version": migrations.SCHEMA_VERSION,
    }
    names = {r["name"] for r in await statements.read(services.db, "list_indexes")}
    assert "observation_embedding" not in names and "message_content" not in names
    hits = await observation_search.text_candidates(services.db, workspace, "bassoon", query, 5)
    assert [o.content for o, *_ in hits] == ["Alice plays the bassoon in an amateur orchestra."]
    evidence = await message_search.text_candidates(
        services.db, workspace, "evidence", MessageFilter(session="s1"), 5
    )
    assert [m.content for m, *_ in evidence] == ["Some evidence."]
    # Up to date: the next start changes nothing.
    await install_schema(services.db, services.settings.embedding_dim)
    assert await migrations.mark(services.db) == migrations.SCHEMA_VERSION


async def test_layout_3_fulltext_indexes_are_rebuilt_with_the_english_analyzer(
    services: Services, workspace: str, caplog: pytest.LogCaptureFixture
) -> None:
    db = services.db
    # A new graph has none of the indexes: none to rebuild, and nothing said about it.
    for name in migrations.REBUILT_IN_4:
        await db.write("drop_index", name=name)
    await db.write("set_schema_version", version=3)
    with caplog.at_level(logging.INFO, logger="beliefgraph"):
        await install_schema(db, services.settings.embedding_dim)
    assert "layout 4" not in caplog.text
    caplog.clear()

    await db.write("drop_index", name="message_text")
    await statements.write(db, "legacy_create_message_text_v3")
    await db.write("set_schema_version", version=3)
    await seed_beliefs(services, workspace)

    with caplog.at_level(logging.INFO, logger="beliefgraph"):
        await install_schema(db, services.settings.embedding_dim)
    assert "migrated to layout 4: fulltext indexes rebuilt" in caplog.text

    indexes = {r["name"]: r for r in await statements.read(db, "list_fulltext_indexes")}
    for name in migrations.REBUILT_IN_4:
        assert indexes[name]["analyzer"] == "english", name
    assert "peer" in indexes["message_text"]["properties"]
    assert await migrations.mark(db) == migrations.SCHEMA_VERSION

    # A start cut short while the rebuilt indexes filled records no layout: the next start
    # keeps them (it dropped and rebuilt them again, every restart).
    ids = {n: await statements.read(db, "index_id", name=n) for n in migrations.REBUILT_IN_4}
    await db.write("set_schema_version", version=3)
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="beliefgraph"):
        await install_schema(db, services.settings.embedding_dim)
    assert "layout 4" not in caplog.text
    assert {n: await statements.read(db, "index_id", name=n) for n in ids} == ids
    # Stemmed and stop words dropped: "evidences" finds "Some evidence.", and a query of
    # stop words alone matches nothing rather than every message.
    found = await message_search.text_candidates(
        db, workspace, "the evidences", MessageFilter(session="s1"), 5
    )
    assert [m.content for m, *_ in found] == ["Some evidence."]
    assert (
        await message_search.text_candidates(
            db, workspace, "what did I", MessageFilter(session="s1"), 5
        )
        == []
    )


async def message_vectors(services: Services) -> dict[str, Any]:
    [row] = [
        r
        for r in await services.db.read("list_vector_indexes")
        if r["name"] == migrations.MESSAGE_VECTORS
    ]
    [ident] = await statements.read(services.db, "index_id", name=migrations.MESSAGE_VECTORS)
    return {**row, "id": ident["id"]}


async def test_layout_4_message_vectors_are_rebuilt_with_the_denser_graph(
    services: Services, workspace: str
) -> None:
    db, dim = services.db, services.settings.embedding_dim
    await seed_beliefs(services, workspace)
    await db.write("drop_index", name="message_vectors")
    await statements.write(db, "legacy_create_message_vectors_v4", dimensions=dim)
    await db.write("await_indexes", timeout_seconds=60)
    old = await message_vectors(services)
    assert (old["hnsw_m"], old["hnsw_ef_construction"]) == (16, 100)
    await db.write("set_schema_version", version=4)

    await install_schema(db, dim)

    new = await message_vectors(services)
    wanted = MESSAGE_INDEX_GRAPH
    assert (new["hnsw_m"], new["hnsw_ef_construction"]) == (
        wanted["hnsw_m"],
        wanted["hnsw_ef_construction"],
    )
    assert new["id"] != old["id"] and new["state"] == "ONLINE"
    assert await migrations.mark(db) == migrations.SCHEMA_VERSION
    # The rebuilt index serves a peer's search (peers always go through the index).
    [embedding] = services.embedder.embed(["Some evidence."])
    hits = await message_search.vector_candidates(
        db, workspace, embedding, MessageFilter(peer="alice"), 2
    )
    assert [m.content for m, _ in hits] == ["Some evidence.", "Other evidence."]

    # A start that finds the new settings (one that timed out while the index repopulated
    # had not recorded layout 5 yet) keeps the index instead of dropping it again.
    await db.write("set_schema_version", version=4)
    await install_schema(db, dim)
    assert (await message_vectors(services))["id"] == new["id"]


async def test_layout_5_times_sent_in_other_offsets_are_moved_to_utc(
    services: Services, workspace: str
) -> None:
    db = services.db
    await seed_beliefs(services, workspace)
    [legacy] = await statements.write(db, "legacy_offset_times", workspace=workspace)
    assert legacy == {"messages": 2, "beliefs": 5}
    before = await statements.read(db, "workspace_times", workspace=workspace)
    assert {r["zone"] for r in before} == {"-05:00"}
    [first, *_] = [r for r in before if r["kind"] == "message"]
    instant = first["at"].to_native().astimezone(UTC)
    at_instant = MessageFilter(since=instant, until=instant + timedelta(microseconds=1))

    async def listed() -> list[str]:
        page = await messages.list_page(db, workspace, at_instant, after=None, limit=10)
        return [m.id for m in page.items]

    # Neo4j orders 05:00-05:00 before 10:00Z, one instant: a bound in UTC missed it.
    assert await listed() == []
    # Batch by batch in id order: two at a time reach both messages and all five beliefs.
    moved = await migrations.times_to_utc(db, batch=2)
    assert moved[0] >= 2 and moved[1] >= 5
    await db.write("set_schema_version", version=5)

    await install_schema(db, services.settings.embedding_dim)

    after = await statements.read(db, "workspace_times", workspace=workspace)
    assert {r["zone"] for r in after} == {"Z"}
    assert [(r["id"], r["millis"], r["at"].to_native()) for r in after] == [
        (r["id"], r["millis"], r["at"].to_native()) for r in before
    ]
    assert await migrations.mark(db) == migrations.SCHEMA_VERSION
    assert first["id"] in await listed()


async def test_layout_6_times_under_the_zone_name_utc_are_moved_to_offset_z(
    services: Services, workspace: str
) -> None:
    """The release of layout 6 wrote a time read back from Neo4j under the zone name UTC, which
    Cypher does not count equal to its message's time at offset Z."""
    db = services.db
    await seed_beliefs(services, workspace)
    [named] = await statements.write(db, "zone_named_times", workspace=workspace)
    assert named["named"] == 5
    before = await statements.read(db, "workspace_times", workspace=workspace)
    assert {r["zone"] for r in before if r["kind"] == "belief"} == {"UTC"}
    await db.write("set_schema_version", version=6)

    await install_schema(db, services.settings.embedding_dim)

    after = await statements.read(db, "workspace_times", workspace=workspace)
    assert {r["zone"] for r in after} == {"Z"}
    assert [(r["id"], r["millis"]) for r in after] == [(r["id"], r["millis"]) for r in before]
    assert await migrations.mark(db) == migrations.SCHEMA_VERSION
