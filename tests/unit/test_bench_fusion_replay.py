"""Fusion replayed from kept pools: the product's fuse with other weights, scored by half."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from graph.records import MessageRecord
from reasoners.search.hybrid import Candidates
from tests.bench.fusion_replay import main, pool_record, replay, replay_ranking
from tests.records import message_record


def message(id_: str, session: str, peer: str = "user") -> MessageRecord:
    return message_record(id_, session=session, peer=peer)


def test_pool_record_keeps_the_conversation_turns_and_the_favoured_speaker() -> None:
    a, b, stray = message("m1", "s1"), message("m2", "s2", "assistant"), message("x", "s9")
    found = Candidates(
        by_vector=[(a, 0.8), (stray, 0.7)],
        by_text=[(b, 3.0, 0.6), (a, 1.0, 0.8)],
        favour=lambda m: m.peer == "user",
    )
    record = pool_record(found, {"m1": "t1", "m2": "t2"})
    assert record == {
        "vector": [["t1", 0.8]],
        "text": [["t2", 3.0, 0.6], ["t1", 1.0, 0.8]],
        "favoured": ["t1"],
        "session_of": {"t1": "s1", "t2": "s2"},
        "length": {"t1": 2, "t2": 2},  # the contents are the ids
        "replies": {},
    }
    assert (
        pool_record(Candidates(found.by_vector, found.by_text, None), {"m1": "t1"})["favoured"]
        == []
    )


POOL: dict[str, Any] = {
    # t1 is closest; t2 has the only fulltext hit; t3 is the favoured speaker's.
    "vector": [["t1", 0.80], ["t2", 0.76], ["t3", 0.74]],
    "text": [["t2", 5.0, 0.76]],
    "favoured": ["t3"],
    "session_of": {"t1": "s1", "t2": "s2", "t3": "s3"},
    # t1 is long (ln(10000 / 100) = 4.6 over a reference of 100); the others are short.
    "length": {"t1": 9999, "t2": 50, "t3": 50},
    "replies": {},
}


def test_weights_reorder_the_kept_candidates() -> None:
    assert replay_ranking(POOL, 10, 0.0, 0.0, 0.0) == ["t1", "t2", "t3"]
    # 0.76 + 0.1 beats 0.80; t3 at 0.74 stays last without a bonus.
    assert replay_ranking(POOL, 10, 0.1, 0.0, 0.0) == ["t2", "t1", "t3"]
    # 0.74 + 0.2 beats both.
    assert replay_ranking(POOL, 10, 0.1, 0.2, 0.0) == ["t3", "t2", "t1"]
    assert replay_ranking(POOL, 2, 0.1, 0.2, 0.0) == ["t3", "t2"]
    # 0.80 - 0.02 * 4.6 falls below 0.76 and 0.74.
    assert replay_ranking(POOL, 10, 0.0, 0.0, 0.02, 100) == ["t2", "t3", "t1"]
    # With a reference of 5,000 characters, t1 loses 0.02 * ln 2: 0.786 stays first.
    assert replay_ranking(POOL, 10, 0.0, 0.0, 0.02, 5000) == ["t1", "t2", "t3"]


def test_a_pool_without_lengths_replays_only_without_the_length_prior() -> None:
    old = {k: v for k, v in POOL.items() if k != "length"}
    assert replay_ranking(old, 10, 0.0, 0.0, 0.0) == ["t1", "t2", "t3"]
    with pytest.raises(ValueError, match="no message lengths"):
        replay_ranking(old, 10, 0.0, 0.0, 0.02)


def test_a_reply_to_the_asker_shares_in_its_request_s_score() -> None:
    # t3 (0.74) replies to t1 (0.80): 0.74 + 0.25 * 0.80 = 0.94 leads.
    pool = POOL | {"replies": {"t3": "t1"}}
    assert replay_ranking(pool, 10, 0.0, 0.0, 0.0, reply_weight=0.25) == ["t3", "t1", "t2"]
    assert replay_ranking(pool, 10, 0.0, 0.0, 0.0, reply_weight=0.0) == ["t1", "t2", "t3"]
    old = {k: v for k, v in POOL.items() if k != "replies"}
    assert replay_ranking(old, 10, 0.0, 0.0, 0.0, reply_weight=0.0) == ["t1", "t2", "t3"]
    with pytest.raises(ValueError, match="no replies"):
        replay_ranking(old, 10, 0.0, 0.0, 0.0, reply_weight=0.25)


def test_pool_record_keeps_the_replies_between_kept_turns() -> None:
    a, b, stray = message("m1", "s1"), message("m2", "s1", "assistant"), message("x", "s1")
    found = Candidates(
        by_vector=[(a, 0.8), (b, 0.7), (stray, 0.6)],
        by_text=[],
        favour=None,
        replies={"m2": "m1", "x": "m2"},
    )
    # The stray message is not a turn of the conversation: its reply is left out.
    assert pool_record(found, {"m1": "t1", "m2": "t2"})["replies"] == {"t2": "t1"}


def record(qid: str, evidence: str, abstention: bool = False) -> dict[str, Any]:
    return {
        "question_id": qid,
        "category": "single-session-user",
        "abstention": abstention,
        "evidence_turns": [evidence],
        "evidence_sessions": [POOL["session_of"][evidence]],
        "pool": POOL,
    }


def test_replay_scores_by_half_and_leaves_abstention_out() -> None:
    # Sorted by id, q1 is the tuning half's and q2 the held-out half's; q3_abs is skipped.
    records = [record("q1", "t2"), record("q2", "t3"), record("q3_abs", "t1", abstention=True)]
    result = replay(records, 10, 0.1, 0.0, 0.0)
    assert result["all"]["n"] == 2
    assert result["tuning"]["recall_all@10"] == 1.0
    assert result["tuning"]["ndcg_any@10"] == 1.0  # t2 first
    # t3 third: LongMemEval's discount is 1/log2(rank) (ranks 1 and 2 alike).
    assert result["held-out"]["ndcg_any@10"] == pytest.approx(1 / math.log2(3))
    assert result["single-session-user"]["n"] == 2


def test_the_command_prints_a_row_per_weight_pair_and_half(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pools = tmp_path / "pools.jsonl"
    pools.write_text("\n".join(json.dumps(record(q, "t2")) for q in ("q1", "q2")) + "\n")
    args = ["--text-weights", "0,0.1", "--speaker-weights", "0.1", "--length-weights", "0,0.02"]
    assert main([str(pools), *args, "--length-references", "100,200"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("| 0")]
    assert len(rows) == 24  # eight weight combinations x (tuning, held-out, all)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(SystemExit):
        main([str(empty)])
