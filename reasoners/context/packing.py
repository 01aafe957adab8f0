"""The get_context packer: choose what fits a token budget, deterministically.

Rules, with B the budget:

1. Peer card P and representation slice R come first, at full cost, with no percentage cap.
   When they do not both fit, the card is kept whenever it fits alone (it is the compact,
   stable identity), and R is kept most relevant first (as it is given), an item that does
   not fit skipped and the next tried, so one long belief does not shut out the shorter ones
   after it. A card larger than B is dropped whole, and R then fills B on its own. Items are
   never cut mid-text: the packer has no tokenizer, only the token counts it is given.
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

Costs are those of the rendered text: an item's count is what its line costs as `render` writes
it (a belief with its bullet, a message with its time and speaker: `belief_line`,
`message_line`), and a section's heading (`Headings`, counted by the caller) is paid with the
first item the section takes. Texts joined by whitespace cost the sum of theirs (WordPiece splits
at whitespace first), so the rendered text costs exactly `tokens_used`, which never exceeds B.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

SummaryKind = Literal["long", "short"]

SUMMARY_SHARE_NUMERATOR = 2
SUMMARY_SHARE_DENOMINATOR = 5  # 2/5 = 0.4, kept as integers so the cap is exact.

CARD_HEADING = "## Peer card"
REPRESENTATION_HEADING = "## What is known (most relevant first)"
MATCHED_HEADING = "## Messages matching the query (best first)"
RECENT_HEADING = "## Recent messages (oldest first)"


def summary_heading(kind: SummaryKind) -> str:
    return f"## Session summary ({kind})"


def belief_line(text: str) -> str:
    return f"- {text.strip()}"


def message_prefix(speaker: str, created_at: datetime) -> str:
    """What a message's line shows before its content."""
    return f"[{created_at.isoformat(sep=' ', timespec='minutes')}] {speaker}:"


def message_line(speaker: str, content: str, created_at: datetime) -> str:
    return f"{message_prefix(speaker, created_at)} {content.strip()}"


@dataclass(frozen=True)
class Headings:
    """What each section's heading costs (all 0: headings are free, as in most unit tests)."""

    card: int = 0
    representation: int = 0
    summary_long: int = 0
    summary_short: int = 0
    matched: int = 0
    recent: int = 0

    @classmethod
    def counted(cls, count: Callable[[str], int]) -> Headings:
        return cls(
            card=count(CARD_HEADING),
            representation=count(REPRESENTATION_HEADING),
            summary_long=count(summary_heading("long")),
            summary_short=count(summary_heading("short")),
            matched=count(MATCHED_HEADING),
            recent=count(RECENT_HEADING),
        )

    def summary(self, kind: SummaryKind | None) -> int:
        return {"long": self.summary_long, "short": self.summary_short}.get(kind or "", 0)


@dataclass(frozen=True)
class Piece:
    """A text with its precomputed token count (an observation's line, the card, a summary)."""

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
    tokens: int  # of its line as rendered (message_line), or of its content alone in unit tests
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
    representation_dropped: int  # how many items did not fit
    messages_dropped: int  # how many older messages did not fit
    matched: tuple[RecentMessage, ...] = ()  # best first
    matched_dropped: int = 0  # how many matched messages did not fit
    headings: Headings = field(default_factory=Headings)
    # The place in the given representation of each item kept: one that did not fit is
    # skipped, so the kept ones are not the first N.
    representation_kept: tuple[int, ...] = ()

    # Each part's cost includes its heading when it is shown.
    @property
    def card_tokens(self) -> int:
        return self.peer_card.tokens + self.headings.card if self.peer_card else 0

    @property
    def representation_tokens(self) -> int:
        return _section(self.representation, self.headings.representation)

    @property
    def summary_tokens(self) -> int:
        return self.summary.tokens + self.headings.summary(self.summary_kind) if self.summary else 0

    @property
    def message_tokens(self) -> int:
        return _section(self.messages, self.headings.recent)

    @property
    def matched_tokens(self) -> int:
        return _section(self.matched, self.headings.matched)

    @property
    def tokens_used(self) -> int:
        return (
            self.card_tokens + self.representation_tokens + self.summary_tokens
            + self.matched_tokens + self.message_tokens
        )  # fmt: skip


