"""The oracle-built retrieval set (tests/bench/haystack_mix.py): which questions, which hay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.bench.haystack_mix import choose, main, mix
from tests.bench.loaders import load_longmemeval


def record(qid: str, kind: str, date: str, sessions: list[tuple[str, str]]) -> dict[str, Any]:
    """A question whose evidence sessions are (id, date), each one evidence turn and one not."""
    return {
        "question_id": qid,
        "question_type": kind,
        "question": f"what about {qid}?",
        "answer": "it",
        "question_date": date,
        "haystack_session_ids": [s for s, _ in sessions],
        "haystack_dates": [d for _, d in sessions],
        "haystack_sessions": [
            [
                {"role": "user", "content": f"{s} says it", "has_answer": True},
                {"role": "assistant", "content": f"{s} noted", "has_answer": False},
            ]
            for s, _ in sessions
        ],
        "answer_session_ids": [s for s, _ in sessions],
    }


RECORDS = [
    record("a1", "temporal", "2023/06/01 (Thu) 10:00", [("sa1", "2023/05/01 (Mon) 10:00")]),
    record("a2", "temporal", "2023/06/01 (Thu) 10:00", [("sa2", "2023/05/02 (Tue) 10:00")]),
    record("a3", "temporal", "2023/06/01 (Thu) 10:00", [("sa3", "2023/05/03 (Wed) 10:00")]),
    record("a4_abs", "temporal", "2023/06/01 (Thu) 10:00", [("sa4", "2023/05/04 (Thu) 10:00")]),
    record("b1", "update", "2023/05/02 (Tue) 12:00", [("sb1", "2023/05/01 (Mon) 12:00")]),
    record("b2", "update", "2023/07/01 (Sat) 10:00", [("sb2", "2023/06/20 (Tue) 10:00")]),
]


def test_choose_skips_excluded_and_abstention_questions_and_caps_each_type() -> None:
    chosen = choose(RECORDS, {"a2"}, per_category=5, seed=3)
    assert sorted(r["question_id"] for r in chosen) == ["a1", "a3", "b1", "b2"]
    capped = choose(RECORDS, set(), per_category=1, seed=3)
    assert sorted(r["question_type"] for r in capped) == ["temporal", "update"]
    assert capped == choose(RECORDS, set(), per_category=1, seed=3)  # seeded


def test_mix_adds_the_others_evidence_as_plain_hay_never_after_the_question() -> None:
    chosen = choose(RECORDS, set(), per_category=5, seed=1)
    by_id = {r["question_id"]: r for r in mix(chosen, distractors=10, seed=1)}
    b1 = by_id["b1"]  # asked on 2023/05/02 at noon: only sa1 and sa2 (10:00) came before
    assert b1["haystack_session_ids"] == ["sa1", "sb1", "sa2"]
    assert b1["haystack_dates"] == sorted(b1["haystack_dates"])
    evidence = [
        sid
        for sid, turns in zip(b1["haystack_session_ids"], b1["haystack_sessions"], strict=True)
        if any(t.get("has_answer") for t in turns)
    ]
    assert evidence == ["sb1"]
    assert b1["answer_session_ids"] == ["sb1"]
    # b2 is the latest: every other session is hay for it; fewer asked, fewer given.
    assert len(by_id["b2"]["haystack_session_ids"]) == 5
    fewer = {r["question_id"]: r for r in mix(chosen, distractors=2, seed=1)}
    assert len(fewer["b2"]["haystack_session_ids"]) == 3


def test_the_file_written_loads_as_longmemeval(tmp_path: Path) -> None:
    oracle, sample, out = tmp_path / "oracle.json", tmp_path / "sample.json", tmp_path / "mix.json"
    oracle.write_text(json.dumps(RECORDS), encoding="utf-8")
    sample.write_text(json.dumps(RECORDS[:1]), encoding="utf-8")
    args = ["--oracle", str(oracle), "--exclude", str(sample), "--out", str(out)]
    assert main([*args, "--distractors", "3"]) == 0
    dataset = load_longmemeval(out)
    assert sorted(q.id for q in dataset.questions) == ["a2", "a3", "b1", "b2"]
    b2 = next(q for q in dataset.questions if q.id == "b2")
    assert len(dataset.conversation("b2").sessions) == 4
    assert len(b2.evidence_session_ids) == 1 and len(b2.evidence_turn_ids) == 1
