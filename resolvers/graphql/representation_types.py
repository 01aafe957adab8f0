"""GraphQL types of representation reads: belief hits, peer cards, context, belief filters."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graph.repo import peer_cards
from resolvers.graphql.belief_types import Observation, ObservationLevel
from resolvers.graphql.inputs import INCLUDE_STALE, INCLUDE_SUPERSEDED, LEVELS, SESSIONS
from resolvers.graphql.types import RANKS, Message, Summary


@strawberry.type(description="A belief that matched a belief search.")
class ObservationHit:
    observation: Observation = strawberry.field(description="The belief found.")
    score: float = strawberry.field(
        description="Fused score: similarity to the query (0-1) plus 0.1 times the fulltext "
        "score relative to the query's best fulltext hit; higher is better."
    )
    vector_rank: int | None = strawberry.field(description=RANKS[0])
    text_rank: int | None = strawberry.field(description=RANKS[1])


@strawberry.type(
    description="An observer's short list of stable identity markers about a peer (name, "
    "age, home, work...)."
)
class PeerCard:
    observer: str = strawberry.field(description="The peer whose card it is.")
    observed: str = strawberry.field(description="The peer it describes.")
    entries: list[str] = strawberry.field(
        description="Its lines, in order (at most 40 of 300 characters)."
    )
    updated_at: datetime | None = strawberry.field(
        description="When it was last written (UTC); null for a card never written."
    )
    support: list[list[strawberry.ID]] = strawberry.field(
        description="Per entry, the observations it rests on (empty for a line the app wrote "
        "with setPeerCard; a dream never writes a line without them)."
    )

    @classmethod
    def of(cls, card: peer_cards.PeerCard) -> PeerCard:
        return cls(
            observer=card.observer,
            observed=card.observed,
            entries=card.entries,
            updated_at=card.updated_at,
            support=[[strawberry.ID(i) for i in ids] for ids in card.support],
        )


@strawberry.type(
    description="Context for your agent's prompt, packed to a token budget: the parts and "
    "their rendering as one text."
)
class ContextBlob:
    text: str = strawberry.field(description="Everything below, rendered as one text block.")
    tokenizer: str = strawberry.field(description="The tokenizer that counted the tokens.")
    budget: int = strawberry.field(description="The token budget asked for (`tokens`).")
    tokens_used: int = strawberry.field(
        description="Tokens of `text` (headings, times and speakers included): at most budget."
    )
    remainder: int = strawberry.field(description="B' = budget - representation - peer card.")
    summary_cap: int = strawberry.field(description="0.4 x B': the most the summary may take.")
    observer: str | None = strawberry.field(
        description="Whose beliefs were packed (peerPerspective, else peerTarget); null "
        "without a peerTarget."
    )
    observed: str | None = strawberry.field(
        description="The peer they are about (peerTarget); null without one."
    )
    peer_card: list[str] = strawberry.field(
        description="The observer's card of the observed peer; empty when there is none, it "
        "did not fit, or the configuration says `peer_card.use: false`."
    )
    representation: list[Observation] = strawberry.field(
        description="The beliefs packed: those matching searchQuery first, then the most "
        "derived, then the most recent."
    )
    summary: Summary | None = strawberry.field(
        description="The session summary packed (the long one if it fits and is longer, else "
        "the short one); null when none fit or was asked for."
    )
    messages: list[Message] = strawberry.field(
        description="The session's recent messages that fit, oldest first."
    )
    matched_messages: list[Message] = strawberry.field(
        description="The view's messages that best match searchQuery and fit, best first "
        "(none without a searchQuery and a peerTarget)."
    )
    card_dropped: bool = strawberry.field(
        description="True when the peer card was left out: it alone exceeds the budget."
    )
    representation_dropped: int = strawberry.field(
        description="How many beliefs of the slice did not fit the budget (each one that did "
        "not was skipped for the next)."
    )
    messages_dropped: int = strawberry.field(
        description="How many of the session's latest 500 messages (the most a context "
        "reads) did not fit the budget; older ones are not counted."
    )
    matched_messages_dropped: int = strawberry.field(
        description="How many matched messages did not fit the budget."
    )


@strawberry.input(description="Which beliefs a belief search may return.")
class ObservationFilterInput:
    levels: list[ObservationLevel] | None = strawberry.field(default=None, description=LEVELS)
    session_ids: list[str] | None = strawberry.field(default=None, description=SESSIONS)
    exclude_session_ids: list[str] | None = strawberry.field(
        default=None,
        description="Leave out beliefs from these sessions (beliefs of no session stay).",
    )
    exclude_derived: bool = strawberry.field(
        default=False,
        description="Leave out beliefs with no session (deductions and inductions drawn "
        "across conversations); default false.",
    )
    since: datetime | None = strawberry.field(
        default=None,
        description="Only beliefs valid from this time on (their validAt, else createdAt).",
    )
    until: datetime | None = strawberry.field(
        default=None,
        description="Only beliefs valid before this time (their validAt, else createdAt).",
    )
    include_stale: bool = strawberry.field(default=False, description=INCLUDE_STALE)
    include_superseded: bool = strawberry.field(default=False, description=INCLUDE_SUPERSEDED)
    as_of: datetime | None = strawberry.field(
        default=None,
        description="The beliefs as they stood at this time: written by then and not yet "
        "superseded (one superseded later has supersededAt null).",
    )
