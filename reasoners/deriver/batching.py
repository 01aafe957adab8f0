"""Deriver batching: group a target peer's messages into token-bounded batches with context.

Rules:
- A batch is a run of consecutive target messages (consecutive among the target's pending
  messages; other speakers may talk in between) whose target tokens total <= max_tokens.
- Other speakers' turns between two target messages of a batch ride along in `span`: they are
  what the target was answering. They do not count toward max_tokens, which bounds the text
  being extracted from; `total_tokens` reports the full prompt cost.
- A single target message above max_tokens forms a batch of its own (`oversized`): it is never
  split, because extracted spans must stay verbatim substrings of one message.
- `context` is the contiguous run of other-speaker turns immediately before the batch's first
  target message, newest first, at most `context_turns` turns and `context_max_tokens` tokens,
  stopping at the first turn that does not fit; it is returned oldest first.
- With `pending_ids`, only those target messages are batched; any other target message (already
  derived) closes the current batch and breaks the context run, so nothing is derived twice.
- Other-speaker turns after the last target message belong to no batch.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime

DEFAULT_MAX_TOKENS = 1024
DEFAULT_CONTEXT_TURNS = 2
DEFAULT_CONTEXT_MAX_TOKENS = 512
# A batch's whole span (the target's messages and the other turns between them) may take this
# many times its target budget: a group chat with one short target message per hundred others
# made a prompt of 800,000 tokens, over any model's context, and a dead job.
SPAN_FACTOR = 4


@dataclass(frozen=True)
class SessionMessage:
    id: str
    peer: str
    content: str
    created_at: datetime
    token_count: int


@dataclass(frozen=True)
class DeriverBatch:
    """One deriver call's worth of messages about one target peer."""

    target: str
    context: tuple[SessionMessage, ...]  # other speakers' turns before the span, oldest first
    span: tuple[SessionMessage, ...]  # first to last target message, interleaved turns included
    max_tokens: int = field(repr=False)

    @property
    def target_messages(self) -> tuple[SessionMessage, ...]:
        return tuple(message for message in self.span if message.peer == self.target)

    @property
    def conversation(self) -> tuple[SessionMessage, ...]:
        """Context then span: the turns to show the model, in order."""
        return self.context + self.span

    @property
    def target_tokens(self) -> int:
        return sum(message.token_count for message in self.target_messages)

    @property
    def total_tokens(self) -> int:
        return sum(message.token_count for message in self.conversation)

    @property
    def oversized(self) -> bool:
        return self.target_tokens > self.max_tokens


def _context_tail(
    turns: Sequence[SessionMessage], max_turns: int, max_tokens: int
) -> tuple[SessionMessage, ...]:
    chosen: list[SessionMessage] = []
    room = max_tokens
    for turn in reversed(turns):
        if len(chosen) >= max_turns or turn.token_count > room:
            break
        chosen.append(turn)
        room -= turn.token_count
    return tuple(reversed(chosen))


def batch_messages(
    messages: Sequence[SessionMessage],
    target: str,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    context_turns: int = DEFAULT_CONTEXT_TURNS,
    context_max_tokens: int = DEFAULT_CONTEXT_MAX_TOKENS,
    pending_ids: Collection[str] | None = None,
) -> list[DeriverBatch]:
    """Batch `messages` (one session, in order) for deriving facts about `target`."""
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    if context_turns < 0 or context_max_tokens < 0:
        raise ValueError("context_turns and context_max_tokens must be >= 0")
    for message in messages:
        if message.token_count < 0:
            raise ValueError(f"message {message.id} has a negative token count")

    batches: list[DeriverBatch] = []
    context: tuple[SessionMessage, ...] = ()
    span: list[SessionMessage] = []
    span_tokens = 0  # the target's
    span_total = 0  # everyone's
    between: list[SessionMessage] = []  # other speakers since the last target message

    def close() -> None:
        nonlocal span, span_tokens, span_total
        if span:
            batches.append(DeriverBatch(target, context, tuple(span), max_tokens))
        span, span_tokens, span_total = [], 0, 0

    for message in messages:
        if message.peer != target:
            between.append(message)
            continue
        if pending_ids is not None and message.id not in pending_ids:
            close()
            between = []
            continue
        between_tokens = sum(m.token_count for m in between)
        if (
            span
            and span_tokens + message.token_count <= max_tokens
            and span_total + between_tokens + message.token_count <= max_tokens * SPAN_FACTOR
        ):
            span.extend(between)
            span_total += between_tokens
        else:
            close()
            context = _context_tail(between, context_turns, context_max_tokens)
        span.append(message)
        span_tokens += message.token_count
        span_total += message.token_count
        between = []
    close()
    return batches
