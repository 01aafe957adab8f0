"""Peer file writes: check, chunk and embed a file's content, then write file and chunks in one
Cypher write (graph/repo/files.py). Also embeds chunks that were written without embeddings."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graph.db import Database
from graph.props import dump_json
from graph.records import FileRecord
from graph.repo import files
from graph.repo.files import ChunkWrite, check_content, check_user_path
from graph.settings import Settings
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.embeddings.tokens import TokenCounter
from reasoners.peers.chunking import chunk_markdown

log = logging.getLogger("beliefgraph.files")
EMBED_BATCH = 256  # chunks embedded per write when filling in missing embeddings


@dataclass(frozen=True)
class FileWriter:
    """What a file write needs besides the graph: limits, the tokenizer and the embedder."""

    db: Database
    embedder: Embedder
    tokens: TokenCounter
    settings: Settings

    def _metadata(self, metadata: Mapping[str, Any] | None) -> str | None:
        if metadata is None:
            return None
        return dump_json(metadata, limit=self.settings.max_metadata_bytes, what="metadata")

    async def _chunks(self, content: str) -> list[ChunkWrite]:
        # Off the event loop: a large file takes a second or more to cut.
        texts = await asyncio.to_thread(
            chunk_markdown, content, self.settings.file_chunk_tokens, self.tokens
        )
        vectors = await embed_async(self.embedder, texts) if texts else []
        return [ChunkWrite(t, v) for t, v in zip(texts, vectors, strict=True)]

    async def create(
        self,
        workspace: str,
        peer: str,
        path: str,
        content: str,
        metadata: Mapping[str, Any] | None = None,
    ) -> FileRecord:
        check_user_path(path)
        check_content(content, self.settings.max_file_chars)
        stored = self._metadata(metadata) or json.dumps({})
        return await files.create(
            self.db,
            workspace,
            peer,
            path,
            content,
            stored,
            await self._chunks(content),
            max_files=self.settings.max_files_per_peer,
        )

    async def update(
        self,
        workspace: str,
        peer: str,
        path: str,
        *,
        content: str | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> FileRecord:
        if content is not None:
            check_content(content, self.settings.max_file_chars)
        # Read first so a managed or missing file is refused before any embedding work.
        existing = await files.get(self.db, workspace, peer, path)
        if existing.managed_by is None and content is not None:
            chunks: list[ChunkWrite] | None = await self._chunks(content)
        else:
            chunks = None
        return await files.update(
            self.db,
            workspace,
            peer,
            path,
            content=content,
            metadata=self._metadata(metadata),
            chunks=chunks,
        )


async def embed_missing_chunks(db: Database, embedder: Embedder) -> int:
    """Embed every chunk stored without an embedding (peer cards moved from an earlier layout,
    card lines written without an embedder), in batches; returns how many."""
    total = 0
    while missing := await files.chunks_without_embedding(db, EMBED_BATCH):
        vectors = await embed_async(embedder, [content for _, content in missing])
        total += await files.set_chunk_embeddings(
            db, {i: v for (i, _), v in zip(missing, vectors, strict=True)}
        )
        if len(missing) < EMBED_BATCH:
            break
    if total:
        log.info("embedded %d file chunks", total)
    return total
