"""A peer's name in a belief's words, written anew (pure)."""

from __future__ import annotations

import pytest

from reasoners.text.names import renamed

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("content", "old", "new", "expected"),
    [
        ("Alice lives in Paris.", "alice", "alicia", "Alicia lives in Paris."),
        ("Alice's dog likes alice.", "alice", "bob", "Bob's dog likes bob."),
        # Whole names only: not inside another word, another name or an address.
        ("Alicefield; alice.smith@x.com", "alice", "bob", "Alicefield; alice.smith@x.com"),
        ("user-1 likes user-12 and user-1.", "user-1", "u-9", "u-9 likes user-12 and u-9."),
        ("Nothing here.", "alice", "bob", "Nothing here."),
        ("alice keeps a pet.", "alice", "alice", "alice keeps a pet."),
    ],
)  # fmt: skip
def test_a_name_is_written_anew_where_it_stands_whole(
    content: str, old: str, new: str, expected: str
) -> None:
    assert renamed(content, old, new) == expected
