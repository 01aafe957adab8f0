"""Content terms and the best-matching sentence (pure)."""

from __future__ import annotations

import pytest

from reasoners.text.terms import best_sentence, content_terms

pytestmark = pytest.mark.unit


def test_content_terms_drop_function_words_and_keep_numbers() -> None:
    assert content_terms("I've moved to Lisbon's old town in 2024, at 5k a month") == {
        "moved",
        "lisbon",
        "old",
        "town",
        "2024",
        "5k",
        "month",
    }
    assert content_terms("What did I do to you?") == frozenset()


LONG = (
    "Thanks for the recipes, they look great. "
    + "I will try the soup first because it is quick. " * 12
    + "By the way, my sister Ines is getting married in Sintra next September."
)


def test_the_sentence_sharing_most_terms_wins_wherever_it_is() -> None:
    assert len(LONG) > 600
    found = best_sentence(LONG, "When is her marriage in Sintra?")
    assert found == "By the way, my sister Ines is getting married in Sintra next September."
    assert found is not None and found in LONG


def test_a_tie_goes_to_the_earliest_and_no_overlap_to_none() -> None:
    text = "The soup was quick. The soup was hot."
    assert best_sentence(text, "soup") == "The soup was quick."
    assert best_sentence(text, "wedding plans") is None
    assert best_sentence(text, "what was it?") is None  # function words only
    assert best_sentence("", "soup") is None
