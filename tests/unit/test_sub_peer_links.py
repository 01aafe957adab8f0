"""The sub-peer link check, apart from the walks that feed it."""

from __future__ import annotations

from graph.repo.members import link_problem


def test_a_peer_under_itself_is_refused() -> None:
    assert link_problem("a", "a", set(), 0, 0, 10) == "a peer cannot be its own sub-peer"


def test_a_child_above_the_parent_would_make_a_cycle() -> None:
    problem = link_problem("b", "a", {"a", "top"}, 2, 0, 10)
    assert problem is not None and "would make a cycle" in problem


def test_the_chain_counts_both_sides_and_the_new_edge() -> None:
    assert link_problem("p", "c", set(), 4, 5, 10) is None  # 4 + 1 + 5 = 10
    problem = link_problem("p", "c", set(), 4, 6, 10)
    assert problem is not None and "would be 11 long; the limit is 10" in problem
