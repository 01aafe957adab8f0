"""The memory bench's fixed tuning split: half the questions to tune on, half held out.

Within each category (LongMemEval: ``question_type``), questions sorted by id; those at even
positions (0, 2, 4, ...) are the tuning half, those at odd positions the held-out half. The
rule needs nothing but the ids and categories, so any run, on any subset of a file, puts a
question on the same side as long as its category-mates are the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

TUNING = "tuning"
HELD_OUT = "held-out"
HALVES: tuple[str, ...] = (TUNING, HELD_OUT)

SPLIT_NOTE = (
    "Tuning split: within each category, questions sorted by id; even positions (0, 2, 4, ...) "
    "form the tuning half, odd positions the held-out half. Rankers are tuned on the tuning half "
    "only, so the held-out half tells whether a change generalises."
)


def split_halves(questions: Iterable[tuple[str, str]]) -> dict[str, str]:
    """(question id, category) pairs -> question id -> :data:`TUNING` or :data:`HELD_OUT`."""
    by_category: dict[str, set[str]] = defaultdict(set)
    for question_id, category in questions:
        by_category[category].add(question_id)
    half: dict[str, str] = {}
    for ids in by_category.values():
        for position, question_id in enumerate(sorted(ids)):
            half[question_id] = TUNING if position % 2 == 0 else HELD_OUT
    return half
