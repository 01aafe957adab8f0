"""Message search: hybrid search over the messages of a workspace, a session or a peer."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database
from graph.records import MessageRecord
from graph.repo import message_search
from graph.repo.messages import MessageFilter
from reasoners.embeddings.model import Embedder
from reasoners.search.hybrid import Hit, hybrid_search


@dataclass(frozen=True)
class MessageRetriever:
    db: Database
    workspace: str
    filters: MessageFilter

    async def vector(self, embedding: list[float], limit: int) -> list[tuple[MessageRecord, float]]:
        return await message_search.vector_candidates(
            self.db, self.workspace, embedding, self.filters, limit
        )

    async def text(
        self, text: str, embedding: list[float], limit: int
    ) -> list[tuple[MessageRecord, float, float | None]]:
        return await message_search.text_candidates(
            self.db, self.workspace, text, self.filters, limit, embedding=embedding
        )


def message_id(message: MessageRecord) -> str:
    return message.id


async def search_messages(
    db: Database,
    embedder: Embedder,
    workspace: str,
    query: str,
    filters: MessageFilter,
    limit: int,
) -> list[Hit[MessageRecord]]:
    retriever = MessageRetriever(db, workspace, filters)
    return await hybrid_search(embedder, retriever, message_id, query, limit)
