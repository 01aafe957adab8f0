"""Message routes: add a batch, list a session's messages, get one."""

from __future__ import annotations

import asyncio
import hashlib
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel
from starlette.datastructures import UploadFile
from starlette.responses import JSONResponse, Response

from graph.configuration import check_configuration, message_derives, message_instructions
from graph.db import Tx
from graph.errors import InvalidInput, NotFound
from graph.props import NO_META, dump_json
from graph.records import MessageRecord
from graph.repo import messages, sessions, workspaces
from reasoners.ingest import documents
from reasoners.ingest.messages import (
    MAX_CONTEXT_CHARS,
    MessageInput,
    add_messages,
    validate_batch,
)
from reasoners.ingest.pdf_reader import read_pdf
from resolvers.auth import KeyScope
from resolvers.by_id import read_by_id
from resolvers.connected import while_connected
from resolvers.json_body import parse_json
from resolvers.rest import shapes
from resolvers.rest.filters import messages_of
from resolvers.rest.http import Call, detail
from resolvers.rest.implicit import (
    creatable_peers,
    ensure_workspace,
    get_or_create_session,
)
from resolvers.rest.paging import PageQuery, page_of
from resolvers.rest.workspaces import ListBody
from resolvers.services import WORKSPACE_UPLOADS_AT_ONCE, WORKSPACE_UPLOADS_WAITING

T = TypeVar("T")


class MessageCreate(BaseModel):
    content: str
    peer_id: str
    metadata: dict[str, Any] | None = None
    configuration: dict[str, Any] | None = None
    created_at: datetime | None = None


class MessageBatch(BaseModel):
    messages: list[MessageCreate]


class MessageUpdate(BaseModel):
    metadata: dict[str, Any]


def check_sender(call: Call, session: str, peers: list[str]) -> bool:
    """Refuse a caller that may not post as `peers` into the session: a peer key posts as its
    own peer, other keys need the session. True for a peer key (whose peer must also be in
    the session: add_messages checks that before it embeds anything)."""
    principal = call.principal
    as_peer = principal.scope is KeyScope.PEER and principal.workspace == call.workspace
    if as_peer:
        for peer in peers:
            principal.require_peer(call.workspace, peer)
    else:
        principal.require_session(call.workspace, session)
    return as_peer


async def store(call: Call, session: str, items: list[MessageInput]) -> list[MessageRecord]:
    """Store a batch as the caller may: a peer key posts as its own peer, into a session its
    peer is already in; other keys create what is missing and add the senders."""
    as_peer = check_sender(call, session, [item.peer for item in items])
    # Checked before anything is created: a bad batch left the session and peers it named.
    validate_batch(items, call.services.settings)
    absent: list[str] = []
    if as_peer:
        record = await sessions.get(call.services.db, call.workspace, session)
    else:
        await ensure_workspace(call)
        absent = await creatable_peers(call, [item.peer for item in items])  # before the session
        record, _ = await get_or_create_session(call, session, NO_META)
    if not record.active:
        raise NotFound(f"session {session!r} was deleted")
    services = call.services
    # A deletion committed after the check above is SessionClosed: 404 as well (http.py).
    result = await add_messages(
        services.db,
        services.embedder,
        services.tokens,
        services.settings,
        call.workspace,
        session,
        items,
        may_join=not as_peer,
        create_peers=absent,
    )
    return result.messages


async def create(call: Call) -> Response:
    session = call.path("session")
    batch = await call.body(MessageBatch)
    own = [
        own_switches(call, m.configuration, f"messages[{i}]") for i, m in enumerate(batch.messages)
    ]
    items = [
        MessageInput(
            peer=m.peer_id,
            content=m.content,
            metadata=m.metadata,
            created_at=m.created_at,
            context=context,
            derive=derive,
        )
        for m, (context, derive) in zip(batch.messages, own, strict=True)
    ]
    # A batch carries no ids to tell a resend by: one whose client gave up (a client timing out
    # sends the batch again) is dropped if it has not been written yet, not stored twice.
    stored = await while_connected(
        call.request, store(call, session, items), "before its messages were stored"
    )
    return JSONResponse([shapes.message(m) for m in stored], status_code=201)


