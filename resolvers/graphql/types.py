"""GraphQL object types, and their conversion from repository records."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Generic, TypeVar, cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types.enum import StrawberryEnumDefinition

from graph import models, records
from graph.errors import InvalidInput
from graph.repo.sessions import member_cursor
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


def described_enum(
    cls: type[Enum], *, description: str, values: Mapping[str, str], name: str | None = None
) -> None:
    """Expose an enum defined outside the GraphQL layer, with a description for each value.

    strawberry.enum_value cannot be used there: a StrEnum member's value must be the string
    itself. Every value needs a description, and only the enum's values may have one."""
    strawberry.enum(cls, name=name, description=description)
    definition: StrawberryEnumDefinition = cls.__strawberry_definition__  # type: ignore[attr-defined]
    names = {value.name for value in definition.values}
    if names != set(values):
        raise ValueError(f"{definition.name}: describe exactly {sorted(names)}")
    definition.values = [
        dataclasses.replace(value, description=values[value.name]) for value in definition.values
    ]


@strawberry.type(description="Where a page of a list ends, and whether another page follows.")
class PageInfo:
    end_cursor: str | None = strawberry.field(
        description="Pass it as `after` to get the next page; null when this page is empty."
    )
    has_next_page: bool = strawberry.field(description="True when more items follow this page.")


@strawberry.type(
    description="One page of a list, in the list's order; page on with `first` and `after`."
)
class Connection(Generic[T]):
    nodes: list[T] = strawberry.field(description="The items of this page.")
    page_info: PageInfo = strawberry.field(description="Where this page ends.")


def connection(page: records.Page[R], node: Callable[[R], T]) -> Connection[T]:
    """A repository page as a GraphQL connection, each record converted by `node`."""
    return Connection(
        nodes=[node(item) for item in page.items],
        page_info=PageInfo(end_cursor=page.end_cursor, has_next_page=page.has_next_page),
    )


METADATA = "Your app's JSON object, stored as given; lists can filter on its top-level keys."
CONFIGURATION = (
    "Settings as a JSON object. Keys Honcho clients read back are checked for their types; the "
    "rest are your app's. The session's value, else its workspace's, decides what new messages "
    "queue (reasoning.enabled, summary.enabled, summary.messages_per_short_summary / "
    "messages_per_long_summary), whether their beliefs trigger dreams (dream.enabled) and "
    "whether context and chat read the peer card (peer_card.use); custom_instructions, at the "
    "top and in the reasoning, summary and dialectic sections, go into the language model's "
    "prompts (a workspace's dream and peer_card sections too)."
)


@strawberry.type(
    description="A tenant: every peer, session, message and belief belongs to one workspace, "
    "and nothing is shared between workspaces."
)
class Workspace:
    name: str = strawberry.field(description="Unique name, the workspace's id.")
    metadata: JSON = strawberry.field(description="Your app's JSON object, stored as given.")
    configuration: JSON = strawberry.field(
        description="Settings as a JSON object: `extraction_context` holds instructions for "
        "fact extraction from every message of the workspace, and `peer_card.create: false` "
        "keeps dreams from writing cards; the switches sessions also take apply where a "
        "session sets none (see Session.configuration). Other keys are your app's (those "
        "Honcho clients read back are checked for their types)."
    )
    created_at: datetime = strawberry.field(description="When the workspace was created (UTC).")
    being_deleted: bool = strawberry.field(
        description="True once a deletion of the workspace began. Only the `workspaces` list "
        "shows such a workspace: every other request naming it is NOT_FOUND, but "
        "`deleteWorkspace`, which finishes a deletion that was cut short."
    )

    @classmethod
    def of(cls, r: records.WorkspaceRecord) -> Workspace:
        return cls(
            name=r.name,
            metadata=as_json(r.metadata),
            configuration=as_json(r.configuration),
            created_at=r.created_at,
            being_deleted=r.being_deleted,
        )


PEER_FIELD = (
    " FORBIDDEN to a peer key of another peer (which may list this one as a sub-peer or "
    "parent, by name)."
)


