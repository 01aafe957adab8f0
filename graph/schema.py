"""Installs constraints and indexes idempotently at start-up.

The schema statements are the catalog's `drop_legacy_*`, `create_constraint_*`,
`create_index_*`, `create_vector_index_*` and `create_fulltext_index_*` files, so adding an
index is adding a file. Beliefs written before `scope_key` existed get theirs afterwards.
"""

from __future__ import annotations

import cypher
from graph.db import Database
from graph.errors import Conflict
from graph.repo import scope_index

_SCHEMA_PREFIXES = (
    "drop_legacy_",
    "create_constraint_",
    "create_index_",
    "create_vector_index_",
    "create_fulltext_index_",
)


def schema_statements() -> list[str]:
    """Schema statement names: legacy indexes dropped first, then constraints (they create
    their own backing indexes), then indexes."""
    by_prefix = [
        sorted(name for name in cypher.names() if name.startswith(prefix))
        for prefix in _SCHEMA_PREFIXES
    ]
    return [name for group in by_prefix for name in group]


async def check_vector_dimensions(db: Database, dimensions: int) -> None:
    """Refuse to run against vector indexes built for another embedding size."""
    for row in await db.read("list_vector_indexes"):
        existing = row["dimensions"]
        if existing is not None and int(existing) != dimensions:
            raise Conflict(
                f"vector index {row['name']} has {existing} dimensions but the embedding model "
                f"gives {dimensions}. Either set BELIEFGRAPH_EMBEDDING_MODEL / "
                f"BELIEFGRAPH_EMBEDDING_DIM back to a {existing}-dimension model, or drop the "
                f"index (DROP INDEX {row['name']}) and re-embed.",
                index=row["name"],
            )


async def install_schema(db: Database, dimensions: int, *, timeout_seconds: int = 300) -> None:
    await check_vector_dimensions(db, dimensions)
    for name in schema_statements():
        params = {"dimensions": dimensions} if "dimensions" in cypher.parameters(name) else {}
        await db.write(name, **params)
    await db.write("await_indexes", timeout_seconds=timeout_seconds)
    await scope_index.backfill_scope_keys(db)
