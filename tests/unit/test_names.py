"""A peer's name in a belief's words, written anew (pure)."""

from __future__ import annotations

import pytest

from reasoners.text.names import renamed

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("content", "old", "new", "expected"),
    [
        ("Alice lives in Paris.", "alice", "alicia", "Alicia lives in Paris."),
        ("Alice's dog likes tea.", "alice", "bob", "Bob's dog likes tea."),
        ("Alice moved, alice lives in Oslo.", "alice", "al", "Al moved, al lives in Oslo."),
        ("user-1 likes user-12.", "user-1", "u-9", "u-9 likes user-12."),
        ("1 has 1 dog.", "1", "2", "2 has 1 dog."),
        # Only as the subject: a full name, an address, a path or a word it spells stay.
        ("Alicia's name is Alicia Smith.", "alicia", "al", "Al's name is Alicia Smith."),
        ("Alicia uses alicia+x@example.com.", "alicia", "al", "Al uses alicia+x@example.com."),
        ("User is a power user of Vim.", "user", "alice", "Alice is a power user of Vim."),
        ("Bob met Alicia.", "alicia", "alice", "Bob met Alicia."),
        ("Alicefield is near.", "alice", "bob", "Alicefield is near."),
        ("ALICE shouts.", "alice", "bob", "ALICE shouts."),
        ("alice keeps a pet.", "alice", "alice", "alice keeps a pet."),
    ],
)  # fmt: skip
def test_a_name_is_written_anew_where_it_is_the_subject(
    content: str, old: str, new: str, expected: str
) -> None:
    assert renamed(content, old, new) == expected
