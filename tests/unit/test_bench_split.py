"""The memory bench's fixed tuning split, and the report's table of the two halves."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tests.bench.report import split_summary, split_table
from tests.bench.split import HELD_OUT, TUNING, split_halves

pytestmark = pytest.mark.unit


def _questions(seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    sizes = {"multi-session": 9, "temporal": 4, "preference": 1, "update": 7}
    pairs = [
        (f"{c[:3]}_{rng.randrange(10**6):06d}_{i}", c) for c, n in sizes.items() for i in range(n)
    ]
    rng.shuffle(pairs)
    return pairs


def test_even_positions_by_id_within_a_category_are_the_tuning_half() -> None:
    half = split_halves([("b", "x"), ("a", "x"), ("c", "x"), ("z", "y"), ("d", "x")])
    assert half == {"a": TUNING, "b": HELD_OUT, "c": TUNING, "d": HELD_OUT, "z": TUNING}


def test_split_is_deterministic_disjoint_covering_and_balanced() -> None:
    questions = _questions(1)
    half = split_halves(questions)
    assert split_halves(list(reversed(questions))) == half  # input order does not matter
    assert set(half) == {q for q, _ in questions}  # covering; a dict: each id in one half
    assert set(half.values()) == {TUNING, HELD_OUT}
    per = Counter((c, half[q]) for q, c in questions)
    for category in {c for _, c in questions}:
        assert abs(per[category, TUNING] - per[category, HELD_OUT]) <= 1
        assert per[category, TUNING] >= per[category, HELD_OUT]


def test_split_table_shows_each_half_with_its_counts() -> None:
    def record(qid: str, recall: float) -> dict[str, object]:
        metrics = {"recall_all@10": recall, "ndcg_any@10": recall, "session/recall_all@5": 1.0}
        return {
            "question_id": qid,
            "category": "c",
            "abstention": False,
            "evidence_turns": ["t1"],
            "evidence_sessions": ["s1"],
            "retrieval": {"ours": metrics},
        }

    records = [record("q1", 1.0), record("q2", 0.0), record("q3", 1.0)]
    halves = split_halves((str(r["question_id"]), "c") for r in records)
    summary = split_summary(records, ["ours"], [5, 10], halves)
    assert summary[TUNING]["ours"]["overall"]["recall_all@10"] == 1.0  # q1, q3
    assert summary[HELD_OUT]["ours"]["overall"]["n"] == 1  # q2
    lines = split_table(summary, ["ours"], {"ours": "Ours"}, [5, 10]).splitlines()
    assert lines[0] == (
        "| half | ranker | n | recall_all@10 | ndcg_any@10 | recall_any@10 | session recall_all@5 |"
    )
    assert "| tuning | Ours | 2 | 1.000 | 1.000 | - | 1.000 |" in lines
    assert "| held-out | Ours | 1 | 0.000 | 0.000 | - | 1.000 |" in lines
