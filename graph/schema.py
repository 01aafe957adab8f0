"""Installs constraints and indexes idempotently at start-up.

The schema statements are the catalog's `create_constraint_*`, `create_index_*`,
`create_vector_index_*` and `create_fulltext_index_*` files, so adding an index is adding a file.

One migration: a graph from before `scope_key` still has the `observation_content` fulltext
index. Its beliefs get their keys first and the old index goes last, so the index marks an
unfinished migration (resumed at the next start) and an up-to-date graph pays nothing for it.
"""

from __future__ import annotations

from typing import cast, get_args

import cypher
from cypher.statements import Statement
from graph.db import Database
from graph.errors import Conflict
from graph.repo import scope_index

LEGACY_TEXT_INDEX = "observation_content"  # replaced by observation_text (content, scope_key)

_SCHEMA_PREFIXES = (
    "create_constraint_",
    "create_index_",
    "create_vector_index_",
    "create_fulltext_index_",
)


def schema_statements() -> list[Statement]:
    """The `create_*` statements of cypher/schema/, constraints first (they create their own
    backing indexes)."""
    catalog = cypher.catalog()
    known = set(get_args(Statement))
    in_folder = [name for name in catalog.names() if catalog.folder(name) == "schema"]
    by_prefix = [
        sorted(name for name in in_folder if name.startswith(prefix)) for prefix in _SCHEMA_PREFIXES
    ]
    ordered = [name for group in by_prefix for name in group]
    stale = [name for name in ordered if name not in known]
    if stale:
        raise RuntimeError(
            f"cypher/statements.py is out of date ({stale}): run scripts/cypher_names.py"
        )
    return [cast(Statement, name) for name in ordered]


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
    unkeyed = await db.read_one("find_index", name=LEGACY_TEXT_INDEX) is not None
    for name in schema_statements():
        params = {"dimensions": dimensions} if "dimensions" in cypher.parameters(name) else {}
        await db.write(name, **params)
    await db.write("await_indexes", timeout_seconds=timeout_seconds)
    if unkeyed:
        await scope_index.backfill_scope_keys(db)
        await db.write("drop_index", name=LEGACY_TEXT_INDEX)
