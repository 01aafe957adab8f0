"""Message retrieval: vector and fulltext candidates within a workspace, a session or peers.

Both halves stay in scope inside their index: the message_vectors index filters by workspace
and session or peers (a small session is scanned exactly instead; peers that sent a large share
of the messages are found faster among the whole workspace's nearest, theirs kept after), and
the fulltext query requires the scope's keys (graph/keys.py). Dates and metadata filter after,
in growing rounds (graph/repo/retrieval.py), with the exact scan as the last word.
"""

from __future__ import annotations

from typing import Any

from graph.db import Database, Row
from graph.keys import peer_key, session_key, workspace_key
from graph.lucene import scoped_query
from graph.props import meta_kv
from graph.records import MessageRecord
from graph.repo.messages import MessageFilter
from graph.repo.retrieval import (
    MESSAGES,
    NOT_DOMINANT,
    WORKSPACE_MESSAGES,
    Round,
    Rows,
    Scored,
    TextScored,
    Thresholds,
    index_rounds,
    text_search,
)
from graph.validation import aware


def _scored(rows: Rows) -> Scored[MessageRecord]:
    return [(MessageRecord.from_row(r["message"]), float(r["score"])) for r in rows]


def search_params(filters: MessageFilter) -> dict[str, Any]:
    return {
        "session": filters.session,
        "peers": list(filters.peers) if filters.peers else None,
        "since": aware(filters.since),
        "until": aware(filters.until),
        "meta_kv": meta_kv(filters.metadata),
    }


async def exact_scan(
    db: Database, workspace: str, embedding: list[float], filters: MessageFilter, limit: int
) -> Scored[MessageRecord]:
    """Cosine over every message in scope, with every filter (ground truth and last resort)."""
    rows = await db.read(
        "search_messages_exact",
        workspace=workspace,
        embedding=embedding,
        limit=limit,
        **search_params(filters),
    )
    return _scored(rows)


async def vector_candidates(
    db: Database,
    workspace: str,
    embedding: list[float],
    filters: MessageFilter,
    limit: int,
    *,
    thresholds: Thresholds | None = None,
) -> Scored[MessageRecord]:
    """The `limit` nearest messages in scope, from the index when the scope is large. The
    thresholds default by scope: a search of the whole workspace asks for more candidates."""
    params = search_params(filters)
    if thresholds is None:
        whole = filters.session is None and not filters.peers
        thresholds = WORKSPACE_MESSAGES if whole else MESSAGES

    # Only a peers' first round may be a dominant one: the rounds after it search them filtered.
    dominant = thresholds.dominant if filters.peers and filters.session is None else None

    async def fetch(candidates: int, wide: int) -> Round:
        nonlocal dominant
        rule, dominant = dominant, None
        row = await db.read_one(
            "search_messages_vector",
            workspace=workspace,
            embedding=embedding,
            limit=limit,
            exact_scan_limit=thresholds.exact_scan_limit,
            candidates=candidates,
            wide=wide,
            **(rule.params(limit) if rule else NOT_DOMINANT),
            **params,
        )
        assert row is not None
        total, found, raw = row["total"], list(row["found"]), int(row["raw"])
        if row["dominant"] is not None:
            # The whole workspace's nearest: complete unless the filters (the peers, dates,
            # metadata) kept too few of them, when the peers' own rounds decide.
            asked = int(row["dominant"])
            if len(found) >= limit or raw < asked:
                return Round(found, raw, asked)
            return await fetch(candidates, wide)
        # Which path ran: a small session's exact scan is complete; an index round asked for
        # `candidates` (a session) or `wide` (peers, a whole workspace: size unknown).
        if total is None:
            return Round(found, raw, wide)
        if int(total) > thresholds.exact_scan_limit:
            return Round(found, raw, candidates)
        return Round(found, raw, None)

    rows, complete = await index_rounds(fetch, thresholds, limit)
    if not complete:
        # The scope is large but the filters are narrow: only the exact scan can be sure
        # nothing in scope was missed.
        return await exact_scan(db, workspace, embedding, filters, limit)
    return _scored(rows)


async def text_candidates(
    db: Database,
    workspace: str,
    text: str,
    filters: MessageFilter,
    limit: int,
    *,
    embedding: list[float] | None = None,
) -> TextScored[MessageRecord]:
    required = {"workspace_key": [workspace_key(workspace)]}
    if filters.session is not None:
        required["session_key"] = [session_key(workspace, filters.session)]
    if filters.peers:
        required["peer_key"] = [peer_key(workspace, p) for p in filters.peers]
    # The sender's name is searched with the content: a question naming a peer favours the
    # turns that peer wrote, not only the turns that mention it.
    query = scoped_query(text, field="content", required=required, also=("peer",))
    if not query:
        return []
    params = search_params(filters)

    async def fetch(candidates: int) -> Row | None:
        return await db.read_one(
            "search_messages_fulltext",
            workspace=workspace,
            query=query,
            candidates=candidates,
            limit=limit,
            embedding=embedding,
            **params,
        )

    return await text_search(fetch, MESSAGES, limit, "message", MessageRecord.from_row)


async def fact_similarity(
    db: Database, workspace: str, embedding: list[float], ids: list[str]
) -> dict[str, float]:
    """Each of `ids`' closest current derived belief's similarity to `embedding` (0-1 scale);
    a message with no such belief is absent."""
    if not ids:
        return {}
    rows = await db.read(
        "message_fact_similarity", workspace=workspace, embedding=embedding, ids=ids
    )
    return {str(r["id"]): float(r["score"]) for r in rows}
