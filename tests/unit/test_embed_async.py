"""Embedding off the event loop, in calls a cancellation can wait out."""

from __future__ import annotations

import asyncio

from reasoners.embeddings.model import THREAD_CALL, embed_async
from tests.fakes.embedder import CountingEmbedder


def test_many_texts_go_to_the_thread_in_calls_of_at_most_thread_call() -> None:
    """One call held all 187,000 facts of a large upload: a thread cannot be cancelled, so a
    stopped server stayed busy for minutes."""
    embedder = CountingEmbedder()
    texts = [f"fact {i}" for i in range(2 * THREAD_CALL + 3)]
    vectors = asyncio.run(embed_async(embedder, texts))
    assert [len(call) for call in embedder.calls] == [THREAD_CALL, THREAD_CALL, 3]
    assert vectors == [[float(len(t)), 1.0] for t in texts]


def test_no_text_makes_no_call() -> None:
    embedder = CountingEmbedder()
    assert asyncio.run(embed_async(embedder, [])) == []
    assert embedder.calls == []
