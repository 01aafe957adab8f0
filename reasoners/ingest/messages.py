"""addMessages: validate a whole batch first, embed it, then store it in one transaction.

A batch with one bad item writes nothing; the error names the item and the field.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from graph.db import Database, Tx
from graph.errors import InvalidInput, LimitExceeded
from graph.props import dump_json
from graph.records import MessageRecord
from graph.repo import jobs, messages, sessions
from graph.settings import Settings
from graph.validation import check_name, now, without_nul
from reasoners.embeddings.model import Embedder
from reasoners.embeddings.passages import embed_messages
from reasoners.embeddings.tokens import TokenCounter, counted
from reasoners.queue.schedule import jobs_for_messages

MAX_CONTEXT_CHARS = 4000
MAX_CLIENT_ID_CHARS = 200


@dataclass(frozen=True)
class MessageInput:
    peer: str
    content: str
    metadata: dict[str, Any] | None = None
    context: str | None = None
    created_at: datetime | None = None
    client_id: str | None = None
    derive: bool | None = None  # the message's own `reasoning.enabled` (None: its session's)


@dataclass(frozen=True)
class AddResult:
    messages: list[MessageRecord]
    created: int


def _item_error(index: int, field: str, why: str) -> InvalidInput:
    return InvalidInput(f"messages[{index}].{field}: {why}", index=index, field=field)


def validate_batch(items: Sequence[MessageInput], settings: Settings) -> list[str]:
    """Check every item; returns the metadata JSON of each. Raises on the first bad item."""
    if not items:
        raise InvalidInput("messages: send at least one message")
    if len(items) > settings.max_batch:
        raise LimitExceeded(
            f"messages: {len(items)} messages in one batch; the limit is {settings.max_batch}",
            limit="batch",
        )
    seen_client_ids: dict[str, int] = {}
    metadata_json: list[str] = []
    for index, item in enumerate(items):
        try:
            check_name(item.peer, "peer")
        except InvalidInput as exc:
            raise _item_error(index, "peer", exc.message) from exc
        content = without_nul(item.content)  # judged as it would be stored
        if not content.strip():
            raise _item_error(index, "content", "content is empty")
        if len(content) > settings.max_message_chars:
            raise _item_error(
                index,
                "content",
                f"{len(content)} characters; the limit is {settings.max_message_chars}",
            )
        if item.context is not None and len(item.context) > MAX_CONTEXT_CHARS:
            raise _item_error(
                index,
                "context",
                f"{len(item.context)} characters; the limit is {MAX_CONTEXT_CHARS}",
            )
        if item.client_id is not None:
            if not item.client_id or len(item.client_id) > MAX_CLIENT_ID_CHARS:
                raise _item_error(index, "clientId", f"must be 1-{MAX_CLIENT_ID_CHARS} characters")
            if item.client_id in seen_client_ids:
                raise _item_error(
                    index,
                    "clientId",
                    f"repeats messages[{seen_client_ids[item.client_id]}].clientId",
                )
            seen_client_ids[item.client_id] = index
        try:
            metadata_json.append(
                dump_json(item.metadata, limit=settings.max_metadata_bytes, what="metadata")
            )
        except LimitExceeded as exc:
            raise LimitExceeded(
                f"messages[{index}].metadata: {exc.message}",
                limit="metadata",
                index=index,
                field="metadata",
            ) from exc
        except InvalidInput as exc:
            raise _item_error(index, "metadata", exc.message) from exc
    return metadata_json


async def add_messages(
    db: Database,
    embedder: Embedder,
    tokens: TokenCounter,
    settings: Settings,
    workspace: str,
    session: str,
    items: Sequence[MessageInput],
    *,
    may_join: bool = True,
    create_peers: Collection[str] = (),
) -> AddResult:
    items = [replace(item, content=without_nul(item.content)) for item in items]
    metadata_json = validate_batch(items, settings)
    if not may_join:  # refused before embedding, which costs seconds for a large batch

        async def present(tx: Tx) -> None:
            # As the write does: a resend of what is stored is answered, whoever left since.
            ids = [item.client_id for item in items if item.client_id]
            stored = await messages.already_stored(tx, workspace, session, ids)
            fresh = {i.peer for i in items if not (i.client_id and i.client_id in stored)}
            if fresh:
                await messages.require_present(tx, workspace, session, sorted(fresh))

        await db.read_tx(present)
    # Embeddings are computed before the transaction opens, so it stays short; a message is
    # searchable as soon as addMessages returns.
    vectors = await embed_messages(
        embedder, [item.content for item in items], with_passages=settings.passages_enabled
    )
    counts = await counted(lambda: [tokens.count(item.content) for item in items])
    rows = [
        messages.MessageRow(
            peer=item.peer,
            content=item.content,
            metadata_json=meta,
            metadata=dict(item.metadata or {}),
            context=item.context,
            created_at=item.created_at,
            client_id=item.client_id,
            token_count=count,
            embedding=vector.embedding,
            passage_embeddings=vector.passages,
            derive=item.derive,
        )
        for item, meta, vector, count in zip(items, metadata_json, vectors, counts, strict=True)
    ]

    async def enqueue_work(
        tx: Tx, created: list[tuple[MessageRecord, messages.MessageRow]]
    ) -> None:
        # Same transaction as the messages: a stored message always has its jobs (those its
        # own, its session's and its workspace's switches ask for, as they stand now).
        switches = await sessions.queue_switches_in(tx, workspace, session)
        derived = [
            m for m, row in created if (switches.derive if row.derive is None else row.derive)
        ]
        await jobs.enqueue(
            tx,
            jobs_for_messages(settings, [m for m, _ in created], now(), switches, derived),
            token_target=settings.deriver_token_target,
        )

    stored, created = await messages.create(
        db,
        workspace,
        session,
        rows,
        after_create=enqueue_work,
        may_join=may_join,
        create_peers=create_peers,
    )
    return AddResult(stored, created)
