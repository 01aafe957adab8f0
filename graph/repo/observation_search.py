"""Observation retrieval within one (observer, observed) scope.

A global vector index answers with the global top-k, so a filter on one small scope afterwards
can leave few or no hits. Scopes up to EXACT_SCAN_LIMIT beliefs are therefore scanned exactly
(cosine over every belief of the scope, through the scope index); larger scopes ask the index
for a growing number of candidates, and fall back to the exact scan when the filters are so
narrow that even MAX_CANDIDATES global candidates do not fill the page.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.db import Database
from graph.lucene import terms_query
from graph.records import ObservationRecord
from graph.validation import aware

EXACT_SCAN_LIMIT = 5_000
FIRST_OVERFETCH = 20
MAX_CANDIDATES = 20_000
Scored = list[tuple[ObservationRecord, float]]


@dataclass(frozen=True)
class ObservationQuery:
    """Which beliefs of a scope a search may return."""

    observer: str
    observed: str
    levels: list[str] | None = None
    session_ids: list[str] | None = None
    exclude_session_ids: list[str] | None = None
    exclude_derived: bool = False  # leave out beliefs with no session (deductions, inductions)
    since: datetime | None = None
    until: datetime | None = None
    include_stale: bool = False
    include_superseded: bool = False

    def params(self) -> dict[str, Any]:
        return {
            "observer": self.observer,
            "observed": self.observed,
            "levels": self.levels,
            "session_ids": self.session_ids,
            "exclude_session_ids": self.exclude_session_ids,
            "exclude_derived": self.exclude_derived,
            "since": aware(self.since),
            "until": aware(self.until),
            "include_stale": self.include_stale,
            "include_superseded": self.include_superseded,
        }


def _scored(rows: list[dict[str, Any]]) -> Scored:
    return [(ObservationRecord.from_row(r["observation"]), float(r["score"])) for r in rows]


async def scope_size(db: Database, workspace: str, observer: str, observed: str) -> int:
    row = await db.read_one(
        "count_observations_in_scope", workspace=workspace, observer=observer, observed=observed
    )
    return int(row["total"]) if row else 0


async def exact(
    db: Database, workspace: str, embedding: list[float], query: ObservationQuery, limit: int
) -> Scored:
    rows = await db.read(
        "search_observations_exact",
        workspace=workspace,
        embedding=embedding,
        limit=limit,
        **query.params(),
    )
    return _scored(rows)


async def vector_candidates(
    db: Database,
    workspace: str,
    embedding: list[float],
    query: ObservationQuery,
    limit: int,
    *,
    exact_scan_limit: int = EXACT_SCAN_LIMIT,
) -> Scored:
    size = await scope_size(db, workspace, query.observer, query.observed)
    if size <= exact_scan_limit:
        return await exact(db, workspace, embedding, query, limit)
    # Start from what the scope's share of the index suggests, then grow.
    candidates = min(MAX_CANDIDATES, max(limit * FIRST_OVERFETCH, 100))
    while True:
        rows = await db.read(
            "search_observations_vector",
            workspace=workspace,
            embedding=embedding,
            candidates=candidates,
            limit=limit,
            **query.params(),
        )
        if len(rows) >= limit or candidates >= MAX_CANDIDATES:
            break
        candidates = min(candidates * 4, MAX_CANDIDATES)
    if len(rows) < limit:
        return await exact(db, workspace, embedding, query, limit)
    return _scored(rows)


async def text_candidates(
    db: Database, workspace: str, text: str, query: ObservationQuery, limit: int
) -> Scored:
    lucene = terms_query(text)
    if not lucene:
        return []
    rows = await db.read(
        "search_observations_fulltext",
        workspace=workspace,
        query=lucene,
        limit=limit,
        **query.params(),
    )
    return _scored(rows)


@dataclass(frozen=True)
class TopObservations:
    most_derived: list[ObservationRecord]
    most_recent: list[ObservationRecord]


async def top(
    db: Database,
    workspace: str,
    observer: str,
    observed: str,
    *,
    most_derived: int,
    most_recent: int,
) -> TopObservations:
    row = await db.read_one(
        "list_top_observations",
        workspace=workspace,
        observer=observer,
        observed=observed,
        most_derived=most_derived,
        most_recent=most_recent,
    )
    if row is None:
        return TopObservations([], [])
    return TopObservations(
        [ObservationRecord.from_row(o) for o in row["most_derived"]],
        [ObservationRecord.from_row(o) for o in row["most_recent"]],
    )
