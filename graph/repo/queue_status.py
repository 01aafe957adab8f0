"""Queue status: how many jobs of a workspace, or of a session or peer in it, are pending,
running, done or dead, and the tokens they used; many scopes in one query (the streams of a
process share one look per tick)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from graph.db import Database
from graph.errors import NotFound
from graph.validation import now


@dataclass(frozen=True)
class QueueStatus:
    pending: int = 0
    running: int = 0
    done: int = 0
    dead: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    by_status: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class QueueScope:
    """Whose jobs a queue status counts: a workspace's, or a session's or peer's in it.
    `checked`: which of the session and peer named are NOT_FOUND when they do not exist (a
    narrow key may not learn whether a name outside its reach exists: zeros for those)."""

    workspace: str
    session: str | None = None
    peer: str | None = None
    checked: tuple[str, ...] = ("session", "peer")


def _status_of(scope: QueueScope, row: dict[str, Any]) -> QueueStatus | NotFound:
    if not row["found_workspace"]:
        return NotFound(f"no workspace {scope.workspace!r}")
    for kind, name in (("session", scope.session), ("peer", scope.peer)):
        if kind in scope.checked and not row[f"found_{kind}"]:
            return NotFound(f"no {kind} {name!r} in workspace {scope.workspace!r}")
    counts = {str(c["status"]): int(c["jobs"]) for c in row["counts"]}
    return QueueStatus(
        pending=counts.get("pending", 0),
        running=counts.get("running", 0),
        done=counts.get("done", 0),
        dead=counts.get("dead", 0),
        tokens_in=sum(int(c["tokens_in"] or 0) for c in row["counts"]),
        tokens_out=sum(int(c["tokens_out"] or 0) for c in row["counts"]),
        by_status=counts,
    )


async def statuses(
    db: Database, scopes: Sequence[QueueScope]
) -> dict[QueueScope, QueueStatus | NotFound]:
    """The queue status of each scope, in one query; NotFound (not raised) for a scope whose
    workspace, session or peer does not exist (its zeros would read as a drained queue)."""
    rows = await db.read(
        "count_queue_statuses",
        scopes=[{"workspace": s.workspace, "session": s.session, "peer": s.peer} for s in scopes],
        now=now(),
    )
    by_names = {(r["workspace"], r["session"], r["peer"]): r for r in rows}
    return {
        scope: _status_of(scope, by_names[(scope.workspace, scope.session, scope.peer)])
        for scope in scopes
    }


async def status(
    db: Database,
    workspace: str,
    session: str | None,
    peer: str | None,
    checked: tuple[str, ...] = ("session", "peer"),
) -> QueueStatus:
    """One scope's queue status; NotFound for a workspace, or a session or peer of `checked`,
    that does not exist."""
    scope = QueueScope(workspace, session, peer, checked)
    result = (await statuses(db, [scope]))[scope]
    if isinstance(result, NotFound):
        raise result
    return result
