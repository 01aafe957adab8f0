"""What reconciliation reads (beliefs left stale by an invalidation) and writes (verdicts)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.db import Database, Tx
from graph.keys import Representation
from graph.records import to_datetime


@dataclass(frozen=True)
class Premise:
    id: str
    content: str
    level: str
    current: bool
    pending: bool  # itself awaiting reconciliation: its verdict decides whether it is current
    session: str | None = None  # where it was said (an explicit premise's session)
    # Current but for staleness: a premise judged in the same pass grounds the belief only if
    # it stands for it (a superseded premise never grounds a current belief, kept or not).
    stands: bool = True
    valid_at: datetime | None = None  # when it was stated first
    stated_last: datetime | None = None  # when a live message last stated it
    # The current version a correction made of it, or None: a belief the model keeps on it is
    # relinked to that version (reconcile_beliefs.cypher), which then grounds it.
    replaced_by: str | None = None

    @property
    def stated(self) -> datetime | None:
        """When it was last stated: its first statement, or a live repeat since."""
        known = [t for t in (self.valid_at, self.stated_last) if t is not None]
        return max(known) if known else None


@dataclass(frozen=True)
class Source:
    message_id: str
    live: bool
    content: str
    span: str
    created_at: datetime | None = None
    session: str | None = None


@dataclass(frozen=True)
class StaleBelief:
    id: str
    level: str
    content: str
    reason: str | None
    premises: tuple[Premise, ...]
    sources: tuple[Source, ...]
    version: int = 0  # invalidations counted when read (a verdict applies only if unchanged)
    superseded: bool = False  # a superseded version: history, judged by the zero-key rules
    session: str | None = None  # where it was said, and when (an explicit belief's)
    valid_at: datetime | None = None


@dataclass(frozen=True)
class Verdict:
    """keep (current again), update (current again, with `content`) or drop (tombstoned)."""

    id: str
    action: str
    content: str | None = None
    content_key: str | None = None
    embedding: list[float] | None = None
    relink: bool = False
    # Sources a kept explicit belief no longer cites: live messages whose text no longer holds
    # the span quoted from them (edited since), when another source still grounds the belief.
    unlink: tuple[Source, ...] = ()
    # The update only re-dates the words to the messages left: written only if the unlink is.
    redate: bool = False

    def params(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "action": self.action,
            "content": self.content,
            "content_key": self.content_key,
            "embedding": self.embedding,
            "relink": self.relink,
            "unlink": [{"id": s.message_id, "span": s.span} for s in self.unlink],
            "redate": self.redate,
        }


def _belief(row: dict[str, Any]) -> StaleBelief:
    b = row["belief"]
    return StaleBelief(
        id=b["id"],
        level=b["level"],
        content=b["content"],
        reason=b.get("stale_reason"),
        premises=tuple(
            Premise(
                p["id"],
                p["content"],
                p["level"],
                bool(p["current"]),
                bool(p.get("reconcile_pending")),
                p.get("session"),
                bool(p.get("stands", True)),
                to_datetime(p.get("valid_at")),
                to_datetime(p.get("stated_last")),
                p.get("replaced_by"),
            )
            for p in row["premises"]
        ),
        sources=tuple(
            Source(
                s["id"],
                bool(s["live"]),
                s["content"] or "",
                s["span"] or "",
                to_datetime(s.get("created_at")),
                s.get("session"),
            )
            for s in row["sources"]
        ),
        version=int(b.get("version") or 0),
        superseded=bool(b.get("superseded")),
        session=b.get("session"),
        valid_at=to_datetime(b.get("valid_at")),
    )


async def stale(db: Database, view: Representation, *, limit: int) -> list[StaleBelief]:
    rows = await db.read(
        "list_stale_beliefs", workspace=view.workspace, scope=view.key, limit=limit
    )
    return [_belief(r) for r in rows]


@dataclass(frozen=True)
class Applied:
    actions: dict[str, str]  # id -> action, for the verdicts applied
    unlinked: list[str]  # kept or updated beliefs that stopped citing an edited message
    beliefs: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> {id, level, content}


async def apply(
    tx: Tx,
    view: Representation,
    verdicts: Sequence[Verdict],
    now: datetime,
    read: Mapping[str, StaleBelief],
) -> Applied:
    """Write the verdicts on beliefs unchanged since they were read (`read`, by id): not
    invalidated again, and superseded then if and only if superseded now (a verdict on the
    current version, a rewording say, never lands on history). A verdict on a belief that was
    not read has nothing to hold to, and is not applied."""
    checked = [
        {**v.params(), "version": read[v.id].version, "superseded": read[v.id].superseded}
        for v in verdicts
        if v.id in read
    ]
    if not checked:
        return Applied({}, [])
    rows = await tx.rows(
        "reconcile_beliefs",
        workspace=view.workspace,
        scope=view.key,
        verdicts=checked,
        now=now,
    )
    return Applied(
        {str(r["id"]): str(r["action"]) for r in rows},
        [str(r["id"]) for r in rows if r["unlinked"]],
        {str(r["id"]): dict(r["belief"]) for r in rows},
    )
