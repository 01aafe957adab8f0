"""Bringing a graph written by an earlier beliefgraph up to date, once, at start-up.

The `BeliefgraphSchema` node records the layout version a graph has. Version 2 is the layout
of one vector index per node kind with filter properties (Neo4j 2026); a graph from before it
gets, in order (each step idempotent, so a crash resumes at the next start):

1. the marker write itself, which also moves a store upgraded from Neo4j 5 to the new kernel
   version (it cannot create vector indexes with filter properties until its first write);
2. the per-representation vector indexes and the global indexes without filters dropped, and
   their `ObsScope_*` labels and OBSERVES marks removed;
3. backfills: `scope_key` on beliefs that predate it, the fulltext keys on messages, and
   `valid_at` where a belief lacks it.

Version 3 moves peer cards from their OBSERVES edges (`card`, `card_support`,
`card_updated_at`) into system-managed files of the observed peer (graph/repo/peer_cards.py),
one card per write that also removes the edge's properties, so a crash resumes where it
stopped. The moved cards' chunks get their embeddings at start-up, where the embedder is
(reasoners/peers/files.py embed_missing_chunks).

Version 4 rebuilds the three fulltext indexes with the English analyzer (stop words dropped,
words stemmed), the message one with the sender's peer name as a field: they are dropped here
and created again, and repopulated by the server, with the other indexes (graph/schema.py).

Version 5 rebuilds the message vector index with a denser HNSW graph (MESSAGE_INDEX_GRAPH in
graph/repo/retrieval.py): an index built with other settings is dropped here and created again.
The drop depends on the settings found, not on the version alone: a start that times out while
the server repopulates a large index finds the new settings at the next start and keeps them.

Version 6 moves the times clients sent (a message's `created_at`, and the `valid_at` its beliefs
copy) to UTC: Neo4j orders one instant written in two offsets apart, so a time bound missed a
message stored in another offset. Each batch walks the id order after the last one, so it reads
every node once, and converting a UTC time again changes nothing.

Version 7 runs version 6's step again: the release of layout 6 wrote a time it had read back
from Neo4j (a belief's `valid_at`, its message's `created_at`) under the zone name UTC, which
Cypher neither counts equal to the same instant at offset Z nor orders with it.

Version 8 migrates nothing: it adds indexes (a workspace's nodes by label, a unit's unfinished
jobs, a workspace's and a session's messages in time order), which a large graph fills for a
while, so the first start at it waits as an upgrade does rather than for the usual five minutes.

The new indexes are created after (graph/schema.py) and the version is set last.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from graph.db import Database, Row
from graph.errors import Unavailable
from graph.keys import peer_key, scope_key, session_key, workspace_key
from graph.repo.peer_cards import card_path
from graph.repo.retrieval import MESSAGE_INDEX_GRAPH
from graph.validation import now

log = logging.getLogger("beliefgraph.migrations")

SCHEMA_VERSION = 8
BATCH = 10_000
# Index names of earlier layouts that the current one replaces.
LEGACY_INDEXES = [
    "message_embedding",
    "observation_embedding",
    "file_chunk_embedding",
    "message_content",
    "observation_content",
    "observation_content_key",
]
# Fulltext indexes whose definition (analyzer, fields) changed in layout 4.
REBUILT_IN_4 = ["message_text", "observation_text", "file_chunk_text"]
MESSAGE_VECTORS = "message_vectors"


async def mark(db: Database) -> int:
    """The graph's layout version (0 for a graph that had none); writes the marker."""
    row = await db.write_one("mark_schema")
    return int(row["version"]) if row and row["version"] is not None else 0


async def set_version(db: Database, version: int = SCHEMA_VERSION) -> None:
    await db.write("set_schema_version", version=version)


async def drop_legacy(db: Database) -> list[str]:
    names = [str(r["name"]) for r in await db.read("list_legacy_indexes", names=LEGACY_INDEXES)]
    for name in names:
        await db.write("drop_index", name=name)
    for row in await db.read("list_scope_labels"):
        while True:
            done = await db.write_one("remove_scope_label", label=row["label"], batch=BATCH)
            if not done or int(done["removed"]) < BATCH:
                break
    await db.write("clear_scope_index_marks")
    return names


async def backfill_scope_keys(db: Database) -> int:
    total = 0
    while scopes := await db.read("list_observations_missing_scope_key", limit=100):
        before = total
        for row in scopes:
            ws, observer, observed = (
                str(row["workspace"]),
                str(row["observer"]),
                str(row["observed"]),
            )
            while True:
                done = await db.write_one(
                    "set_scope_keys",
                    workspace=ws,
                    observer=observer,
                    observed=observed,
                    scope_key=scope_key(ws, observer, observed),
                    batch=BATCH,
                )
                count = int(done["updated"]) if done else 0
                total += count
                if count < BATCH:
                    break
        if total == before:
            # Listed but none keyed: another pass would list the same scopes forever.
            log.warning("scope keys: %d scopes listed, none could be keyed", len(scopes))
            break
    return total


