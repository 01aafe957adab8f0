"""Which pooled messages reply to the asker (pure)."""

from __future__ import annotations

import pytest

from graph.records import MessageRecord
from reasoners.search.replies import replies_to_asker
from reasoners.search.speakers import asks_what_others_said
from tests.records import message_record

pytestmark = pytest.mark.unit


def message(id_: str, peer: str, seq: int, session: str = "s1") -> MessageRecord:
    return message_record(id_, session=session, peer=peer, seq=seq)


def test_a_reply_is_the_next_turn_of_another_peer_in_the_same_session() -> None:
    pooled = [
        message("ask", "user", 1),
        message("answer", "assistant", 2),
        message("more", "assistant", 3),  # follows the assistant, not the asker
        message("again", "user", 4),  # the asker's own turn replies to no one here
        message("late", "assistant", 6),  # the asker's turn before it (5) is not pooled
        message("other", "assistant", 2, session="s2"),  # no turn 1 of s2 in the pool
        message("first", "user", 1, session="s3"),
        message("bob", "bob", 2, session="s3"),
    ]
    assert replies_to_asker(pooled, "user") == {"answer": "ask", "bob": "first"}
    assert replies_to_asker(pooled, "nobody") == {}
    assert replies_to_asker([], "user") == {}


@pytest.mark.parametrize(
    ("query", "asks"),
    [
        ("Can you remind me of the 7th job in the list you provided?", True),
        ("the hotel you recommended", True),
        ("You mentioned a study: how many subjects were in it?", True),
        ("Can you remind me how many subjects were in the study?", False),
        ("what did I buy", False),
        ("what did you", False),
        ("Which hotel did you suggest?", True),
        ("Can you suggest a hotel?", False),
        ("Did you know I moved?", False),
    ],
)
def test_asking_what_you_said(query: str, asks: bool) -> None:
    assert asks_what_others_said(query) is asks
