import math
import random
from collections.abc import Sequence
from typing import TypeVar

import pytest

from graph.errors import LimitExceeded
from reasoners.deriver.dedup import belief_fits, check_belief, exact_key, repeated_items
from reasoners.text.numbers import figures, same_figures

pytestmark = pytest.mark.unit

IdT = TypeVar("IdT")


# The rule repeated_items follows, item by item in plain Python: the oracle it is checked
# against.
def cosine(left: Sequence[float], right: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is all zeros (it points nowhere)."""
    if len(left) != len(right):
        raise ValueError(f"embedding dimensions differ: {len(left)} != {len(right)}")
    dot = math.fsum(a * b for a, b in zip(left, right, strict=True))
    norms = math.hypot(*left) * math.hypot(*right)
    if norms == 0.0:
        return 0.0
    return dot / norms


def find_duplicate(
    candidate_embedding: Sequence[float],
    candidate_key: str,
    existing: Sequence[tuple[IdT, str, Sequence[float]]],
    threshold: float = 0.95,
) -> IdT | None:
    """The id of an existing item that duplicates the candidate, or None.

    An equal, non-empty exact key wins outright (the first such item). Otherwise the most
    similar item whose cosine similarity is >= threshold, the earliest on ties. Vectors need
    not be normalized: cosine divides by their norms.
    """
    if candidate_key:
        for item_id, key, _ in existing:
            if key == candidate_key:
                return item_id
    best_id: IdT | None = None
    best_score = threshold
    for item_id, _, embedding in existing:
        score = cosine(candidate_embedding, embedding)
        if score >= best_score and (best_id is None or score > best_score):
            best_id, best_score = item_id, score
    return best_id


def test_exact_key_ignores_case_spacing_quotes_and_end_punctuation() -> None:
    assert exact_key("Alice  moved to Berlin.") == exact_key("alice moved to berlin")
    assert exact_key("Alice\u2019s dog is Rex!") == exact_key("Alice's dog is Rex")
    assert exact_key("Alice moved to Berlin") != exact_key("Alice moved to Paris")


def test_cosine() -> None:
    assert cosine([1.0, 0.0], [2.0, 0.0]) == pytest.approx(1.0)  # scale does not matter
    assert cosine([1.0, 0.0], [0.0, 3.0]) == pytest.approx(0.0)
    assert cosine([1.0, 1.0], [-1.0, -1.0]) == pytest.approx(-1.0)
    assert cosine([0.0, 0.0], [1.0, 0.0]) == 0.0
    with pytest.raises(ValueError, match="dimensions differ"):
        cosine([1.0], [1.0, 0.0])


def _unit(angle: float) -> list[float]:
    return [math.cos(angle), math.sin(angle)]


def test_exact_key_match_wins_even_with_a_distant_embedding() -> None:
    existing = [("o1", "alice likes tea", _unit(0.0)), ("o2", "alice is a nurse", _unit(3.0))]
    assert find_duplicate(_unit(0.0), exact_key("Alice is a nurse."), existing) == "o2"


def test_most_similar_above_threshold_is_returned() -> None:
    # cos(0.2) ~ 0.980, cos(0.1) ~ 0.995, cos(0.5) ~ 0.878
    existing = [("far", "x", _unit(0.5)), ("near", "y", _unit(0.2)), ("nearest", "z", _unit(0.1))]
    assert find_duplicate(_unit(0.0), "new", existing) == "nearest"
    assert find_duplicate(_unit(0.0), "new", existing, threshold=0.99) == "nearest"
    assert find_duplicate(_unit(0.0), "new", existing, threshold=0.999) is None


def test_threshold_is_inclusive_and_ties_keep_the_earliest() -> None:
    existing = [(1, "a", [1.0, 0.0]), (2, "b", [2.0, 0.0])]
    assert find_duplicate([3.0, 0.0], "c", existing, threshold=1.0 - 1e-12) == 1


def test_no_duplicate() -> None:
    assert find_duplicate([1.0, 0.0], "k", []) is None
    assert find_duplicate([1.0, 0.0], "k", [("o", "other", [0.0, 1.0])]) is None


def test_empty_keys_never_match_exactly() -> None:
    assert find_duplicate([1.0, 0.0], "", [("o", "", [0.0, 1.0])]) is None


def kept_of(keys: list[str], vectors: list[list[float]], threshold: float) -> list[bool]:
    return [r is None for r in repeated_items(keys, vectors, threshold)]


def test_repeated_items_keeps_what_find_duplicate_one_by_one_keeps() -> None:
    rng = random.Random(7)
    keys = [rng.choice(["", "tea", "rex", "paris"]) + str(rng.randrange(3)) for _ in range(300)]
    keys[5] = keys[9] = ""  # no key: only the embedding decides
    vectors = [[rng.choice([0.0, 1.0, 2.0]) for _ in range(4)] for _ in range(300)]
    vectors[3] = [0.0] * 4  # a zero vector repeats nothing by its embedding
    for threshold in (0.9, 0.99, 1.0 - 1e-9):
        kept: list[tuple[int, str, list[float]]] = []
        expected = []
        for i, (key, vector) in enumerate(zip(keys, vectors, strict=True)):
            novel = find_duplicate(vector, key, kept, threshold) is None
            expected.append(novel)
            if novel:
                kept.append((i, key, vector))
        assert kept_of(keys, vectors, threshold) == expected
        assert 10 < sum(expected) < 290  # both answers occur
    assert kept_of([], [], 0.9) == []


def test_a_belief_fits_the_index_by_its_length_and_its_normalized_key() -> None:
    assert belief_fits("x" * 2_000)
    assert not belief_fits("x" * 2_001)
    # 400 characters, but NFKC writes each as 18: over the key's bytes.
    assert len(exact_key("\ufdfa" * 400)) == 7_200 and not belief_fits("\ufdfa" * 400)
    with pytest.raises(LimitExceeded, match="a belief may hold 2000 characters"):
        check_belief("x" * 2_001, "content")


def test_a_repeat_names_the_item_it_repeats() -> None:
    keys = ["a", "b", "a", "c"]
    vectors = [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5], [0.1, 1.0]]
    assert repeated_items(keys, vectors, 0.99) == [None, None, 0, 1]
    assert repeated_items([], [], 0.9) == []


def test_facts_agree_when_they_state_the_same_numbers() -> None:
    assert figures("Alice is 34 and lives at 12 Oak Street.") == ["12", "34"]
    assert figures("Her PIN is 0042.") == ["42"]  # leading zeros are not the number
    # The extractive deriver's date is when it was said, not what: a restatement agrees.
    assert same_figures(
        "Alice lives in Lisbon (stated on 2024-01-05).",
        "Alice lives in Lisbon (stated on 2024-02-05).",
    )
    # Unless the fact says when relative to that day: another visit, not a repeat.
    assert not same_figures(
        "Alice went to the dentist yesterday (stated on 2024-05-03).",
        "Alice went to the dentist yesterday (stated on 2024-06-10).",
    )
    assert not same_figures(
        "Alice ran a marathon last weekend (stated on 2023-02-01).",
        "Alice ran a marathon last weekend (stated on 2024-02-01).",
    )
    # For an induction they are two instances of one habit, whatever their day.
    assert same_figures(
        "Alice went to the dentist yesterday (stated on 2024-05-03).",
        "Alice went to the dentist yesterday (stated on 2024-06-10).",
        events=False,
    )
    # A move two years ago, said again a week on, is one move.
    assert same_figures(
        "Alice moved to Berlin two years ago (stated on 2024-02-01).",
        "Alice moved to Berlin two years ago (stated on 2024-02-08).",
    )
    # So is the LLM deriver's date of a current state.
    assert same_figures(
        "Alice lives in Oslo (as of 2024-05-03).", "Alice lives in Oslo (as of 2024-05-10)"
    )
    assert not same_figures(
        "Alice lives at 12 Oak St (as of 2024-05-03).",
        "Alice lives at 48 Oak St (as of 2024-05-03).",
    )
    assert not same_figures("Alice's phone is 555-1234.", "Alice's phone is 555-9876.")
    assert not same_figures("Alice is 34 years old.", "Alice is 35 years old.")
    assert not same_figures("Alice earns $50,000.", "Alice earns $90,000.")
    assert not same_figures("Alice moved in 2020 (stated on 2024-01-05).", "Alice moved in 2021.")
    assert same_figures("Alice likes tea.", "Alice likes green tea.")


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Alice earns $1,000 a week.", "Alice earns $1000 a week."),
        ("Alice has two kids.", "Alice has 2 kids."),
        ("Alice is twenty-one.", "Alice is 21."),
        ("Alice saved thirty thousand dollars.", "Alice saved $30,000."),
        ("Alice ran two hundred and five laps.", "Alice ran 205 laps."),
        ("Alice has 2 cats and 3 dogs.", "Alice has 3 dogs and 2 cats."),  # in any order
        ("Alice is 30 and has 2 kids.", "Alice has 2 kids and is 30."),
        ("Gina's son is seven and her daughter is 4.", "Gina's son is 7 and her daughter is four."),
        ("Alice likes the red one.", "Alice likes the red car."),  # "one": a pronoun here
        # Lowered, "\u0130" is two characters: offsets into the lowered text, not the given.
        ("\u0130\u0130 Alice has twenty-one cats.", "\u0130\u0130 Alice has 21 cats."),
    ],
)
def test_numbers_agree_however_they_are_written(left: str, right: str) -> None:
    assert same_figures(left, right)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        # Facts in words had no digits, so a changed number in words was a repeat.
        ("Alice has two kids.", "Alice has three kids."),
        ("Alice has one kid.", "Alice has two kids."),
        ("Alice runs twenty miles a week.", "Alice runs twenty-five miles a week."),
        ("Alice counted two, three birds.", "Alice counted 23 birds."),  # two numbers
        # The order counts, and so do decimals.
        ("Gina's son is 7 and her daughter is 4.", "Gina's son is 4 and her daughter is 7."),
        ("Alice paid 20 dollars for 3 apples.", "Alice paid 3 dollars for 20 apples."),
        ("Alice ran 1.5 miles.", "Alice ran 1.05 miles."),
        ("Alice takes 0.5 mg.", "Alice takes 0.05 mg."),
        ("Alice uses Python 3.10.", "Alice uses Python 3.1."),
        ("Alice's server is 10.0.0.1.", "Alice's server is 10.0.0.10."),
        ("Alice owes Tom 50 and Ann 10.", "Alice owes Tom 10 and Ann 50."),
        ("Alice scored 3/4.", "Alice scored 4/3."),
        ("Alice trains 10-20 minutes.", "Alice trains 20-10 minutes."),
    ],
)
def test_numbers_in_words_differ_as_digits_do(left: str, right: str) -> None:
    assert not same_figures(left, right)


def test_items_with_the_same_numbers_for_other_things_are_kept_apart() -> None:
    """Facts of one unit were classed by their numbers alone: "20 dollars for 3 apples" and "3
    dollars for 20 apples", posted together, made one belief."""
    contents = [
        "P paid 20 dollars for 3 apples.",
        "P paid 3 dollars for 20 apples.",
        "P paid 20 dollars for 3 apples!",
    ]
    same = [[1.0, 0.0]] * 3
    assert repeated_items(["a", "b", "c"], same, 0.9, contents) == [None, None, 0]


def test_a_similar_item_with_other_numbers_is_kept() -> None:
    keys = ["a", "b", "c", "d"]
    vectors = [[1.0, 0.0], [1.0, 0.01], [1.0, 0.02], [0.0, 1.0]]
    contents = ["Phone 555-1234.", "Phone 555-9876.", "Phone 555-1234!", "Age 34."]
    assert repeated_items(keys, vectors, 0.99) == [None, 0, 0, None]
    assert repeated_items(keys, vectors, 0.99, contents) == [None, None, 0, None]
    # The same text repeats whatever the numbers (its key says it is the same fact).
    assert repeated_items(["a", "a"], [[1.0, 0.0], [0.0, 1.0]], 0.99, ["1", "2"]) == [None, 0]
