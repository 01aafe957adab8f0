"""Reciprocal rank fusion: merge several rankings (vector, fulltext, graph) into one."""

from __future__ import annotations

from collections.abc import Sequence


def rrf(
    rankings: Sequence[Sequence[str]],
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> list[tuple[str, float]]:
    """Fuse rankings with score(d) = sum_i w_i / (k + rank_i(d)), ranks counted from 1.

    Returns (id, score) best first. An id repeated within one ranking counts once, at its best
    rank, so one noisy retriever cannot vote twice. Equal scores keep the order of first
    appearance, reading the rankings in the given order, each from top to bottom, so the
    output is deterministic. An id found only in zero-weight rankings is kept with score 0.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if weights is None:
        weights = [1.0] * len(rankings)
    if len(weights) != len(rankings):
        raise ValueError(f"got {len(weights)} weights for {len(rankings)} rankings")
    if any(weight < 0 for weight in weights):
        raise ValueError("weights must be >= 0")

    # A dict keeps insertion order, which is the first-appearance tie-break.
    scores: dict[str, float] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        seen: set[str] = set()
        for rank, item in enumerate(ranking, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    # sorted() is stable, so ties stay in first-appearance order.
    return sorted(scores.items(), key=lambda pair: -pair[1])
