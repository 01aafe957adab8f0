"""Hybrid search over any node kind: vector and fulltext candidates, fused into one ranking.

A `Retriever` knows how to find candidates of one kind within one scope (messages of a session,
beliefs of one observer about one peer, ...); `hybrid_search` does the rest the same way for
every kind: check the text, embed it, ask both halves (concurrently) for a deeper pool than
the page, fuse them by score (fusion.py) and keep each hit's rank in either list.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from graph.validation import check_query
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.search.fusion import TEXT_WEIGHT, fuse_scores

T = TypeVar("T")

# Each retriever returns this many candidates per wanted hit (at least MIN_POOL), so fusion can
# reorder across the two lists rather than only interleave their heads.
POOL_FACTOR = 3
MIN_POOL = 20


@dataclass(frozen=True)
class Hit(Generic[T]):
    item: T
    score: float  # the fused score
    vector_rank: int | None  # 1-based rank in the vector list, None if not found there
    text_rank: int | None
    # Neo4j's cosine similarity to the query, (1 + cos) / 2 in [0, 1]; None if not known.
    similarity: float | None = None

    def within(self, max_distance: float | None) -> bool:
        """Whether the hit is at most `max_distance` away from the query in cosine distance
        (1 - cos, as Honcho's clients mean it); a hit whose similarity is unknown is not."""
        if max_distance is None:
            return True
        return self.similarity is not None and 2 * (1 - self.similarity) <= max_distance


# Which candidates a search favours, known only once a lookup ran (messages: whose turns).
Favour = Callable[[T], bool]


class Retriever(Protocol[T]):
    async def vector(self, embedding: list[float], limit: int) -> list[tuple[T, float]]: ...

    async def text(
        self, text: str, embedding: list[float], limit: int
    ) -> list[tuple[T, float, float | None]]:
        """Fulltext hits with Lucene's score and their similarity to `embedding`."""
        ...


def pool_size(limit: int) -> int:
    return max(limit * POOL_FACTOR, MIN_POOL)


def fuse(
    by_vector: Sequence[tuple[T, float]],
    by_text: Sequence[tuple[T, float, float | None]],
    key: Callable[[T], str],
    limit: int,
    favour: Favour[T] | None = None,
    boost: float = 0.0,
    text_weight: float = TEXT_WEIGHT,
    penalty: Callable[[T], float] | None = None,
    replies: Mapping[str, str] | None = None,
    reply_weight: float = 0.0,
) -> list[Hit[T]]:
    """The two rankings fused by score (fusion.py), best first, at most `limit`; the
    candidates `favour` accepts get `boost` on their score, each loses `penalty` of it (a
    prior such as fusion.length_penalty), and a candidate `replies` maps (by key) to the one it
    replies to adds `reply_weight` times that one's score (replies.py)."""
    items = {key(x): x for x, _ in by_vector} | {key(x): x for x, _, _ in by_text}
    vector_rank = {key(x): i + 1 for i, (x, _) in enumerate(by_vector)}
    text_rank = {key(x): i + 1 for i, (x, _, _) in enumerate(by_text)}
    # The vector half's score is the similarity; a fulltext-only hit brings its own.
    similarity: dict[str, float | None] = {key(x): s for x, s in by_vector}
    for x, _, s in by_text:
        similarity.setdefault(key(x), s)
    text: dict[str, float] = {}
    for x, score, _ in by_text:
        text.setdefault(key(x), score)
    boosted = {k for k, x in items.items() if favour(x)} if favour is not None else set()
    penalties = {k: penalty(x) for k, x in items.items()} if penalty is not None else None
    fused = fuse_scores(
        similarity,
        text,
        text_weight,
        boosted=boosted,
        boost=boost,
        penalty=penalties,
        replies=replies,
        reply_weight=reply_weight,
    )
    return [
        Hit(items[k], score, vector_rank.get(k), text_rank.get(k), similarity.get(k))
        for k, score in fused[:limit]
    ]


@dataclass(frozen=True)
class Candidates(Generic[T]):
    """What fusion ranks for one query: both halves' candidates, best first, which of them
    the query favours (None: none), and which reply to which (keys; replies.py)."""

    by_vector: list[tuple[T, float]]
    by_text: list[tuple[T, float, float | None]]
    favour: Favour[T] | None
    replies: Mapping[str, str] = field(default_factory=dict)

    def pooled(self) -> list[T]:
        """Every candidate, the vector half's first; one both halves found appears twice."""
        return [x for x, _ in self.by_vector] + [x for x, _, _ in self.by_text]


async def gather_candidates(
    embedder: Embedder,
    retriever: Retriever[T],
    text: str,
    limit: int,
    *,
    embedding: list[float] | None = None,
    favour: Callable[[], Awaitable[Favour[T] | None]] | None = None,
) -> Candidates[T]:
    """Both halves' pools for a page of `limit` (pass `embedding` when the caller already has
    it); `favour`, when given, looks up which candidates a search favours, beside the reads."""
    check_query(text)
    pool = pool_size(limit)
    if embedding is None:
        [embedding] = await embed_async(embedder, [text])

    async def no_favour() -> Favour[T] | None:
        return None

    # The reads are independent: run side by side, the search takes the slowest one's time.
    by_vector, by_text, favoured = await asyncio.gather(
        retriever.vector(embedding, pool),
        retriever.text(text, embedding, pool),
        (favour or no_favour)(),
    )
    return Candidates(list(by_vector), list(by_text), favoured)


async def hybrid_search(
    embedder: Embedder,
    retriever: Retriever[T],
    key: Callable[[T], str],
    text: str,
    limit: int,
    *,
    embedding: list[float] | None = None,
    favour: Callable[[], Awaitable[Favour[T] | None]] | None = None,
    boost: float = 0.0,
) -> list[Hit[T]]:
    """Search `text` through `retriever`: the candidates `favour` picks get `boost`."""
    found = await gather_candidates(
        embedder, retriever, text, limit, embedding=embedding, favour=favour
    )
    return fuse(found.by_vector, found.by_text, key, limit, found.favour, boost)
