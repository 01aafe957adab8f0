"""Sub-peers over REST: a peer's members (the peers below it) and its parents.

Reshaping the tree changes what reads of a peer cover, so it takes a workspace key; a peer key
may list the peers above and below its own peer.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, StrictInt
from starlette.responses import JSONResponse, Response

from graph.errors import Forbidden, InvalidInput, NotFound
from graph.repo import members
from graph.repo.members import Related
from resolvers.auth import Principal
from resolvers.rest import shapes
from resolvers.rest.http import Call, no_content
from resolvers.rest.paging import PageQuery, page_of


class MemberBody(BaseModel):
    peer_id: str = Field(min_length=1)


class RelatedQuery(PageQuery):
    depth: StrictInt | str = 1


def parse_depth(value: int | str) -> int:
    """A REST `depth`: a whole number from 0, or "all"."""
    if value == "all":
        return members.ALL
    try:
        depth = int(value)
    except ValueError as exc:
        raise InvalidInput(f'depth must be a whole number from 0 or "all", not {value!r}') from exc
    if depth < 0:
        raise InvalidInput("depth must be 0 or more")
    return min(depth, members.ALL)


def related(principal: Principal, r: Related) -> dict[str, Any]:
    """A peer above or below; one the key may not read (a peer key's parents and sub-peers)
    comes with its name and no metadata or configuration, as GraphQL refuses those."""
    shape = {**shapes.peer(r.peer), "distance": r.distance}
    try:
        principal.require_peer(r.peer.workspace, r.peer.name)
    except Forbidden:
        shape |= {"metadata": {}, "configuration": {}}
    return shape


async def add(call: Call) -> Response:
    parent = call.path("peer")
    call.principal.require_workspace(call.workspace)
    body = await call.body(MemberBody)
    services = call.services
    created = await members.add(
        services.db,
        call.workspace,
        parent,
        body.peer_id,
        max_depth=services.settings.max_peer_depth,
    )
    return JSONResponse(
        {"parent_id": parent, "peer_id": body.peer_id}, status_code=201 if created else 200
    )


async def remove(call: Call) -> Response:
    parent, child = call.path("peer"), call.path("child")
    call.principal.require_workspace(call.workspace)
    if not await members.remove(call.services.db, call.workspace, parent, child):
        raise NotFound(f"peer {child!r} is not a member of {parent!r}")
    return no_content()


async def _listed(call: Call, below: bool) -> Response:
    """One page of the list, read as a page: the list has no cap of its own (the aggregation
    limit cut it, and pages past it came back empty). Reversed, the page is cut from the end,
    in the read that counts the list, so a change to the tree cannot fall between the two."""
    peer = call.path("peer")
    call.principal.require_peer(call.workspace, peer)
    q = call.query(RelatedQuery)
    lister = members.below if below else members.above
    found = await lister(
        call.services.db,
        call.workspace,
        peer,
        depth=parse_depth(q.depth),
        limit=q.size,
        skip=(q.page - 1) * q.size,
        from_end=q.reverse,
    )
    items = list(reversed(found.items)) if q.reverse else found.items
    return JSONResponse(page_of(items, q, found.total, lambda r: related(call.principal, r)))


async def list_members(call: Call) -> Response:
    return await _listed(call, below=True)


async def list_parents(call: Call) -> Response:
    return await _listed(call, below=False)


P = "/workspaces/{workspace}/peers/{peer}"
ROUTES = [
    ("POST", f"{P}/members", add),
    ("GET", f"{P}/members", list_members),
    ("DELETE", f"{P}/members/{{child}}", remove),
    ("GET", f"{P}/parents", list_parents),
]
