"""Observation search: hybrid search over one (observer, observed) representation."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database
from graph.records import ObservationRecord
from graph.repo import observation_search
from graph.repo.observation_search import ObservationQuery
from reasoners.embeddings.model import Embedder
from reasoners.search.hybrid import Hit, hybrid_search


@dataclass(frozen=True)
class ObservationRetriever:
    db: Database
    workspace: str
    query: ObservationQuery

    async def vector(
        self, embedding: list[float], limit: int
    ) -> list[tuple[ObservationRecord, float]]:
        return await observation_search.vector_candidates(
            self.db, self.workspace, embedding, self.query, limit
        )

    async def text(
        self, text: str, embedding: list[float], limit: int
    ) -> list[tuple[ObservationRecord, float, float | None]]:
        return await observation_search.text_candidates(
            self.db, self.workspace, text, self.query, limit, embedding=embedding
        )


def observation_id(observation: ObservationRecord) -> str:
    return observation.id


async def search_observations(
    db: Database,
    embedder: Embedder,
    workspace: str,
    text: str,
    query: ObservationQuery,
    limit: int,
    *,
    embedding: list[float] | None = None,
) -> list[Hit[ObservationRecord]]:
    retriever = ObservationRetriever(db, workspace, query)
    return await hybrid_search(
        embedder, retriever, observation_id, text, limit, embedding=embedding
    )