def _section(items: Sequence[Piece | RecentMessage], heading: int) -> int:
    return sum(item.tokens for item in items) + heading if items else 0


def _present(piece: Piece | None) -> Piece | None:
    return piece if piece is not None and piece.text and piece.tokens > 0 else None


def choose_summary(
    short: Piece | None, long: Piece | None, cap: int, headings: Headings | None = None
) -> tuple[Piece | None, SummaryKind | None]:
    """Long if it fits (with its heading) and is strictly longer than short; else short if it
    fits; else none."""
    h = headings or Headings()
    short, long = _present(short), _present(long)
    short_tokens = short.tokens if short else 0
    if long is not None and long.tokens + h.summary_long <= cap and long.tokens > short_tokens:
        return long, "long"
    if short is not None and short.tokens + h.summary_short <= cap:
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
    headings: Headings | None = None,
) -> PackedContext:
    """Pack under `budget` tokens; `representation` is ordered most relevant first."""
    if budget < 0:
        raise ValueError(f"budget must be >= 0, got {budget}")
    h = headings or Headings()

    card = _present(peer_card)
    card_dropped = card is not None and card.tokens + h.card > budget
    if card_dropped:
        card = None
    room = budget - (card.tokens + h.card if card else 0)

    kept: list[Piece] = []
    kept_at: list[int] = []
    for at, piece in enumerate(representation):
        cost = piece.tokens + (0 if kept else h.representation)
        if cost > room:
            continue  # a long belief does not shut out the shorter ones after it
        kept.append(piece)
        kept_at.append(at)
        room -= cost

    remainder = room
    cap = remainder * SUMMARY_SHARE_NUMERATOR // SUMMARY_SHARE_DENOMINATOR
    summary, kind = choose_summary(short_summary, long_summary, cap, h)
    room = remainder - (summary.tokens + h.summary(kind) if summary else 0)

    matched: list[RecentMessage] = []
    matched_room = room // 2
    for message in matched_best_first:
        cost = message.tokens + (0 if matched else h.matched)
        if cost <= matched_room:
            matched.append(message)
            matched_room -= cost
    room -= _section(matched, h.matched)
    shown = {message.id for message in matched}

    window: list[RecentMessage] = []
    repeated = 0
    for message in messages_newest_first:
        if message.id and message.id in shown:
            repeated += 1
            continue
        cost = message.tokens + (0 if window else h.recent)
        if cost > room:
            break
        window.append(message)
        room -= cost
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
        headings=h,
        representation_kept=tuple(kept_at),
    )


def render(packed: PackedContext) -> str:
    """A readable text block with one section per non-empty part, in packing priority order."""
    sections: list[str] = []
    if packed.peer_card is not None:
        sections.append(f"{CARD_HEADING}\n{packed.peer_card.text.strip()}")
    if packed.representation:
        lines = "\n".join(belief_line(piece.text) for piece in packed.representation)
        sections.append(f"{REPRESENTATION_HEADING}\n{lines}")
    if packed.summary is not None and packed.summary_kind is not None:
        heading = summary_heading(packed.summary_kind)
        sections.append(f"{heading}\n{packed.summary.text.strip()}")
    if packed.matched:
        sections.append(f"{MATCHED_HEADING}\n{_lines(packed.matched)}")
    if packed.messages:
        sections.append(f"{RECENT_HEADING}\n{_lines(packed.messages)}")
    return "\n\n".join(sections)


def _lines(messages: Sequence[RecentMessage]) -> str:
    return "\n".join(message_line(m.speaker, m.content, m.created_at) for m in messages)