@strawberry.type(
    description="A participant (a user, an agent, a team...): it sends messages, holds beliefs "
    "about other peers and is the subject of theirs."
)
class Peer:
    workspace: str = strawberry.field(description="The workspace the peer belongs to.")
    name: str = strawberry.field(description="Unique name within the workspace.")
    created_at: datetime = strawberry.field(description="When the peer was created (UTC).")
    # The app's data about the peer, each read checked: a peer listed as a sub-peer or parent
    # of another is named to a key of that other, which may not read its record.
    record: strawberry.Private[records.PeerRecord]

    @classmethod
    def of(cls, r: records.PeerRecord) -> Peer:
        return cls(workspace=r.workspace, name=r.name, created_at=r.created_at, record=r)

    def _readable(self, info: strawberry.Info[Any, None]) -> records.PeerRecord:
        info.context.principal.require_peer(self.workspace, self.name)
        return self.record

    @strawberry.field(description=METADATA + PEER_FIELD)
    def metadata(self, info: strawberry.Info[Any, None]) -> JSON:
        return as_json(self._readable(info).metadata)

    @strawberry.field(
        description="Settings as a JSON object, your app's, but for `observe_me` (true, false "
        "or null, checked, as Honcho clients read it back): false, and the peer's view of "
        "itself is not derived in any session." + PEER_FIELD
    )
    def configuration(self, info: strawberry.Info[Any, None]) -> JSON:
        return as_json(self._readable(info).configuration)

    @strawberry.field(
        description="Instructions for fact extraction from this peer's messages, below a "
        "message's and a session's own and above the workspace's when they disagree." + PEER_FIELD
    )
    def extraction_context(self, info: strawberry.Info[Any, None]) -> str | None:
        return self._readable(info).extraction_context


OBSERVE_ME = (
    "Whether this peer's messages in the session add to its beliefs about itself (others "
    "still learn from them)."
)
OBSERVE_OTHERS = (
    "Whether this peer forms beliefs about the other peers from the messages they send in the "
    "session while it is present."
)


@strawberry.type(
    description="A peer's membership window in a session, with how it observes and is "
    "observed there."
)
class SessionPeer:
    peer: str = strawberry.field(description="The member peer.")
    session: str = strawberry.field(description="The session.")
    observe_me: bool = strawberry.field(description=OBSERVE_ME)
    observe_others: bool = strawberry.field(description=OBSERVE_OTHERS)
    joined_at: datetime = strawberry.field(description="When this window opened (UTC).")
    left_at: datetime | None = strawberry.field(
        description="When the peer left; null while it is still in the session."
    )
    cursor: str = strawberry.field(
        description="Where the next page of sessionPeers starts: pass it as `after`."
    )

    @classmethod
    def of(cls, r: records.MembershipRecord) -> SessionPeer:
        return cls(
            peer=r.peer,
            session=r.session,
            observe_me=r.observe_me,
            observe_others=r.observe_others,
            joined_at=r.joined_at,
            left_at=r.left_at,
            cursor=member_cursor(r),
        )


@strawberry.type(description="A conversation between peers: its messages and its members.")
class Session:
    workspace: str = strawberry.field(description="The workspace the session belongs to.")
    name: str = strawberry.field(description="Unique name within the workspace.")
    metadata: JSON = strawberry.field(description=METADATA)
    configuration: JSON = strawberry.field(description=CONFIGURATION)
    context: str | None = strawberry.field(
        description="Instructions for fact extraction from this session's messages, below a "
        "message's own and above the peer's and the workspace's when they disagree."
    )
    active: bool = strawberry.field(
        description="False once the session is closed: by updateSession, or by a delete "
        "through the Honcho-compatible routes (which keeps it and its messages). A closed "
        "session takes no messages (CONFLICT) until it is reopened. New sessions are active."
    )
    created_at: datetime = strawberry.field(description="When the session was created (UTC).")

    @strawberry.field(
        description="The session's summaries, newest first (session and workspace keys: a "
        "summary covers messages from before a peer joined and after it left)."
    )
    async def summaries(
        self,
        info: strawberry.Info[Any, None],
        kind: Annotated[
            str | None,
            strawberry.argument(
                description='"short" or "long" (another is INVALID_INPUT); null lists both kinds.'
            ),
        ] = None,
        first: Annotated[
            int | None,
            strawberry.argument(
                description="How many to list: 1 to the page-size limit (100 by default); "
                "omitted, 10 (or the page-size limit, if lower)."
            ),
        ] = None,
    ) -> list[Summary]:
        info.context.principal.require_session(self.workspace, self.name)
        if kind is not None and kind not in models.SUMMARY_KINDS:
            raise InvalidInput(f'unknown summary kind {kind!r}: use "short" or "long"')
        limit = check_limit(first, info.context.services.settings.max_page_size, default=10)
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


