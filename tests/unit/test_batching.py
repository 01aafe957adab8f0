import json
from datetime import UTC, datetime, timedelta

import pytest

from graph.repo.jobs import JobRecord
from reasoners.deriver.batching import DeriverBatch, SessionMessage, batch_messages
from reasoners.deriver.handler import first_jobs, near_first

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 3, 9, 0, tzinfo=UTC)


def _session(*turns: tuple[str, int]) -> list[SessionMessage]:
    """Messages m0, m1, ... from (peer, token_count) pairs, one minute apart."""
    return [
        SessionMessage(f"m{i}", peer, f"text {i}", T0 + timedelta(minutes=i), tokens)
        for i, (peer, tokens) in enumerate(turns)
    ]


def _ids(messages: tuple[SessionMessage, ...]) -> list[str]:
    return [message.id for message in messages]


def test_small_conversation_is_one_batch_with_interleaved_turns() -> None:
    messages = _session(("bot", 5), ("alice", 10), ("bot", 7), ("alice", 10), ("bot", 3))
    [batch] = batch_messages(messages, "alice")
    assert _ids(batch.context) == ["m0"]
    assert _ids(batch.span) == ["m1", "m2", "m3"]  # the bot's reply in between rides along
    assert _ids(batch.target_messages) == ["m1", "m3"]
    assert _ids(batch.conversation) == ["m0", "m1", "m2", "m3"]
    assert batch.target_tokens == 20
    assert batch.total_tokens == 32  # trailing bot turn m4 belongs to no batch
    assert not batch.oversized


def test_batches_split_on_target_tokens() -> None:
    messages = _session(
        ("alice", 40), ("bot", 200), ("alice", 40), ("bot", 30), ("alice", 40), ("alice", 10)
    )
    batches = batch_messages(messages, "alice", max_tokens=100)
    # 40 + 40 fits (the bot's 200 counts only toward the span's bound, 4 x 100); adding 40
    # more would be 120.
    assert [_ids(b.span) for b in batches] == [["m0", "m1", "m2"], ["m4", "m5"]]
    assert [b.target_tokens for b in batches] == [80, 50]
    assert _ids(batches[1].context) == ["m3"]  # the turn right before the new batch
    assert batches[0].context == ()
    assert all(b.target_tokens <= 100 for b in batches)


def test_a_span_of_many_other_turns_is_bounded() -> None:
    """One short alice message per 100 others: the others rode along uncounted, and one batch
    of 2,002 messages made an 800,000-token prompt."""
    turns = [("alice", 5)] + [("bob", 400)] * 2000 + [("alice", 5)]
    batches = batch_messages(_session(*turns), "alice", max_tokens=1024)
    assert [_ids(b.span) for b in batches] == [["m0"], ["m2001"]]
    assert all(b.total_tokens <= 4 * 1024 + 512 for b in batches)
    assert _ids(batches[1].context) == ["m2000"]  # within the context's own bound
    # Others' turns still ride along while the span stays within four budgets.
    few = _session(("alice", 5), ("bob", 400), ("bob", 400), ("alice", 5))
    [batch] = batch_messages(few, "alice", max_tokens=1024)
    assert _ids(batch.span) == ["m0", "m1", "m2", "m3"]


def test_exact_fit_stays_in_one_batch() -> None:
    messages = _session(("alice", 60), ("alice", 40), ("alice", 1))
    batches = batch_messages(messages, "alice", max_tokens=100)
    assert [_ids(b.span) for b in batches] == [["m0", "m1"], ["m2"]]


def test_oversized_message_forms_its_own_batch() -> None:
    messages = _session(("alice", 10), ("bot", 5), ("alice", 5000), ("alice", 10))
    batches = batch_messages(messages, "alice", max_tokens=100)
    assert [_ids(b.span) for b in batches] == [["m0"], ["m2"], ["m3"]]
    assert [b.oversized for b in batches] == [False, True, False]
    assert _ids(batches[1].context) == ["m1"]
    assert batches[2].context == ()  # preceded by alice herself, so no other-speaker turn


def test_context_is_capped_by_turns_and_tokens() -> None:
    messages = _session(("bob", 5), ("carol", 5), ("bot", 5), ("alice", 10))
    [batch] = batch_messages(messages, "alice")
    assert _ids(batch.context) == ["m1", "m2"]  # default: two turns, oldest first

    [batch] = batch_messages(messages, "alice", context_turns=3, context_max_tokens=10)
    assert _ids(batch.context) == ["m1", "m2"]  # a third turn would exceed 10 tokens

    [batch] = batch_messages(messages, "alice", context_turns=0)
    assert batch.context == ()


def test_context_stops_at_a_turn_too_big_for_the_token_cap() -> None:
    messages = _session(("bob", 5), ("bot", 900), ("alice", 10))
    [batch] = batch_messages(messages, "alice", context_max_tokens=512)
    assert batch.context == ()  # the 900-token turn does not fit, and nothing older is used


