"""Peer files: create, read, list, update and delete, each file with its chunks in one write.

A File belongs to one peer, `(:Peer)-[:HAS_FILE]->(:File)`, unique by (workspace, peer, path);
its chunks, `(:File)-[:HAS_CHUNK]->(:FileChunk)`, carry the embeddings and text that file
search reads (graph/repo/file_search.py). A write replaces a file's chunks in the same Cypher
write as its content, so a crash never leaves a file with another version's chunks. Files a
part of the service manages (`managed_by` "system" for peer cards, "dream:<name>") are written
only by that part (graph/repo/peer_cards.py) and never through these updates and deletes.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from graph import models
from graph.db import Database, Row, Tx
from graph.errors import Conflict, InvalidInput, LimitExceeded, NotFound
from graph.keys import peer_key
from graph.paging import decode_name, encode, page
from graph.props import node_props
from graph.records import FileRecord, Page
from graph.repo import peers, workspaces
from graph.validation import check_path, check_text, now

# Paths the service keeps for peer cards (graph/repo/peer_cards.py): `card.md` (a peer's own
# card of itself) and `cards/<observer>.md` (another peer's card of it).
CARD_PATH = "card.md"
CARDS_FOLDER = "cards/"
_CARD = re.compile(r"^(card\.md|cards/.+)$")
FILES = "files"  # the name in its cursors


@dataclass(frozen=True)
class ChunkWrite:
    content: str
    embedding: list[float] | None


def is_reserved(path: str) -> bool:
    return _CARD.fullmatch(path) is not None


def check_user_path(path: str) -> str:
    """A path an app may create: valid and not one the service keeps for peer cards."""
    check_path(path)
    if is_reserved(path):
        raise InvalidInput(
            f"path {path!r} is kept for peer cards (card.md, cards/...): write the card with "
            "setPeerCard, or choose another path"
        )
    return path


def check_content(content: str, max_chars: int) -> str:
    check_text(content, "content")
    if len(content) > max_chars:
        raise InvalidInput(
            f"file content is {len(content)} characters; the limit is {max_chars} "
            "(BELIEFGRAPH_MAX_FILE_CHARS): split it into several files"
        )
    return content


def chunk_props(
    workspace: str, peer: str, path: str, file_id: str, chunks: Sequence[ChunkWrite]
) -> list[dict[str, Any]]:
    key = peer_key(workspace, peer)
    return [
        node_props(
            models.FileChunk,
            {
                "uid": str(uuid.uuid4()),
                "workspace": workspace,
                "file_id": file_id,
                "peer": peer,
                "peer_key": key,
                "path": path,
                "index": index,
                "content": chunk.content,
                "embedding": chunk.embedding,
            },
        )
        for index, chunk in enumerate(chunks)
    ]


def _managed(path: str, managed_by: str, what: str) -> InvalidInput:
    owner = (
        "setPeerCard (or the dreamer)"
        if managed_by == "system"
        else f"the dream {managed_by.removeprefix('dream:')!r}"
    )
    return InvalidInput(
        f"file {path!r} is managed by {managed_by}: it cannot be {what} here; {owner} writes it",
        managed_by=managed_by,
    )


async def create(
    db: Database,
    workspace: str,
    peer: str,
    path: str,
    content: str,
    metadata: str,
    chunks: Sequence[ChunkWrite],
    *,
    max_files: int,
) -> FileRecord:
    """A new user file; Conflict when the path is taken, LimitExceeded at `max_files`."""
    stamp = now()
    file_id = str(uuid.uuid4())
    props = node_props(
        models.File,
        {
            "uid": file_id,
            "workspace": workspace,
            "peer": peer,
            "path": path,
            "content": content,
            "metadata": metadata,
            "created_at": stamp,
            "updated_at": stamp,
            "chunks": len(chunks),
        },
    )

    async def work(tx: Tx) -> Row | None:
        # Locked first: concurrent creations would each count the files below the limit.
        await tx.rows("lock_peer", workspace=workspace, peer=peer)
        return await tx.one(
            "create_file",
            workspace=workspace,
            peer=peer,
            file=props,
            chunks=chunk_props(workspace, peer, path, file_id, chunks),
            max_files=max_files,
        )

    row = await db.write_tx(work)
    if row is None:
        raise NotFound(f"peer {peer!r} does not exist in workspace {workspace!r}", peer=peer)
    if row["exists"]:
        raise Conflict(f"peer {peer!r} already has a file at {path!r}: update it instead")
    if row["file"] is None:
        raise LimitExceeded(
            f"peer {peer!r} holds {row['files']} files, the most allowed "
            "(BELIEFGRAPH_MAX_FILES_PER_PEER): delete some first",
            limit="files_per_peer",
        )
    return FileRecord.from_row(row["file"])


async def get(db: Database, workspace: str, peer: str, path: str) -> FileRecord:
    row = await db.read_one("get_file", workspace=workspace, peer=peer, path=path)
    if row is None:
        await workspaces.get(db, workspace)  # a missing workspace is named as such
        raise NotFound(f"peer {peer!r} has no file at {path!r} in workspace {workspace!r}")
    return FileRecord.from_row(row["file"])


async def find(db: Database, workspace: str, peer: str, path: str) -> FileRecord | None:
    row = await db.read_one("get_file", workspace=workspace, peer=peer, path=path)
    return None if row is None else FileRecord.from_row(row["file"])


async def list_files(
    db: Database, workspace: str, peer: str, *, after: str | None, limit: int
) -> Page[FileRecord]:
    """A page of the peer's files in path order; `after` is the cursor of the page before.
    NotFound for a peer that does not exist (an empty page would say it has no files)."""
    path = decode_name(after, FILES)
    rows = await db.read("list_files", workspace=workspace, peer=peer, after=path, limit=limit)
    if not rows:
        await peers.get(db, workspace, peer)
    return page(rows, limit, lambda r: FileRecord.from_row(r["file"]), file_cursor)


async def numbered_page(
    db: Database, workspace: str, peer: str, *, skip: int, limit: int, reverse: bool
) -> tuple[list[FileRecord], int]:
    """`limit` of the peer's files after the first `skip` in path order (`reverse`: the last
    first), and how many it has. NotFound for a peer that does not exist."""
    row = await db.read_one(
        "list_files_by_number",
        workspace=workspace,
        peer=peer,
        skip=skip,
        limit=limit,
        reverse=reverse,
    )
    if row is None or not row["found"]:
        await peers.get(db, workspace, peer)  # names what is missing: the workspace or the peer
    assert row is not None
    return [FileRecord.from_row(f) for f in row["files"]], int(row["total"])


def file_cursor(record: FileRecord) -> str:
    return encode(FILES, record.path)


async def update(
    db: Database,
    workspace: str,
    peer: str,
    path: str,
    *,
    content: str | None,
    metadata: str | None,
    chunks: Sequence[ChunkWrite] | None,
) -> FileRecord:
    """New content (with its chunks) and/or metadata for a user file."""
    file = await get(db, workspace, peer, path)
    if file.managed_by is not None:
        raise _managed(path, file.managed_by, "updated")
    row = await db.write_one(
        "update_file",
        workspace=workspace,
        peer=peer,
        path=path,
        content=content,
        metadata=metadata,
        chunks=None if chunks is None else chunk_props(workspace, peer, path, file.id, chunks),
        now=now(),
    )
    if row is None:  # deleted since it was read
        raise NotFound(f"peer {peer!r} has no file at {path!r} in workspace {workspace!r}")
    if not row["written"]:
        raise _managed(path, str(row["managed"]), "updated")
    return FileRecord.from_row(row["file"])


async def delete(db: Database, workspace: str, peer: str, path: str) -> bool:
    """Delete a user file and its chunks; False when there was none."""
    row = await db.write_one("delete_file", workspace=workspace, peer=peer, path=path)
    if row is None:
        return False
    if not row["deleted"]:
        raise _managed(path, str(row["managed"]), "deleted")
    return True


async def chunks_without_embedding(db: Database, limit: int) -> list[tuple[str, str]]:
    rows = await db.read("list_chunks_without_embedding", limit=limit)
    return [(str(r["id"]), str(r["content"])) for r in rows]


async def set_chunk_embeddings(db: Database, embeddings: dict[str, list[float]]) -> int:
    row = await db.write_one(
        "set_chunk_embeddings",
        chunks=[{"id": i, "embedding": e} for i, e in embeddings.items()],
    )
    return int(row["updated"]) if row else 0