@strawberry.type(description="One conversation turn: what a peer said in a session.")
class Message:
    id: strawberry.ID = strawberry.field(description="The message's id, given by the service.")
    workspace: str = strawberry.field(description="The workspace it belongs to.")
    session: str = strawberry.field(description="The session it was posted in.")
    peer: str = strawberry.field(description="The peer that sent it.")
    content: str = strawberry.field(description="Its text.")
    context: str | None = strawberry.field(
        description="Instructions for fact extraction from this message, above the session's, "
        "the peer's and the workspace's when they disagree."
    )
    metadata: JSON = strawberry.field(description=METADATA)
    created_at: datetime = strawberry.field(
        description="When it was said (UTC): the time it was posted with, else its arrival."
    )
    seq: int = strawberry.field(
        description="Its place in the session, from 0, in the order messages were stored."
    )
    token_count: int = strawberry.field(
        description="Tokens of its content, as the embedding model's tokenizer counts them "
        "(the one `context` budgets with)."
    )
    client_id: str | None = strawberry.field(
        description="The id your app gave it when posting it, if any."
    )

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


@strawberry.type(description="The messages of an addMessages batch, as stored.")
class AddMessagesResult:
    messages: list[Message] = strawberry.field(
        description="One per item sent, in the batch's order; a re-sent clientId returns the "
        "message stored before."
    )
    created: int = strawberry.field(description="How many messages were new (not re-sent).")


RANKS = (
    "1-based rank among the nearest by meaning; null if not among them.",
    "1-based rank among the fulltext matches; null if not among them.",
)


@strawberry.type(description="A message that matched a message search.")
class MessageHit:
    message: Message = strawberry.field(description="The message found.")
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
    vector_rank: int | None = strawberry.field(description=RANKS[0])
    text_rank: int | None = strawberry.field(description=RANKS[1])

    @classmethod
    def of(cls, h: Hit[records.MessageRecord]) -> MessageHit:
        return cls(
            message=Message.of(h.item),
            score=h.score,
            vector_rank=h.vector_rank,
            text_rank=h.text_rank,
        )


@strawberry.type(description="Whether the service can work.")
class Health:
    ok: bool = strawberry.field(
        description="True when the service can answer: today, when Neo4j answered (as `neo4j`)."
    )
    neo4j: bool = strawberry.field(description="True when Neo4j answered.")
    version: str = strawberry.field(description="The service's version.")


@strawberry.type(description="What a workspace deletion removed.")
class DeleteResult:
    deleted_nodes: int = strawberry.field(
        description="How many nodes were deleted, the workspace's own included."
    )


KeyScope = auth.KeyScope
described_enum(
    KeyScope,
    description="What an API key may access.",
    values={
        "ADMIN": "Everything, including creating and deleting workspaces.",
        "WORKSPACE": "Everything inside one workspace.",
        "PEER": "One peer: its data, its beliefs and those held about it, posting as it into "
        "sessions it is in, and asking from its perspective.",
        "SESSION": "One session: its messages, members and summaries, and posting into it.",
    },
)


@strawberry.type(description="A running summary of a session, folding earlier ones.")
class Summary:
    id: strawberry.ID = strawberry.field(description="The summary's id.")
    kind: str = strawberry.field(
        description='"short" (written every 20 messages by default) or "long" (every 60).'
    )
    content: str = strawberry.field(description="The summary's text.")
    up_to_message: int = strawberry.field(description="Seq of the last message it covers.")
    token_count: int = strawberry.field(
        description="Tokens of its content, counted with the embedding model's tokenizer."
    )
    created_at: datetime = strawberry.field(description="When it was written (UTC).")

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
