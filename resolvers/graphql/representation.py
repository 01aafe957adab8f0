"""GraphQL for reading representations: scoped observation search, peer cards, getContext."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from graph.errors import InvalidInput
from graph.repo import peer_cards, peers
from graph.repo.observation_search import ObservationQuery
from reasoners.context.assemble import SEARCH_MESSAGES, ContextRequest, get_context
from reasoners.embeddings.model import embed_async
from reasoners.search.observations import search_observations
from resolvers.graphql.belief_types import Observation
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import (
    ExcludeDerivedArg,
    ExcludeSessionIdsArg,
    LimitArg,
    ObservedArg,
    ObserverArg,
    QueryArg,
    SessionIdsArg,
    WorkspaceArg,
    page_size,
)
from resolvers.graphql.members import ONE_LEVEL, DepthArg, aggregated
from resolvers.graphql.representation_types import (
    ContextBlob,
    ObservationFilterInput,
    ObservationHit,
    PeerCard,
)
from resolvers.graphql.types import Message, Summary

TOKENIZER = "all-MiniLM-L6-v2 WordPiece (bert-base-uncased vocabulary), offline"


def _require_view(info: Info, workspace: str, observer: str, observed: str) -> None:
    principal = info.context.principal
    principal.in_workspace(workspace)
    if principal.peer not in (observer, observed):
        principal.require_workspace(workspace)


async def _require_peers(info: Info, workspace: str, observer: str, observed: str) -> None:
    """NOT_FOUND for a peer that does not exist, as `context` and `chat` answer: an empty
    answer read as "holds no beliefs" for a misspelt name."""
    await peers.require_all(info.context.services.db, workspace, sorted({observer, observed}))


@strawberry.type
class RepresentationQuery:
    @strawberry.field(
        description="Search one observer's beliefs about one peer and, with `depth`, its "
        "sub-peers (vector + fulltext, fused by score). NOT_FOUND if either peer does not "
        "exist."
    )
    async def search_observations(
        self,
        info: Info,
        workspace: WorkspaceArg,
        observer: ObserverArg,
        observed: ObservedArg,
        query: QueryArg,
        filter: Annotated[
            ObservationFilterInput | None,
            strawberry.argument(
                description="Which beliefs to search; omitted: the current ones of every level."
            ),
        ] = None,
        limit: LimitArg = None,
        depth: DepthArg = ONE_LEVEL,
    ) -> list[ObservationHit]:
        _require_view(info, workspace, observer, observed)
        await _require_peers(info, workspace, observer, observed)
        services = info.context.services
        f = filter or ObservationFilterInput()
        hits = await search_observations(
            services.db,
            services.embedder,
            workspace,
            query,
            ObservationQuery(
                observer=observer,
                observed=observed,
                levels=None if f.levels is None else [level.value for level in f.levels],
                session_ids=f.session_ids,
                exclude_session_ids=f.exclude_session_ids,
                exclude_derived=f.exclude_derived,
                since=f.since,
                until=f.until,
                include_stale=f.include_stale,
                include_superseded=f.include_superseded,
                as_of=f.as_of,
                aggregated=await aggregated(info, workspace, observed, depth),
            ),
            page_size(info.context, limit),
        )
        return [
            ObservationHit(
                observation=Observation.of(h.item),
                score=h.score,
                vector_rank=h.vector_rank,
                text_rank=h.text_rank,
            )
            for h in hits
        ]

    @strawberry.field(
        description="The observer's peer card of the observed peer (NOT_FOUND if either peer "
        "does not exist; one with no card has no entries)."
    )
    async def peer_card(
        self,
        info: Info,
        workspace: WorkspaceArg,
        observer: Annotated[str, strawberry.argument(description="The peer whose card it is.")],
        observed: Annotated[
            str | None,
            strawberry.argument(description="The peer it describes; omitted: the observer itself."),
        ] = None,
    ) -> PeerCard:
        target = observed or observer
        _require_view(info, workspace, observer, target)
        await _require_peers(info, workspace, observer, target)
        card = await peer_cards.get(info.context.services.db, workspace, observer, target)
        return PeerCard.of(card)

    @strawberry.field(
        description="getContext: a token-budgeted context blob for your agent's prompt: "
        "representation slice and peer card first, then the session summary "
        "(at most 40% of the rest), then the messages that best match searchQuery (at most "
        "half of what is left), then recent messages, newest first. searchQuery, asOf, depth "
        "and the session filters choose among peerTarget's beliefs: without a peerTarget they "
        "are INVALID_INPUT."
    )
    async def context(
        self,
        info: Info,
        workspace: WorkspaceArg,
        tokens: Annotated[
            int,
            strawberry.argument(
                description="The token budget, 1 to 200,000: the rendered text never exceeds it."
            ),
        ],
        session: Annotated[
            str | None,
            strawberry.argument(
                description="The session whose summary and recent messages to pack. Give a "
                "session, a peerTarget or both."
            ),
        ] = None,
        peer_target: Annotated[
            str | None,
            strawberry.argument(
                description="The peer whose representation (beliefs and card) to pack."
            ),
        ] = None,
        peer_perspective: Annotated[
            str | None,
            strawberry.argument(
                description="The observer whose beliefs about peerTarget to pack; omitted: "
                "peerTarget's own (its self-model). Needs a peerTarget."
            ),
        ] = None,
        search_query: Annotated[
            str | None,
            strawberry.argument(
                description="Text that picks the beliefs packed first and the matched messages "
                "(at most 2,000 characters); omitted: neither."
            ),
        ] = None,
        search_limit: Annotated[
            int,
            strawberry.argument(
                description="How many beliefs searchQuery may put first in the slice (0-100)."
            ),
        ] = 10,
        search_message_limit: Annotated[
            int,
            strawberry.argument(
                description="How many of the observer's messages of the target that best match "
                "searchQuery to pack, ranked as searchMessages ranks them (0-100; 0: none).",
            ),
        ] = SEARCH_MESSAGES,
        include_summary: Annotated[
            bool,
            strawberry.argument(description="Pack a session summary; false leaves it out."),
        ] = True,
        as_of: Annotated[
            datetime | None,
            strawberry.argument(
                description="Pack the beliefs as they stood at this time (the peer card, summary "
                "and messages stay current).",
            ),
        ] = None,
        depth: DepthArg = ONE_LEVEL,
        session_ids: SessionIdsArg = None,
        exclude_session_ids: ExcludeSessionIdsArg = None,
        exclude_derived: ExcludeDerivedArg = False,
    ) -> ContextBlob:
        principal = info.context.principal
        if peer_target is not None:
            _require_view(info, workspace, peer_perspective or peer_target, peer_target)
        else:
            untargeted = {
                "searchQuery": search_query is not None,
                "asOf": as_of is not None,
                "depth": depth != ONE_LEVEL,
                "sessionIds": session_ids is not None,
                "excludeSessionIds": exclude_session_ids is not None,
                "excludeDerived": exclude_derived,
            }
            # Each picks among the target's beliefs (or its messages): without one it did
            # nothing, and said nothing.
            if (name := next((n for n, given in untargeted.items() if given), None)) is not None:
                raise InvalidInput(f"{name} needs a peerTarget: it chooses among its beliefs")
        if session is not None:
            principal.require_session(workspace, session)
        services = info.context.services
        result = await get_context(
            services.db,
            services.embedder,
            services.tokens,
            ContextRequest(
                workspace=workspace,
                tokens=tokens,
                session=session,
                peer_target=peer_target,
                peer_perspective=peer_perspective,
                search_query=search_query,
                search_limit=search_limit,
                search_message_limit=search_message_limit,
                include_summary=include_summary,
                as_of=as_of,
                aggregated=(
                    await aggregated(info, workspace, peer_target, depth)
                    if peer_target is not None
                    else ()
                ),
                session_ids=session_ids,
                exclude_session_ids=exclude_session_ids,
                exclude_derived=exclude_derived,
            ),
        )
        packed = result.packed
        summary = result.summary
        return ContextBlob(
            text=result.text,
            tokenizer=TOKENIZER,
            budget=packed.budget,
            tokens_used=packed.tokens_used,
            remainder=packed.remainder,
            summary_cap=packed.summary_cap,
            observer=result.observer,
            observed=result.observed,
            peer_card=result.card,
            representation=[Observation.of(o) for o in result.representation],
            summary=Summary.of(summary) if summary is not None else None,
            messages=[Message.of(m) for m in result.messages],
            matched_messages=[Message.of(m) for m in result.matched],
            card_dropped=packed.card_dropped,
            representation_dropped=packed.representation_dropped,
            messages_dropped=packed.messages_dropped,
            matched_messages_dropped=packed.matched_dropped,
        )


@strawberry.type
class RepresentationMutation:
    @strawberry.mutation(
        description="Replace the observer's peer card of the observed peer "
        "(stable identity markers; at most 40 entries of 300 characters)."
    )
    async def set_peer_card(
        self,
        info: Info,
        workspace: WorkspaceArg,
        observer: Annotated[str, strawberry.argument(description="The peer whose card it is.")],
        entries: Annotated[
            list[str],
            strawberry.argument(
                description="The card's new lines, in order (at most 40 of 300 characters)."
            ),
        ],
        observed: Annotated[
            str | None,
            strawberry.argument(description="The peer it describes; omitted: the observer itself."),
        ] = None,
    ) -> PeerCard:
        target = observed or observer
        # A card is its observer's: only the observer's own key (or a workspace or admin key)
        # may write it, never the key of the peer it is about.
        info.context.principal.require_peer(workspace, observer)
        db = info.context.services.db
        await peers.require_all(db, workspace, sorted({observer, target}))
        embedder = info.context.services.embedder

        async def embed(texts: list[str]) -> list[list[float]]:
            return await embed_async(embedder, texts)

        card = await peer_cards.set_card(db, workspace, observer, target, entries, embed=embed)
        return PeerCard.of(card)
