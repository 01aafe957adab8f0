"""The rendered context costs what the packer counted, and never more than the budget."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest

from graph.records import MessageRecord, SummaryRecord
from reasoners.context.assemble import pack_parts
from reasoners.context.packing import render
from reasoners.embeddings.tokens import MiniLMTokenCounter

pytestmark = pytest.mark.unit

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
SENTENCE = "I moved to Berlin in 2023 and work night shifts at St. Mary's, ok? 42 km/h!"
WORDS = SENTENCE.split()


@pytest.fixture(scope="module")
def tokens() -> MiniLMTokenCounter:
    return MiniLMTokenCounter()


def text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def message(tokens: MiniLMTokenCounter, i: int, content: str) -> MessageRecord:
    return MessageRecord(
        id=f"m{i}",
        workspace="w",
        session="s",
        peer="alice" if i % 2 else "assistant-7",
        content=content,
        context=None,
        metadata={},
        created_at=T0 + timedelta(minutes=17 * i),
        seq=i,
        token_count=tokens.count(content),
    )


def summary(tokens: MiniLMTokenCounter, kind: str, content: str) -> SummaryRecord:
    return SummaryRecord("x" + kind, "w", "s", kind, content, 10, tokens.count(content), T0)


@pytest.mark.parametrize("budget", [1, 5, 20, 37, 100, 250, 1000, 4000])
def test_the_rendered_context_costs_what_was_counted(
    tokens: MiniLMTokenCounter, budget: int
) -> None:
    """Headings, bullets, times and speakers were not counted: a budget of 1,000 rendered
    about 2,000 tokens of short messages."""
    rng = random.Random(budget)
    recent = [message(tokens, i, text(rng, rng.randint(1, 12))) for i in range(60, 0, -1)]
    matched = [message(tokens, 100 + i, text(rng, rng.randint(3, 30))) for i in range(8)]
    packed = pack_parts(
        tokens,
        budget,
        [text(rng, rng.randint(4, 15)) + " [explicit, 2026-03-01]" for _ in range(20)],
        ["Name: Alice", "Works nights"],
        summary(tokens, "short", text(rng, 25)),
        summary(tokens, "long", text(rng, 80)),
        recent,
        matched,
    )
    rendered = render(packed)
    assert tokens.count(rendered) == packed.tokens_used <= budget
    if budget >= 1000:
        assert packed.messages and packed.representation and packed.matched
