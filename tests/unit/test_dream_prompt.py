"""How the dream specialists are shown a belief."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import BaseModel, ValidationError

from graph.repo.dreams import Belief
from reasoners.dreamer.prompt import render_belief
from reasoners.dreamer.specialist_tools import (
    CardLineArgs,
    ContradictionArgs,
    DeductionArgs,
    InductionArgs,
    PruneArgs,
)

pytestmark = pytest.mark.unit


def test_a_belief_is_dated_to_the_minute_in_utc() -> None:
    """Dated to the day, two statements of one day could not be told apart by which came
    later (an old phone number and a new one)."""
    stated = datetime(2024, 6, 1, 12, 3, tzinfo=timezone(timedelta(hours=2)))
    belief = Belief("o1", "Kim's phone number is 555-9876.", "explicit", stated, stated, "s1")
    assert render_belief(belief) == (
        "[obs:o1] (explicit, valid 2024-06-01 10:03 UTC, session s1) "
        "Kim's phone number is 555-9876."
    )
    early = datetime(1, 1, 1, 0, 7, tzinfo=UTC)
    assert "valid 0001-01-01 00:07 UTC" in render_belief(Belief("o", "x", "explicit", early, early))


def test_a_belief_stated_again_says_when() -> None:
    """A repeat merged into a belief (Lisbon in January, again in June, Berlin in March
    between) was shown by its first date alone: the model took Berlin for the later value."""
    first = datetime(2024, 1, 10, tzinfo=UTC)
    again = datetime(2024, 6, 10, tzinfo=UTC)
    belief = Belief("o1", "Alice lives in Lisbon.", "explicit", first, first, stated_last=again)
    assert "valid 2024-01-10 00:00 UTC, stated again 2024-06-10 00:00 UTC" in render_belief(belief)
    once = Belief("o2", "Alice lives in Berlin.", "explicit", first, first, stated_last=first)
    assert "stated again" not in render_belief(once)


@pytest.mark.parametrize(
    ("model", "fields"),
    [
        (DeductionArgs, {"content": "   ", "premise_ids": ["a"]}),
        (ContradictionArgs, {"content": "\n\t", "observation_ids": ["a", "b"]}),
        (InductionArgs, {"content": " ", "pattern_type": "trait", "premise_ids": ["a", "b"]}),
        (CardLineArgs, {"text": "  ", "support": ["a"]}),
        (PruneArgs, {"observation_id": "a", "reason": " "}),
    ],
)
def test_blank_words_from_the_model_are_refused(
    model: type[BaseModel], fields: dict[str, object]
) -> None:
    """Whitespace passed `min_length` and was written as an empty belief or card line."""
    with pytest.raises(ValidationError):
        model.model_validate(fields)
    text = next(k for k in ("content", "text", "reason") if k in fields)
    made = model.model_validate({**fields, text: "  said here "})
    assert getattr(made, text) == "said here"
