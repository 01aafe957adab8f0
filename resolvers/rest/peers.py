"""Peer routes: get-or-create, list, update, a peer's sessions, its card and its search."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic import BaseModel, Field, StrictInt
from starlette.responses import JSONResponse, Response

from graph.errors import InvalidInput
from graph.records import PeerRecord
from graph.repo import members, peer_cards, peers, sessions, workspaces
from reasoners.embeddings.model import embed_async
from resolvers.auth import KeyScope
from resolvers.rest import shapes
from resolvers.rest.filters import messages_of, metadata_of, session_selection
from resolvers.rest.http import Call
from resolvers.rest.implicit import ensure_workspace, get_or_create_peer, meta
from resolvers.rest.members import parse_depth
from resolvers.rest.paging import PageQuery, numbered, read_all
from resolvers.rest.workspaces import ListBody, SearchBody, search_messages_json


class PeerCreate(BaseModel):
    id: str = Field(min_length=1)
    metadata: dict[str, Any] | None = None
    configuration: dict[str, Any] | None = None


class PeerUpdate(BaseModel):
    metadata: dict[str, Any] | None = None
    configuration: dict[str, Any] | None = None


class CardQuery(BaseModel):
    target: str | None = None


class CardBody(BaseModel):
    peer_card: list[str]


async def create(call: Call) -> Response:
    body = await call.body(PeerCreate)
    asks_nothing = body.metadata is None and body.configuration is None
    if asks_nothing and (found := await in_keys_session(call, body.id)) is not None:
        return JSONResponse(shapes.peer(found), status_code=200)
    call.principal.require_peer(call.workspace, body.id)
    await ensure_workspace(call)
    given = meta(call, body.metadata, body.configuration, "peer")
    record, created = await get_or_create_peer(call, body.id, given)
    if not created and (body.metadata is not None or body.configuration is not None):
        # An existing peer takes the metadata and configuration it is sent.
        record = await peers.update(
            call.services.db,
            call.workspace,
            body.id,
            given,
            extraction_context=None,
            set_extraction_context=False,
            may_observe_again=call.principal.scope is not KeyScope.PEER,
        )
    return JSONResponse(shapes.peer(record), status_code=201 if created else 200)


async def in_keys_session(call: Call, name: str) -> PeerRecord | None:
    """The peer, for a session key whose session it is or was in: Honcho clients get-or-create
    a peer before they post as it, which a session key may do. None for any other key or peer."""
    principal = call.principal
    if principal.scope is not KeyScope.SESSION or principal.workspace != call.workspace:
        return None
    assert principal.session is not None  # a session key names its session
    db = call.services.db
    if not await sessions.joined_by(db, call.workspace, name, [principal.session]):
        return None
    return await peers.get(db, call.workspace, name)


async def list_all(call: Call) -> Response:
    call.principal.require_workspace(call.workspace)
    query = call.query(PageQuery)
    body = await call.body(ListBody, empty={})
    metadata = metadata_of(body.filters, "on peers", call.metadata_limit)
    db = call.services.db
    await workspaces.get(db, call.workspace)  # a read creates nothing: NOT_FOUND
    found = await read_all(
        lambda after, limit: peers.list_page(
            db, call.workspace, metadata=metadata, after=after, limit=limit
        )
    )
    found.sort(key=lambda p: (p.created_at, p.name))
    return JSONResponse(numbered(found, query, shapes.peer))


async def update(call: Call) -> Response:
    name = call.path("peer")
    call.principal.require_peer(call.workspace, name)
    body = await call.body(PeerUpdate, empty={})
    record = await peers.update(
        call.services.db,
        call.workspace,
        name,
        meta(call, body.metadata, body.configuration, "peer"),
        extraction_context=None,
        set_extraction_context=False,
        may_observe_again=call.principal.scope is not KeyScope.PEER,
    )
    return JSONResponse(shapes.peer(record))


async def sessions_of(call: Call) -> Response:
    name = call.path("peer")
    call.principal.require_peer(call.workspace, name)
    query = call.query(PageQuery)
    body = await call.body(ListBody, empty={})
    chosen = session_selection(body.filters, call.metadata_limit)
    db = call.services.db
    await peers.get(db, call.workspace, name)
    found = await read_all(
        lambda after, limit: sessions.list_page(
            db,
            call.workspace,
            metadata=chosen.metadata,
            active=chosen.active,
            peer=name,
            after=after,
            limit=limit,
        )
    )
    found.sort(key=lambda s: (s.created_at, s.name))
    return JSONResponse(numbered(found, query, shapes.session))


def _require_view(call: Call, observer: str, observed: str) -> None:
    principal = call.principal
    principal.in_workspace(call.workspace)
    if principal.peer not in (observer, observed):
        principal.require_workspace(call.workspace)


async def get_card(call: Call) -> Response:
    observer = call.path("peer")
    target = call.query(CardQuery).target or observer
    _require_view(call, observer, target)
    db = call.services.db
    card = await peer_cards.get(db, call.workspace, observer, target)
    if not card.entries:  # none, as for a peer with no card; a missing workspace is named
        await workspaces.get(db, call.workspace)
    return JSONResponse({"peer_card": card.entries or None})


async def set_card(call: Call) -> Response:
    observer = call.path("peer")
    target = call.query(CardQuery).target or observer
    # A card is its observer's: only its own key (or a workspace key) may write it.
    call.principal.require_peer(call.workspace, observer)
    body = await call.body(CardBody)
    services = call.services
    await peers.require_all(services.db, call.workspace, sorted({observer, target}))

    async def embed(texts: list[str]) -> list[list[float]]:
        return await embed_async(services.embedder, texts)

    card = await peer_cards.set_card(
        services.db, call.workspace, observer, target, body.peer_card, embed=embed
    )
    return JSONResponse({"peer_card": card.entries or None})  # as a read of it answers


class PeerSearchBody(SearchBody):
    depth: StrictInt | str = 1  # sub-peer levels searched with the peer (0: the peer alone; "all")


async def search(call: Call) -> Response:
    name = call.path("peer")
    call.principal.require_peer(call.workspace, name)
    body = await call.body(PeerSearchBody)
    services = call.services
    asked = messages_of(body.filters, None, call.metadata_limit)
    depth = 0 if asked.peer == name else parse_depth(body.depth)
    covered = await members.aggregation_set(
        services.db,
        call.workspace,
        name,
        depth=depth,
        max_peers=services.settings.max_aggregation_peers,
    )
    # The peer and its sub-peers; `peer_id` narrows the search to one of them.
    if asked.peer is None:
        filters = replace(asked, peer=name, also_peers=tuple(covered[1:]))
    elif asked.peer in covered:
        filters = asked
    else:
        raise InvalidInput(
            "filters.peer_id must be this peer or one of its sub-peers within `depth`"
        )
    return await search_messages_json(call, body.query, filters, body.limit)


ROUTES = [
    ("POST", "/workspaces/{workspace}/peers", create),
    ("POST", "/workspaces/{workspace}/peers/list", list_all),
    ("PUT", "/workspaces/{workspace}/peers/{peer}", update),
    ("POST", "/workspaces/{workspace}/peers/{peer}/sessions", sessions_of),
    ("GET", "/workspaces/{workspace}/peers/{peer}/card", get_card),
    ("PUT", "/workspaces/{workspace}/peers/{peer}/card", set_card),
    ("POST", "/workspaces/{workspace}/peers/{peer}/search", search),
]
