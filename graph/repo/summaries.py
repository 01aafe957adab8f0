"""Session summaries (short and long), written by the summarizer."""

from __future__ import annotations

import uuid

from graph import models
from graph.db import Database, Tx
from graph.props import node_props
from graph.records import SummaryRecord
from graph.validation import now


async def latest(db: Database, workspace: str, session: str, kind: str) -> SummaryRecord | None:
    row = await db.read_one("get_latest_summary", workspace=workspace, session=session, kind=kind)
    return SummaryRecord.from_row(row["summary"]) if row else None


async def latest_id(tx: Tx, workspace: str, session: str, kind: str) -> str | None:
    """The id of the session's latest summary of `kind`, read in `tx`."""
    row = await tx.one("get_latest_summary", workspace=workspace, session=session, kind=kind)
    return str(row["summary"]["id"]) if row else None


async def list_for_sessions(
    db: Database, workspace: str, sessions: list[str], *, kind: str | None, limit: int
) -> dict[str, list[SummaryRecord]]:
    """Each session's newest summaries (at most `limit`), newest first, in one statement."""
    rows = await db.read(
        "list_summaries", workspace=workspace, sessions=sessions, kind=kind, limit=limit
    )
    found = {str(r["session"]): [SummaryRecord.from_row(s) for s in r["summaries"]] for r in rows}
    return {session: found.get(session, []) for session in sessions}


async def list_for_session(
    db: Database, workspace: str, session: str, *, kind: str | None, limit: int
) -> list[SummaryRecord]:
    return (await list_for_sessions(db, workspace, [session], kind=kind, limit=limit))[session]


async def create(
    tx: Tx,
    workspace: str,
    session: str,
    *,
    kind: str,
    content: str,
    up_to_message: int,
    token_count: int,
) -> str:
    props = node_props(
        models.Summary,
        {
            "uid": str(uuid.uuid4()),
            "workspace": workspace,
            "session": session,
            "kind": kind,
            "content": content,
            "up_to_message": up_to_message,
            "token_count": token_count,
            "created_at": now(),
        },
    )
    row = await tx.one("create_summary", props=props)
    if row is None:
        raise LookupError(f"session {session!r} vanished before its summary was written")
    return str(row["id"])


async def resets(tx: Tx, workspace: str, session: str) -> int:
    """How often the session's summaries were invalidated (a message deleted, edited or
    purged). A summarizer reads it before the session and writes only if it is unchanged."""
    row = await tx.one("get_summary_resets", workspace=workspace, session=session)
    return int(row["resets"]) if row else 0


async def reset(tx: Tx, workspace: str, session: str) -> None:
    """Count an invalidation of the session's summaries; run it before deleting them."""
    await tx.rows("reset_summaries", workspace=workspace, session=session)
