"""Score fusion: one ranking from a vector ranking and a fulltext ranking of the same scope.

Each candidate's score is its similarity to the query (the vector index's 0-1 scale) plus a
weighted fulltext score, normalised by the best fulltext score of the query: Lucene's scores
are not comparable across queries, their ratio to the best is. A candidate only the fulltext
half found still has its similarity (the fulltext read computes it), so a turn that shares the
query's rare words but not its phrasing competes on both, which reciprocal rank fusion of the
two lists cannot do: it ignores how far apart the scores are. Offline, over the LongMemEval
sample's tuning half (stemmed BM25 beside the service's embeddings), rank fusion reached turn
recall_all@10 0.633 and this fusion 0.733; `bench memory` measures the product itself
(docs/BENCHMARKS.md).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

# Weight of the normalised fulltext score beside the similarity (0-1 scale, so 0.1 here is
# 0.2 on raw cosine). Tuned on the tuning half of the LongMemEval sample: 0.075-0.15 score
# alike there; above 0.2 lexical matches start to crowd out paraphrases.
TEXT_WEIGHT = 0.1

# A prior against length, for callers that pass lengths (message search): a long message is
# close to more queries by chance (more topics in one vector, and the closest of several
# passages), so each candidate longer than LENGTH_REFERENCE characters loses LENGTH_WEIGHT times
# the natural log of how many times longer it is; shorter ones lose nothing, so a corpus of
# short turns keeps its ranking. Chosen on the tuning half of the LongMemEval sample, from the
# product's candidate pools replayed (tests/bench/fusion_replay.py; turn recall_all@10 /
# NDCG@10): no prior 0.900 / 0.823; weights 0.01, 0.015, 0.02, 0.025, 0.03 gave 0.900 / 0.830,
# 0.900 / 0.831, 0.933 / 0.835, 0.933 / 0.818, 0.933 / 0.819. References of 25-100 characters
# ranked that half alike (on an earlier run's pools: its evidence turns are longer), and 100
# leaves the most turns alone.
LENGTH_WEIGHT = 0.02
LENGTH_REFERENCE = 100


def length_penalty(length: int, weight: float = LENGTH_WEIGHT) -> float:
    """What a candidate of `length` characters loses: 0 up to LENGTH_REFERENCE, then
    weight * ln((1 + length) / LENGTH_REFERENCE)."""
    return weight * max(0.0, math.log((1 + length) / LENGTH_REFERENCE))


def fuse_scores(
    similarity: Mapping[str, float | None],
    text: Mapping[str, float],
    text_weight: float = TEXT_WEIGHT,
    *,
    boosted: Collection[str] = frozenset(),
    boost: float = 0.0,
    lengths: Mapping[str, int] | None = None,
    length_weight: float = 0.0,
) -> list[tuple[str, float]]:
    """score(d) = similarity(d) + text_weight * text(d) / max(text) (+ boost if d is boosted)
    (- length_penalty(lengths[d], length_weight) when lengths are given), best first.

    `similarity` names every candidate (None: it has no embedding, counted as 0); `text` holds
    the fulltext scores of those the fulltext half found (others count 0); `boosted` are the
    candidates a caller favours (reasoners/search/speakers.py); `lengths`, when given, names
    every candidate's length in characters. Equal scores keep the order of `similarity`, so the
    output is deterministic.
    """
    if text_weight < 0 or boost < 0 or length_weight < 0:
        raise ValueError("text_weight, boost and length_weight must be >= 0")
    unknown = set(text) - set(similarity)
    if unknown:
        raise ValueError(f"fulltext hits without a similarity entry: {sorted(unknown)}")
    if lengths is not None and not set(similarity) <= set(lengths):
        raise ValueError(f"candidates without a length: {sorted(set(similarity) - set(lengths))}")
    best = max((s for s in text.values() if s > 0), default=0.0)
    scores = {
        key: (sim or 0.0)
        + (text_weight * text.get(key, 0.0) / best if best else 0.0)
        + (boost if key in boosted else 0.0)
        - (length_penalty(lengths[key], length_weight) if lengths is not None else 0.0)
        for key, sim in similarity.items()
    }
    # sorted() is stable: ties stay in the order given.
    return sorted(scores.items(), key=lambda pair: -pair[1])
