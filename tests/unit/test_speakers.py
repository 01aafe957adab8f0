"""Whose turns a message search favours, read from the query's words (pure)."""

from __future__ import annotations

import pytest

from reasoners.search.speakers import MAX_NAME_CANDIDATES, Favoured, favoured, name_candidates

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    "query",
    [
        "What did I buy for my sister last week?",
        "How many times have I been to the gym?",
        "Which car do I drive these days",
        "Remind me what I\u2019ve planned for the trip",
    ],
)
def test_the_first_person_points_at_the_asker(query: str) -> None:
    assert favoured(query, "user", ()) == Favoured(frozenset({"user"}))


@pytest.mark.parametrize(
    "query",
    [
        "What was the third recipe you mentioned?",
        "I forgot the name of the hotel you recommended to me",
        "Can you remind me of the list you just provided?",
        "Which hotels in Lisbon did you suggest?",
        "How many eggs did you say we need for the omelette?",
    ],
)
def test_what_you_said_points_at_everyone_but_the_asker(query: str) -> None:
    who = favoured(query, "user", ())
    assert who == Favoured(all_but="user")
    assert who.covers("assistant") and who.covers("another-agent")
    assert not who.covers("user")


def test_what_you_said_points_only_into_the_sessions_given() -> None:
    who = Favoured(frozenset({"Dana"}), all_but="user", within=frozenset({"s1"}))
    assert who.covers("assistant", "s1")
    assert not who.covers("assistant", "s2") and not who.covers("assistant")
    assert not who.covers("user", "s1")
    # A peer the query names is favoured wherever it spoke.
    assert who.covers("Dana", "s2")


@pytest.mark.parametrize(
    "query", ["What did we decide in our last conversation?", "Where are we meeting"]
)
def test_we_points_at_no_one_in_particular(query: str) -> None:
    assert not favoured(query, "user", ())


def test_a_question_without_pronouns_favours_no_one() -> None:
    assert not favoured("capital of Peru", "user", ())


def test_without_an_asker_only_named_peers_count() -> None:
    assert not favoured("What did I buy?", None, ())
    assert not favoured("the recipe you mentioned", None, ())
    who = favoured("What did Dana buy?", None, {"Dana"})
    assert who.covers("Dana") and not who.covers("Eli")


def test_named_peers_add_to_the_pronoun_rule() -> None:
    who = favoured("What did I tell Dana about the move?", "user", {"Dana"})
    assert who == Favoured(frozenset({"user", "Dana"}))
    assert not who.covers("Eli")


def test_name_candidates_cover_the_cases_a_name_is_written_in() -> None:
    found = name_candidates("what did dana's brother O'NEIL say to Eli.")
    for name in ("dana", "Dana", "DANA", "Eli", "eli", "O", "NEIL", "Neil"):
        assert name in found
    assert "Eli." not in found and "" not in found
    # Every candidate is a valid peer name (graph/validation.py): no quotes, no spaces.
    assert all("'" not in c and " " not in c for c in found)


def test_name_candidates_are_bounded() -> None:
    words = " ".join(f"word{i}" for i in range(1000))
    assert len(name_candidates(words)) == MAX_NAME_CANDIDATES


@pytest.mark.parametrize(
    "query",
    ["Can you suggest a hotel for my trip?", "Could you recommend a show for me tonight?"],
)
def test_a_request_for_something_new_is_not_about_what_you_said(query: str) -> None:
    # "can you suggest" asks for a new answer: the asker's own words ("my trip") count.
    assert favoured(query, "user", ()) == Favoured(frozenset({"user"}))
