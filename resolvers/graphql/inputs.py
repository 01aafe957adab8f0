"""GraphQL input types and the arguments many operations share, and their conversions to
repository arguments (no business rules here)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.scalars import JSON

from graph.configuration import ConfigKind
from graph.errors import InvalidInput
from graph.props import Meta, checked_filter
from graph.repo.messages import MessageFilter
from graph.validation import check_limit
from resolvers.graphql.belief_types import ObservationLevel
from resolvers.graphql.context import Context
from resolvers.graphql.types import OBSERVE_ME, OBSERVE_OTHERS


@strawberry.input(description="One message to store.")
class MessageInput:
    peer: str = strawberry.field(
        description="The sender, an existing peer of the workspace. A sender not in the "
        "session joins it; a peer key posts only as its own peer, into sessions it is in."
    )
    content: str = strawberry.field(
        description="The text: not empty, at most 25,000 characters by default."
    )
    metadata: JSON | None = strawberry.field(
        default=None, description="Any JSON object for your app (16 KiB by default); omitted: {}."
    )
    context: str | None = strawberry.field(
        default=None,
        description="Instructions for fact extraction from this message (at most 4,000 "
        "characters); they take precedence over the session's, the peer's and the workspace's.",
    )
    created_at: datetime | None = strawberry.field(
        default=None,
        description="When it was said, for importing a history; omitted: now. Who is present "
        "is judged by its arrival, not by this time.",
    )
    client_id: str | None = strawberry.field(
        default=None,
        description="Your id for this message: re-sending it creates nothing new (until the "
        "message is deleted, which frees the id).",
    )


UNSET = " Omitted: true for a peer that joins, unchanged for one already in the session."


@strawberry.input(description="A peer to put in a session, with its observation settings.")
class SessionPeerInput:
    peer: str = strawberry.field(description="An existing peer of the workspace.")
    observe_me: bool | None = strawberry.field(default=None, description=OBSERVE_ME + UNSET)
    observe_others: bool | None = strawberry.field(default=None, description=OBSERVE_OTHERS + UNSET)


@strawberry.input(description="Which messages to keep; every field is optional and they combine.")
class MessageFilterInput:
    session: str | None = strawberry.field(
        default=None, description="Only messages of this session."
    )
    peer: str | None = strawberry.field(default=None, description="Only messages this peer sent.")
    since: datetime | None = strawberry.field(
        default=None, description="Only messages created at or after this time."
    )
    until: datetime | None = strawberry.field(
        default=None, description="Only messages created before this time."
    )
    metadata: JSON | None = strawberry.field(
        default=None,
        description="Only messages whose metadata has each of these top-level keys with an "
        "equal value.",
    )


# Arguments many operations take.
WorkspaceArg = Annotated[str, strawberry.argument(description="The workspace's name.")]
FirstArg = Annotated[
    int | None,
    strawberry.argument(
        description="Page size: 1 to the page-size limit (100 by default); when omitted, 20 "
        "(or the page-size limit, if lower)."
    ),
]
AfterArg = Annotated[
    str | None,
    strawberry.argument(
        description="The endCursor of the previous page; omitted: start from the first."
    ),
]
LimitArg = Annotated[
    int | None,
    strawberry.argument(
        description="Most hits to return: 1 to the page-size limit (100 by default); 20 when "
        "omitted."
    ),
]
QueryArg = Annotated[
    str, strawberry.argument(description="What to look for, in words (at most 2,000 characters).")
]
ObserverArg = Annotated[str, strawberry.argument(description="The peer whose beliefs are read.")]
ObservedArg = Annotated[str, strawberry.argument(description="The peer the beliefs are about.")]
MetadataFilterArg = Annotated[
    JSON | None,
    strawberry.argument(
        description="Only those whose metadata has each of these top-level keys with an equal "
        "value."
    ),
]
CreateMetadataArg = Annotated[
    JSON | None,
    strawberry.argument(
        description="A JSON object for your app (16 KiB by default), stored only when this "
        "call creates it: an existing one keeps its own."
    ),
]
CreateConfigurationArg = Annotated[
    JSON | None,
    strawberry.argument(
        description="Settings as a JSON object, stored only when this call creates it; keys "
        "Honcho clients read back are checked for their types."
    ),
]
UpdateMetadataArg = Annotated[
    JSON | None,
    strawberry.argument(description="The new metadata, replacing it whole; null keeps it."),
]
UpdateConfigurationArg = Annotated[
    JSON | None,
    strawberry.argument(
        description="The new configuration, replacing it whole; null keeps it. Keys Honcho "
        "clients read back are checked for their types."
    ),
]

# Session filters of representation reads (observations, context, chat), as arguments.
_SESSIONS = (
    "Only {what} from these sessions: a belief is from the session it is dated by and from "
    "each session of a message that states it. An empty list matches none."
)
_EXCLUDED = (
    "Leave out {what} from these sessions: a belief that a message of another session states "
    "too stays, and so do derived beliefs, which have no session."
)
SESSIONS = _SESSIONS.format(what="beliefs")
LEVELS = "Only beliefs of these levels (default: all); an empty list matches none."
INCLUDE_STALE = (
    "Also return stale beliefs (something they rest on changed and the next dream has not "
    "settled them yet); default false."
)
INCLUDE_SUPERSEDED = "Also return beliefs a newer version has replaced; default false."
IncludeStaleArg = Annotated[bool, strawberry.argument(description=INCLUDE_STALE)]
IncludeSupersededArg = Annotated[bool, strawberry.argument(description=INCLUDE_SUPERSEDED)]
SessionIdsArg = Annotated[list[str] | None, strawberry.argument(description=SESSIONS)]
# The dialectic reads messages too.
ChatSessionIdsArg = Annotated[
    list[str] | None,
    strawberry.argument(description=_SESSIONS.format(what="beliefs and messages")),
]
LevelsArg = Annotated[list[ObservationLevel] | None, strawberry.argument(description=LEVELS)]
ExcludeSessionIdsArg = Annotated[
    list[str] | None, strawberry.argument(description=_EXCLUDED.format(what="beliefs"))
]
ChatExcludeSessionIdsArg = Annotated[
    list[str] | None,
    strawberry.argument(description=_EXCLUDED.format(what="beliefs and messages")),
]
ExcludeDerivedArg = Annotated[
    bool,
    strawberry.argument(
        description="Leave out beliefs with no session (deductions and inductions drawn "
        "across conversations)."
    ),
]


def as_map(value: Any, what: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidInput(f"{what} must be a JSON object")
    return value


def meta(context: Context, metadata: Any, configuration: Any, kind: ConfigKind) -> Meta:
    """Metadata and configuration arguments, checked against the size limit and, for the keys
    Honcho clients read back, their types."""
    return Meta.of(
        as_map(metadata, "metadata"),
        as_map(configuration, "configuration"),
        limit=context.services.settings.max_metadata_bytes,
        kind=kind,
    )


def page_size(context: Context, first: int | None) -> int:
    return check_limit(first, context.services.settings.max_page_size)


def filter_map(context: Context, value: Any, what: str) -> dict[str, Any] | None:
    """A metadata filter argument: an object, no larger than stored metadata may be."""
    given = as_map(value, what)
    checked_filter(given, limit=context.services.settings.max_metadata_bytes, what=what)
    return given


def message_filter(context: Context, value: MessageFilterInput | None) -> MessageFilter:
    if value is None:
        return MessageFilter()
    return MessageFilter(
        session=value.session,
        peer=value.peer,
        since=value.since,
        until=value.until,
        metadata=filter_map(context, value.metadata, "filter.metadata"),
    )
