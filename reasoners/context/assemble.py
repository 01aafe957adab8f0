"""getContext: a deterministic, token-budgeted context blob for the calling agent's own prompt.

It gathers a representation slice (beliefs relevant to the search query, then the most derived
and most recent ones), the peer card, the session's summaries, the view's messages that best
match the search query (ranked as `searchMessages` ranks them, limited to what the observer
saw) and the session's recent messages, and packs them with packing.py. Tokens are counted
with the embedding model's WordPiece tokenizer (reasoners/embeddings/tokens.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

from graph.configuration import card_used
from graph.db import Database
from graph.errors import InvalidInput
from graph.records import MessageRecord, ObservationRecord, SummaryRecord
from graph.repo import messages, peer_cards, peers, sessions, summaries, workspaces
from graph.repo import observation_search as top_repo
from graph.repo.card_view import lines_in_view
from graph.repo.observation_search import ObservationQuery
from graph.validation import check_query
from reasoners.context.packing import (
    Headings,
    PackedContext,
    Piece,
    RecentMessage,
    belief_line,
    message_prefix,
    pack,
    render,
)
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.embeddings.tokens import TokenCounter, counted
from reasoners.search.in_view import ranked_in_view
from reasoners.search.observations import search_observations

MAX_BUDGET = 200_000
MAX_RECENT_MESSAGES = 500
SEARCH_MESSAGES = 5  # default: the view's messages best matching the search query


@dataclass(frozen=True)
class ContextRequest:
    workspace: str
    tokens: int
    session: str | None = None
    peer_target: str | None = None
    peer_perspective: str | None = None
    search_query: str | None = None
    search_limit: int = 10
    search_max_distance: float | None = None  # for beliefs the query finds (1 - cos, 0 to 2)
    search_message_limit: int = SEARCH_MESSAGES
    most_derived: int = 5
    most_recent: int = 5
    include_summary: bool = True
    as_of: datetime | None = None  # beliefs as they stood then (messages and card: current)
    aggregated: tuple[str, ...] = ()  # sub-peers of peer_target the representation covers
    session_ids: list[str] | None = None  # beliefs from these sessions only
    exclude_session_ids: list[str] | None = None
    exclude_derived: bool = False  # leave out beliefs with no session
    include_card: bool = True  # False: no card, and none of the budget spent on it
    # The budget counts the rendered text (headings, times, speakers); False: the parts'
    # content alone, for an answer that returns the parts (REST's session context).
    rendered: bool = True

    def check(self) -> None:
        if not 1 <= self.tokens <= MAX_BUDGET:
            raise InvalidInput(f"tokens must be between 1 and {MAX_BUDGET}, not {self.tokens}")
        if self.session is None and self.peer_target is None:
            raise InvalidInput("give a session, a peerTarget, or both")
        if self.peer_perspective is not None and self.peer_target is None:
            raise InvalidInput("peerPerspective needs a peerTarget to look at")
        for name in ("search_limit", "search_message_limit", "most_derived", "most_recent"):
            if not 0 <= getattr(self, name) <= 100:
                raise InvalidInput(f"{name} must be between 0 and 100")


@dataclass(frozen=True)
class ContextResult:
    packed: PackedContext
    text: str
    observer: str | None
    observed: str | None
    representation: list[ObservationRecord]
    card: list[str]
    summary: SummaryRecord | None
    messages: list[MessageRecord]
    matched: list[MessageRecord]  # best first


def observation_line(o: ObservationRecord, target: str | None = None) -> str:
    """One belief as the context shows it; one about a sub-peer of `target` names it."""
    when = (o.valid_at or o.created_at).date().isoformat()
    about = f"about {o.observed}, " if target is not None and o.observed != target else ""
    return f"{o.content} [{about}{o.level}, {when}]"


def slice_order(
    relevant: list[ObservationRecord],
    most_derived: list[ObservationRecord],
    most_recent: list[ObservationRecord],
) -> list[ObservationRecord]:
    """Query-relevant first, then most derived, then most recent; each belief once."""
    seen: set[str] = set()
    ordered: list[ObservationRecord] = []
    for o in [*relevant, *most_derived, *most_recent]:
        if o.id not in seen:
            seen.add(o.id)
            ordered.append(o)
    return ordered


async def relevant_beliefs(
    db: Database,
    embedder: Embedder,
    request: ContextRequest,
    query: ObservationQuery,
    embedding: list[float] | None,
) -> list[ObservationRecord]:
    if not (request.search_query and request.search_limit):
        return []
    hits = await search_observations(
        db,
        embedder,
        request.workspace,
        request.search_query,
        query,
        request.search_limit,
        embedding=embedding,
    )
    return [h.item for h in hits if h.within(request.search_max_distance)]


async def matched_messages(
    db: Database,
    embedder: Embedder,
    request: ContextRequest,
    query: ObservationQuery,
    embedding: list[float] | None,
) -> list[MessageRecord]:
    if not (request.search_query and request.search_message_limit):
        return []
    return await ranked_in_view(
        db,
        embedder,
        request.workspace,
        query,
        request.search_query,
        request.search_message_limit,
        embedding=embedding,
    )


async def query_embedding(embedder: Embedder, request: ContextRequest) -> list[float] | None:
    """The search query's embedding, computed once for the beliefs and the messages."""
    if not request.search_query or not (request.search_limit or request.search_message_limit):
        return None
    [embedding] = await embed_async(embedder, [check_query(request.search_query)])
    return embedding


