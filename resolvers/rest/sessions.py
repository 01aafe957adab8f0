"""Session routes: get-or-create, list, update, delete, its peers and their settings, search."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, RootModel, field_validator
from starlette.responses import JSONResponse, Response

from graph.configuration import readable
from graph.errors import LimitExceeded, NotFound
from graph.paging import MAX_LISTED
from graph.props import NO_META
from graph.records import MembershipRecord, SessionRecord
from graph.repo import sessions, workspaces
from graph.repo.sessions import MemberSettings
from graph.validation import check_peer_count
from resolvers.auth import KeyScope
from resolvers.rest import shapes
from resolvers.rest.filters import messages_of, session_selection
from resolvers.rest.http import Call, no_content
from resolvers.rest.implicit import (
    creatable_peers,
    ensure_workspace,
    get_or_create_session,
    meta,
)
from resolvers.rest.paging import PageQuery, numbered, read_all
from resolvers.rest.workspaces import ListBody, SearchBody, search_messages_json


class PeerSettings(BaseModel):
    observe_me: bool | None = None
    observe_others: bool | None = None


PeerMap = dict[str, PeerSettings]


class SessionCreate(BaseModel):
    id: str = Field(min_length=1)
    metadata: dict[str, Any] | None = None
    configuration: dict[str, Any] | None = None
    peers: PeerMap | None = None
    scopes: Any = None  # Honcho's scopes are not served: refused, never ignored

    @field_validator("scopes")
    @classmethod
    def _no_scopes(cls, value: Any) -> Any:
        if value:
            raise ValueError("scopes are not supported: a session belongs to its workspace")
        return value


class SessionUpdate(BaseModel):
    metadata: dict[str, Any] | None = None
    configuration: dict[str, Any] | None = None


class PeerMapBody(RootModel[PeerMap]):
    pass


class PeerNamesBody(RootModel[list[str]]):
    pass


def settings_of(given: PeerMap) -> list[MemberSettings]:
    return [
        # A setting not sent: true for a peer that joins, unchanged for a member (the SDK's
        # plain add sends `{}`, which turned a member's observe_me false back on).
        MemberSettings(name, s.observe_me, s.observe_others)
        for name, s in given.items()
    ]


async def create(call: Call) -> Response:
    body = await call.body(SessionCreate)
    asks_nothing = body.metadata is None and body.configuration is None and not body.peers
    if asks_nothing and (found := await as_member(call, body.id)) is not None:
        return JSONResponse(shapes.session(found), status_code=200)
    call.principal.require_session(call.workspace, body.id)
    check_peer_count(list(body.peers or {}))  # before the workspace or session is created
    await ensure_workspace(call)
    absent = await creatable_peers(call, list(body.peers or {}))  # before the session
    db = call.services.db
    record, created = await get_or_create_session(
        call, body.id, meta(call, body.metadata, body.configuration, "session")
    )
    live(record)
    if not created and (body.metadata is not None or body.configuration is not None):
        # An existing session takes new metadata; its configuration is merged key by key, into
        # what clients can read of the stored one (a value stored before the checks is dropped,
        # not held against this update).
        stored = readable("session", record.configuration)
        merged = None if body.configuration is None else {**stored, **body.configuration}
        record = await sessions.update(
            db,
            call.workspace,
            body.id,
            meta(call, body.metadata, merged, "session"),
            active=None,
            context=None,
            set_context=False,
            open_only=True,
        )
    if body.peers:
        await sessions.add_peers(
            db, call.workspace, body.id, settings_of(body.peers), open_only=True, create=absent
        )
    return JSONResponse(shapes.session(record), status_code=201 if created else 200)


async def as_member(call: Call, name: str) -> SessionRecord | None:
    """The session, for a peer key whose peer is or was in it: Honcho clients get-or-create a
    session before they post into it or read it, and a peer key may do those (it lists the
    sessions it is or was in, with what this returns). None for any other key or session."""
    principal = call.principal
    if principal.scope is not KeyScope.PEER or principal.workspace != call.workspace:
        return None
    assert principal.peer is not None  # a peer key names its peer
    db = call.services.db
    if name not in await sessions.joined_by(db, call.workspace, principal.peer, [name]):
        return None
    return live(await sessions.get(db, call.workspace, name))


async def list_all(call: Call) -> Response:
    call.principal.require_workspace(call.workspace)
    query = call.query(PageQuery)
    body = await call.body(ListBody, empty={})
    chosen = session_selection(body.filters, call.metadata_limit)
    db = call.services.db
    await workspaces.get(db, call.workspace)  # a read creates nothing: NOT_FOUND
    found = await read_all(
        lambda after, limit: sessions.list_page(
            db,
            call.workspace,
            metadata=chosen.metadata,
            active=chosen.active,
            peer=None,
            after=after,
            limit=limit,
        )
    )
    found.sort(key=lambda s: (s.created_at, s.name))
    return JSONResponse(numbered(found, query, shapes.session))


async def _update(call: Call, **changes: Any) -> Response:
    session = call.path("session")
    call.principal.require_session(call.workspace, session)
    record = await sessions.update(
        call.services.db,
        call.workspace,
        session,
        changes.pop("meta", NO_META),
        context=None,
        set_context=False,
        open_only=True,  # a deleted session takes no change (deleting it again changes nothing)
        **changes,
    )
    return JSONResponse(shapes.session(record))


def live(record: SessionRecord) -> SessionRecord:
    """The session, NOT_FOUND once deleted: a deleted session takes no change."""
    if not record.active:
        raise NotFound(f"session {record.name!r} was deleted")
    return record


async def _active(call: Call, session: str) -> SessionRecord:
    return live(await sessions.get(call.services.db, call.workspace, session))


async def update(call: Call) -> Response:
    body = await call.body(SessionUpdate, empty={})
    call.principal.require_session(call.workspace, call.path("session"))
    await _active(call, call.path("session"))
    return await _update(
        call, meta=meta(call, body.metadata, body.configuration, "session"), active=None
    )


async def delete(call: Call) -> Response:
    # A deleted session is kept inactive: its messages stay the evidence of what was derived.
    # Workspace keys only, as GraphQL's deleteSession: a session key could delete its own
    # session here, then reopen it through GraphQL's updateSession.
    call.principal.require_workspace(call.workspace)
    await _update(call, active=False)
    return JSONResponse({"message": "Session deleted successfully"}, status_code=202)


async def _session_answer(call: Call, session: str) -> Response:
    return JSONResponse(
        shapes.session(await sessions.get(call.services.db, call.workspace, session))
    )


async def add_peers(call: Call) -> Response:
    session = call.path("session")
    call.principal.require_session(call.workspace, session)
    given = (await call.body(PeerMapBody)).root
    check_peer_count(list(given))  # before the workspace or session is created
    await ensure_workspace(call)
    absent = await creatable_peers(call, list(given))  # before the session is created
    live((await get_or_create_session(call, session, NO_META))[0])
    await sessions.add_peers(
        call.services.db, call.workspace, session, settings_of(given), open_only=True, create=absent
    )
    return await _session_answer(call, session)


async def set_peers(call: Call) -> Response:
    session = call.path("session")
    call.principal.require_session(call.workspace, session)
    given = (await call.body(PeerMapBody)).root
    await _active(call, session)
    absent = await creatable_peers(call, list(given))
    await sessions.set_peers(
        call.services.db, call.workspace, session, settings_of(given), open_only=True, create=absent
    )
    return await _session_answer(call, session)


async def remove_peers(call: Call) -> Response:
    session = call.path("session")
    call.principal.require_session(call.workspace, session)
    names = (await call.body(PeerNamesBody)).root
    await _active(call, session)
    await sessions.remove_peers(call.services.db, call.workspace, session, names, open_only=True)
    return await _session_answer(call, session)


async def list_peers(call: Call) -> Response:
    session = call.path("session")
    call.principal.require_session(call.workspace, session)
    query = call.query(PageQuery)
    db = call.services.db
    await sessions.get(db, call.workspace, session)
    present = await sessions.present_peers(db, call.workspace, session, limit=MAX_LISTED + 1)
    if len(present) > MAX_LISTED:
        raise LimitExceeded(
            f"this session has more than {MAX_LISTED} peers; list them through GraphQL's "
            "sessionPeers, a page at a time",
            limit="listed",
        )
    return JSONResponse(numbered(present, query, shapes.peer))


async def _member(call: Call) -> MembershipRecord:
    session, peer = call.path("session"), call.path("peer")
    call.principal.require_session(call.workspace, session)
    db = call.services.db
    await sessions.get(db, call.workspace, session)
    return await sessions.member(db, call.workspace, session, peer)


async def get_peer_config(call: Call) -> Response:
    m = await _member(call)
    return JSONResponse({"observe_me": m.observe_me, "observe_others": m.observe_others})


async def set_peer_config(call: Call) -> Response:
    m = await _member(call)
    await _active(call, call.path("session"))
    body = await call.body(PeerSettings, empty={})
    changed = MemberSettings(
        m.peer,
        m.observe_me if body.observe_me is None else body.observe_me,
        m.observe_others if body.observe_others is None else body.observe_others,
    )
    await sessions.add_peers(call.services.db, call.workspace, m.session, [changed], open_only=True)
    return no_content()


async def search(call: Call) -> Response:
    session = call.path("session")
    call.principal.require_session(call.workspace, session)
    body = await call.body(SearchBody)
    await sessions.get(call.services.db, call.workspace, session)
    return await search_messages_json(
        call, body.query, messages_of(body.filters, session, call.metadata_limit), body.limit
    )


S = "/workspaces/{workspace}/sessions"
ROUTES = [
    ("POST", S, create),
    ("POST", f"{S}/list", list_all),
    ("PUT", f"{S}/{{session}}", update),
    ("DELETE", f"{S}/{{session}}", delete),
    ("POST", f"{S}/{{session}}/peers", add_peers),
    ("PUT", f"{S}/{{session}}/peers", set_peers),
    ("DELETE", f"{S}/{{session}}/peers", remove_peers),
    ("GET", f"{S}/{{session}}/peers", list_peers),
    ("GET", f"{S}/{{session}}/peers/{{peer}}/config", get_peer_config),
    ("PUT", f"{S}/{{session}}/peers/{{peer}}/config", set_peer_config),
    ("POST", f"{S}/{{session}}/search", search),
]
