"""Typed records returned by the repositories (plain data, no driver types)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from neo4j.time import DateTime

T = TypeVar("T")


def to_datetime(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, DateTime):
        # At offset Z, however Neo4j named the zone: written back under the zone name UTC, a
        # time was not equal in Cypher to the same instant at Z (a belief's valid_at to its
        # message's created_at).
        return value.to_native().astimezone(UTC)
    if isinstance(value, datetime):
        return value
    raise TypeError(f"not a datetime: {value!r}")


def required_datetime(value: Any) -> datetime:
    result = to_datetime(value)
    if result is None:
        raise TypeError("missing datetime")
    return result


def _null(_: str) -> None:
    return None


def _mend(value: Any) -> Any:
    """`value` with each lone surrogate in its strings (keys too) replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_mend(v) for v in value]
    if isinstance(value, dict):
        return {_mend(k): _mend(v) for k, v in value.items()}
    return value


def load_json(text: str | None) -> dict[str, Any]:
    """A stored metadata-like map. What earlier versions could store and no answer can carry
    reads as something it can: NaN or an infinity as null, a lone surrogate (from an escape
    such as \\ud800) as U+FFFD. Writes refuse both now."""
    loaded = json.loads(text, parse_constant=_null) if text else {}
    if not isinstance(loaded, dict):
        return {}
    # Stored with ASCII escapes, so any surrogate, paired or lone, shows as one.
    return _mend(loaded) if text and "\\ud" in text.lower() else loaded


@dataclass(frozen=True)
class WorkspaceRecord:
    name: str
    metadata: dict[str, Any]
    configuration: dict[str, Any]
    created_at: datetime
    being_deleted: bool = False  # a deletion began (and may have been cut short)

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> WorkspaceRecord:
        return cls(
            name=row["name"],
            metadata=load_json(row.get("metadata")),
            configuration=load_json(row.get("configuration")),
            created_at=required_datetime(row["created_at"]),
            being_deleted=row.get("deleting_at") is not None,
        )


@dataclass(frozen=True)
class PeerRecord:
    workspace: str
    name: str
    metadata: dict[str, Any]
    configuration: dict[str, Any]
    extraction_context: str | None
    created_at: datetime

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> PeerRecord:
        return cls(
            workspace=row["workspace"],
            name=row["name"],
            metadata=load_json(row.get("metadata")),
            configuration=load_json(row.get("configuration")),
            extraction_context=row.get("extraction_context"),
            created_at=required_datetime(row["created_at"]),
        )


@dataclass(frozen=True)
class SessionRecord:
    workspace: str
    name: str
    metadata: dict[str, Any]
    configuration: dict[str, Any]
    context: str | None
    active: bool
    created_at: datetime

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> SessionRecord:
        return cls(
            workspace=row["workspace"],
            name=row["name"],
            metadata=load_json(row.get("metadata")),
            configuration=load_json(row.get("configuration")),
            context=row.get("context"),
            active=bool(row.get("active", True)),
            created_at=required_datetime(row["created_at"]),
        )


@dataclass(frozen=True)
class MembershipRecord:
    peer: str
    session: str
    observe_me: bool
    observe_others: bool
    joined_at: datetime
    left_at: datetime | None
    # The window's own id, where a list pages by it: two windows of one peer can share their
    # join time (a merge copies the source's windows to the target).
    window: str = ""

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> MembershipRecord:
        return cls(
            peer=row["peer"],
            session=row["session"],
            observe_me=bool(row["observe_me"]),
            observe_others=bool(row["observe_others"]),
            joined_at=required_datetime(row["joined_at"]),
            left_at=to_datetime(row.get("left_at")),
            window=str(row.get("window") or ""),
        )


@dataclass(frozen=True)
class MessageRecord:
    id: str
    workspace: str
    session: str
    peer: str
    content: str
    context: str | None
    metadata: dict[str, Any]
    created_at: datetime
    seq: int
    token_count: int
    client_id: str | None = None
    received_at: datetime | None = None
    edited_at: datetime | None = None  # the content's last replacement (None: never edited)
    # Its own `reasoning.enabled` (None: its session's decides, or not read by this query).
    derive: bool | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> MessageRecord:
        return cls(
            id=row["id"],
            workspace=row["workspace"],
            session=row["session"],
            peer=row["peer"],
            content=row["content"],
            context=row.get("context"),
            metadata=load_json(row.get("metadata")),
            created_at=required_datetime(row["created_at"]),
            seq=int(row["seq"]),
            token_count=int(row["token_count"]),
            client_id=row.get("client_id"),
            received_at=to_datetime(row.get("received_at")),
            edited_at=to_datetime(row.get("edited_at")),
            derive=row.get("derive"),
        )


