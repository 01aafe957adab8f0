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

# A prior against length, for callers that ask for it (message search): a long message is
# close to more queries by chance (more topics in one vector, and the closest of several
# passages), so a candidate longer than LENGTH_REFERENCE characters loses LENGTH_WEIGHT times
# the natural log of how many times longer it is; shorter ones lose nothing, so a conversation
# of short turns ranks as without it. Chosen on the tuning half of the LongMemEval sample, from
# the product's candidate pools replayed (tests/bench/fusion_replay.py; turn recall_all@10 /
# NDCG@10; no prior: 0.900 / 0.823): a reference of 300 characters gave 0.933 / 0.841 at every
# weight from 0.02 to 0.03; 25-200 characters at most 0.933 / 0.836 (at 0.02 only, falling to
# 0.818 at 0.025 for 25-100); 400 0.933 / 0.834; 800 0.900 / 0.823. The weight is the middle of
# that plateau.
LENGTH_WEIGHT = 0.025
LENGTH_REFERENCE = 300


# A message is as close to a query as the closest belief derived from it, less FACT_MARGIN: a
# belief states one fact of the turn in few words ("alice bought an Instant Pot"), so it meets
# a question that the turn's own vector, about its main topic, does not. The margin keeps the
# turn's own wording ahead on a tie. Chosen on the tuning half of the LongMemEval sample with
# the extractive deriver's beliefs, from the product's candidate pools re-scored offline (turn
# recall_all@10 / NDCG@10; without: 0.933 / 0.841): a margin of 0 gave 0.933 / 0.828, 0.01
# 0.847, 0.02 0.853, 0.03 0.852, 0.05 0.840, 0.08 0.841; adding a share of the belief's
# similarity instead (0.02-0.1) or of its lead over the turn (0.25-1) at most 0.848.
FACT_MARGIN = 0.02


def with_facts(
    similarity: float | None, fact: float | None, margin: float = FACT_MARGIN
) -> float | None:
    """A candidate's similarity raised to its closest derived belief's, less `margin`."""
    if fact is None:
        return similarity
    return max(similarity or 0.0, fact - margin)


def length_penalty(
    length: int, weight: float = LENGTH_WEIGHT, reference: int = LENGTH_REFERENCE
) -> float:
    """What a candidate of `length` characters loses: 0 up to `reference`, then
    weight * ln((1 + length) / reference)."""
    if weight < 0 or reference < 1:
        raise ValueError("the length weight must be >= 0 and the reference >= 1")
    return weight * max(0.0, math.log((1 + length) / reference))


def fuse_scores(
    similarity: Mapping[str, float | None],
    text: Mapping[str, float],
    text_weight: float = TEXT_WEIGHT,
    *,
    boosted: Collection[str] = frozenset(),
    boost: float = 0.0,
    penalty: Mapping[str, float] | None = None,
    replies: Mapping[str, str] | None = None,
    reply_weight: float = 0.0,
) -> list[tuple[str, float]]:
    """score(d) = similarity(d) + text_weight * text(d) / max(text) (+ boost if d is boosted)
    - penalty(d) (+ reply_weight * that score of the candidate d replies to), best first.

    `similarity` names every candidate (None: it has no embedding, counted as 0); `text` holds
    the fulltext scores of those the fulltext half found (others count 0); `boosted` are the
    candidates a caller favours (reasoners/search/speakers.py); `penalty` what a candidate
    loses to a prior (length_penalty; a candidate it does not name loses nothing); `replies`
    maps a candidate to the candidate it replies to (reasoners/search/replies.py), whose score
    before any reply's share counts. Equal scores keep the order of `similarity`, so the output
    is deterministic.
    """
    if text_weight < 0 or boost < 0 or reply_weight < 0:
        raise ValueError("text_weight, boost and reply_weight must be >= 0")
    unknown = set(text) - set(similarity)
    if unknown:
        raise ValueError(f"fulltext hits without a similarity entry: {sorted(unknown)}")
    best = max((s for s in text.values() if s > 0), default=0.0)
    scores = {
        key: (sim or 0.0)
        + (text_weight * text.get(key, 0.0) / best if best else 0.0)
        + (boost if key in boosted else 0.0)
        - (penalty.get(key, 0.0) if penalty is not None else 0.0)
        for key, sim in similarity.items()
    }
    if replies and reply_weight:
        own = dict(scores)
        for key, asked in replies.items():
            if key in own and asked in own:
                scores[key] += reply_weight * own[asked]
    # sorted() is stable: ties stay in the order given.
    return sorted(scores.items(), key=lambda pair: -pair[1])