async def list_all(call: Call) -> Response:
    session = call.path("session")
    call.principal.require_session(call.workspace, session)
    query = call.query(PageQuery)
    body = await call.body(ListBody, empty={})
    filters = messages_of(body.filters, session, call.metadata_limit)
    db = call.services.db
    await sessions.get(db, call.workspace, session)
    found = await messages.numbered_page(
        db,
        call.workspace,
        filters,
        skip=(query.page - 1) * query.size,
        limit=query.size,
        newest_first=query.reverse,
    )
    total = await messages.count(db, call.workspace, filters)
    return JSONResponse(page_of(found, query, total, shapes.message))


async def get(call: Call) -> Response:
    session, message_id = call.path("session"), call.path("message")
    principal = call.principal
    principal.in_workspace(call.workspace)
    if principal.scope is KeyScope.SESSION:
        # Before the lookup: its answer for another session's path would tell whether the id
        # exists there.
        principal.require_session(call.workspace, session)
    record = await messages.find(call.services.db, call.workspace, message_id)
    # Where it is checked first, as the update checks it, in the same words for an id of
    # another session and one of none: a key told 403, or "is not in session", for a message
    # of another session learnt that it exists there.
    missing = NotFound(f"message {message_id!r} does not exist in session {session!r}")
    if record is None:
        await workspaces.get(call.services.db, call.workspace)  # named when it is missing
        raise missing
    if record.session != session:
        raise missing
    await read_by_id(
        principal,
        call.services.db,
        call.workspace,
        check=lambda: principal.require_peer_or_session(
            call.workspace, record.peer, record.session
        ),
        missing=missing,
        about=record.peer,
    )
    return JSONResponse(shapes.message(record))


async def update(call: Call) -> Response:
    session, message_id = call.path("session"), call.path("message")
    call.principal.require_session(call.workspace, session)
    body = await call.body(MessageUpdate)
    if not (await sessions.get(call.services.db, call.workspace, session)).active:
        raise NotFound(f"session {session!r} was deleted")  # as every change of one
    text = dump_json(
        body.metadata, limit=call.services.settings.max_metadata_bytes, what="metadata"
    )
    record = await messages.set_metadata(
        call.services.db, call.workspace, session, message_id, text, body.metadata
    )
    return JSONResponse(shapes.message(record))


Own = tuple[str | None, bool | None]  # a message's instructions, and whether it is derived


def own_switches(call: Call, configuration: dict[str, Any] | None, where: str) -> Own:
    """A message's own configuration, checked for what Honcho clients read back: its
    instructions to the deriver (`reasoning.custom_instructions`, kept as its context) and its
    `reasoning.enabled` (None: its session's decides). A peer key's message may turn its own
    derivation off, not on where the app turned it off: that costs the operator's model, and a
    peer key cannot change a session's switches either. The rest is not kept."""
    if configuration is None:
        return None, None
    try:
        check_configuration("message", configuration)
    except InvalidInput as exc:
        raise InvalidInput(f"{where}: {exc.message}") from exc
    told = message_instructions(configuration)
    if told is not None and len(told) > MAX_CONTEXT_CHARS:
        raise InvalidInput(
            f"{where}: configuration.reasoning.custom_instructions is {len(told)} characters; "
            f"the limit is {MAX_CONTEXT_CHARS}"
        )
    derive = message_derives(configuration)
    if derive and call.principal.scope is KeyScope.PEER:
        derive = None
    return told, derive


