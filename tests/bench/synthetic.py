"""Synthetic corpora shared by the search benches (pure: numpy, no I/O).

- `scope_sizes`: how many items each of many scopes holds at a corpus size: half dormant
  (a log-uniform 1-50 handful), half active sharing the rest by Zipf weights (rank^-1).
- `TopicSpace`: seeded 384-dim unit vectors clustered in three levels (global topics with Zipf
  popularity, a cluster's own topic centroids, facets of items saying the same thing) and
  pseudo-word text made of topic and facet keywords, so fulltext has something to match.
- `PrimedEmbedder`: an embedder returning precomputed query vectors (no model is timed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float32]
Vector = npt.NDArray[np.float32]

DIM = 384
TOPICS = 256
TOPICS_PER_SCOPE = 8
TOPIC_WORDS = 5
SCOPE_SPREAD = 0.5  # scope-topic centroid = unit(topic + 0.5 u): cos ~0.89 to the topic
FACET_SPREAD = 0.9  # facet = unit(centroid + 0.9 u): cos ~0.74
BELIEF_SPREAD = 0.6  # item = unit(facet + 0.6 u): cos ~0.86
QUERY_SPREAD = 0.5  # query = unit(item + 0.5 u): cos ~0.89
FACET_MEAN = 15  # a new facet with probability 1/15
DORMANT_MAX = 50
BUCKETS: tuple[tuple[str, int, int], ...] = (
    ("1-10", 1, 10),
    ("11-100", 11, 100),
    ("101-1k", 101, 1_000),
    ("1k-10k", 1_001, 10_000),
    (">10k", 10_001, 1 << 62),
)
VERBS = ("mentioned", "likes", "worries about", "plans", "remembers", "asked about", "avoids")


def unit(rows: npt.NDArray[np.floating[Any]]) -> Matrix:
    out = np.asarray(rows, dtype=np.float32)
    scaled: Matrix = (out / np.linalg.norm(out, axis=-1, keepdims=True)).astype(np.float32)
    return scaled


def noise(rng: np.random.Generator, shape: tuple[int, ...]) -> Matrix:
    """Isotropic unit directions."""
    return unit(rng.standard_normal(shape, dtype=np.float32))


def bucket_of(size: int) -> str:
    for name, low, high in BUCKETS:
        if low <= size <= high:
            return name
    return "empty"


def scope_sizes(total: int, scopes: int, seed: int) -> npt.NDArray[np.int64]:
    """Items per scope at corpus size `total` (sums to `total`; grows monotonically with it).

    Dormant scopes (the odd positions of a seeded permutation) keep a log-uniform 1..50 handful;
    active scopes share the rest by Zipf rank weights, each holding at least one item.
    """
    rng = np.random.default_rng(seed)
    order = rng.permutation(scopes)
    dormant_ids = order[scopes // 2 :]
    active_ids = order[: scopes // 2]
    handful = np.clip(
        np.floor(np.exp(rng.random(len(dormant_ids)) * np.log(DORMANT_MAX + 1))), 1, DORMANT_MAX
    ).astype(np.int64)
    rest = total - int(handful.sum())
    if rest < len(active_ids):
        raise ValueError(f"{total} items are too few for {scopes} scopes")
    weights = np.arange(1, len(active_ids) + 1, dtype=np.float64) ** -1.0
    low, high = 0.0, float(rest) * 10
    for _ in range(200):  # largest c with sum(max(1, floor(c w))) <= rest
        mid = (low + high) / 2
        if np.maximum(1, np.floor(mid * weights)).sum() > rest:
            high = mid
        else:
            low = mid
    active = np.maximum(1, np.floor(low * weights)).astype(np.int64)
    active[0] += rest - int(active.sum())
    sizes = np.zeros(scopes, dtype=np.int64)
    sizes[active_ids] = active
    sizes[dormant_ids] = handful
    return sizes


def pseudo_words(rng: np.random.Generator, count: int) -> list[str]:
    consonants, vowels = "bdfgklmnprstvz", "aeiou"
    syllables = [c + v for c in consonants for v in vowels]
    words: set[str] = set()
    while len(words) < count:
        parts = rng.integers(0, len(syllables), int(rng.integers(2, 4)))
        words.add("".join(syllables[p] for p in parts))
    return sorted(words)


@dataclass
class Cluster:
    """One scope's place in the topic space: its topics, their centroids, its facets."""

    topics: npt.NDArray[np.int64]
    topic_weights: npt.NDArray[np.float64]
    centroids: Matrix
    facets: list[list[int]]  # facet ids per topic slot


