from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reasoners.deriver.batching import SessionMessage
from reasoners.summarizer.prompt import SUMMARY_SYSTEM_PROMPT, summary_messages

pytestmark = pytest.mark.unit

T0 = datetime(2024, 5, 3, 9, 0, tzinfo=UTC)  # a Friday


def _message(i: int, peer: str, text: str) -> SessionMessage:
    return SessionMessage(f"m{i}", peer, text, T0 + timedelta(minutes=i), len(text.split()))


def test_summary_prompt_folds_new_messages_into_the_previous_summary() -> None:
    messages = summary_messages(
        "long", "alice: I moved to Berlin.", [_message(1, "alice", "I adopted a cat.")], 250
    )
    assert messages[0]["content"] == SUMMARY_SYSTEM_PROMPT
    text = messages[1]["content"]
    assert isinstance(text, str)
    assert "Previous summary:\n    alice: I moved to Berlin." in text
    assert "alice at 2024-05-03 09:01 UTC (Friday):\n    I adopted a cat." in text
    assert "long summary" in text and "250 words" in text


def test_first_summary_says_there_is_none_yet_and_short_is_asked_for() -> None:
    text = summary_messages("short", None, [_message(0, "bob", "Hi")], 60)[1]["content"]
    assert isinstance(text, str)
    assert "(none yet)" in text and "short summary" in text and "60 words" in text


def test_summary_prompt_rejects_a_zero_word_limit() -> None:
    with pytest.raises(ValueError, match="word_limit"):
        summary_messages("short", None, [], 0)


def test_the_apps_instructions_come_after_the_ask_and_only_when_given() -> None:
    new = [_message(0, "bob", "Hi")]
    text = summary_messages("short", None, new, 60, "Keep\nprices.")[1]["content"]
    assert isinstance(text, str)
    assert text.endswith("The app's instructions for this summary:\n    Keep\n    prices.")
    assert "instructions" not in str(summary_messages("short", None, new, 60)[1]["content"])
