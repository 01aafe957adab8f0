"""An embedder for unit tests: each vector names its text by length, and every call is noted."""

from __future__ import annotations

from collections.abc import Sequence


class CountingEmbedder:
    dimension = 2

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls.append(list(texts))
        return [[float(len(t)), 1.0] for t in texts]
