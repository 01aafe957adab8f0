"""GraphQL object and input types, and their conversion from repository records."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

import strawberry
from strawberry.scalars import JSON

from graph import models, records
from graph.validation import check_limit
from reasoners.search.fusion import FACT_MARGIN, LENGTH_REFERENCE, LENGTH_WEIGHT, TEXT_WEIGHT
from reasoners.search.hybrid import Hit
from reasoners.search.speakers import SPEAKER_WEIGHT
from resolvers import auth

T = TypeVar("T")
R = TypeVar("R")


def as_json(value: dict[str, Any]) -> JSON:
    """A stored JSON object as the GraphQL JSON scalar."""
    return cast(JSON, value)


@strawberry.type
class PageInfo:
    end_cursor: str | None
    has_next_page: bool


@strawberry.type
class Connection(Generic[T]):
    nodes: list[T]
    page_info: PageInfo


def connection(page: records.Page[R], node: Callable[[R], T]) -> Connection[T]:
    """A repository page as a GraphQL connection, each record converted by `node`."""
    return Connection(
        nodes=[node(item) for item in page.items],
        page_info=PageInfo(end_cursor=page.end_cursor, has_next_page=page.has_next_page),
    )


@strawberry.type
class Workspace:
    name: str
    metadata: JSON
    configuration: JSON
    created_at: datetime

    @classmethod
    def of(cls, r: records.WorkspaceRecord) -> Workspace:
        return cls(
            name=r.name,
            metadata=as_json(r.metadata),
            configuration=as_json(r.configuration),
            created_at=r.created_at,
        )


@strawberry.type
class Peer:
    workspace: str
    name: str
    metadata: JSON
    configuration: JSON
    extraction_context: str | None
    created_at: datetime

    @classmethod
    def of(cls, r: records.PeerRecord) -> Peer:
        return cls(
            workspace=r.workspace,
            name=r.name,
            metadata=as_json(r.metadata),
            configuration=as_json(r.configuration),
            extraction_context=r.extraction_context,
            created_at=r.created_at,
        )


@strawberry.type
class SessionPeer:
    peer: str
    session: str
    observe_me: bool
    observe_others: bool
    joined_at: datetime
    left_at: datetime | None

    @classmethod
    def of(cls, r: records.MembershipRecord) -> SessionPeer:
        return cls(
            peer=r.peer,
            session=r.session,
            observe_me=r.observe_me,
            observe_others=r.observe_others,
            joined_at=r.joined_at,
            left_at=r.left_at,
        )


@strawberry.type
class Session:
    workspace: str
    name: str
    metadata: JSON
    configuration: JSON
    context: str | None
    active: bool
    created_at: datetime

    @strawberry.field(
        description="The session's summaries, newest first (session and workspace keys: a "
        "summary covers messages from before a peer joined and after it left)."
    )
    async def summaries(
        self, info: strawberry.Info[Any, None], kind: str | None = None, first: int = 10
    ) -> list[Summary]:
        info.context.principal.require_session(self.workspace, self.name)
        limit = check_limit(first, info.context.services.settings.max_page_size)
        found = await info.context.summaries.load((self.workspace, self.name, kind, limit))
        return [Summary.of(r) for r in found]

    @classmethod
    def of(cls, r: records.SessionRecord) -> Session:
        return cls(
            workspace=r.workspace,
            name=r.name,
            metadata=as_json(r.metadata),
            configuration=as_json(r.configuration),
            context=r.context,
            active=r.active,
            created_at=r.created_at,
        )


@strawberry.type
class Message:
    id: strawberry.ID
    workspace: str
    session: str
    peer: str
    content: str
    context: str | None
    metadata: JSON
    created_at: datetime
    seq: int
    token_count: int
    client_id: str | None

    @classmethod
    def of(cls, r: records.MessageRecord) -> Message:
        return cls(
            id=strawberry.ID(r.id),
            workspace=r.workspace,
            session=r.session,
            peer=r.peer,
            content=r.content,
            context=r.context,
            metadata=as_json(r.metadata),
            created_at=r.created_at,
            seq=r.seq,
            token_count=r.token_count,
            client_id=r.client_id,
        )


@strawberry.type
class AddMessagesResult:
    messages: list[Message]
    created: int = strawberry.field(description="How many messages were new (not re-sent).")


@strawberry.type
class MessageHit:
    message: Message
    score: float = strawberry.field(
        description="Fused score: similarity to the query (0-1; for a message of several "
        "passages, its closest passage's when that is closer; for a message beliefs were "
        f"derived from, its closest belief's less {FACT_MARGIN:g} when that is closer) plus "
        f"{TEXT_WEIGHT:g} times the "
        "fulltext score relative to the query's best fulltext hit, plus "
        f"{SPEAKER_WEIGHT:g} when its sender is the speaker the query points at, less "
        f"{LENGTH_WEIGHT:g} times ln((1 + length) / {LENGTH_REFERENCE}) for a message longer "
        f"than {LENGTH_REFERENCE} characters."
    )
    vector_rank: int | None
    text_rank: int | None

    @classmethod
    def of(cls, h: Hit[records.MessageRecord]) -> MessageHit:
        return cls(
            message=Message.of(h.item),
            score=h.score,
            vector_rank=h.vector_rank,
            text_rank=h.text_rank,
        )


ObservationLevel = models.ObservationLevel
strawberry.enum(ObservationLevel, description="Where a belief sits in the derivation hierarchy.")


@strawberry.type
class Observation:
    id: strawberry.ID
    workspace: str
    observer: str
    observed: str
    level: ObservationLevel
    content: str
    created_at: datetime
    valid_at: datetime | None
    session: str | None
    confidence: float | None
    pattern_type: str | None
    times_derived: int
    stale: bool
    stale_reason: str | None
    facets: list[str]
    superseded_at: datetime | None
    deleted_at: datetime | None = strawberry.field(
        description="When it was deleted (by deleteObservation, a deletion of its messages or "
        "a dream's reconciliation): a deleted belief leaves every list and search, and only "
        "`observation` by id, and provenance lists reached from it, still show it, with this set."
    )
    origin: str | None = strawberry.field(
        description='What wrote it: "deriver", "dreamer:rules" (no LLM) or "dreamer:llm".'
    )

    @classmethod
    def of(cls, r: records.ObservationRecord) -> Observation:
        return cls(
            id=strawberry.ID(r.id),
            workspace=r.workspace,
            observer=r.observer,
            observed=r.observed,
            level=ObservationLevel(r.level),
            content=r.content,
            created_at=r.created_at,
            valid_at=r.valid_at,
            session=r.session,
            confidence=r.confidence,
            pattern_type=r.pattern_type,
            times_derived=r.times_derived,
            stale=r.stale,
            stale_reason=r.stale_reason,
            facets=r.facets,
            superseded_at=r.superseded_at,
            deleted_at=r.deleted_at,
            origin=r.origin,
        )


@strawberry.type
class SourceSpan:
    message: Message
    span: str


@strawberry.type
class ObservationDetail:
    observation: Observation
    premises: list[Observation]
    sources: list[SourceSpan]
    dependents: list[Observation]
    replaces: list[Observation] = strawberry.field(
        description="The beliefs this one superseded (a knowledge update keeps them)."
    )
    replaced_by: list[Observation] = strawberry.field(
        description="The belief that superseded this one, if any."
    )

    @classmethod
    def of(cls, d: records.ObservationDetail) -> ObservationDetail:
        return cls(
            observation=Observation.of(d.observation),
            premises=[Observation.of(p) for p in d.premises],
            sources=[SourceSpan(message=Message.of(s.message), span=s.span) for s in d.sources],
            dependents=[Observation.of(p) for p in d.dependents],
            replaces=[Observation.of(p) for p in d.replaces],
            replaced_by=[Observation.of(p) for p in d.replaced_by],
        )


@strawberry.type
class Health:
    ok: bool
    neo4j: bool
    version: str


@strawberry.type
class DeleteResult:
    deleted_nodes: int


@strawberry.input
class MessageInput:
    peer: str
    content: str
    metadata: JSON | None = None
    context: str | None = None
    created_at: datetime | None = None
    client_id: str | None = strawberry.field(
        default=None,
        description="Your id for this message: re-sending it creates nothing new (until the "
        "message is deleted, which frees the id).",
    )


@strawberry.input
class SessionPeerInput:
    peer: str
    observe_me: bool = True
    observe_others: bool = True


@strawberry.input
class MessageFilterInput:
    session: str | None = None
    peer: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    metadata: JSON | None = None


KeyScope = auth.KeyScope
strawberry.enum(KeyScope, description="What an API key may access.")


@strawberry.type
class Summary:
    id: strawberry.ID
    kind: str
    content: str
    up_to_message: int = strawberry.field(description="Seq of the last message it covers.")
    token_count: int
    created_at: datetime

    @classmethod
    def of(cls, r: records.SummaryRecord) -> Summary:
        return cls(
            id=strawberry.ID(r.id),
            kind=r.kind,
            content=r.content,
            up_to_message=r.up_to_message,
            token_count=r.token_count,
            created_at=r.created_at,
        )


@strawberry.type
class QueueStatus:
    pending: int
    running: int
    done: int
    dead: int
    tokens_in: int
    tokens_out: int

    @strawberry.field(description="True when nothing is pending or running.")
    def idle(self) -> bool:
        return self.pending == 0 and self.running == 0


@strawberry.type
class Job:
    id: strawberry.ID
    kind: str
    status: str
    session: str | None
    peer: str | None
    attempts: int
    max_attempts: int
    error: str | None
    run_after: datetime
    created_at: datetime
    updated_at: datetime
    tokens_in: int
    tokens_out: int
    notes: list[str] = strawberry.field(
        description="What the job's work could not do and went on without (a merge: each "
        "sub-peer link it did not move, as it would have made a cycle or too long a chain)."
    )
