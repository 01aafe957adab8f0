"""Message retrieval: vector and fulltext candidates within a workspace, session or peer."""

from __future__ import annotations

from graph.db import Database
from graph.lucene import terms_query
from graph.records import MessageRecord
from graph.repo.messages import MessageFilter
from graph.repo.retrieval import MESSAGES, Rows, Scored, grow

EXACT_SCAN_LIMIT = MESSAGES.exact_scan_limit


def _scored(rows: Rows) -> Scored[MessageRecord]:
    return [(MessageRecord.from_row(r["message"]), float(r["score"])) for r in rows]


async def scope_size(db: Database, workspace: str, filters: MessageFilter) -> int:
    if filters.session is not None:
        row = await db.read_one(
            "count_messages_in_session",
            workspace=workspace,
            session=filters.session,
            peer=filters.peer,
        )
    elif filters.peer is not None:
        row = await db.read_one("count_messages_by_peer", workspace=workspace, peer=filters.peer)
    else:
        row = await db.read_one("count_messages_in_scope", workspace=workspace)
    return int(row["total"]) if row else 0


async def exact_scan(
    db: Database, workspace: str, embedding: list[float], filters: MessageFilter, limit: int
) -> Rows:
    """Cosine over every message in scope, through the index that fits the scope."""
    params = filters.params()
    if filters.session is not None:
        return await db.read(
            "search_messages_exact_in_session",
            workspace=workspace,
            embedding=embedding,
            limit=limit,
            **params,
        )
    del params["session"]
    if filters.peer is not None:
        del params["peer"]
        return await db.read(
            "search_messages_exact_by_peer",
            workspace=workspace,
            peer=filters.peer,
            embedding=embedding,
            limit=limit,
            **params,
        )
    return await db.read(
        "search_messages_exact", workspace=workspace, embedding=embedding, limit=limit, **params
    )


async def vector_candidates(
    db: Database,
    workspace: str,
    embedding: list[float],
    filters: MessageFilter,
    limit: int,
    *,
    exact_scan_limit: int = EXACT_SCAN_LIMIT,
) -> Scored[MessageRecord]:
    params = filters.params()
    if await scope_size(db, workspace, filters) <= exact_scan_limit:
        return _scored(await exact_scan(db, workspace, embedding, filters, limit))

    async def global_(candidates: int) -> Rows:
        return await db.read(
            "search_messages_vector",
            workspace=workspace,
            embedding=embedding,
            candidates=candidates,
            limit=limit,
            **params,
        )

    rows = await grow(global_, MESSAGES.first_round(limit), limit, MESSAGES.max_candidates)
    if len(rows) < limit:
        # The scope is large but this filter is narrow: the exact scan is the only way to be
        # sure nothing in scope was missed.
        rows = await exact_scan(db, workspace, embedding, filters, limit)
    return _scored(rows)


async def text_candidates(
    db: Database, workspace: str, text: str, filters: MessageFilter, limit: int
) -> Scored[MessageRecord]:
    query = terms_query(text)
    if not query:
        return []
    rows = await db.read(
        "search_messages_fulltext",
        workspace=workspace,
        query=query,
        limit=limit,
        **filters.params(),
    )
    return _scored(rows)
