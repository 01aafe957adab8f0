"""The beliefs a rendered representation shows, chosen as the context slice is: those nearest a
query first (when there is one), then the most derived (when asked), then the most recent."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database
from graph.records import ObservationRecord
from graph.repo import observation_search
from graph.repo.observation_search import ObservationQuery
from reasoners.context.assemble import slice_order
from reasoners.embeddings.model import Embedder
from reasoners.search.observations import search_observations


@dataclass(frozen=True)
class BeliefSelection:
    observer: str
    observed: str
    limit: int
    session_ids: list[str] | None = None
    search_query: str | None = None
    search_limit: int | None = None  # default: `limit`
    most_derived: bool = False
    search_max_distance: float | None = None  # cosine distance (1 - cos) of a search hit


async def select_beliefs(
    db: Database, embedder: Embedder, workspace: str, selection: BeliefSelection
) -> list[ObservationRecord]:
    """At most `selection.limit` current beliefs, each once; none for peers that do not exist."""
    s = selection
    query = ObservationQuery(s.observer, s.observed, session_ids=s.session_ids)
    relevant: list[ObservationRecord] = []
    if s.search_query:
        hits = await search_observations(
            db, embedder, workspace, s.search_query, query, s.search_limit or s.limit
        )
        relevant = [h.item for h in hits if h.within(s.search_max_distance)]
    top = await observation_search.top(
        db,
        workspace,
        query,
        most_derived=s.limit if s.most_derived else 0,
        most_recent=s.limit,
    )
    return slice_order(relevant, top.most_derived, top.most_recent)[: s.limit]
