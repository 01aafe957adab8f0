"""What every searchable node kind shares: candidate thresholds and growing index rounds.

Each kind has one vector index with the properties that scope a search inside it (workspace,
representation, session, peer), so a search asks the index for a scope's own nearest
neighbours. The index ranks without quantization; filters that are not in the index (staleness,
dates, metadata) apply after, so a round asks for more candidates than the page needs, and a
page the filters left short is asked again with more, until the index has nothing more in
scope, or a cap, after which the exact scan decides. A small scope is scanned exactly at once.
The numbers that decide this live here, one row per kind, so they are tuned in one place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from graph.lucene import MAX_KEY_CLAUSES

T = TypeVar("T")
Rows = list[dict[str, Any]]
Scored = list[tuple[T, float]]
# A fulltext hit: Lucene's score, and the node's similarity to the query's embedding (on the
# vector index's 0-1 scale; None without an embedding), so fusion can weigh every candidate
# by both, including those the vector half did not return.
TextScored = list[tuple[T, float, float | None]]


def text_scored(rows: Rows, key: str, record: Callable[[dict[str, Any]], T]) -> TextScored[T]:
    """Fulltext rows ({key: node, score, similarity}) as (record, score, similarity)."""
    return [
        (
            record(r[key]),
            float(r["score"]),
            None if r["similarity"] is None else float(r["similarity"]),
        )
        for r in rows
    ]


GROWTH = 4  # each further round asks for this many times more candidates


@dataclass(frozen=True)
class Dominant:
    """When a scope is better searched as its whole workspace, its own kept after.

    A vector search filtered to a few percent of its index walks much more of the HNSW graph
    than an unfiltered one before it has enough in scope. So for a scope that holds a large
    share of its workspace, the workspace's nearest (filtered by workspace alone) hold the
    scope's nearest, found sooner. Of the two `rounds`, the first expected to hold
    `hits_per_wanted` of the scope's own per wanted hit (at its share) runs; a scope whose
    share needs more than the second, or smaller than `min_size` (which the filtered search
    serves fast), is searched with its filter inside the index. The statement decides, in the
    same round trip as the search (cypher/search/search_messages_vector.cypher).
    """

    min_size: int
    hits_per_wanted: int
    rounds: tuple[int, int]

    def params(self, limit: int) -> dict[str, Any]:
        return {
            "dominant_hits": limit * self.hits_per_wanted,
            "dominant_min_size": self.min_size,
            "dominant_rounds": list(self.rounds),
        }


NOT_DOMINANT: dict[str, Any] = {
    "dominant_hits": None,
    "dominant_min_size": 0,
    "dominant_rounds": [0, 0],
}


@dataclass(frozen=True)
class Thresholds:
    exact_scan_limit: int  # a scope of at most this many nodes is scanned exactly
    overfetch: int  # an index round asks for this many candidates per wanted hit ...
    min_candidates: int  # ... and at least this many
    wide_from: int  # a scope above this size (or of unknown size) asks for wide rounds:
    wide_overfetch: int  # large scopes need more candidates for the same recall
    min_wide: int
    max_candidates: int  # no round asks for more
    text_overfetch: int  # fulltext: hits asked per wanted one, when the filters may drop some
    min_text_candidates: int
    max_text_candidates: int
    dominant: Dominant | None = None  # peers: see Dominant (None: always filtered)

    def first_round(self, limit: int) -> tuple[int, int]:
        """(candidates, wide) of the first index round for a page of `limit`."""
        narrow = max(limit * self.overfetch, self.min_candidates)
        wide = max(limit * self.wide_overfetch, self.min_wide)
        return min(self.max_candidates, narrow), min(self.max_candidates, wide)

    def first_text_round(self, limit: int) -> int:
        wanted = limit * self.text_overfetch
        return min(self.max_text_candidates, max(wanted, self.min_text_candidates))


# Peers that sent 2% or more of the messages: in a lab run at 1M messages (100 peers, warm
# server, 49 queries on peers of 0.5-22%), the filtered search took p95 64-85 ms on them and
# 33-39 ms on smaller ones, while the workspace's nearest 500-1,500 took 25-47 ms; recall@10
# was 0.97-1.00 where 30 or more of the peers' messages were expected among them, and 0.92
# where 10-20 were.
DOMINANT_PEERS = Dominant(min_size=5_000, hits_per_wanted=3, rounds=(500, 1_500))
# Tuned on bench:search and bench:api (docs/BENCHMARKS.md): recall@10 >= 0.98 against the
# exact scan in every scope-size bucket, at the lowest latency. For peers searched filtered
# (always the wide round), 300 found the exact top 10 as 500 did at 1M messages, in a lab run
# on peers of over 10,000 messages, with p95 about 10 ms lower.
MESSAGES = Thresholds(
    exact_scan_limit=500,
    overfetch=20,
    min_candidates=200,
    wide_from=5_000,
    wide_overfetch=30,
    min_wide=300,
    max_candidates=16_000,
    text_overfetch=4,
    min_text_candidates=50,
    max_text_candidates=20_000,
    dominant=DOMINANT_PEERS,
)
# A whole workspace's messages (no session or peer filter), where the index searches everything
# the workspace holds: a first round of 1,000 (on the denser graph below, 500 already found
# 0.985 of the exact top 10 at 1M messages in a lab run; the margin costs about 5 ms at p50).
WORKSPACE_MESSAGES = replace(MESSAGES, wide_overfetch=100, min_wide=1_000)
# The message index's HNSW graph (cypher/schema/create_vector_index_message.cypher), denser than
# Neo4j's default of m 16, ef_construction 100. With the default, at 1M messages, a whole
# workspace's first round of 500 found 0.93 of the exact top 10 and needed 2,000 candidates for
# about 0.96-0.98 (p95 over 50 ms); this graph finds 0.985 from 500 in less time (lab runs on
# a quiet machine), and building it takes about twice as long. Searches filtered to a few
# percent of the index are slower on it (peers of over 10,000 messages: p50 45 against 36 ms in
# the lab). graph/migrations.py rebuilds an index built with other settings.
MESSAGE_INDEX_GRAPH = {"hnsw_m": 32, "hnsw_ef_construction": 200}
OBSERVATIONS = Thresholds(
    exact_scan_limit=500,
    overfetch=20,
    min_candidates=200,
    wide_from=5_000,
    wide_overfetch=50,
    min_wide=500,
    max_candidates=16_000,
    text_overfetch=4,
    min_text_candidates=50,
    max_text_candidates=20_000,
)
# File chunks: a peer's files are usually few, so most searches are exact scans; above that,
# the observation numbers (same index layout: workspace plus one scope property inside).
FILES = Thresholds(
    exact_scan_limit=1_000,
    overfetch=20,
    min_candidates=200,
    wide_from=5_000,
    wide_overfetch=50,
    min_wide=500,
    max_candidates=16_000,
    text_overfetch=1,
    min_text_candidates=50,
    max_text_candidates=20_000,
)


@dataclass(frozen=True)
class Round:
    """One vector round: the hits the filters kept, and how many the index path gave (`raw`)
    out of how many it was asked for (`asked`; None when the exact scan ran)."""

    found: Rows
    raw: int
    asked: int | None


async def index_rounds(
    fetch: Callable[[int, int], Awaitable[Round]], thresholds: Thresholds, limit: int
) -> tuple[Rows, bool]:
    """Rounds of growing (candidates, wide) until the page fills, the exact scan ran, or the
    index had no more in scope; returns (hits, complete). Not complete means the cap was
    reached with the page still short: only the exact scan can then be sure."""
    candidates, wide = thresholds.first_round(limit)
    cap = thresholds.max_candidates
    while True:
        result = await fetch(candidates, wide)
        if len(result.found) >= limit or result.asked is None or result.raw < result.asked:
            return result.found, True
        if result.asked >= cap:
            return result.found, False
        candidates, wide = min(candidates * GROWTH, cap), min(wide * GROWTH, cap)


async def text_search(
    fetch: Callable[[int], Awaitable[dict[str, Any] | None]],
    kind: Thresholds,
    limit: int,
    key: str,
    record: Callable[[dict[str, Any]], T],
) -> TextScored[T]:
    """A kind's fulltext half in growing rounds: `fetch(candidates)` runs its statement, whose
    row holds `found` (the hits its filters kept) and `raw` (how many Lucene gave). More are
    asked for only when the filters left the page short and Lucene had more to give."""
    candidates = kind.first_text_round(limit)
    while True:
        row = await fetch(candidates)
        rows, raw = (list(row["found"]), int(row["raw"])) if row else ([], 0)
        if len(rows) >= limit or raw < candidates or candidates >= kind.max_text_candidates:
            return text_scored(rows, key, record)
        candidates = min(candidates * GROWTH, kind.max_text_candidates)


async def text_by_key_parts(
    keys: list[str],
    limit: int,
    search: Callable[[list[str]], Awaitable[TextScored[T]]],
) -> TextScored[T]:
    """`search` over `keys` in parts Lucene can hold as one clause (MAX_KEY_CLAUSES each), the
    best `limit` of all: past that many keys the query left its scope out, and Lucene's best
    hits, before the statement kept the scope's, could all be another tenant's."""
    if len(keys) <= MAX_KEY_CLAUSES:
        return await search(keys)
    found: TextScored[T] = []
    for at in range(0, len(keys), MAX_KEY_CLAUSES):
        found += await search(keys[at : at + MAX_KEY_CLAUSES])
    return sorted(found, key=lambda hit: hit[1], reverse=True)[:limit]
