"""The get_context packer: choose what fits a token budget, deterministically.

Rules, with B the budget:

1. Peer card P and representation slice R come first, at full cost, with no percentage cap.
   When they do not both fit, the card is kept whenever it fits alone (it is the compact,
   stable identity), and R is trimmed from its least relevant end (R is given most relevant
   first), stopping at the first item that does not fit. A card larger than B is dropped
   whole, and R then fills B on its own. Items are never cut mid-text: the packer has no
   tokenizer, only the token counts it is given.
2. B' = B - tok(R kept) - tok(P kept), never negative.
3. Summary cap = floor(0.4 * B'). The long summary is used if it fits the cap and has strictly
   more tokens than the short one (a missing short summary counts as 0); otherwise the short
   summary if it fits; otherwise none. Empty summaries count as missing.
4. Matched messages M (the messages that best match a search query, given best first) take
   at most half of what the summary left, floor((B' - tok(S)) / 2), best first; one that does
   not fit is skipped and the next tried, so one long turn does not shut out the rest.
5. Recent messages (given newest first) fill B' - tok(S) - tok(M), newest first, stopping at
   the first that does not fit, so the window is a contiguous recent tail; one already among
   the matched costs nothing and is not shown twice. They are returned oldest first.

The sum of the chosen token counts never exceeds B. `render` adds headings and timestamps that
are not counted; callers that need a hard cap on the rendered text should reserve for them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

SummaryKind = Literal["long", "short"]

SUMMARY_SHARE_NUMERATOR = 2
SUMMARY_SHARE_DENOMINATOR = 5  # 2/5 = 0.4, kept as integers so the cap is exact.


@dataclass(frozen=True)
class Piece:
    """A text with its precomputed token count (an observation, the card, a summary)."""

    text: str
    tokens: int

    def __post_init__(self) -> None:
        if self.tokens < 0:
            raise ValueError(f"token count must be >= 0, got {self.tokens}")


@dataclass(frozen=True)
class RecentMessage:
    speaker: str
    content: str
    created_at: datetime
    tokens: int
    id: str = ""

    def __post_init__(self) -> None:
        if self.tokens < 0:
            raise ValueError(f"token count must be >= 0, got {self.tokens}")


@dataclass(frozen=True)
class PackedContext:
    """What was chosen, oldest message first, with the token accounting that chose it."""

    budget: int
    peer_card: Piece | None
    representation: tuple[Piece, ...]
    summary: Piece | None
    summary_kind: SummaryKind | None
    messages: tuple[RecentMessage, ...]
    remainder: int  # B' = B - tok(R) - tok(P)
    summary_cap: int  # floor(0.4 * B')
    card_dropped: bool
    representation_dropped: int  # how many least-relevant items did not fit
    messages_dropped: int  # how many older messages did not fit
    matched: tuple[RecentMessage, ...] = ()  # best first
    matched_dropped: int = 0  # how many matched messages did not fit

    @property
    def card_tokens(self) -> int:
        return self.peer_card.tokens if self.peer_card else 0

    @property
    def representation_tokens(self) -> int:
        return sum(piece.tokens for piece in self.representation)

    @property
    def summary_tokens(self) -> int:
        return self.summary.tokens if self.summary else 0

    @property
    def message_tokens(self) -> int:
        return sum(message.tokens for message in self.messages)

    @property
    def matched_tokens(self) -> int:
        return sum(message.tokens for message in self.matched)

    @property
    def tokens_used(self) -> int:
        return (
            self.card_tokens + self.representation_tokens + self.summary_tokens
            + self.matched_tokens + self.message_tokens
        )  # fmt: skip


def _present(piece: Piece | None) -> Piece | None:
    return piece if piece is not None and piece.text and piece.tokens > 0 else None


def choose_summary(
    short: Piece | None, long: Piece | None, cap: int
) -> tuple[Piece | None, SummaryKind | None]:
    """Long if it fits and is strictly longer than short; else short if it fits; else none."""
    short, long = _present(short), _present(long)
    short_tokens = short.tokens if short else 0
    if long is not None and long.tokens <= cap and long.tokens > short_tokens:
        return long, "long"
    if short is not None and short.tokens <= cap:
        return short, "short"
    return None, None


def pack(
    budget: int,
    *,
    representation: Sequence[Piece] = (),
    peer_card: Piece | None = None,
    short_summary: Piece | None = None,
    long_summary: Piece | None = None,
    messages_newest_first: Sequence[RecentMessage] = (),
    matched_best_first: Sequence[RecentMessage] = (),
) -> PackedContext:
    """Pack under `budget` tokens; `representation` is ordered most relevant first."""
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")

    card = _present(peer_card)
    card_dropped = card is not None and card.tokens > budget
    if card_dropped:
        card = None
    room = budget - (card.tokens if card else 0)

    kept: list[Piece] = []
    for piece in representation:
        if piece.tokens > room:
            break
        kept.append(piece)
        room -= piece.tokens

    remainder = room
    cap = remainder * SUMMARY_SHARE_NUMERATOR // SUMMARY_SHARE_DENOMINATOR
    summary, kind = choose_summary(short_summary, long_summary, cap)
    room = remainder - (summary.tokens if summary else 0)

    matched: list[RecentMessage] = []
    matched_room = room // 2
    for message in matched_best_first:
        if message.tokens <= matched_room:
            matched.append(message)
            matched_room -= message.tokens
    room -= sum(message.tokens for message in matched)
    shown = {message.id for message in matched}

    window: list[RecentMessage] = []
    repeated = 0
    for message in messages_newest_first:
        if message.id and message.id in shown:
            repeated += 1
            continue
        if message.tokens > room:
            break
        window.append(message)
        room -= message.tokens
    window.reverse()

    return PackedContext(
        budget=budget,
        peer_card=card,
        representation=tuple(kept),
        summary=summary,
        summary_kind=kind,
        messages=tuple(window),
        remainder=remainder,
        summary_cap=cap,
        card_dropped=card_dropped,
        representation_dropped=len(representation) - len(kept),
        messages_dropped=len(messages_newest_first) - len(window) - repeated,
        matched=tuple(matched),
        matched_dropped=len(matched_best_first) - len(matched),
    )


def _timestamp(moment: datetime) -> str:
    return moment.isoformat(sep=" ", timespec="minutes")


def render(packed: PackedContext) -> str:
    """A readable text block with one section per non-empty part, in packing priority order."""
    sections: list[str] = []
    if packed.peer_card is not None:
        sections.append("## Peer card\n" + packed.peer_card.text.strip())
    if packed.representation:
        lines = "\n".join(f"- {piece.text.strip()}" for piece in packed.representation)
        sections.append("## What is known (most relevant first)\n" + lines)
    if packed.summary is not None:
        heading = f"## Session summary ({packed.summary_kind})"
        sections.append(heading + "\n" + packed.summary.text.strip())
    if packed.matched:
        sections.append("## Messages matching the query (best first)\n" + _lines(packed.matched))
    if packed.messages:
        sections.append("## Recent messages (oldest first)\n" + _lines(packed.messages))
    return "\n\n".join(sections)


def _lines(messages: Sequence[RecentMessage]) -> str:
    return "\n".join(
        f"[{_timestamp(m.created_at)}] {m.speaker}: {m.content.strip()}" for m in messages
    )
