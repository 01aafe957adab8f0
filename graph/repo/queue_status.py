"""Queue status: how many jobs of a workspace, or of a session or peer in it, are pending,
running, done or dead, and the tokens they used; many scopes in one query (the streams of a
process share one look per tick)."""

from __future__ import annotations

from collections import Counter
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
    """`scope`'s status from its workspace's row of count_queue_statuses."""
    if not row["found_workspace"]:
        state = "is being deleted" if row["being_deleted"] else "does not exist"
        return NotFound(f"workspace {scope.workspace!r} {state}")
    for kind, name in (("session", scope.session), ("peer", scope.peer)):
        if kind in scope.checked and name is not None and name not in row[f"found_{kind}s"]:
            return NotFound(f"{kind} {name!r} does not exist in workspace {scope.workspace!r}")
    counts: Counter[str] = Counter()
    tokens_in = tokens_out = 0
    for group in row["groups"]:
        if scope.session is not None and group["session"] != scope.session:
            continue
        if scope.peer is not None and group["peer"] != scope.peer:
            continue
        counts[str(group["status"])] += int(group["jobs"])
        tokens_in += int(group["tokens_in"] or 0)
        tokens_out += int(group["tokens_out"] or 0)
    return QueueStatus(
        pending=counts["pending"],
        running=counts["running"],
        done=counts["done"],
        dead=counts["dead"],
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        by_status=dict(counts),
    )


async def statuses(
    db: Database, scopes: Sequence[QueueScope]
) -> dict[QueueScope, QueueStatus | NotFound]:
    """The queue status of each scope, in one query; NotFound (not raised) for a scope whose
    workspace, session or peer does not exist (its zeros would read as a drained queue)."""
    named: dict[str, tuple[set[str], set[str]]] = {}
    for scope in scopes:
        sessions, peers = named.setdefault(scope.workspace, (set(), set()))
        if scope.session is not None:
            sessions.add(scope.session)
        if scope.peer is not None:
            peers.add(scope.peer)
    rows = await db.read(
        "count_queue_statuses",
        workspaces=[
            {"workspace": w, "sessions": sorted(sessions), "peers": sorted(peers)}
            for w, (sessions, peers) in named.items()
        ],
        now=now(),
    )
    by_workspace = {r["workspace"]: r for r in rows}
    return {scope: _status_of(scope, by_workspace[scope.workspace]) for scope in scopes}


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
