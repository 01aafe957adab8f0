"""Hybrid message search: scoped vector and fulltext candidates fused by reciprocal rank."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database
from graph.errors import InvalidInput
from graph.records import MessageRecord
from graph.repo import message_search as search_repo
from graph.repo.messages import MessageFilter
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.search.fusion import rrf

MAX_QUERY_CHARS = 2000


@dataclass(frozen=True)
class MessageHit:
    message: MessageRecord
    score: float
    vector_rank: int | None
    text_rank: int | None


async def search_messages(
    db: Database,
    embedder: Embedder,
    workspace: str,
    query: str,
    filters: MessageFilter,
    limit: int,
) -> list[MessageHit]:
    if not query.strip():
        raise InvalidInput("query: empty search query")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query: {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
    # Each retriever gets a deeper pool than the page so fusion can reorder across them.
    pool = max(limit * 3, 20)
    [vector] = await embed_async(embedder, [query])
    by_vector = await search_repo.vector_candidates(db, workspace, vector, filters, pool)
    by_text = await search_repo.text_candidates(db, workspace, query, filters, pool)
    records = {m.id: m for m, _ in by_vector} | {m.id: m for m, _ in by_text}
    vector_rank = {m.id: i + 1 for i, (m, _) in enumerate(by_vector)}
    text_rank = {m.id: i + 1 for i, (m, _) in enumerate(by_text)}
    fused = rrf([[m.id for m, _ in by_vector], [m.id for m, _ in by_text]])
    return [
        MessageHit(records[mid], score, vector_rank.get(mid), text_rank.get(mid))
        for mid, score in fused[:limit]
    ]
