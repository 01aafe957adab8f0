import pytest

from tests.bench.context_evidence import (
    WITH_MESSAGES,
    WITHOUT_MESSAGES,
    context_latency,
    context_summary,
    context_table,
    latency_line,
)

pytestmark = pytest.mark.unit


def _result(found: int, of: int, tokens: int) -> dict[str, object]:
    return {"found": found, "of": of, "all": of > 0 and found == of, "tokens": tokens}


def _record(
    category: str, with_: tuple[int, int], without: tuple[int, int], **extra: object
) -> dict[str, object]:
    return {
        "category": category,
        "abstention": False,
        "context": {
            WITH_MESSAGES: _result(*with_, tokens=300),
            WITHOUT_MESSAGES: _result(*without, tokens=100),
        },
        **extra,
    }


def test_summary_counts_questions_with_every_turn_and_the_share_of_turns() -> None:
    records = [
        _record("a", (2, 2), (1, 2)),
        _record("a", (1, 2), (0, 2)),
        _record("b", (1, 1), (1, 1)),
        _record("b", (0, 0), (0, 0)),  # no evidence turns: not counted
        _record("b", (0, 1), (0, 1), abstention=True),  # abstention: not counted
        {"category": "c", "abstention": False},  # measured before the field existed
    ]
    summary = context_summary(records)
    assert summary[WITH_MESSAGES]["overall"] == {
        "all": 2 / 3,
        "turns": 2.5 / 3,
        "tokens": 300,
        "n": 3,
    }
    assert summary[WITHOUT_MESSAGES]["a"] == {"all": 0.0, "turns": 0.25, "tokens": 100, "n": 2}
    assert summary[WITHOUT_MESSAGES]["b"]["all"] == 1.0
    assert "c" not in summary[WITH_MESSAGES]


def test_table_puts_overall_first_and_the_baseline_column_before_the_change() -> None:
    summary = context_summary([_record("a", (1, 1), (0, 1)), _record("b", (1, 2), (1, 2))])
    lines = context_table(summary).splitlines()
    assert lines[0] == "| group | n | beliefs + recent tail | + 5 matched messages |"
    assert lines[2] == "| overall | 2 | 0.000 / 0.250 / 100 | 0.500 / 0.750 / 300 |"
    assert lines[3] == "| a | 1 | 0.000 / 0.000 / 100 | 1.000 / 1.000 / 300 |"
    assert context_table({}) == ""


def test_latency_takes_every_question_and_names_both_variants() -> None:
    records = [
        {"context": {WITH_MESSAGES: {"ms": float(ms)}, WITHOUT_MESSAGES: {"ms": float(ms) / 2}}}
        for ms in range(1, 21)
    ]
    latency = context_latency(records)
    assert latency[WITH_MESSAGES] == {"p50": 10.5, "p95": 19.0, "n": 20.0}
    assert latency_line(latency) == (
        "Time per `context` call (GraphQL in process, 20 calls each): beliefs + recent tail "
        "p50 5 ms, p95 10 ms; + 5 matched messages p50 10 ms, p95 19 ms."
    )
    assert latency_line({}) == ""