@dataclass(frozen=True)
class ObservationRecord:
    id: str
    workspace: str
    observer: str
    observed: str
    level: str
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
    deleted_at: datetime | None
    origin: str | None = None

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> ObservationRecord:
        return cls(
            id=row["id"],
            workspace=row["workspace"],
            observer=row["observer"],
            observed=row["observed"],
            level=row["level"],
            content=row["content"],
            created_at=required_datetime(row["created_at"]),
            valid_at=to_datetime(row.get("valid_at")),
            session=row.get("session"),
            confidence=row.get("confidence"),
            pattern_type=row.get("pattern_type"),
            times_derived=int(row.get("times_derived") or 1),
            stale=bool(row.get("stale")),
            stale_reason=row.get("stale_reason"),
            facets=list(row.get("facets") or []),
            superseded_at=to_datetime(row.get("superseded_at")),
            deleted_at=to_datetime(row.get("deleted_at")),
            origin=row.get("origin"),
        )


@dataclass(frozen=True)
class SourceSpan:
    """An explicit observation's evidence: a verbatim span of one message."""

    message: MessageRecord
    span: str


@dataclass(frozen=True)
class Replaced:
    """A belief a knowledge update superseded."""

    id: str
    content: str
    superseded_at: datetime | None
    # When the belief that replaced it was stated after it last was (None: when that belief
    # was first stated).
    until: datetime | None = None


@dataclass(frozen=True)
class SourcedObservation:
    """An observation with its premise ids, its source spans (oldest message first), the
    beliefs it replaced and the ids of those that replaced it."""

    observation: ObservationRecord
    premise_ids: list[str]
    sources: list[SourceSpan]
    replaces: list[Replaced] = field(default_factory=list)
    replaced_by: list[str] = field(default_factory=list)
    # When the earliest of those that replaced it was stated (its valid_at): when it stopped
    # holding, which may be long before the update was written (superseded_at).
    replaced_on: datetime | None = None
    # Its live sources in the sessions read; `sources` holds the first and the latest only.
    source_count: int = 0


@dataclass(frozen=True)
class ObservationDetail:
    observation: ObservationRecord
    premises: list[ObservationRecord] = field(default_factory=list)
    sources: list[SourceSpan] = field(default_factory=list)
    dependents: list[ObservationRecord] = field(default_factory=list)
    replaces: list[ObservationRecord] = field(default_factory=list)  # what it superseded
    replaced_by: list[ObservationRecord] = field(default_factory=list)
    source_count: int = 0  # sources holds the first and the latest of these
    dependent_count: int = 0  # dependents holds the latest of these


@dataclass(frozen=True)
class Page(Generic[T]):
    items: list[T]
    end_cursor: str | None
    has_next_page: bool


@dataclass(frozen=True)
class SummaryRecord:
    id: str
    workspace: str
    session: str
    kind: str
    content: str
    up_to_message: int
    token_count: int
    created_at: datetime

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> SummaryRecord:
        return cls(
            id=row["id"],
            workspace=row["workspace"],
            session=row["session"],
            kind=row["kind"],
            content=row["content"],
            up_to_message=int(row["up_to_message"]),
            token_count=int(row["token_count"]),
            created_at=required_datetime(row["created_at"]),
        )


@dataclass(frozen=True)
class FileRecord:
    id: str
    workspace: str
    peer: str
    path: str
    content: str
    managed_by: str | None  # None: the app's; "system" or "dream:<name>": the service's
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> FileRecord:
        return cls(
            id=row["id"],
            workspace=row["workspace"],
            peer=row["peer"],
            path=row["path"],
            content=row["content"],
            managed_by=row.get("managed_by"),
            metadata=load_json(row.get("metadata")),
            created_at=required_datetime(row["created_at"]),
            updated_at=required_datetime(row["updated_at"]),
        )


@dataclass(frozen=True)
class FileChunkRecord:
    """One searchable piece of a file: which peer's file, which path, and where in it."""

    id: str
    workspace: str
    peer: str
    path: str
    index: int
    content: str

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> FileChunkRecord:
        return cls(
            id=row["id"],
            workspace=row["workspace"],
            peer=row["peer"],
            path=row["path"],
            index=int(row["index"]),
            content=row["content"],
        )


@dataclass(frozen=True)
class DreamClaim:
    """A representation that claimed a dream: the job with this id must be enqueued."""

    workspace: str
    observer: str
    observed: str
    job_id: str
    last_dream_at: datetime | None
