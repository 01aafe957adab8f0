"""The dialectic's tool arguments (validated with pydantic) and the specs the model sees."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from graph.errors import InvalidInput
from graph.models import ObservationLevel
from graph.validation import aware
from reasoners.llm.interface import ToolSpec

# --- arguments --------------------------------------------------------------------------------


class ToolArgs(BaseModel):
    # Unknown arguments are refused rather than ignored: a misspelt "limt" should be fixed.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


def _observation_id(value: Any) -> Any:
    """Accept the forms a model copies from the text: `abc`, `obs:abc`, `[obs:abc]`."""
    if isinstance(value, str):
        value = value.strip().strip("[]").strip()
        if value.startswith("obs:"):
            value = value[4:].strip()
    return value


class SearchObservationsArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=500, description="What to look for, in words.")
    limit: int = Field(8, ge=1, le=20, description="How many observations to return.")
    levels: list[ObservationLevel] | None = Field(
        None, description="Only these levels (default: all)."
    )


class SearchMessagesArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=500, description="What to look for, in words.")
    limit: int = Field(8, ge=1, le=20, description="How many messages to return.")


class GrepMessagesArgs(ToolArgs):
    text: str = Field(
        min_length=2, max_length=200, description="Exact text to find (case-insensitive)."
    )
    limit: int = Field(10, ge=1, le=30, description="How many messages to return.")


class MessagesByDateArgs(ToolArgs):
    since: datetime | None = Field(None, description="Start, inclusive (ISO 8601 date or time).")
    until: datetime | None = Field(None, description="End, exclusive (ISO 8601 date or time).")
    limit: int = Field(20, ge=1, le=50, description="How many messages to return.")

    @model_validator(mode="after")
    def _ordered(self) -> MessagesByDateArgs:
        try:
            since, until = aware(self.since), aware(self.until)
        except InvalidInput as exc:  # a model's date out of range is its error, not the user's
            raise ValueError(exc.message) from None
        if since is not None and until is not None and since >= until:
            raise ValueError("since must be before until")
        return self


class _ObservationArgs(ToolArgs):
    observation_id: str = Field(min_length=1, max_length=100, description="An [obs:<id>] id.")

    @field_validator("observation_id", mode="before")
    @classmethod
    def _bare_id(cls, value: Any) -> Any:
        return _observation_id(value)


class MessageContextArgs(_ObservationArgs):
    before: int = Field(3, ge=0, le=10, description="Messages to show before each source.")
    after: int = Field(3, ge=0, le=10, description="Messages to show after each source.")


class ProvenanceArgs(_ObservationArgs):
    depth: int = Field(4, ge=1, le=6, description="How many premise levels to follow.")


class PeerCardArgs(ToolArgs):
    pass


class SearchFilesArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=500, description="What to look for, in words.")
    limit: int = Field(5, ge=1, le=20, description="How many file passages to return.")


class _PeerArgs(ToolArgs):
    peer: str | None = Field(
        None,
        min_length=1,
        max_length=200,
        description="The observed peer (default) or one of its sub-peers this memory covers.",
    )


class SubPeersArgs(_PeerArgs):
    depth: int = Field(1, ge=1, le=10, description="How many levels down to list.")


class ParentPeersArgs(_PeerArgs):
    depth: int = Field(1, ge=1, le=10, description="How many levels up to list.")


def _spec(name: str, description: str, model: type[BaseModel]) -> ToolSpec:
    schema = model.model_json_schema()
    # Titles repeat the field names and cost tokens on every call; models do not need them.
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return ToolSpec(name, description, schema)


TOOL_SPECS: list[ToolSpec] = [
    _spec(
        "search_observations",
        "Semantic and keyword search over the observer's observations (beliefs) about the "
        "observed peer. Shows each observation's level, date, premises and source message spans.",
        SearchObservationsArgs,
    ),
    _spec(
        "search_messages",
        "Semantic and keyword search over the observed peer's messages themselves, best match "
        "first. Use it when no observation answers, or to find the turn where something was "
        "said in other words than the question's.",
        SearchMessagesArgs,
    ),
    _spec(
        "grep_messages",
        "Find the observed peer's messages containing exact text (case-insensitive), newest "
        "first. Use it for names, numbers and update words such as 'moved', 'now', 'anymore'.",
        GrepMessagesArgs,
    ),
    _spec(
        "messages_by_date",
        "The observed peer's messages in a date range, oldest first.",
        MessagesByDateArgs,
    ),
    _spec(
        "message_context",
        "The source messages of an observation, with the messages around them in their "
        "conversation.",
        MessageContextArgs,
    ),
    _spec(
        "provenance",
        "Follow a derived (deductive or inductive) observation down its premises to the "
        "explicit observations and the message spans they came from.",
        ProvenanceArgs,
    ),
    _spec(
        "peer_card",
        "The observer's short card of stable facts about the observed peer.",
        PeerCardArgs,
    ),
    _spec(
        "search_files",
        "Semantic and keyword search over the reference files kept for the observed peer and "
        "the sub-peers this memory covers (profiles, notes, policies, the peer card). Shows "
        "each passage with its peer and file path.",
        SearchFilesArgs,
    ),
    _spec(
        "list_sub_peers",
        "The sub-peers of the observed peer (or of one of its sub-peers): the parts it is made "
        "of, such as one conversation channel of a person or one member of a team, as far as "
        "this memory can see them.",
        SubPeersArgs,
    ),
    _spec(
        "list_parent_peers",
        "The peers a peer belongs to (a team, a person it is a part of), as far as this memory "
        "can see them.",
        ParentPeersArgs,
    ),
]
ARGUMENTS: dict[str, type[ToolArgs]] = {
    "search_observations": SearchObservationsArgs,
    "search_messages": SearchMessagesArgs,
    "grep_messages": GrepMessagesArgs,
    "messages_by_date": MessagesByDateArgs,
    "message_context": MessageContextArgs,
    "provenance": ProvenanceArgs,
    "peer_card": PeerCardArgs,
    "search_files": SearchFilesArgs,
    "list_sub_peers": SubPeersArgs,
    "list_parent_peers": ParentPeersArgs,
}


def argument_error(name: str, exc: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
    )
    return f"Error: bad arguments for {name}: {problems}. Fix them and call again."