class TopicSpace:
    """Seeded generator of clustered unit vectors and their text (see the module docstring)."""

    def __init__(self, seed: int, dim: int = DIM) -> None:
        self.rng = np.random.default_rng(seed)
        self.dim = dim
        self.topic_vecs = noise(self.rng, (TOPICS, dim))
        popularity = np.arange(1, TOPICS + 1, dtype=np.float64) ** -1.0
        self.topic_pop = popularity / popularity.sum()
        self.vocab = pseudo_words(self.rng, 4000)
        picks = self.rng.permutation(len(self.vocab))[: TOPICS * TOPIC_WORDS]
        self.topic_words = picks.reshape(TOPICS, TOPIC_WORDS)
        self.facet_vecs: list[Vector] = []
        self.facet_words: list[tuple[int, int]] = []
        self.facet_topic: list[int] = []

    def cluster(self) -> Cluster:
        """A new scope: a few popular topics, each around a centroid of its own."""
        topics = self.rng.choice(TOPICS, TOPICS_PER_SCOPE, replace=False, p=self.topic_pop)
        weights = np.arange(1, TOPICS_PER_SCOPE + 1, dtype=np.float64) ** -1.0
        around = self.topic_vecs[topics] + SCOPE_SPREAD * noise(self.rng, (len(topics), self.dim))
        return Cluster(
            topics=topics,
            topic_weights=weights / weights.sum(),
            centroids=unit(around),
            facets=[[] for _ in topics],
        )

    def _new_facet(self, cluster: Cluster, slot: int) -> int:
        vec = unit(cluster.centroids[slot] + FACET_SPREAD * noise(self.rng, (self.dim,)))
        a, b = self.rng.integers(0, len(self.vocab), 2)
        self.facet_vecs.append(vec)
        self.facet_words.append((int(a), int(b)))
        self.facet_topic.append(int(cluster.topics[slot]))
        facet = len(self.facet_vecs) - 1
        cluster.facets[slot].append(facet)
        return facet

    def grow(self, cluster: Cluster, count: int) -> tuple[Matrix, list[int]]:
        """`count` new items of `cluster`: their vectors and facet ids."""
        slots = self.rng.choice(len(cluster.topics), count, p=cluster.topic_weights)
        rolls = self.rng.random(count)
        facets: list[int] = []
        for slot, roll in zip(slots.tolist(), rolls.tolist(), strict=True):
            existing = cluster.facets[slot]
            if not existing or roll < 1.0 / FACET_MEAN:
                facets.append(self._new_facet(cluster, slot))
            else:
                facets.append(existing[int(self.rng.integers(0, len(existing)))])
        centres = np.stack([self.facet_vecs[f] for f in facets])
        vectors = unit(centres + BELIEF_SPREAD * noise(self.rng, (count, self.dim)))
        return vectors, facets

    def content(self, lead: str, facet: int, pick: int) -> str:
        """`lead` (a peer's name), a verb, two topic keywords and the facet's two keywords."""
        topic_words = self.topic_words[self.facet_topic[facet]]
        a, b = self.facet_words[facet]
        t1 = self.vocab[int(topic_words[pick % TOPIC_WORDS])]
        t2 = self.vocab[int(topic_words[(pick // TOPIC_WORDS) % TOPIC_WORDS])]
        verb = VERBS[pick % len(VERBS)]
        return f"{lead} {verb} {t1} {self.vocab[a]} {t2} {self.vocab[b]}"

    def question(self, facet: int, pick: int) -> str:
        topic_words = self.topic_words[self.facet_topic[facet]]
        a, b = self.facet_words[facet]
        topic = self.vocab[int(topic_words[pick % TOPIC_WORDS])]
        return f"what about {topic} {self.vocab[a]} {self.vocab[b]}"

    def near(self, vector: Vector, rng: np.random.Generator) -> Vector:
        """A query vector around an item (cos ~0.89 to it)."""
        return unit(vector + QUERY_SPREAD * noise(rng, (self.dim,)))


class PrimedEmbedder:
    """Returns the vector primed for a text: the query vectors are precomputed, and no model
    runs inside a timed call (a real query embedding costs ~5-15 ms on these CPUs)."""

    def __init__(self, dimension: int = DIM) -> None:
        self._dimension = dimension
        self._vectors: dict[str, list[float]] = {"dimension probe": [0.0] * dimension}

    @property
    def dimension(self) -> int:
        return self._dimension

    def prime(self, text: str, vector: list[float]) -> None:
        self._vectors[text] = vector

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._vectors[t] for t in texts]
