"""Workspace routes: get-or-create, list, update, delete, search, queue status, dreams."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.responses import JSONResponse, Response

from graph.errors import InvalidInput, NotFound
from graph.keys import Representation
from graph.repo import peers, sessions, workspaces
from graph.repo import queue_status as queues
from graph.repo.messages import MessageFilter
from reasoners.dreamer import scheduling
from reasoners.search.messages import search_messages
from resolvers.rest import shapes
from resolvers.rest.filters import messages_of
from resolvers.rest.http import BadRequest, Call, no_content
from resolvers.rest.implicit import meta
from resolvers.rest.paging import PageQuery, numbered, read_all


class WorkspaceCreate(BaseModel):
    id: str = Field(min_length=1)
    metadata: dict[str, Any] | None = None
    configuration: dict[str, Any] | None = None


class WorkspaceUpdate(BaseModel):
    metadata: dict[str, Any] | None = None
    configuration: dict[str, Any] | None = None


class ListBody(BaseModel):
    filters: dict[str, Any] | None = None


class SearchBody(BaseModel):
    query: str = Field(min_length=1)
    filters: dict[str, Any] | None = None
    limit: int = Field(10, ge=1, le=100)
    scope: Any = None  # Honcho's scopes are not served: refused, never ignored

    @field_validator("scope")
    @classmethod
    def _no_scope(cls, value: Any) -> Any:
        if value is not None:
            raise ValueError("scope is not supported: use filters.session_id")
        return value


class DreamBody(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a switch it would not act on is refused

    observer: str
    observed: str | None = None
    # A dream revises the beliefs and the card together: the one type there is.
    dream_type: Literal["omni"] = "omni"
    # Checked to exist; the dream covers the whole view, that session's beliefs included.
    session_id: str | None = None


class QueueQuery(BaseModel):
    # An empty id filtered nothing and answered zeros: refused (422) like any bad id.
    observer_id: str | None = Field(default=None, min_length=1)
    sender_id: str | None = Field(default=None, min_length=1)
    session_id: str | None = Field(default=None, min_length=1)


async def create(call: Call) -> Response:
    body = await call.body(WorkspaceCreate)
    db = call.services.db
    try:
        found = await workspaces.get(db, body.id)
    except NotFound:
        call.principal.require_admin("creating workspaces")
    else:
        call.principal.in_workspace(body.id)
        await workspaces.refuse_if_being_deleted(db, body.id)
        return JSONResponse(shapes.workspace(found))
    made, created = await workspaces.ensure(
        db, body.id, meta(call, body.metadata, body.configuration, "workspace")
    )
    return JSONResponse(shapes.workspace(made), status_code=201 if created else 200)


async def list_all(call: Call) -> Response:
    call.principal.require_admin("the list of workspaces")
    query = call.query(PageQuery)
    body = await call.body(ListBody, empty={})
    if body.filters:
        raise InvalidInput("workspace lists take no filters")
    found = await read_all(
        lambda after, limit: workspaces.list_page(call.services.db, after=after, limit=limit)
    )
    # Honcho's shape has no mark for a workspace being deleted, which every route answers
    # 404: left out here (GraphQL's list shows it, with beingDeleted).
    found = [w for w in found if not w.being_deleted]
    found.sort(key=lambda w: (w.created_at, w.name))
    return JSONResponse(numbered(found, query, shapes.workspace))


async def update(call: Call) -> Response:
    call.principal.require_workspace(call.workspace)
    body = await call.body(WorkspaceUpdate, empty={})
    record = await workspaces.update(
        call.services.db, call.workspace, meta(call, body.metadata, body.configuration, "workspace")
    )
    return JSONResponse(shapes.workspace(record))


async def delete(call: Call) -> Response:
    call.principal.require_admin("deleting workspaces")
    db = call.services.db
    await workspaces.delete(db, call.workspace, unless_active_sessions=True)
    return JSONResponse({"message": "Workspace deletion accepted"}, status_code=202)


async def search(call: Call) -> Response:
    call.principal.require_workspace(call.workspace)
    body = await call.body(SearchBody)
    return await search_messages_json(
        call, body.query, messages_of(body.filters, None, call.metadata_limit), body.limit
    )


async def search_messages_json(
    call: Call, query: str, filters: MessageFilter, limit: int
) -> Response:
    """Hybrid message search answered as a bare list of messages, best first."""
    services = call.services
    await workspaces.get(services.db, call.workspace)
    hits = await search_messages(
        services.db, services.embedder, call.workspace, query, filters, limit
    )
    return JSONResponse([shapes.message(h.item) for h in hits])


async def queue_status(call: Call) -> Response:
    q = call.query(QueueQuery)
    # Jobs filter on one peer: two different ones would silently drop one of them.
    if q.observer_id and q.sender_id and q.observer_id != q.sender_id:
        raise InvalidInput("give observer_id or sender_id, not two different peers")
    peer = q.observer_id or q.sender_id
    principal = call.principal
    principal.require_peer_or_session(call.workspace, peer, q.session_id)
    status = await queues.status(
        call.services.db, call.workspace, q.session_id, peer, principal.names_it_may_check()
    )
    # A dead-lettered job is finished (nothing more runs unless it is retried), so a client
    # polling until nothing is pending stops; `failed_work_units` says how many of the
    # completed ones failed, which the Honcho shape has no place for.
    done = status.done + status.dead
    return JSONResponse(
        {
            "total_work_units": status.pending + status.running + done,
            "completed_work_units": done,
            "failed_work_units": status.dead,
            "in_progress_work_units": status.running,
            "pending_work_units": status.pending,
            "sessions": None,
        }
    )


async def schedule_dream(call: Call) -> Response:
    body = await call.body(DreamBody)
    call.principal.require_peer(call.workspace, body.observer)
    target = body.observed or body.observer
    services = call.services
    await peers.require_all(services.db, call.workspace, sorted({body.observer, target}))
    if body.session_id is not None:
        await sessions.get(services.db, call.workspace, body.session_id)
    if not scheduling.enabled(services.settings):
        raise BadRequest("dreams are off (BELIEFGRAPH_DREAM_MODE=off)")
    await scheduling.on_demand(
        services.db, services.settings, Representation(call.workspace, body.observer, target)
    )
    return no_content()


ROUTES = [
    ("POST", "/workspaces", create),
    ("POST", "/workspaces/list", list_all),
    ("PUT", "/workspaces/{workspace}", update),
    ("DELETE", "/workspaces/{workspace}", delete),
    ("POST", "/workspaces/{workspace}/search", search),
    ("GET", "/workspaces/{workspace}/queue/status", queue_status),
    ("POST", "/workspaces/{workspace}/schedule_dream", schedule_dream),
]
