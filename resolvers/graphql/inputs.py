"""Conversions from GraphQL inputs to repository arguments (no business rules here)."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry

from graph.configuration import ConfigKind
from graph.errors import InvalidInput
from graph.props import Meta
from graph.repo.messages import MessageFilter
from graph.validation import check_limit
from resolvers.graphql.context import Context
from resolvers.graphql.types import MessageFilterInput, ObservationLevel

# Session filters of representation reads (observations, context, chat), as arguments.
SESSIONS = "Only beliefs (and, in chat, messages) from these sessions; an empty list matches none."
LEVELS = "Only beliefs of these levels (default: all); an empty list matches none."
SessionIdsArg = Annotated[list[str] | None, strawberry.argument(description=SESSIONS)]
LevelsArg = Annotated[list[ObservationLevel] | None, strawberry.argument(description=LEVELS)]
ExcludeSessionIdsArg = Annotated[
    list[str] | None,
    strawberry.argument(
        description="Leave out beliefs (and, in chat, messages) from these sessions (derived "
        "beliefs, which have no session, stay)."
    ),
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


def message_filter(value: MessageFilterInput | None) -> MessageFilter:
    if value is None:
        return MessageFilter()
    return MessageFilter(
        session=value.session,
        peer=value.peer,
        since=value.since,
        until=value.until,
        metadata=as_map(value.metadata, "filter.metadata"),
    )
