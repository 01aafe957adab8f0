"""File chunk retrieval within one or several peers' files (a peer and its sub-peers).

Both halves stay in scope inside their index: the file_chunk_vectors index filters by
workspace and peers (a small set of chunks is scanned exactly instead, in the same
statement), and the fulltext query requires the peers' keys (graph/keys.py peer_key). Files
have no filters after the index, so one round usually fills the page; the rounds of
graph/repo/retrieval.py still apply, with the exact scan as the last word.
"""

from __future__ import annotations

from dataclasses import replace

from graph.db import Database, Row
from graph.keys import peer_key
from graph.lucene import scoped_query
from graph.records import FileChunkRecord
from graph.repo.retrieval import (
    FILES,
    Round,
    Rows,
    Scored,
    TextScored,
    Thresholds,
    index_rounds,
    text_by_key_parts,
    text_search,
)


def _scored(rows: Rows) -> Scored[FileChunkRecord]:
    return [(FileChunkRecord.from_row(r["chunk"]), float(r["score"])) for r in rows]


async def _vector_round(
    db: Database,
    workspace: str,
    peers: list[str],
    embedding: list[float],
    limit: int,
    *,
    candidates: int,
    wide: int,
    thresholds: Thresholds,
) -> Round:
    row = await db.read_one(
        "search_file_chunks_vector",
        workspace=workspace,
        peers=peers,
        embedding=embedding,
        limit=limit,
        exact_scan_limit=thresholds.exact_scan_limit,
        wide_from=thresholds.wide_from,
        candidates=candidates,
        wide=wide,
    )
    assert row is not None
    total = int(row["total"])
    # Which path ran (see the statement): the exact scan is complete; an index round asked for
    # `candidates`, or `wide` above wide_from chunks.
    asked: int | None = None
    if total > thresholds.exact_scan_limit:
        asked = candidates if total <= thresholds.wide_from else wide
    return Round(list(row["found"]), int(row["raw"]), asked)


async def exact(
    db: Database, workspace: str, peers: list[str], embedding: list[float], limit: int
) -> Scored[FileChunkRecord]:
    """The exact cosine over every chunk of the peers' files (the ground truth)."""
    everything = replace(FILES, exact_scan_limit=1 << 62)
    found = await _vector_round(
        db, workspace, peers, embedding, limit, candidates=0, wide=0, thresholds=everything
    )
    return _scored(found.found)


async def vector_candidates(
    db: Database,
    workspace: str,
    peers: list[str],
    embedding: list[float],
    limit: int,
    *,
    thresholds: Thresholds = FILES,
) -> Scored[FileChunkRecord]:
    async def fetch(candidates: int, wide: int) -> Round:
        return await _vector_round(
            db,
            workspace,
            peers,
            embedding,
            limit,
            candidates=candidates,
            wide=wide,
            thresholds=thresholds,
        )

    rows, complete = await index_rounds(fetch, thresholds, limit)
    if not complete:
        return await exact(db, workspace, peers, embedding, limit)
    return _scored(rows)


async def text_candidates(
    db: Database,
    workspace: str,
    peers: list[str],
    text: str,
    limit: int,
    *,
    embedding: list[float] | None = None,
) -> TextScored[FileChunkRecord]:

    async def search(keys: list[str]) -> TextScored[FileChunkRecord]:
        query = scoped_query(text, field="content", required={"peer_key": keys})
        if not query:
            return []

        async def fetch(candidates: int) -> Row | None:
            return await db.read_one(
                "search_file_chunks_fulltext",
                workspace=workspace,
                peers=peers,
                query=query,
                candidates=candidates,
                limit=limit,
                embedding=embedding,
            )

        return await text_search(fetch, FILES, limit, "chunk", FileChunkRecord.from_row)

    return await text_by_key_parts([peer_key(workspace, p) for p in peers], limit, search)
