"""The memory bench scores a question only on evidence the service was sent, and leaves a
question with nothing to retrieve out of the retrieval aggregates, saying so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.bench.context_evidence import context_summary
from tests.bench.evidence import scored, sent_evidence, unscored_ids
from tests.bench.ingest import stored_text
from tests.bench.loaders import Dataset, load_locomo, load_longmemeval
from tests.bench.report import ingestion_summary, retrieval_summary, split_summary
from tests.bench.split import HELD_OUT, TUNING

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _sent(ds: Dataset) -> set[str]:
    """The turn ids the bench sends: those with text (message_inputs skips the rest)."""
    return {t.id for c in ds.conversations for t in c.turns() if stored_text(t, 25_000)}


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_evidence_turns_never_sent_leave_the_question(tmp_path: Path) -> None:
    sample = json.loads((FIXTURES / "locomo_tiny.json").read_text(encoding="utf-8"))[0]
    sample["conversation"]["session_2"][1]["text"] = "  "  # D2:2, skipped at ingest
    sample["qa"] = [
        {"question": "Bowls?", "answer": "2", "evidence": ["D1:3; D2:2"], "category": 1},
        {"question": "Green?", "answer": "yes", "evidence": ["D2:2"], "category": 4},
    ]
    ds = load_locomo(_write(tmp_path / "locomo.json", [sample]))
    conversation = ds.conversations[0]
    both, only_unsent = (sent_evidence(q, conversation, _sent(ds)) for q in ds.questions)
    assert both.question.evidence_turn_ids == {"D1:3"}
    # session_2 was cited only through D2:2: none of its evidence was sent.
    assert both.question.evidence_session_ids == {"session_1"}
    assert both.dropped == ["D2:2"]
    assert only_unsent.question.evidence_turn_ids == set()
    assert only_unsent.question.evidence_session_ids == set()


def test_a_session_with_no_turn_sent_is_no_evidence(tmp_path: Path) -> None:
    record = json.loads((FIXTURES / "longmemeval_tiny.json").read_text(encoding="utf-8"))[0]
    for turn in record["haystack_sessions"][1]:
        turn["content"] = ""
    ds = load_longmemeval(_write(tmp_path / "lme.json", [record]))
    [question] = ds.questions
    cut = sent_evidence(question, ds.conversations[0], _sent(ds))
    assert cut.dropped == ["answer_tea:0"]
    assert cut.question.evidence_turn_ids == set()
    assert cut.question.evidence_session_ids == set()


def _record(
    qid: str, recall: float, turns: list[str], *, abstention: bool = False
) -> dict[str, Any]:
    metrics = {"recall_any@5": recall, "recall_all@5": 1.0, "ndcg_any@5": recall}
    packed = {"found": len(turns), "of": len(turns), "all": bool(turns), "tokens": 10}
    return {
        "question_id": qid,
        "conversation_id": "c1",
        "category": "cat",
        "abstention": abstention,
        "evidence_turns": turns,
        "evidence_sessions": ["s1"] if turns else [],
        "retrieval": {"ours": metrics},
        "context": {"with_messages": packed},
    }


def test_questions_without_evidence_are_left_out_of_every_aggregate() -> None:
    records = [
        _record("q1", 1.0, ["t1"]),
        _record("q2", 0.0, []),  # evidence empty or naming no turn: vacuous metrics
        _record("q3", 1.0, ["t3"]),
        _record("q4", 0.0, [], abstention=True),
    ]
    overall = retrieval_summary(records, ["ours"], [5])["ours"]["overall"]
    assert overall["n"] == 2
    assert overall["recall_any@5"] == 1.0
    assert overall["ndcg_any@5"] == 1.0
    assert retrieval_summary(records, ["ours"], [5])["ours"]["cat"]["n"] == 2
    halves = {"q1": TUNING, "q2": TUNING, "q3": HELD_OUT, "q4": HELD_OUT}
    split = split_summary(records, ["ours"], [5], halves)
    assert split[TUNING]["ours"]["overall"]["n"] == 1
    assert split[HELD_OUT]["ours"]["overall"]["n"] == 1
    # The context evidence section counts the same questions.
    assert context_summary(records)["with_messages"]["overall"]["n"] == overall["n"]


def test_unscored_ids_name_the_questions_left_out() -> None:
    records = [
        _record("q1", 1.0, ["t1"]),
        _record("q2", 0.0, []),
        _record("q4", 0.0, [], abstention=True),  # an abstention: skipped, not "left out"
    ]
    assert [scored(r) for r in records] == [True, False, False]
    assert unscored_ids(records) == ["q2"]


def test_ingestion_summary_counts_turns_and_questions_once_per_conversation() -> None:
    stats = {"skipped_turns": 2, "truncated_turns": 1}
    records = [
        {**_record("q1", 1.0, ["t1"]), "conversation_stats": stats, "evidence_dropped": ["t9"]},
        {**_record("q2", 1.0, ["t2"]), "conversation_stats": stats, "evidence_truncated": ["t2"]},
        {
            **_record("q3", 1.0, ["t3"]),
            "conversation_id": "c2",
            "conversation_stats": {"skipped_turns": 1, "truncated_turns": 0},
        },
    ]
    assert ingestion_summary(records, 25_000) == {
        "max_message_chars": 25_000,
        "skipped_turns": 3,
        "truncated_turns": 1,
        "questions_evidence_dropped": ["q1"],
        "questions_evidence_truncated": ["q2"],
    }
