"""hybrid_search: both halves asked at once, fused, and a bad query refused before any read."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable, Sequence

import pytest

from graph.errors import InvalidInput
from reasoners.search.hybrid import hybrid_search, pool_size


class _Embedder:
    dimension = 2

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [[1.0, 0.0] for _ in texts]


class _Retriever:
    """Each half waits until the other has started: run one after the other, they never end."""

    def __init__(self) -> None:
        self.vector_started = asyncio.Event()
        self.text_started = asyncio.Event()
        self.calls: list[tuple[str, int]] = []

    async def vector(self, embedding: list[float], limit: int) -> list[tuple[str, float]]:
        self.calls.append(("vector", limit))
        self.vector_started.set()
        await self.text_started.wait()
        return [("a", 0.9), ("b", 0.5)]

    async def text(
        self, text: str, embedding: list[float], limit: int
    ) -> list[tuple[str, float, float | None]]:
        self.calls.append(("text", limit))
        self.text_started.set()
        await self.vector_started.wait()
        return [("c", 7.0, 0.6), ("b", 3.0, None)]


async def test_the_two_halves_run_side_by_side_and_fuse() -> None:
    retriever = _Retriever()
    hits = await asyncio.wait_for(
        hybrid_search(_Embedder(), retriever, lambda x: x, "what did I buy", 2), timeout=5
    )
    assert sorted(retriever.calls) == [("text", pool_size(2)), ("vector", pool_size(2))]
    # a: similarity 0.9 alone; c: 0.6 + the full text weight; b: 0.5 + half of it.
    assert [h.item for h in hits] == ["a", "c"]
    assert (hits[0].vector_rank, hits[0].text_rank) == (1, None)
    assert (hits[1].vector_rank, hits[1].text_rank) == (None, 1)
    # Each hit keeps its similarity; a distance threshold (1 - cos, cos = 2s - 1) keeps those
    # near enough: a at 0.9 is 0.2 away, c at 0.6 is 0.8 away.
    assert [h.similarity for h in hits] == [0.9, 0.6]
    assert [h.item for h in hits if h.within(0.5)] == ["a"]
    assert [h.item for h in hits if h.within(None)] == ["a", "c"]
    unknown = dataclasses.replace(hits[0], similarity=None)
    assert unknown.within(None) and not unknown.within(2.0)


async def test_a_bad_query_is_refused_before_either_half_runs() -> None:
    retriever = _Retriever()
    with pytest.raises(InvalidInput):
        await hybrid_search(_Embedder(), retriever, lambda x: x, "   ", 2)
    assert retriever.calls == []


class _WaitsForTheLookup(_Retriever):
    """The vector half waits for the lookup: run after the reads, the lookup never starts."""

    def __init__(self) -> None:
        super().__init__()
        self.looked_up = asyncio.Event()

    async def vector(self, embedding: list[float], limit: int) -> list[tuple[str, float]]:
        await self.looked_up.wait()
        return await super().vector(embedding, limit)


async def test_the_favoured_candidates_are_looked_up_beside_the_reads_and_boosted() -> None:
    retriever = _WaitsForTheLookup()

    async def favour_b() -> Callable[[str], bool]:
        retriever.looked_up.set()
        return lambda item: item == "b"

    hits = await asyncio.wait_for(
        hybrid_search(
            _Embedder(), retriever, lambda x: x, "what did I buy", 2, favour=favour_b, boost=0.5
        ),
        timeout=5,
    )
    # b: similarity 0.5 + half the text weight + the boost, ahead of a's 0.9.
    assert [h.item for h in hits] == ["b", "a"]
