"""Observation retrieval within one (observer, observed) scope.

A global vector index answers with the global top-k, so a filter on one small scope afterwards
can leave few or no hits. The vector half therefore takes one of three paths:

- a scope with its own vector index (graph/repo/scope_index.py: every scope above
  SCOPE_INDEX_MIN beliefs gets one) asks that index for a growing number of candidates,
  rescored exactly;
- a scope of up to EXACT_SCAN_LIMIT beliefs is scanned exactly (cosine over each of its beliefs,
  through the (workspace, observer, observed) index);
- a large scope whose index is not built yet asks the global index for a growing number of
  candidates.

Both index paths fall back to the exact scan when the filters are so narrow that the largest
round does not fill the page (the rounds and their numbers: graph/repo/retrieval.py). The
fulltext half asks Lucene for the scope's term (``scope_key``) and the words together, so its
hits are all in scope.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.db import Database
from graph.keys import Representation
from graph.lucene import scoped_terms_query
from graph.records import ObservationRecord
from graph.repo.retrieval import OBSERVATIONS, SCOPE_INDEX_OVERFETCH, Rows, Scored, grow, grow_text
from graph.validation import aware

EXACT_SCAN_LIMIT = OBSERVATIONS.exact_scan_limit


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


def _scored(rows: Rows) -> Scored[ObservationRecord]:
    return [(ObservationRecord.from_row(r["observation"]), float(r["score"])) for r in rows]


async def scope_size(db: Database, workspace: str, observer: str, observed: str) -> int:
    row = await db.read_one(
        "count_observations_in_scope", workspace=workspace, observer=observer, observed=observed
    )
    return int(row["total"]) if row else 0


async def exact(
    db: Database, workspace: str, embedding: list[float], query: ObservationQuery, limit: int
) -> Scored[ObservationRecord]:
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
) -> Scored[ObservationRecord]:
    cap = OBSERVATIONS.max_candidates
    first_scoped = OBSERVATIONS.first_round(limit, SCOPE_INDEX_OVERFETCH)
    rows = await db.read(
        "search_observations_scoped",
        workspace=workspace,
        embedding=embedding,
        candidates=first_scoped,
        limit=limit,
        exact_scan_limit=exact_scan_limit,
        **query.params(),
    )
    head = rows[0] if rows else {"index": None, "total": 0}
    hits = [r for r in rows if r["observation"] is not None]
    index = head["index"]
    if index is not None:
        # The first round ran in the same statement; more only if filters left the page short.
        if len(hits) < limit and first_scoped < cap:

            async def scoped(candidates: int) -> Rows:
                return await db.read(
                    "search_observations_scope_index",
                    index=index,
                    workspace=workspace,
                    embedding=embedding,
                    candidates=candidates,
                    limit=limit,
                    **query.params(),
                )

            hits = await grow(scoped, first_scoped * 4, limit, cap)
    elif int(head["total"] or 0) <= exact_scan_limit:
        return _scored(hits)  # the exact scan ran in the same statement
    else:

        async def global_(candidates: int) -> Rows:
            return await db.read(
                "search_observations_vector",
                workspace=workspace,
                embedding=embedding,
                candidates=candidates,
                limit=limit,
                **query.params(),
            )

        hits = await grow(global_, OBSERVATIONS.first_round(limit), limit, cap)
    if len(hits) < limit:
        return await exact(db, workspace, embedding, query, limit)
    return _scored(hits)


async def text_candidates(
    db: Database, workspace: str, text: str, query: ObservationQuery, limit: int
) -> Scored[ObservationRecord]:
    key = Representation(workspace, query.observer, query.observed).key
    lucene = scoped_terms_query(text, field="content", scope_field="scope_key", scope=key)
    if not lucene:
        return []

    # Lucene ranks within the scope already; more hits are asked for only when the filters
    # (stale, sessions, levels, dates) left the page short and Lucene had more to give.
    async def fetch(candidates: int) -> tuple[Rows, int]:
        row = await db.read_one(
            "search_observations_fulltext",
            workspace=workspace,
            query=lucene,
            candidates=candidates,
            limit=limit,
            **query.params(),
        )
        return (list(row["found"]), int(row["raw"])) if row else ([], 0)

    first = OBSERVATIONS.first_text_round(limit)
    return _scored(await grow_text(fetch, first, limit, OBSERVATIONS.max_text_candidates))


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
