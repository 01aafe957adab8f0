"""Scoped observation search: vector and fulltext rankings of one (observer, observed) scope,
fused by reciprocal rank."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database
from graph.errors import InvalidInput
from graph.records import ObservationRecord
from graph.repo import observation_search as repo
from graph.repo.observation_search import ObservationQuery
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.search.fusion import rrf

MAX_QUERY_CHARS = 2000


@dataclass(frozen=True)
class ObservationHit:
    observation: ObservationRecord
    score: float
    vector_rank: int | None
    text_rank: int | None


async def search_observations(
    db: Database,
    embedder: Embedder,
    workspace: str,
    text: str,
    query: ObservationQuery,
    limit: int,
    *,
    embedding: list[float] | None = None,
) -> list[ObservationHit]:
    if not text.strip():
        raise InvalidInput("query: empty search query")
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query: {len(text)} characters; the limit is {MAX_QUERY_CHARS}")
    pool = max(limit * 3, 20)
    if embedding is None:
        [embedding] = await embed_async(embedder, [text])
    by_vector = await repo.vector_candidates(db, workspace, embedding, query, pool)
    by_text = await repo.text_candidates(db, workspace, text, query, pool)
    records = {o.id: o for o, _ in by_vector} | {o.id: o for o, _ in by_text}
    vector_rank = {o.id: i + 1 for i, (o, _) in enumerate(by_vector)}
    text_rank = {o.id: i + 1 for i, (o, _) in enumerate(by_text)}
    fused = rrf([[o.id for o, _ in by_vector], [o.id for o, _ in by_text]])
    return [
        ObservationHit(records[oid], score, vector_rank.get(oid), text_rank.get(oid))
        for oid, score in fused[:limit]
    ]
