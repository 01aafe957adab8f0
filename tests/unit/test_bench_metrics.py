"""LongMemEval retrieval metrics, checked against hand-computed cases."""

from __future__ import annotations

import math

import pytest

from tests.bench.metrics import (
    QuestionScore,
    aggregate,
    ndcg_any_at_k,
    recall_all_at_k,
    recall_any_at_k,
    retrieval_metrics,
    sessions_from_turns,
)

pytestmark = pytest.mark.unit

RANKED = ["a", "b", "c", "d", "e"]


def test_recall_any_needs_one_hit_in_top_k() -> None:
    assert recall_any_at_k(RANKED, {"b", "d"}, 1) == 0.0
    assert recall_any_at_k(RANKED, {"b", "d"}, 2) == 1.0
    assert recall_any_at_k(RANKED, {"z"}, 5) == 0.0


def test_recall_all_needs_every_hit_in_top_k() -> None:
    assert recall_all_at_k(RANKED, {"b", "d"}, 3) == 0.0
    assert recall_all_at_k(RANKED, {"b", "d"}, 4) == 1.0
    # A relevant id that is never ranked keeps recall_all at 0 for any k.
    assert recall_all_at_k(RANKED, {"b", "z"}, 50) == 0.0


def test_ndcg_relevant_at_ranks_2_and_4() -> None:
    # LongMemEval's DCG: rank 1 undiscounted, rank i >= 2 divided by log2(i).
    # DCG  = 1/log2(2) + 1/log2(4) = 1 + 0.5 = 1.5
    # IDCG = two relevant items at ranks 1 and 2 = 1 + 1/log2(2) = 2
    # nDCG = 1.5 / 2 = 0.75
    assert ndcg_any_at_k(RANKED, {"b", "d"}, 5) == pytest.approx(0.75)


def test_ndcg_single_relevant_at_rank_3() -> None:
    # DCG = 1/log2(3) = 0.6309...; IDCG = 1 (one relevant item at rank 1).
    assert ndcg_any_at_k(RANKED, {"c"}, 5) == pytest.approx(1 / math.log2(3))


def test_ndcg_rank_2_weighs_as_much_as_rank_1() -> None:
    # The LongMemEval discount (not the textbook 1/log2(i + 1)): DCG = 1/log2(2) = 1 = IDCG.
    assert ndcg_any_at_k(["x", "r"], {"r"}, 2) == pytest.approx(1.0)


def test_ndcg_ideal_is_capped_at_k() -> None:
    # k = 2, three relevant ids: top 2 = [a, x], DCG = 1 (a at rank 1);
    # IDCG = min(2, 3) = 2 relevant items = 1 + 1/log2(2) = 2; nDCG = 0.5.
    assert ndcg_any_at_k(["a", "x", "b", "c"], {"a", "b", "c"}, 2) == pytest.approx(0.5)


def test_ndcg_relevant_outside_top_k_scores_zero() -> None:
    assert ndcg_any_at_k(RANKED, {"e"}, 4) == 0.0


def test_empty_relevant_set() -> None:
    # Vacuous recall_all, like the reference's all([]); nothing to find for the others.
    assert recall_any_at_k(RANKED, set(), 5) == 0.0
    assert recall_all_at_k(RANKED, set(), 5) == 1.0
    assert ndcg_any_at_k(RANKED, set(), 5) == 0.0


def test_duplicates_in_ranking_count_once() -> None:
    # Top 2 distinct ids are [a, b]: the repeated "a" does not use up a slot.
    assert recall_all_at_k(["a", "a", "b"], {"a", "b"}, 2) == 1.0
    # DCG = 1 + 1/log2(2) = 2 = IDCG.
    assert ndcg_any_at_k(["a", "a", "b"], {"a", "b"}, 2) == pytest.approx(1.0)


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be >= 1"):
        recall_any_at_k(RANKED, {"a"}, 0)


def test_retrieval_metrics_keys_and_values() -> None:
    metrics = retrieval_metrics(RANKED, {"b", "d"}, ks=(2, 5), prefix="turn/")
    assert set(metrics) == {
        f"turn/{name}@{k}" for name in ("recall_any", "recall_all", "ndcg_any") for k in (2, 5)
    }
    assert metrics["turn/recall_any@2"] == 1.0
    assert metrics["turn/recall_all@2"] == 0.0
    # k = 2: DCG = 1/log2(2) = 1 (b at rank 2); IDCG = 1 + 1 = 2.
    assert metrics["turn/ndcg_any@2"] == pytest.approx(0.5)
    assert metrics["turn/ndcg_any@5"] == pytest.approx(0.75)


def test_sessions_from_turns_keeps_first_occurrence() -> None:
    session_of = {"t1": "s1", "t2": "s2", "t3": "s1", "t4": "s3"}
    assert sessions_from_turns(["t3", "t2", "t1", "t4"], session_of) == ["s1", "s2", "s3"]
    assert sessions_from_turns([], session_of) == []


def test_sessions_from_turns_rejects_unknown_turn() -> None:
    with pytest.raises(ValueError, match="'t9'"):
        sessions_from_turns(["t9"], {"t1": "s1"})


def test_aggregate_by_category_skips_abstention() -> None:
    scores = [
        QuestionScore("q1", "temporal", {"recall_all@5": 1.0, "ndcg_any@5": 0.5}),
        QuestionScore("q2", "temporal", {"recall_all@5": 0.0, "ndcg_any@5": 0.25}),
        QuestionScore("q3", "multi", {"recall_all@5": 1.0, "ndcg_any@5": 1.0}),
        # Skipped: LongMemEval id suffix, and an explicit flag (LoCoMo / BEAM).
        QuestionScore("q4_abs", "multi", {"recall_all@5": 0.0, "ndcg_any@5": 0.0}),
        QuestionScore("q5", "multi", {"recall_all@5": 0.0}, abstention=True),
    ]
    result = aggregate(scores)
    # temporal: recall_all = (1 + 0) / 2 = 0.5; ndcg = (0.5 + 0.25) / 2 = 0.375
    assert result["temporal"] == {"recall_all@5": 0.5, "ndcg_any@5": 0.375, "n": 2.0}
    assert result["multi"] == {"recall_all@5": 1.0, "ndcg_any@5": 1.0, "n": 1.0}
    # overall: recall_all = (1 + 0 + 1) / 3; ndcg = (0.5 + 0.25 + 1) / 3 = 0.58333
    assert result["overall"]["recall_all@5"] == pytest.approx(2 / 3)
    assert result["overall"]["ndcg_any@5"] == pytest.approx(1.75 / 3)
    assert result["overall"]["n"] == 3.0


def test_aggregate_keeps_only_requested_ks() -> None:
    scores = [QuestionScore("q1", "c", {"recall_any@3": 1.0, "recall_any@10": 1.0, "x": 2.0})]
    assert aggregate(scores)["c"] == {"recall_any@10": 1.0, "n": 1.0}
    assert aggregate(scores, ks=(3,))["c"] == {"recall_any@3": 1.0, "n": 1.0}


def test_aggregate_of_nothing_is_empty() -> None:
    assert aggregate([]) == {}
