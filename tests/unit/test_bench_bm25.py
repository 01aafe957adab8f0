"""Okapi BM25 baseline: tokenization, scores and ranking."""

from __future__ import annotations

import math

import pytest

from tests.bench.bm25 import BM25, tokenize

pytestmark = pytest.mark.unit


def test_tokenize_lowercases_splits_and_drops_stopwords() -> None:
    # "don't" -> "don" + "t" (a stopword); "the" is a stopword; "_" and "-" split words.
    assert tokenize("Don't STOP the Music-Box_2!") == ["don", "stop", "music", "box", "2"]
    assert tokenize("") == []


def test_scores_match_hand_computation() -> None:
    # N = 3, lengths 2, 1, 1, avgdl = 4/3; "apple" is in 2 documents.
    # idf = ln(1 + (3 - 2 + 0.5) / (2 + 0.5)) = ln(1.6)
    # doc 0 (tf 1, |d| 2): norm = 1.5 * (0.25 + 0.75 * 2 / (4/3)) = 2.0625
    #                      score = idf * 1 * 2.5 / (1 + 2.0625)
    # doc 1 (tf 1, |d| 1): norm = 1.5 * (0.25 + 0.75 * 1 / (4/3)) = 1.21875
    #                      score = idf * 2.5 / 2.21875
    index = BM25(["apple banana", "apple", "cherry"])
    idf = math.log(1.6)
    assert index.scores("apple") == pytest.approx([idf * 2.5 / 3.0625, idf * 2.5 / 2.21875, 0.0])
    assert index.rank("apple") == [1, 0]


def test_repeated_query_terms_add_up() -> None:
    index = BM25(["apple banana", "apple", "cherry"])
    once = index.scores("apple")
    assert index.scores("apple apple") == pytest.approx([2 * s for s in once])


def test_rank_prefers_higher_term_frequency_and_shorter_documents() -> None:
    docs = ["the cat sat on the mat", "dogs chase cats", "a cat and a cat", "birds sing"]
    # "cats" is not "cat" (no stemming); doc 2 has tf 2 in 2 tokens, doc 0 tf 1 in 3 tokens.
    assert BM25(docs).rank("Cat?") == [2, 0]


def test_rank_top_k_and_no_match() -> None:
    index = BM25(["red apple", "green apple", "apple pie", "blue sky"])
    assert len(index.rank("apple", top_k=2)) == 2
    assert index.rank("apple", top_k=0) == []
    assert index.rank("banana") == []
    assert index.rank("the and of") == []  # stopwords only


def test_ties_keep_document_order() -> None:
    assert BM25(["same text", "other", "same text"]).rank("text") == [0, 2]


def test_empty_corpus_and_empty_documents() -> None:
    assert BM25([]).rank("anything") == []
    assert BM25(["", "the a"]).rank("the") == []
    assert len(BM25(["x", "y"])) == 2


def test_common_terms_keep_a_positive_idf() -> None:
    # "apple" is in every document; the classic idf would be negative here.
    index = BM25(["apple", "apple pie", "apple tart"])
    assert all(score > 0 for score in index.scores("apple"))


def test_parameters_are_validated() -> None:
    with pytest.raises(ValueError, match="b must be"):
        BM25(["x"], b=1.5)
    with pytest.raises(ValueError, match="k1 must be"):
        BM25(["x"], k1=-1)
    with pytest.raises(ValueError, match="top_k"):
        BM25(["x"]).rank("x", top_k=-1)
