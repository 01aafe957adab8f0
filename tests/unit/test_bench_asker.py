"""The memory bench searches on behalf of the speaker who asks the dataset's questions."""

from __future__ import annotations

import pytest

from tests.bench.retrieval import asking_speaker

pytestmark = pytest.mark.unit


def test_the_user_asks_in_assistant_chats_and_no_one_in_conversations_between_people() -> None:
    assert asking_speaker("longmemeval", ["user", "assistant"]) == "user"
    assert asking_speaker("beam", ["user", "assistant"]) == "user"
    assert asking_speaker("locomo", ["Caroline", "Melanie"]) is None
    # A chat without a speaker called "user" has no one to ask on behalf of.
    assert asking_speaker("longmemeval", ["assistant"]) is None
