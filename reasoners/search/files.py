"""File search: hybrid search over the chunks of one or several peers' files."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database
from graph.records import FileChunkRecord
from graph.repo import file_search
from reasoners.embeddings.model import Embedder
from reasoners.search.hybrid import Hit, hybrid_search


@dataclass(frozen=True)
class FileChunkRetriever:
    db: Database
    workspace: str
    peers: list[str]

    async def vector(
        self, embedding: list[float], limit: int
    ) -> list[tuple[FileChunkRecord, float]]:
        return await file_search.vector_candidates(
            self.db, self.workspace, self.peers, embedding, limit
        )

    async def text(
        self, text: str, embedding: list[float], limit: int
    ) -> list[tuple[FileChunkRecord, float, float | None]]:
        return await file_search.text_candidates(
            self.db, self.workspace, self.peers, text, limit, embedding=embedding
        )


def chunk_id(chunk: FileChunkRecord) -> str:
    return chunk.id


async def search_files(
    db: Database,
    embedder: Embedder,
    workspace: str,
    peers: list[str],
    query: str,
    limit: int,
) -> list[Hit[FileChunkRecord]]:
    """The `limit` chunks of `peers`' files that best match `query`, best first.

    Each hit's item says which peer and path the chunk belongs to, its index in the file and
    its text; its score is the fused rank score, with the chunk's rank in the vector and in the
    fulltext list (None where it was not found). `peers` is the scope as is: pass a peer and
    its sub-peers (graph/repo/members.py aggregation_set) to search down its tree. The caller
    checks that the asker may read these peers' files. Raises InvalidInput for an empty or
    over-long query.
    """
    if not peers:
        return []
    retriever = FileChunkRetriever(db, workspace, list(peers))
    return await hybrid_search(embedder, retriever, chunk_id, query, limit)
