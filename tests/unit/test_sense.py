"""Facts that embed alike but say otherwise: negation, tense, certainty (reasoners/text/sense)."""

from __future__ import annotations

import pytest

from reasoners.deriver.dedup import repeated_items
from reasoners.text.sense import same_claim, same_sense

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("first", "later"),
    [
        # Each pair embeds at a cosine of 0.959 to 0.98, over the deriver's 0.95.
        ("Alice is allergic to peanuts.", "Alice is not allergic to peanuts."),
        ("Alice is a vegetarian.", "Alice is not a vegetarian."),
        ("Alice works at Google.", "Alice used to work at Google."),
        ("Alice is engaged to Tom.", "Alice was engaged to Tom."),
        ("Alice lives in Paris.", "Alice might live in Paris."),
        ("Alice lives in Paris.", "Alice lived in Paris."),
        ("Alice has a dog.", "Alice had a dog."),
        ("Alice doesn't eat meat.", "Alice eats meat."),
        ("Alice will move to Rome.", "Alice moved to Rome."),
        ("Alice never drinks coffee.", "Alice drinks coffee."),
        ("Alice might move to Rome.", "Alice will move to Rome."),
        ("Alice would move to Rome.", "Alice should move to Rome."),
        ("Alice is employed at Google.", "Alice was employed at Google."),
        ("Alice works at Google.", "Alice worked at Google."),
    ],
)
def test_a_change_of_polarity_tense_or_certainty_is_another_fact(first: str, later: str) -> None:
    assert not same_sense(first, later) and not same_claim(first, later)
    assert not same_sense(later, first)


@pytest.mark.parametrize(
    ("first", "later"),
    [
        ("Alice lives in Paris.", "Alice lives in Paris (stated on 2024-01-02)."),
        ("Alice is interested in painting.", "Alice is very interested in painting."),
        ("Alice moved to Berlin last year.", "Alice moved to Berlin a year ago."),
        ("Alice is married to Tom.", "Alice is married to Tom (as of 2024-05-01)."),
        ("Alice wasn't at the party.", "Alice was not at the party."),
        ("Alice needs a new laptop.", "Alice really needs a new laptop."),
        # Words of one sense, and a state after "be" as present as the verb it stands for.
        ("Alice might move to Rome.", "Alice may move to Rome."),
        ("Alice is thinking about moving.", "Alice is considering moving."),
        ("Alice works at Google.", "Alice is employed at Google."),
        ("Alice is married to Tom.", "Alice is happily married to Tom."),
    ],
)
def test_a_repeat_in_other_words_is_the_same_fact(first: str, later: str) -> None:
    assert same_sense(first, later) and same_claim(first, later)


def test_dedup_keeps_a_negation_apart_however_alike_it_embeds() -> None:
    facts = ["Alice is allergic to peanuts.", "Alice is not allergic to peanuts."]
    alike = [[1.0, 0.0], [0.999, 0.04]]
    assert repeated_items(["a", "b"], alike, 0.95, facts) == [None, None]
    assert repeated_items(["a", "b"], alike, 0.95, [facts[0], facts[0] + " "]) == [None, 0]
