"""Observation retrieval within one or several (observer, observed) representations.

Both halves stay in scope inside their index: the observation_vectors index filters by
workspace, scope keys and levels (a small representation is scanned exactly instead, in the
same statement), and the fulltext query requires the representations' scope keys. Staleness,
sessions and dates filter after, in growing rounds (graph/repo/retrieval.py), with the exact
scan as the last word. Several representations at once (a peer and its sub-peers, as one
observer sees them) are one search: `IN` over their keys.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.db import Database, Row
from graph.keys import scope_key
from graph.lucene import scoped_query
from graph.models import ObservationLevel
from graph.records import ObservationRecord
from graph.repo.retrieval import (
    OBSERVATIONS,
    Round,
    Rows,
    Scored,
    TextScored,
    Thresholds,
    index_rounds,
    text_by_key_parts,
    text_search,
)
from graph.validation import aware

ALL_LEVELS = [level.value for level in ObservationLevel]


@dataclass(frozen=True)
class ObservationQuery:
    """Which beliefs a read may return: `observer`'s of `observed` and of the `aggregated`
    peers below it (its sub-peers, read together), narrowed by the filters."""

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
    aggregated: tuple[str, ...] = ()  # sub-peers of `observed` the read also covers
    as_of: datetime | None = None  # the beliefs as they stood then

    @property
    def observed_peers(self) -> list[str]:
        return [self.observed, *(p for p in self.aggregated if p != self.observed)]

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """The (observer, observed) representations read. A peer's view of itself aggregates
        its sub-peers' views of themselves: each sub-peer's own conversations are where its
        self-knowledge was derived."""
        self_view = self.observer == self.observed
        return [(p if self_view else self.observer, p) for p in self.observed_peers]

    def keys(self, workspace: str) -> list[str]:
        return [scope_key(workspace, observer, observed) for observer, observed in self.pairs]

    def params(self, workspace: str) -> dict[str, Any]:
        """The filter parameters every observation search statement takes."""
        return {
            "keys": self.keys(workspace),
            # None: every level; an empty list matches none, as an empty session list does.
            "levels": ALL_LEVELS if self.levels is None else self.levels,
            "session_ids": self.session_ids,
            "exclude_session_ids": self.exclude_session_ids,
            "exclude_derived": self.exclude_derived,
            "since": aware(self.since),
            "until": aware(self.until),
            "include_stale": self.include_stale,
            "include_superseded": self.include_superseded,
            "as_of": aware(self.as_of),
        }


def _scored(rows: Rows) -> Scored[ObservationRecord]:
    return [(ObservationRecord.from_row(r["observation"]), float(r["score"])) for r in rows]


async def _vector_round(
    db: Database,
    workspace: str,
    embedding: list[float],
    query: ObservationQuery,
    limit: int,
    *,
    candidates: int,
    wide: int,
    exact_scan_limit: int,
    wide_from: int = OBSERVATIONS.wide_from,
) -> tuple[Round, int]:
    row = await db.read_one(
        "search_observations_vector",
        workspace=workspace,
        scopes=[{"observer": o, "observed": p} for o, p in query.pairs],
        embedding=embedding,
        limit=limit,
        exact_scan_limit=exact_scan_limit,
        wide_from=wide_from,
        candidates=candidates,
        wide=wide,
        **query.params(workspace),
    )
    assert row is not None
    total = int(row["total"])
    # Which path ran (see the statement): the exact scan is complete, an index round asked for
    # `candidates` or, in a large representation, `wide`.
    asked: int | None = None
    if total > exact_scan_limit:
        asked = candidates if total <= wide_from else wide
    return Round(list(row["found"]), int(row["raw"]), asked), total


async def exact(
    db: Database, workspace: str, embedding: list[float], query: ObservationQuery, limit: int
) -> Scored[ObservationRecord]:
    """The exact cosine over the representations, with every filter (the ground truth)."""
    everything = 1 << 62
    result, _ = await _vector_round(
        db, workspace, embedding, query, limit, candidates=0, wide=0, exact_scan_limit=everything
    )
    return _scored(result.found)


async def vector_candidates(
    db: Database,
    workspace: str,
    embedding: list[float],
    query: ObservationQuery,
    limit: int,
    *,
    thresholds: Thresholds = OBSERVATIONS,
) -> Scored[ObservationRecord]:
    async def fetch(candidates: int, wide: int) -> Round:
        result, _ = await _vector_round(
            db,
            workspace,
            embedding,
            query,
            limit,
            candidates=candidates,
            wide=wide,
            exact_scan_limit=thresholds.exact_scan_limit,
            wide_from=thresholds.wide_from,
        )
        return result

    rows, complete = await index_rounds(fetch, thresholds, limit)
    if not complete:
        return await exact(db, workspace, embedding, query, limit)
    return _scored(rows)


async def text_candidates(
    db: Database,
    workspace: str,
    text: str,
    query: ObservationQuery,
    limit: int,
    *,
    embedding: list[float] | None = None,
) -> TextScored[ObservationRecord]:

    async def search(keys: list[str]) -> TextScored[ObservationRecord]:
        lucene = scoped_query(text, field="content", required={"scope_key": keys})
        if not lucene:
            return []

        # Lucene ranks within the representations already; more hits are asked for only when
        # the filters (stale, sessions, levels, dates) left the page short and Lucene had more.
        async def fetch(candidates: int) -> Row | None:
            return await db.read_one(
                "search_observations_fulltext",
                workspace=workspace,
                query=lucene,
                candidates=candidates,
                limit=limit,
                embedding=embedding,
                **query.params(workspace),
            )

        return await text_search(
            fetch, OBSERVATIONS, limit, "observation", ObservationRecord.from_row
        )

    return await text_by_key_parts(query.keys(workspace), limit, search)


AS_OF_SCAN = 1000  # beliefs an asOf read ranks by their counts then, over its representations


def _derived_scan(most_derived: int, as_of: datetime | None, keys: int) -> int:
    """How many of each representation's most derived beliefs today the read takes: as of a
    time, more, to be ranked by their counts then (a count then is at most today's); the
    AS_OF_SCAN shared out, so a read aggregating thousands of sub-peers stays bounded."""
    if as_of is None or most_derived == 0:
        return most_derived
    return max(most_derived, AS_OF_SCAN // max(keys, 1))


@dataclass(frozen=True)
class TopObservations:
    most_derived: list[ObservationRecord]
    most_recent: list[ObservationRecord]


async def top(
    db: Database,
    workspace: str,
    query: ObservationQuery,
    *,
    most_derived: int,
    most_recent: int,
) -> TopObservations:
    """The most-derived and the most recent current beliefs of the query's representations
    (its levels, dates, staleness and supersession flags do not apply; its sessions do)."""
    params = query.params(workspace)
    row = await db.read_one(
        "list_top_observations",
        workspace=workspace,
        keys=params["keys"],
        as_of=params["as_of"],
        session_ids=params["session_ids"],
        exclude_session_ids=params["exclude_session_ids"],
        exclude_derived=params["exclude_derived"],
        most_derived=most_derived,
        derived_scan=_derived_scan(most_derived, params["as_of"], len(params["keys"])),
        most_recent=most_recent,
    )
    if row is None:
        return TopObservations([], [])
    return TopObservations(
        [ObservationRecord.from_row(o) for o in row["most_derived"]],
        [ObservationRecord.from_row(o) for o in row["most_recent"]],
    )