async def backfill_message_keys(db: Database) -> int:
    total = 0
    while sessions := await db.read("list_unkeyed_sessions", limit=100):
        before = total
        for row in sessions:
            ws, session = str(row["workspace"]), str(row["session"])
            senders = await db.read("list_session_senders", workspace=ws, session=session)
            keys = {str(r["peer"]): peer_key(ws, str(r["peer"])) for r in senders}
            while True:
                done = await db.write_one(
                    "set_message_keys",
                    workspace=ws,
                    session=session,
                    workspace_key=workspace_key(ws),
                    session_key=session_key(ws, session),
                    peer_keys=keys,
                    batch=BATCH,
                )
                count = int(done["updated"]) if done else 0
                total += count
                if count < BATCH:
                    break
        if total == before:
            # Listed but none keyed: another pass would list the same sessions forever.
            log.warning("message keys: %d sessions listed, none could be keyed", len(sessions))
            break
    return total


async def backfill_valid_at(db: Database) -> int:
    total = 0
    while True:
        done = await db.write_one("set_missing_valid_at", batch=BATCH)
        count = int(done["updated"]) if done else 0
        total += count
        if count < BATCH:
            return total


async def move_cards(db: Database) -> int:
    """Peer cards from OBSERVES edges into their files (version 3)."""
    total = 0
    while cards := await db.read("list_observes_cards", limit=100):
        for row in cards:
            ws, observer, observed = (
                str(row["workspace"]),
                str(row["observer"]),
                str(row["observed"]),
            )
            await db.write(
                "move_observes_card",
                workspace=ws,
                observer=observer,
                observed=observed,
                path=card_path(observer, observed),
                peer_key=peer_key(ws, observed),
                now=now(),
            )
            total += 1
    return total


async def times_to_utc(db: Database, *, batch: int = BATCH) -> tuple[int, int]:
    """Move the client-sent times of messages, then of beliefs, to UTC (version 6): how many of
    each moved. Each kind is walked in id order, batch by batch."""

    async def walk(step: Callable[[str], Awaitable[Row | None]]) -> int:
        moved, after = 0, ""
        while (row := await step(after)) and row["seen"]:
            moved += int(row["moved"])
            after = str(row["last"])
        return moved

    messages = await walk(lambda after: db.write_one("utc_message_times", after=after, batch=batch))
    beliefs = await walk(
        lambda after: db.write_one("utc_observation_times", after=after, batch=batch)
    )
    return messages, beliefs


async def migrate(db: Database, version: int) -> None:
    """Everything a graph at `version` needs before the current indexes are created."""
    if version > SCHEMA_VERSION:
        # An older release would write the old layout into it (times not in UTC, say), and the
        # newer one, at its layout already, would not migrate them again.
        raise Unavailable(
            f"this graph has layout {version}, written by a newer beliefgraph than this one "
            f"(layout {SCHEMA_VERSION}): run that release, or restore a backup made for this one"
        )
    if version == SCHEMA_VERSION:
        return
    if version < 2:
        await _to_filtered_indexes(db)
    if version < 3:
        cards = await move_cards(db)
        if cards:
            log.info("migrated to layout 3: moved %d peer cards into files", cards)
    if version < 4:
        # Creating them again is idempotent, so a crash between drop and create is harmless.
        # Only those that exist in an earlier form: a new graph has none, and said it rebuilt
        # them; and a start cut short while the rebuilt ones filled (the layout is recorded
        # once they are online) threw them away again on every restart.
        rows = await db.read("list_fulltext_definitions", names=REBUILT_IN_4)
        rebuilt = [str(r["name"]) for r in rows if not _layout_4(r)]
        for name in rebuilt:
            await db.write("drop_index", name=name)
        if rebuilt:
            log.info("migrated to layout 4: fulltext indexes rebuilt with the English analyzer")
    if version < 5 and await drop_outdated_message_vectors(db):
        log.info(
            "migrated to layout 5: %s rebuilt with %s (the start waits until it is populated)",
            MESSAGE_VECTORS,
            MESSAGE_INDEX_GRAPH,
        )
    if version < 7:
        messages, beliefs = await times_to_utc(db)
        if messages or beliefs:
            log.info(
                "migrated to layout 7: times of %d messages and %d beliefs moved to UTC",
                messages,
                beliefs,
            )


def _layout_4(index: Row) -> bool:
    """Whether a fulltext index is in its layout-4 form: the English analyzer, and for
    message_text the sender's name among its properties."""
    sender = index["name"] != "message_text" or "peer" in index["properties"]
    return index["analyzer"] == "english" and sender


async def drop_outdated_message_vectors(db: Database) -> bool:
    """Drop the message vector index if it was built with other graph settings (version 5)."""
    wanted = (MESSAGE_INDEX_GRAPH["hnsw_m"], MESSAGE_INDEX_GRAPH["hnsw_ef_construction"])
    for row in await db.read("list_vector_indexes"):
        if row["name"] != MESSAGE_VECTORS:
            continue
        found = (row["hnsw_m"], row["hnsw_ef_construction"])
        if found != wanted:
            await db.write("drop_index", name=MESSAGE_VECTORS)
            return True
    return False


async def _to_filtered_indexes(db: Database) -> None:
    dropped = await drop_legacy(db)
    keyed = await backfill_scope_keys(db)
    messages = await backfill_message_keys(db)
    dated = await backfill_valid_at(db)
    if dropped or keyed or messages or dated:
        log.info(
            "migrated to layout 2: dropped %s; keys on %d beliefs and %d messages; "
            "valid_at on %d beliefs",
            ", ".join(dropped) or "no index",
            keyed,
            messages,
            dated,
        )
