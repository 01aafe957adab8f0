"""Score fusion of a vector and a fulltext ranking (pure)."""

import math

import pytest

from reasoners.search.fusion import (
    FACT_MARGIN,
    LENGTH_REFERENCE,
    LENGTH_WEIGHT,
    TEXT_WEIGHT,
    fuse_scores,
    length_penalty,
    with_facts,
)

pytestmark = pytest.mark.unit


def test_the_text_score_is_weighed_relative_to_the_best_text_hit() -> None:
    fused = dict(fuse_scores({"a": 0.80, "b": 0.75, "c": 0.70}, {"b": 12.0, "c": 6.0}, 0.1))
    assert fused["a"] == pytest.approx(0.80)
    assert fused["b"] == pytest.approx(0.75 + 0.1)
    assert fused["c"] == pytest.approx(0.70 + 0.05)
    # Scaling Lucene's scores (they are not comparable across queries) changes nothing.
    assert fuse_scores({"a": 0.80, "b": 0.75}, {"b": 1.2}) == fuse_scores(
        {"a": 0.80, "b": 0.75}, {"b": 120.0}
    )


def test_a_close_paraphrase_beats_a_weak_word_match_and_the_reverse() -> None:
    # Rank fusion would put "words" first in both cases: it is first in one list, second in
    # the other. Scores tell how far apart the candidates are.
    close = fuse_scores({"paraphrase": 0.90, "words": 0.60}, {"words": 3.0, "paraphrase": 1.0})
    assert [k for k, _ in close] == ["paraphrase", "words"]
    near = fuse_scores({"paraphrase": 0.70, "words": 0.68}, {"words": 3.0, "paraphrase": 0.5})
    assert [k for k, _ in near] == ["words", "paraphrase"]


def test_ties_keep_the_given_order_and_missing_parts_count_zero() -> None:
    assert [k for k, _ in fuse_scores({"x": 0.5, "y": 0.5}, {})] == ["x", "y"]
    assert dict(fuse_scores({"x": None, "y": 0.2}, {"x": 4.0}))["x"] == pytest.approx(TEXT_WEIGHT)
    assert fuse_scores({}, {}) == []
    # All-zero text scores add nothing (and do not divide by zero).
    assert dict(fuse_scores({"x": 0.3}, {"x": 0.0})) == {"x": pytest.approx(0.3)}


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        fuse_scores({"a": 0.5}, {"b": 1.0})
    with pytest.raises(ValueError):
        fuse_scores({"a": 0.5}, {}, text_weight=-1.0)


def test_boosted_candidates_get_the_boost_and_others_keep_their_score() -> None:
    plain = dict(fuse_scores({"a": 0.80, "b": 0.78}, {}))
    fused = fuse_scores({"a": 0.80, "b": 0.78}, {}, boosted={"b"}, boost=0.05)
    assert [k for k, _ in fused] == ["b", "a"]
    assert dict(fused)["b"] == pytest.approx(plain["b"] + 0.05)
    assert dict(fused)["a"] == pytest.approx(plain["a"])
    with pytest.raises(ValueError):
        fuse_scores({"a": 0.5}, {}, boosted={"a"}, boost=-0.1)


def test_long_candidates_lose_the_log_of_their_length_over_the_reference() -> None:
    assert length_penalty(10) == 0.0
    assert length_penalty(LENGTH_REFERENCE - 1) == 0.0
    assert length_penalty(10 * LENGTH_REFERENCE - 1) == pytest.approx(LENGTH_WEIGHT * math.log(10))
    assert length_penalty(10 * LENGTH_REFERENCE - 1, 0.0) == 0.0
    assert length_penalty(999, 0.02, reference=1000) == 0.0
    assert length_penalty(1999, 0.02, reference=1000) == pytest.approx(0.02 * math.log(2))
    with pytest.raises(ValueError):
        length_penalty(500, -0.01)
    with pytest.raises(ValueError):
        length_penalty(500, 0.02, reference=0)


def test_a_penalty_lowers_its_candidates_and_no_other() -> None:
    similarity = {"long": 0.80, "short": 0.78, "tiny": 0.70}
    penalty = {"long": length_penalty(10 * LENGTH_REFERENCE - 1, 0.02), "short": 0.0}
    fused = fuse_scores(similarity, {}, penalty=penalty)
    # 0.80 - 0.02 * ln 10 = 0.754 falls below 0.78; "tiny", not named, loses nothing.
    assert [k for k, _ in fused] == ["short", "long", "tiny"]
    assert dict(fused)["long"] == pytest.approx(0.80 - 0.02 * math.log(10))
    assert dict(fused)["short"] == pytest.approx(0.78)
    assert dict(fused)["tiny"] == pytest.approx(0.70)
    assert fuse_scores(similarity, {}) == fuse_scores(similarity, {}, penalty={})


def test_a_candidate_is_as_close_as_its_closest_belief_less_the_margin() -> None:
    assert with_facts(0.6, 0.8) == pytest.approx(0.8 - FACT_MARGIN)
    assert with_facts(0.6, 0.61) == 0.6  # within the margin the turn's own score stands
    assert with_facts(0.6, None) == 0.6
    assert with_facts(None, None) is None  # no vector and no belief: unknown stays unknown
    assert with_facts(None, 0.7, margin=0.1) == pytest.approx(0.6)


def test_a_reply_adds_a_share_of_the_score_of_what_it_replies_to() -> None:
    similarity = {"request": 0.80, "reply": 0.70, "aside": 0.75, "echo": 0.60}
    plain = dict(fuse_scores(similarity, {}))
    replies = {"reply": "request", "echo": "reply", "ghost": "request", "stray": "gone"}
    fused = fuse_scores(similarity, {}, replies=replies, reply_weight=0.25)
    assert [k for k, _ in fused] == ["reply", "request", "echo", "aside"]
    assert dict(fused)["reply"] == pytest.approx(0.70 + 0.25 * 0.80)
    # The share is of the score before any reply's: a chain does not compound.
    assert dict(fused)["echo"] == pytest.approx(0.60 + 0.25 * 0.70)
    assert dict(fused)["request"] == plain["request"]
    assert dict(fused)["aside"] == plain["aside"]
    assert fuse_scores(similarity, {}, replies=replies) == fuse_scores(similarity, {})
    with pytest.raises(ValueError):
        fuse_scores(similarity, {}, replies=replies, reply_weight=-0.1)
