"""Opening and closing the services a process needs (API server, worker, tests, bench)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from graph.db import Database
from graph.errors import Unavailable
from graph.schema import install_schema
from graph.settings import Settings
from reasoners.embeddings import Embedder, SentenceTransformerEmbedder
from reasoners.tokens import MiniLMTokenCounter, TokenCounter
from resolvers.services import Services

log = logging.getLogger("beliefgraph")


def neo4j_password(settings: Settings) -> str:
    if settings.neo4j_password or not settings.managed:
        return settings.neo4j_password
    from graph.server import ManagedNeo4j

    return ManagedNeo4j(settings).password()


async def open_services(
    settings: Settings,
    *,
    password: str | None = None,
    embedder: Embedder | None = None,
    tokens: TokenCounter | None = None,
) -> Services:
    db = Database.connect(settings, password if password is not None else neo4j_password(settings))
    try:
        if not await db.ping():
            raise Unavailable(
                f"Neo4j does not answer at {settings.bolt_uri}: start it with "
                "`beliefgraph neo4j start`, or set NEO4J_URI / NEO4J_PASSWORD"
            )
        if embedder is None:
            embedder = await asyncio.to_thread(
                SentenceTransformerEmbedder,
                settings.embedding_model,
                batch_size=settings.embedding_batch_size,
            )
        if embedder.dimension != settings.embedding_dim:
            raise Unavailable(
                f"the embedding model gives {embedder.dimension} dimensions but "
                f"BELIEFGRAPH_EMBEDDING_DIM is {settings.embedding_dim}; set them to agree"
            )
        await install_schema(db, settings.embedding_dim)
    except BaseException:
        await db.close()
        raise
    counter = tokens or MiniLMTokenCounter(
        Path(settings.embedding_model) / "tokenizer.json" if settings.embedding_model else None
    )
    return Services(settings=settings, db=db, embedder=embedder, tokens=counter)


async def close_services(services: Services) -> None:
    await services.db.close()
