"""The JSON shapes Honcho clients parse, built from the repositories' records."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from graph.configuration import readable
from graph.records import (
    MessageRecord,
    ObservationRecord,
    PeerRecord,
    SessionRecord,
    SummaryRecord,
    WorkspaceRecord,
)

Json = dict[str, Any]

# Headings of a rendered representation, by belief level, in the order they appear.
SECTIONS = (
    ("explicit", "Explicit Observations"),
    ("deductive", "Deductive Observations"),
    ("inductive", "Inductive Observations"),
    ("contradiction", "Contradictions"),
)


def stamp(value: datetime) -> str:
    aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return aware.isoformat()


def workspace(r: WorkspaceRecord) -> Json:
    return {
        "id": r.name,
        "metadata": r.metadata,
        "configuration": readable("workspace", r.configuration),
        "created_at": stamp(r.created_at),
    }


def peer_configuration(configuration: dict[str, Any]) -> Json:
    # Clients parse a peer's configuration strictly: it may hold observe_me and nothing else.
    return {k: v for k, v in readable("peer", configuration).items() if k == "observe_me"}


def peer(r: PeerRecord) -> Json:
    return {
        "id": r.name,
        "workspace_id": r.workspace,
        "metadata": r.metadata,
        "configuration": peer_configuration(r.configuration),
        "created_at": stamp(r.created_at),
    }


def session(r: SessionRecord) -> Json:
    return {
        "id": r.name,
        "workspace_id": r.workspace,
        "is_active": r.active,
        "metadata": r.metadata,
        "configuration": readable("session", r.configuration),
        "created_at": stamp(r.created_at),
    }


def message(r: MessageRecord) -> Json:
    return {
        "id": r.id,
        "content": r.content,
        "peer_id": r.peer,
        "session_id": r.session,
        "workspace_id": r.workspace,
        "metadata": r.metadata,
        "created_at": stamp(r.created_at),
        "token_count": r.token_count,
    }


def conclusion(r: ObservationRecord, sources: Sequence[str] | None = None) -> Json:
    """`sources`: the ids of the beliefs it was derived from (None: it rests on messages, or
    they were not read)."""
    return {
        "id": r.id,
        "content": r.content,
        "observer_id": r.observer,
        "observed_id": r.observed,
        "session_id": r.session,
        "level": r.level,
        "created_at": stamp(r.created_at),
        "source_ids": list(sources) if sources else None,
        "times_derived": r.times_derived,
    }


def summary(r: SummaryRecord, message_id: str) -> Json:
    return {
        "content": r.content,
        "message_id": message_id,
        "summary_type": r.kind,
        "created_at": stamp(r.created_at),
        "token_count": r.token_count,
    }


def representation(beliefs: Iterable[ObservationRecord]) -> str:
    """Markdown, one section per level present, each belief as `[YYYY-MM-DD HH:MM:SS] text`;
    empty when there are none."""
    by_level: dict[str, list[ObservationRecord]] = {}
    for belief in beliefs:
        by_level.setdefault(belief.level, []).append(belief)
    blocks = []
    for level, heading in SECTIONS:
        found = by_level.get(level)
        if not found:
            continue
        # isoformat, not strftime: %Y writes the year 1 as "1".
        lines = [
            f"[{(b.valid_at or b.created_at).isoformat(' ', 'seconds')[:19]}] {b.content}"
            for b in found
        ]
        blocks.append(f"## {heading}\n" + "\n".join(lines))
    return "\n\n".join(blocks)
