"""A vector index of its own for every large (observer, observed) scope.

Neo4j 5 cannot filter inside a vector index search: the global index answers with the global
top-k and a scope filter afterwards leaves a large scope with a fraction of its true neighbours
(and a small one with none). Small scopes are scanned exactly (observation_search). A scope
with more than SCOPE_INDEX_MIN beliefs gets a label of its own (``ObsScope_<key>``) on all its
beliefs and a vector index over that label, so its nearest neighbours come from its own graph.

Building one (``ensure``), each step idempotent so that a crash or a concurrent builder only
repeats work:

1. claim: the OBSERVES edge records the label; beliefs created from then on take it at once;
2. label the scope's existing beliefs, in batches;
3. create the index (if absent) and wait until it is online;
4. publish: the edge records the index name and search starts using it.

Deleting a workspace drops its scopes' indexes (``drop_all``).
"""

from __future__ import annotations

import logging

from neo4j.exceptions import ClientError

from graph.db import Database
from graph.keys import Representation, scope_key

log = logging.getLogger(__name__)

# Beliefs; at most this many are scanned exactly per search. Measured here (docs/BENCHMARKS.md,
# bench:search): the exact scan costs ~45 us per belief, a scope index query ~15-20 ms in all.
SCOPE_INDEX_MIN = 500
LABEL_BATCH = 10_000
BACKFILL_BATCH = 10_000
AWAIT_SECONDS = 3_600


def scope_label(key: str) -> str:
    return f"ObsScope_{key}"


def scope_index_name(key: str) -> str:
    return f"observation_scope_{key}"


async def published_index(db: Database, scope: Representation) -> str | None:
    """The scope's index name once search may use it, else None."""
    row = await db.read_one("scope_index_state", **scope.params())
    index = row["index"] if row else None
    return str(index) if index else None


async def ensure(
    db: Database, scope: Representation, *, dimensions: int, await_seconds: int = AWAIT_SECONDS
) -> str:
    """Give the scope its own vector index (see the module docstring); returns its name."""
    key = scope.key
    label, index = scope_label(key), scope_index_name(key)
    row = await db.write_one("claim_scope_index", label=label, **scope.params())
    if row and row["index"] == index:
        return index
    labelled = 0
    while True:
        row = await db.write_one(
            "label_scope_observations", label=label, batch=LABEL_BATCH, **scope.params()
        )
        done = int(row["labelled"]) if row else 0
        labelled += done
        if done < LABEL_BATCH:
            break
    if await db.read_one("find_index", name=index) is None:
        try:
            await db.write(
                "create_scope_vector_index", index=index, label=label, dimensions=dimensions
            )
        except ClientError as exc:
            # A concurrent builder created it first: the same index, so carry on.
            if await db.read_one("find_index", name=index) is None:
                raise
            log.debug("scope index %s created concurrently: %s", index, exc.code)
    await db.write("await_index", name=index, timeout_seconds=await_seconds)
    await db.write_one("publish_scope_index", index=index, **scope.params())
    log.info("scope index %s online (%d beliefs labelled)", index, labelled)
    return index


async def ensure_large(db: Database, workspace: str, *, dimensions: int) -> list[str]:
    """Index every scope of the workspace above SCOPE_INDEX_MIN that has no index yet (for
    data written around the deriver, such as imports and benchmark corpora)."""
    built = []
    rows = await db.read("list_large_scopes", workspace=workspace, minimum=SCOPE_INDEX_MIN)
    for row in rows:
        if row["index"] is None:
            scope = Representation(workspace, str(row["observer"]), str(row["observed"]))
            built.append(await ensure(db, scope, dimensions=dimensions))
    return built


async def drop_all(db: Database, workspace: str) -> int:
    """Drop the indexes of the workspace's scopes (before its nodes go)."""
    rows = await db.read("list_scope_indexes", workspace=workspace)
    for row in rows:
        key = scope_key(workspace, str(row["observer"]), str(row["observed"]))
        await db.write("drop_index", name=scope_index_name(key))
    return len(rows)


async def backfill_scope_keys(db: Database) -> int:
    """Give beliefs written before scope_key existed their key; returns how many changed."""
    total = 0
    while True:
        scopes = await db.read("list_observations_missing_scope_key", limit=100)
        if not scopes:
            return total
        for row in scopes:
            scope = Representation(
                str(row["workspace"]), str(row["observer"]), str(row["observed"])
            )
            while True:
                done = await db.write_one(
                    "set_scope_keys", scope_key=scope.key, batch=BACKFILL_BATCH, **scope.params()
                )
                count = int(done["updated"]) if done else 0
                total += count
                if count < BACKFILL_BATCH:
                    break
