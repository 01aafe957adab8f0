"""Installs constraints and indexes idempotently at start-up, after checking the server.

The schema statements are the catalog's `create_constraint_*`, `create_index_*`,
`create_vector_index_*` and `create_fulltext_index_*` files, so adding an index is adding a file.
A graph from an earlier beliefgraph is migrated first (graph/migrations.py); its version is
recorded once the indexes are online, so an interrupted start resumes.
"""

from __future__ import annotations

import re
from typing import cast, get_args

import cypher
from cypher.statements import Statement
from graph import migrations
from graph.db import Database
from graph.errors import Conflict, Unavailable
from graph.repo.retrieval import MESSAGE_INDEX_GRAPH

# In-index filtered vector search (SEARCH ... WHERE, vector indexes WITH properties) and
# unquantized vector indexes: the server features the retrieval core is built on.
MIN_SERVER = (2026, 9)
_VERSION = re.compile(r"Neo4j/(\d+)\.(\d+)")
UPGRADE_INDEX_WAIT_SECONDS = 6 * 3600

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


def server_version(agent: str) -> tuple[int, int] | None:
    """(major, minor) from a server agent such as "Neo4j/2026.09.0"."""
    match = _VERSION.match(agent)
    return (int(match.group(1)), int(match.group(2))) if match else None


async def check_server(db: Database) -> None:
    """Refuse a server too old for the statements, saying what to run instead."""
    agent = (await db.driver.get_server_info()).agent
    version = server_version(agent)
    if version is None or version < MIN_SERVER:
        need = ".".join(f"{part:02d}" if i else str(part) for i, part in enumerate(MIN_SERVER))
        raise Unavailable(
            f"beliefgraph needs Neo4j {need} or later (Cypher 25 vector search with filters); "
            f"the server at NEO4J_URI answers as {agent}. Upgrade it (Docker: "
            f"neo4j:{need}.0), or unset NEO4J_URI to use the managed server"
        )


def statement_params(name: Statement, dimensions: int) -> dict[str, int]:
    """What a schema statement takes: the embedding size, the message index's graph settings."""
    known = {"dimensions": dimensions, **MESSAGE_INDEX_GRAPH}
    return {key: value for key, value in known.items() if key in cypher.parameters(name)}


async def install_schema(db: Database, dimensions: int, *, timeout_seconds: int = 300) -> None:
    await check_server(db)
    version = await migrations.mark(db)
    await migrations.migrate(db, version)
    await check_vector_dimensions(db, dimensions)
    for name in schema_statements():
        await db.write(name, **statement_params(name, dimensions))
    if version < migrations.SCHEMA_VERSION:
        # The first start after an upgrade may rebuild a large index (message_vectors: about
        # half an hour per million messages on two cores): wait for it rather than fail.
        timeout_seconds = max(timeout_seconds, UPGRADE_INDEX_WAIT_SECONDS)
    await db.write_tx(
        lambda tx: tx.rows("await_indexes", timeout_seconds=timeout_seconds),
        limit=timeout_seconds + 30,  # Neo4j's own wait ends first, with its own error
    )
    if version < migrations.SCHEMA_VERSION:
        await migrations.set_version(db)