def test_pending_ids_skip_already_derived_messages() -> None:
    messages = _session(
        ("alice", 10), ("bot", 5), ("alice", 10), ("bot", 5), ("alice", 10), ("bot", 6)
    )
    batches = batch_messages(messages, "alice", pending_ids={"m2", "m4"})
    assert [_ids(b.span) for b in batches] == [["m2", "m3", "m4"]]
    assert _ids(batches[0].context) == ["m1"]

    # A derived message between pending ones breaks the batch and the context run.
    messages = _session(("alice", 10), ("bot", 5), ("alice", 10), ("alice", 10))
    batches = batch_messages(messages, "alice", pending_ids={"m0", "m3"})
    assert [_ids(b.span) for b in batches] == [["m0"], ["m3"]]
    assert batches[1].context == ()


def test_no_target_messages_no_batches() -> None:
    assert batch_messages(_session(("bot", 5), ("bob", 5)), "alice") == []
    assert batch_messages([], "alice") == []


def test_every_target_message_is_batched_once_in_order() -> None:
    turns = [("alice" if i % 3 else "bot", 7 + (i * 37) % 90) for i in range(60)]
    messages = _session(*turns)
    batches = batch_messages(messages, "alice", max_tokens=150)
    batched = [m.id for b in batches for m in b.target_messages]
    assert batched == [m.id for m in messages if m.peer == "alice"]
    assert all(b.target_tokens <= 150 or len(b.target_messages) == 1 for b in batches)
    for batch in batches:
        assert batch.span[0].peer == "alice" and batch.span[-1].peer == "alice"
        assert all(m.peer != "alice" for m in batch.context)


@pytest.mark.parametrize(
    ("max_tokens", "context_turns", "context_max_tokens"),
    [(0, 2, 512), (1024, -1, 512), (1024, 2, -1)],
)
def test_invalid_settings(max_tokens: int, context_turns: int, context_max_tokens: int) -> None:
    with pytest.raises(ValueError, match="must be >= "):
        batch_messages(
            _session(("alice", 1)),
            "alice",
            max_tokens=max_tokens,
            context_turns=context_turns,
            context_max_tokens=context_max_tokens,
        )


def test_negative_token_count_is_rejected() -> None:
    with pytest.raises(ValueError, match="m0"):
        batch_messages(_session(("alice", -1)), "alice")


def test_batch_is_frozen() -> None:
    [batch] = batch_messages(_session(("alice", 1)), "alice")
    assert isinstance(batch, DeriverBatch)
    with pytest.raises(AttributeError):
        batch.target = "bob"  # type: ignore[misc]


def _job(n: int, messages: int) -> JobRecord:
    return JobRecord.from_row(
        {
            "id": f"j{n}",
            "workspace": "w",
            "kind": "derive",
            "work_unit": "u",
            "payload": json.dumps({"message_ids": [f"m{n}-{i}" for i in range(messages)]}),
            "status": "running",
            "seq": n,
            "attempts": 1,
            "max_attempts": 5,
            "run_after": datetime(2026, 1, 1, tzinfo=UTC),
            "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        }
    )


def test_a_run_takes_the_first_jobs_up_to_its_message_cap_and_never_none() -> None:
    jobs = [_job(0, 30), _job(1, 20), _job(2, 5)]
    assert [j.id for j in first_jobs(jobs, 50)] == ["j0", "j1"]
    assert [j.id for j in first_jobs(jobs, 49)] == ["j0"]
    assert [j.id for j in first_jobs([_job(0, 80)], 50)] == ["j0"]  # one job is never split


def test_a_run_reads_no_further_into_the_session_than_its_window() -> None:
    """A dead job retried a day late, with the day's jobs behind it, loaded the whole day."""
    jobs = [_job(0, 2), _job(1, 2), _job(2, 2)]
    seqs = {"m0-0": 10, "m0-1": 12, "m1-0": 400, "m1-1": 1_010, "m2-0": 1_011, "m2-1": 1_012}
    assert [j.id for j in near_first(jobs, seqs, 1_000)] == ["j0", "j1"]
    assert [j.id for j in near_first(jobs, seqs, 999)] == ["j0"]
    assert [j.id for j in near_first(jobs, seqs, 0)] == ["j0"]  # never none
    # Jobs whose messages are gone cost nothing and are kept; the window starts at the first
    # message still there.
    gone_first = {"m1-0": 400, "m1-1": 401, "m2-0": 1_400, "m2-1": 1_401}
    assert [j.id for j in near_first(jobs, gone_first, 1_000)] == ["j0", "j1"]
    assert [j.id for j in near_first(jobs, gone_first, 1_001)] == ["j0", "j1", "j2"]
