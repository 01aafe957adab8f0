"""The search bench's verdict line: the aims hold in every bucket, so it names the slowest."""

from __future__ import annotations

from typing import Any

from tests.bench.search_bench import verdict


def bucket(queries: int, recall: float, p95: float) -> dict[str, Any]:
    return {"queries": queries, "recall_at_10": recall, "ours_p95_ms": p95}


def test_verdict_names_the_lowest_recall_and_the_slowest_bucket() -> None:
    measure = {
        "size": 1_000_000,
        "search": {
            "1-10": bucket(100, 1.0, 12.0),
            "1k-10k": bucket(100, 0.99, 23.6),
            ">10k": bucket(100, 0.994, 51.3),
            "empty": bucket(0, 0.0, 99.0),  # no queries: not a bucket that was measured
            "all": bucket(300, 0.998, 25.6),
        },
    }
    [line] = verdict([measure])
    assert line == (
        "- 1,000,000: lowest bucket recall@10 0.990 (1k-10k; aim >= 0.98), scoped search p95 "
        "25.6 ms over all buckets and 51.3 ms in the slowest (>10k; aim < 50 ms at 1M in every "
        "bucket)."
    )
