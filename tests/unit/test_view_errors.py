"""The error of a write about a view whose peers do not exist."""

from __future__ import annotations

import pytest

from graph.repo.peers import pair_missing

pytestmark = pytest.mark.unit


def test_a_self_view_names_its_peer_once() -> None:
    # It said "peers 'alice' and 'alice' must both exist" (probe G).
    assert str(pair_missing("w", "alice", "alice")) == "peer 'alice' must exist in 'w'"
    assert (
        str(pair_missing("w", "bob", "alice")) == "peers 'bob' and 'alice' must both exist in 'w'"
    )