async def upload(call: Call) -> Response:
    """A document as messages from one peer: its text in pieces of at most the message size.
    A few at a time (Services.uploads), of which one workspace's one: past them, 503."""
    services = call.services
    own = services.workspace_uploads.of(
        call.workspace,
        WORKSPACE_UPLOADS_AT_ONCE,
        WORKSPACE_UPLOADS_WAITING,
        "uploads of this workspace",
    )
    try:
        # The workspace's turn first: waiting for it holds none of the process's.
        async with own.take(), services.uploads.take():
            return await _upload(call)
    finally:
        services.workspace_uploads.prune()


async def _upload(call: Call) -> Response:
    session = call.path("session")
    async with call.request.form() as form:  # closes the spooled upload when done
        upload = form.get("file")
        peer = form.get("peer_id")
        if not isinstance(upload, UploadFile) or not isinstance(peer, str) or not peer:
            raise InvalidInput("send a multipart form with a file and a peer_id")
        # Before the file is read (a PDF costs seconds): a peer key's peer must be in the session.
        if check_sender(call, session, [peer]):

            async def present(tx: Tx) -> None:
                await messages.require_present(tx, call.workspace, session, [peer])

            await call.services.db.read_tx(present)
        content_type = upload.content_type or "application/octet-stream"
        if not documents.is_supported(content_type):
            return detail(415, f"{content_type} files are not supported: send text, JSON or PDF")
        data = await upload.read()
        metadata = _form_json(form.get("metadata"), "metadata")
        configuration = _form_json(form.get("configuration"), "configuration")
        created_at = form.get("created_at")
    try:
        when = datetime.fromisoformat(created_at) if isinstance(created_at, str) else None
    except ValueError as exc:
        raise InvalidInput(f"created_at is not an ISO-8601 time: {created_at!r}") from exc
    context, derive = own_switches(call, configuration, "the upload")
    # Off the event loop; a PDF in a child process (reading one can take minutes of pure
    # Python), its text no longer than a request body may be.
    if documents.base_type(content_type) == documents.PDF_TYPE:
        reading = read_pdf(data, call.services.settings.max_request_bytes)
        text = await while_connected(call.request, reading, "before its PDF was read")
    else:
        text = await asyncio.to_thread(documents.document_text, content_type, data)
    parts = documents.pieces(text, call.services.settings.max_message_chars)
    if not parts:
        raise InvalidInput("the file has no text")
    ids = upload_client_ids(session, peer, parts)
    items = [
        MessageInput(
            peer=peer,
            content=part,
            metadata=metadata,
            created_at=when,
            client_id=key,
            context=context,
            derive=derive,
        )
        for part, key in zip(parts, ids, strict=True)
    ]
    stored: list[MessageRecord] = []
    batch = call.services.settings.max_batch
    for start in range(0, len(items), batch):
        stored.extend(await store(call, session, items[start : start + batch]))
    return JSONResponse([shapes.message(m) for m in stored], status_code=201)


def upload_client_ids(session: str, peer: str, parts: list[str]) -> list[str]:
    """A client id for each piece of an upload, the same whenever the same peer uploads the same
    text into the session (pure). A large upload is stored in several batches: one the client
    sends again after a disconnect stores only the pieces missing, not the text twice."""
    digest = hashlib.sha256("\0".join([session, peer, *parts]).encode()).hexdigest()[:32]
    return [f"upload-{digest}-{i}" for i in range(len(parts))]


def _form_json(value: object, name: str) -> dict[str, Any] | None:
    """A form field's JSON object; None when it is absent, empty or null (as in a JSON body)."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{name} must be a form field of JSON text, not a file")
    parsed = parse_json(value, name)
    if parsed is None:
        return None
    if not isinstance(parsed, dict):
        raise InvalidInput(f"{name} must be a JSON object")
    return parsed


M = "/workspaces/{workspace}/sessions/{session}/messages"
ROUTES = [
    ("POST", M, create),
    ("POST", f"{M}/", create),
    ("POST", f"{M}/list", list_all),
    ("POST", f"{M}/upload", upload),
    ("GET", f"{M}/{{message}}", get),
    ("PUT", f"{M}/{{message}}", update),
]
