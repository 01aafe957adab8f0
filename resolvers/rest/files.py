"""A peer's files over REST: create, list, read, replace and delete, by path.

Content is split by headings and paragraphs and indexed for search; card.md and cards/… hold
peer cards and are written through the card routes instead.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from starlette.responses import JSONResponse, Response

from graph.errors import InvalidInput, NotFound
from graph.records import FileRecord
from graph.repo import files
from graph.validation import check_stored_path
from reasoners.peers.files import FileWriter
from resolvers.rest.http import Call, no_content
from resolvers.rest.paging import PageQuery, page_of
from resolvers.rest.shapes import stamp


class FileCreate(BaseModel):
    path: str = Field(min_length=1)
    content: str
    metadata: dict[str, Any] | None = None


class FileUpdate(BaseModel):
    content: str | None = None
    metadata: dict[str, Any] | None = None


def file_json(r: FileRecord) -> dict[str, Any]:
    return {
        "path": r.path,
        "peer_id": r.peer,
        "workspace_id": r.workspace,
        "content": r.content,
        "metadata": r.metadata,
        "managed_by": r.managed_by,
        "created_at": stamp(r.created_at),
        "updated_at": stamp(r.updated_at),
    }


def _writer(call: Call) -> FileWriter:
    s = call.services
    return FileWriter(s.db, s.embedder, s.tokens, s.settings)


def _peer(call: Call) -> str:
    peer = call.path("peer")
    call.principal.require_peer(call.workspace, peer)
    return peer


async def create(call: Call) -> Response:
    peer = _peer(call)
    body = await call.body(FileCreate)
    record = await _writer(call).create(
        call.workspace, peer, body.path, body.content, body.metadata
    )
    return JSONResponse(file_json(record), status_code=201)


async def list_all(call: Call) -> Response:
    peer = _peer(call)
    query = call.query(PageQuery)
    found, total = await files.numbered_page(
        call.services.db,
        call.workspace,
        peer,
        skip=(query.page - 1) * query.size,
        limit=query.size,
        reverse=query.reverse,
    )
    return JSONResponse(page_of(found, query, total, file_json))


async def get(call: Call) -> Response:
    peer = _peer(call)
    record = await files.get(
        call.services.db, call.workspace, peer, check_stored_path(call.path("path"))
    )
    return JSONResponse(file_json(record))


async def update(call: Call) -> Response:
    peer = _peer(call)
    body = await call.body(FileUpdate)
    if body.content is None and body.metadata is None:
        raise InvalidInput("give content, metadata or both")
    record = await _writer(call).update(
        call.workspace,
        peer,
        check_stored_path(call.path("path")),
        content=body.content,
        metadata=body.metadata,
    )
    return JSONResponse(file_json(record))


async def delete(call: Call) -> Response:
    peer = _peer(call)
    path = check_stored_path(call.path("path"))
    if not await files.delete(call.services.db, call.workspace, peer, path):
        raise NotFound(f"peer {peer!r} has no file at {path!r}")
    return no_content()


F = "/workspaces/{workspace}/peers/{peer}/files"
ROUTES = [
    ("POST", F, create),
    ("GET", F, list_all),
    ("GET", f"{F}/{{path:path}}", get),
    ("PUT", f"{F}/{{path:path}}", update),
    ("DELETE", f"{F}/{{path:path}}", delete),
]
