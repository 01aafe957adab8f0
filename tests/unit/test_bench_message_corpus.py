"""The synthetic message corpus of `bench api --synthetic`: sizes, skew and determinism."""

from __future__ import annotations

import numpy as np
import pytest

from tests.bench.api_synthetic import WARMUP_QUERIES, warm_up
from tests.bench.message_corpus import MessageCorpus
from tests.bench.synthetic import DORMANT_MAX, scope_sizes

pytestmark = pytest.mark.unit


def grown(seed: int, *sizes: int) -> MessageCorpus:
    corpus = MessageCorpus("w", sessions=200, peers=40, capacity=sizes[-1], seed=seed)
    for size in sizes:
        corpus.extend(size)
    return corpus


def test_sizes_add_up_per_session_and_per_peer() -> None:
    corpus = grown(3, 5_000, 20_000)
    n = corpus.size
    assert n == 20_000
    assert corpus.session_size.sum() == n and corpus.peer_size.sum() == n
    assert (np.bincount(corpus.session_of[:n], minlength=200) == corpus.session_size).all()
    assert (np.bincount(corpus.peer_of[:n], minlength=40) == corpus.peer_size).all()
    assert len(set(corpus.ids)) == n


def test_sessions_count_their_messages_in_order() -> None:
    corpus = grown(3, 5_000, 20_000)
    for session in (0, 7, 199):
        rows = np.flatnonzero(corpus.session_of[: corpus.size] == session)
        assert corpus.seq[rows].tolist() == list(range(len(rows)))


def test_zipf_shape_active_scopes_dormant_handful() -> None:
    sizes = scope_sizes(100_000, 200, seed=5)
    ranked = np.sort(sizes)[::-1]
    # Active half: rank^-1 weights, so the largest is about twice the second, three times the
    # third; the dormant half keeps 1..50.
    assert ranked[0] / ranked[1] == pytest.approx(2.0, rel=0.05)
    assert ranked[0] / ranked[2] == pytest.approx(3.0, rel=0.05)
    assert ranked[0] > 100_000 / 10
    assert (sizes >= 1).all()
    assert np.sort(sizes)[:100].max() <= DORMANT_MAX


def test_growing_keeps_earlier_messages() -> None:
    corpus = grown(9, 5_000)
    before = corpus.vectors[:5_000].copy(), corpus.session_of[:5_000].copy(), list(corpus.ids)
    corpus2 = MessageCorpus("w", sessions=200, peers=40, capacity=20_000, seed=9)
    corpus2.extend(5_000)
    corpus2.extend(20_000)
    assert np.array_equal(corpus2.vectors[:5_000], before[0])
    assert np.array_equal(corpus2.session_of[:5_000], before[1])
    assert corpus2.ids[:5_000] == before[2]
    assert (corpus2.session_size >= corpus.session_size).all()


def test_deterministic_by_seed() -> None:
    a, b, c = grown(11, 5_000), grown(11, 5_000), grown(12, 5_000)
    assert np.array_equal(a.vectors, b.vectors) and a.ids == b.ids
    assert [a.content(r) for r in range(50)] == [b.content(r) for r in range(50)]
    assert not np.array_equal(a.vectors, c.vectors)
    qa = a.queries("session", 20, np.random.default_rng(1))
    qb = b.queries("session", 20, np.random.default_rng(1))
    assert [q.text for q in qa] == [q.text for q in qb]
    assert all(np.array_equal(x.vector, y.vector) for x, y in zip(qa, qb, strict=True))


def test_queries_are_near_their_scope_and_spread_over_buckets() -> None:
    corpus = grown(4, 20_000)
    queries = corpus.queries("peer", 40, np.random.default_rng(2))
    buckets = {q.bucket for q in queries}
    assert buckets == set(corpus.bucket_scopes("peer"))
    for query in queries:
        rows = corpus.scope_rows(query.scope)
        assert len(rows) == query.size
        assert float(np.max(corpus.vectors[rows] @ query.vector)) > 0.8
        assert np.linalg.norm(query.vector) == pytest.approx(1.0, abs=1e-5)


def test_props_carry_the_scope_keys_and_text() -> None:
    corpus = grown(4, 5_000)
    props = corpus.props(10)
    assert props["session"] == corpus.sessions[int(corpus.session_of[10])]
    assert props["content"].startswith(props["peer"] + " ")
    assert len(props["embedding"]) == 384


def test_the_report_says_how_the_search_was_warmed() -> None:
    assert warm_up(WARMUP_QUERIES) == f"{WARMUP_QUERIES} warm-up queries each"
    assert warm_up(300) == (
        f"300 warm-up queries each: the first {WARMUP_QUERIES} through every path, the rest "
        "without the exact scan"
    )
