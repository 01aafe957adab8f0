"""LongMemEval's retrieval metrics for one question, and their aggregation.

Definitions follow LongMemEval's own evaluation code (``src/retrieval/eval_utils.py`` and
``run_retrieval.py`` in xiaowu0162/LongMemEval), re-implemented here:

- ``recall_any@k``: 1.0 if at least one relevant id is in the top k, else 0.0.
- ``recall_all@k``: 1.0 if every relevant id is in the top k, else 0.0.
- ``ndcg_any@k``: binary relevance. LongMemEval's DCG does not discount rank 1 and divides
  the item at rank i >= 2 by log2(i), i.e. ``DCG = rel_1 + sum_{i=2..k} rel_i / log2(i)``.
  This is *not* the textbook ``rel_i / log2(i + 1)``: ranks 1 and 2 weigh the same. We keep
  LongMemEval's form so our numbers are comparable with theirs. IDCG is the DCG of the ideal
  ranking, i.e. of ``min(k, |relevant|)`` relevant items at the top.

Choices where the reference is silent or differs:

- A ranked list may repeat an id (e.g. two hits in one session); only its first occurrence
  counts. LongMemEval ranks corpus indices, so it never sees duplicates.
- With no relevant ids, recall_any = 0, recall_all = 1 (vacuous truth, like Python's
  ``all([])`` in the reference) and ndcg = 0. :func:`aggregate` skips abstention questions;
  the memory bench also leaves out any other question without evidence
  (``tests.bench.evidence.scored``) before aggregating.
- Session-level metrics from a turn ranking use :func:`sessions_from_turns` (first occurrence
  of each session). LongMemEval's ``evaluate_retrieval_turn2session`` instead widens the turn
  window until it covers k distinct sessions: the recalls come out identical, but its ndcg
  scores every turn of an evidence session in that window, so session ndcg can differ.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

DEFAULT_KS: tuple[int, ...] = (5, 10, 20, 50)
METRIC_NAMES: tuple[str, ...] = ("recall_any", "recall_all", "ndcg_any")
OVERALL = "overall"
COUNT_KEY = "n"


def _check_k(k: int) -> None:
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")


def _top_k(ranked: Sequence[str], k: int) -> list[str]:
    """First k distinct ids, in rank order (duplicates keep their first rank)."""
    _check_k(k)
    seen: set[str] = set()
    top: list[str] = []
    for item in ranked:
        if item in seen:
            continue
        seen.add(item)
        top.append(item)
        if len(top) == k:
            break
    return top


def recall_any_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1.0 if any relevant id is among the first k distinct ranked ids, else 0.0."""
    top = set(_top_k(ranked, k))
    return 1.0 if any(item in top for item in relevant) else 0.0


def recall_all_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """1.0 if every relevant id is among the first k distinct ranked ids, else 0.0.

    An empty ``relevant`` gives 1.0, as in the reference implementation.
    """
    top = set(_top_k(ranked, k))
    return 1.0 if all(item in top for item in relevant) else 0.0


def _discount(rank: int) -> float:
    # LongMemEval's DCG: rank 1 undiscounted, rank i >= 2 divided by log2(i).
    return 1.0 if rank == 1 else 1.0 / math.log2(rank)


def ndcg_any_at_k(ranked: Sequence[str], relevant: Collection[str], k: int) -> float:
    """Binary-relevance nDCG@k with LongMemEval's discount (see the module docstring)."""
    top = _top_k(ranked, k)
    relevant_set = set(relevant)
    ideal_hits = min(k, len(relevant_set))
    if ideal_hits == 0:
        return 0.0
    dcg = sum(_discount(rank) for rank, item in enumerate(top, start=1) if item in relevant_set)
    idcg = sum(_discount(rank) for rank in range(1, ideal_hits + 1))
    return dcg / idcg


def retrieval_metrics(
    ranked: Sequence[str],
    relevant: Collection[str],
    ks: Iterable[int] = DEFAULT_KS,
    prefix: str = "",
) -> dict[str, float]:
    """All three metrics at every k, keyed like LongMemEval (``"recall_all@10"``).

    ``prefix`` (e.g. ``"session/"``) lets turn- and session-level results share one dict.
    """
    out: dict[str, float] = {}
    for k in ks:
        out[f"{prefix}recall_any@{k}"] = recall_any_at_k(ranked, relevant, k)
        out[f"{prefix}recall_all@{k}"] = recall_all_at_k(ranked, relevant, k)
        out[f"{prefix}ndcg_any@{k}"] = ndcg_any_at_k(ranked, relevant, k)
    return out


def sessions_from_turns(ranked_turns: Sequence[str], session_of: Mapping[str, str]) -> list[str]:
    """Map a ranked list of turn ids to a ranked list of session ids.

    Each session takes the rank of its best (first) turn; later turns of the same session are
    dropped. An unknown turn id raises ``ValueError``: it means the ranking and the dataset
    disagree, which would silently corrupt the metrics.
    """
    seen: set[str] = set()
    sessions: list[str] = []
    for turn_id in ranked_turns:
        try:
            session_id = session_of[turn_id]
        except KeyError:
            raise ValueError(f"turn id {turn_id!r} has no session in the mapping") from None
        if session_id not in seen:
            seen.add(session_id)
            sessions.append(session_id)
    return sessions


def is_abstention_id(question_id: str) -> bool:
    """LongMemEval marks abstention questions with an ``_abs`` id suffix."""
    return question_id.endswith("_abs")


@dataclass(frozen=True)
class QuestionScore:
    """One question's metrics, as produced by :func:`retrieval_metrics`."""

    question_id: str
    category: str
    metrics: Mapping[str, float] = field(default_factory=dict)
    # LoCoMo and BEAM flag abstention on the question, not in the id.
    abstention: bool = False


def _metric_k(key: str) -> int | None:
    """The k of a ``name@k`` key, or None when the key has no integer k."""
    _, sep, k_text = key.rpartition("@")
    if not sep or not k_text.isdigit():
        return None
    return int(k_text)


def aggregate(
    scores: Iterable[QuestionScore], ks: Iterable[int] = DEFAULT_KS
) -> dict[str, dict[str, float]]:
    """Mean of each ``name@k`` metric (k in ``ks``) per category and over all questions.

    Abstention questions (flagged, or with an ``_abs`` id) are skipped, as LongMemEval does.
    Returns ``{"overall": {...}, "<category>": {...}}``; every group also carries ``"n"``, the
    number of questions averaged. A metric missing from some questions is averaged over the
    questions that have it.
    """
    wanted = set(ks)
    sums: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    questions: dict[str, int] = defaultdict(int)
    for score in scores:
        if score.abstention or is_abstention_id(score.question_id):
            continue
        # A category literally named "overall" must not count its questions twice.
        groups = (OVERALL,) if score.category == OVERALL else (OVERALL, score.category)
        for group in groups:
            questions[group] += 1
            for key, value in score.metrics.items():
                if _metric_k(key) in wanted:
                    sums[group][key] += value
                    counts[group][key] += 1
    result: dict[str, dict[str, float]] = {}
    for group, n in questions.items():
        means = {key: sums[group][key] / counts[group][key] for key in sorted(sums[group])}
        means[COUNT_KEY] = float(n)
        result[group] = means
    return result
