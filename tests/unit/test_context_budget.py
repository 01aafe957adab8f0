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


@pytest.mark.parametrize("budget", [37, 120, 250])
def test_parts_costed_at_their_content_fill_the_budget_with_content(
    tokens: MiniLMTokenCounter, budget: int
) -> None:
    """For an answer that returns the parts (REST's session context), the budget holds their
    content: the same budget rendered keeps fewer messages."""
    rng = random.Random(budget)
    recent = [message(tokens, i, text(rng, rng.randint(1, 12))) for i in range(60, 0, -1)]
    parts = (["Lives in Leeds [explicit]"], ["Name: Alice"], None, None, recent, [])
    plain = pack_parts(tokens, budget, *parts, rendered=False)
    shown = pack_parts(tokens, budget, *parts)
    content = [m.token_count for m in recent if m.id in {p.id for p in plain.messages}]
    lines = sum(tokens.count(p.text) for p in plain.representation)
    card = tokens.count(plain.peer_card.text) if plain.peer_card else 0
    assert plain.tokens_used == sum(content) + lines + card <= budget
    assert len(plain.messages) > len(shown.messages)