async def representation(
    db: Database,
    embedder: Embedder,
    request: ContextRequest,
    observer: str | None,
    observed: str | None,
) -> tuple[list[ObservationRecord], list[str], list[MessageRecord]]:
    """The belief slice, the peer card and the matched messages of (observer, observed)."""
    if observer is None or observed is None:
        return [], [], []
    ws = request.workspace
    query = ObservationQuery(
        observer,
        observed,
        as_of=request.as_of,
        aggregated=request.aggregated,
        session_ids=request.session_ids,
        exclude_session_ids=request.exclude_session_ids,
        exclude_derived=request.exclude_derived,
    )
    embedding = await query_embedding(embedder, request)
    relevant, matched, top, card = await asyncio.gather(
        relevant_beliefs(db, embedder, request, query, embedding),
        matched_messages(db, embedder, request, query, embedding),
        top_repo.top(
            db, ws, query, most_derived=request.most_derived, most_recent=request.most_recent
        ),
        peer_cards.get(db, ws, observer, observed),
    )
    lines = await lines_in_view(db, ws, card, query)
    return slice_order(relevant, top.most_derived, top.most_recent), lines, matched


async def latest_summary(
    db: Database, request: ContextRequest, session: str, kind: str
) -> SummaryRecord | None:
    if not request.include_summary:
        return None
    return await summaries.latest(db, request.workspace, session, kind)


async def session_window(
    db: Database, request: ContextRequest, session: str | None
) -> tuple[SummaryRecord | None, SummaryRecord | None, list[MessageRecord]]:
    """The session's latest short and long summaries and its recent messages, newest first."""
    if session is None:
        return None, None, []
    return await asyncio.gather(
        latest_summary(db, request, session, "short"),
        latest_summary(db, request, session, "long"),
        messages.recent(db, request.workspace, session, MAX_RECENT_MESSAGES),
    )


async def get_context(
    db: Database, embedder: Embedder, tokens: TokenCounter, request: ContextRequest
) -> ContextResult:
    request.check()
    ws = request.workspace
    observed = request.peer_target
    observer = request.peer_perspective or observed
    # Every name is checked before any read, so a bad request fails the same way each time;
    # the reads themselves are independent and run side by side.
    if observer is not None and observed is not None:
        await peers.get(db, ws, observed)
        await peers.get(db, ws, observer)
    levels = [await workspaces.configuration_of(db, ws)]
    if request.session is not None:
        levels.insert(0, (await sessions.get(db, ws, request.session)).configuration)
    (slice_, card, matched), (short, long, recent) = await asyncio.gather(
        representation(db, embedder, request, observer, observed),
        session_window(db, request, request.session),
    )
    # `peer_card.use: false`, the session's else the workspace's.
    if not request.include_card or not card_used(*levels):
        card = []
    lines = [observation_line(o, observed) for o in slice_]
    # Every belief and card line and message prefix is counted.
    packed = await counted(
        lambda: pack_parts(
            tokens,
            request.tokens,
            lines,
            card,
            short,
            long,
            recent,
            matched,
            rendered=request.rendered,
        )
    )
    kept_ids = {m.id for m in packed.messages}
    matched_ids = {m.id for m in packed.matched}
    chosen_summary = {"long": long, "short": short}.get(packed.summary_kind or "")
    return ContextResult(
        packed=packed,
        text=render(packed),
        observer=observer,
        observed=observed,
        representation=[slice_[at] for at in packed.representation_kept],
        card=card if packed.peer_card is not None else [],
        summary=chosen_summary,
        messages=[m for m in reversed(recent) if m.id in kept_ids],
        matched=[m for m in matched if m.id in matched_ids],
    )


def pack_parts(
    tokens: TokenCounter,
    budget: int,
    lines: list[str],
    card: list[str],
    short: SummaryRecord | None,
    long: SummaryRecord | None,
    recent: list[MessageRecord],
    matched: list[MessageRecord],
    *,
    rendered: bool = True,
) -> PackedContext:
    """Pack the parts, each costed as `render` writes it (headings, bullets, times and
    speakers included), so the rendered text stays within the budget; with `rendered` False,
    each at its content alone, for an answer that returns the parts and not the text."""
    card_text = "\n".join(card)
    line_cost = (lambda line: tokens.count(belief_line(line))) if rendered else tokens.count
    return pack(
        budget,
        representation=[Piece(line, line_cost(line)) for line in lines],
        peer_card=Piece(card_text, tokens.count(card_text)) if card else None,
        short_summary=Piece(short.content, short.token_count) if short else None,
        long_summary=Piece(long.content, long.token_count) if long else None,
        messages_newest_first=[packable(m, tokens, rendered) for m in recent],
        matched_best_first=[packable(m, tokens, rendered) for m in matched],
        headings=Headings.counted(tokens.count) if rendered else Headings(),
    )


def packable(message: MessageRecord, tokens: TokenCounter, rendered: bool = True) -> RecentMessage:
    """A message costed as its rendered line: its stored content count plus its prefix's
    (the content alone when not `rendered`)."""
    prefix = tokens.count(message_prefix(message.peer, message.created_at)) if rendered else 0
    return RecentMessage(
        message.peer,
        message.content,
        message.created_at,
        message.token_count + prefix,
        message.id,
    )
