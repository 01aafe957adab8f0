"""What every searchable node kind shares: candidate thresholds and growing candidate rounds.

A vector index answers with its top-k over everything it indexes; filters applied afterwards
(a scope, a session, dates) can leave fewer hits than asked for. Each kind therefore scans a
small scope exactly, and asks an index for more candidates than it needs, in rounds that grow
until the page fills, the index has nothing more to give, or a cap is reached. The numbers that
decide this live here, one row per kind, so they are tuned in one place.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

T = TypeVar("T")
Rows = list[dict[str, Any]]
Scored = list[tuple[T, float]]

GROWTH = 4  # each further round asks for this many times more candidates


@dataclass(frozen=True)
class Thresholds:
    exact_scan_limit: int  # a scope of at most this many nodes is scanned exactly
    overfetch: int  # a first index round asks for this many candidates per wanted hit ...
    min_candidates: int  # ... and at least this many
    max_candidates: int  # no round asks for more
    text_overfetch: int  # fulltext: hits asked per wanted one, when the filters may drop some
    min_text_candidates: int
    max_text_candidates: int

    def first_round(self, limit: int, overfetch: int | None = None) -> int:
        wanted = limit * (overfetch or self.overfetch)
        return min(self.max_candidates, max(wanted, self.min_candidates))

    def first_text_round(self, limit: int) -> int:
        wanted = limit * self.text_overfetch
        return min(self.max_text_candidates, max(wanted, self.min_text_candidates))


# Measured on this project's benches (docs/BENCHMARKS.md): the exact cosine costs ~45 us per
# belief, a per-scope index query ~15-20 ms; messages are scanned through their (workspace,
# session) and (workspace, peer) indexes, which stays under the global index's cost much longer.
MESSAGES = Thresholds(
    exact_scan_limit=20_000,
    overfetch=10,
    min_candidates=100,
    max_candidates=10_000,
    text_overfetch=4,
    min_text_candidates=50,
    max_text_candidates=20_000,
)
OBSERVATIONS = Thresholds(
    exact_scan_limit=500,
    overfetch=20,  # the global index: other scopes' beliefs crowd its top-k
    min_candidates=100,
    max_candidates=20_000,
    text_overfetch=4,
    min_text_candidates=50,
    max_text_candidates=20_000,
)
SCOPE_INDEX_OVERFETCH = (
    10  # a scope's own index: every candidate is in scope, rescoring needs a margin
)


async def grow(fetch: Callable[[int], Awaitable[Rows]], first: int, limit: int, cap: int) -> Rows:
    """Index rounds of `first` candidates, then GROWTH times more, until `limit` rows come
    back or the round reached `cap`. The caller falls back to the exact scan if still short."""
    candidates = min(cap, first)
    while True:
        rows = await fetch(candidates)
        if len(rows) >= limit or candidates >= cap:
            return rows
        candidates = min(candidates * GROWTH, cap)


async def grow_text(
    fetch: Callable[[int], Awaitable[tuple[Rows, int]]], first: int, limit: int, cap: int
) -> Rows:
    """Fulltext rounds: `fetch(candidates)` returns (rows kept by the filters, raw hits Lucene
    gave). More are asked for only when the filters left the page short and Lucene had more."""
    candidates = min(cap, first)
    while True:
        rows, raw = await fetch(candidates)
        if len(rows) >= limit or raw < candidates or candidates >= cap:
            return rows
        candidates = min(candidates * GROWTH, cap)
