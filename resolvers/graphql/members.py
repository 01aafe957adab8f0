"""GraphQL for sub-peers: `addSubPeer`, `removeSubPeer`, `subPeers`, `parentPeers`.

Reshaping the tree changes what reads of a peer aggregate, so it takes a workspace (or admin)
key; a peer key may list the peers above and below its own peer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Annotated, NewType

import strawberry
from strawberry.scalars import JSON
from strawberry.schema.types.scalar import DEFAULT_SCALAR_REGISTRY
from strawberry.types.scalar import ScalarDefinition

from graph.errors import InvalidInput
from graph.repo import members
from graph.repo.members import Related, RelatedPage
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import FirstArg, WorkspaceArg, page_size
from resolvers.graphql.types import Peer


def parse_depth(value: object) -> int:
    """A depth in MEMBER_OF edges: a whole number from 0, or "ALL" (every level)."""
    if value == "ALL":
        return members.ALL
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f'depth must be a whole number from 0 or "ALL", not {value!r}')
    return min(value, members.ALL)


Depth = NewType("Depth", int)
ONE_LEVEL = Depth(1)  # the default depth of reads and listings
SCALARS: dict[object, ScalarDefinition] = {
    # The library's descriptions, in the product's words (its JSON's linked a standard's PDF).
    JSON: dataclasses.replace(
        DEFAULT_SCALAR_REGISTRY[JSON],
        description="Any JSON value; as metadata or a configuration, a JSON object.",
        specified_by_url=None,
    ),
    datetime: dataclasses.replace(
        DEFAULT_SCALAR_REGISTRY[datetime],
        description="An ISO 8601 date and time, such as 2024-03-05T14:30:00Z; one without an "
        "offset is read as UTC.",
    ),
    Depth: strawberry.scalar(
        name="Depth",
        description='How many MEMBER_OF levels to follow: 0 (the peer alone), 1, 2, ... or "ALL".',
        serialize=lambda value: "ALL" if value >= members.ALL else value,
        parse_value=parse_depth,
    ),
}


@strawberry.type(description="A peer above or below another, with its distance in levels.")
class RelatedPeer:
    peer: Peer = strawberry.field(description="The related peer.")
    distance: int = strawberry.field(description="Fewest MEMBER_OF edges between the two.")

    @classmethod
    def of(cls, related: Related) -> RelatedPeer:
        return cls(peer=Peer.of(related.peer), distance=related.distance)


@strawberry.type(description="A MEMBER_OF edge that was added or removed.")
class SubPeerChange:
    parent: str = strawberry.field(description="The peer above.")
    child: str = strawberry.field(description="The sub-peer.")
    changed: bool = strawberry.field(
        description="False when nothing changed (the edge already existed, or did not)."
    )


Lister = Callable[..., Awaitable[RelatedPage]]

DEPTH_HELP = (
    "How many levels of sub-peers the read covers besides the peer itself: 0 (the peer "
    'alone), 1 (its sub-peers, the default), 2, ... or "ALL". Each result names the peer it '
    "is about."
)


DepthArg = Annotated[Depth, strawberry.argument(description=DEPTH_HELP)]
LIST_DEPTH = (
    'How many levels to list: 1 (the default: one edge away), 2, ... or "ALL"; 0 lists none.'
)
ListDepthArg = Annotated[Depth, strawberry.argument(description=LIST_DEPTH)]
ParentArg = Annotated[str, strawberry.argument(description="The peer above.")]
ChildArg = Annotated[str, strawberry.argument(description="The peer below (the sub-peer).")]


async def aggregated(info: Info, workspace: str, peer: str, depth: int) -> tuple[str, ...]:
    """The sub-peers a read of `peer` at `depth` covers besides `peer` (one MEMBER_OF
    traversal; none at depth 0)."""
    if depth == 0:
        return ()
    services = info.context.services
    names = await members.aggregation_set(
        services.db,
        workspace,
        peer,
        depth=int(depth),
        max_peers=services.settings.max_aggregation_peers,
    )
    return tuple(names[1:])


async def _related(
    info: Info,
    lister: Lister,
    workspace: str,
    peer: str,
    depth: int,
    first: int | None,
    after: str | None,
    after_distance: int | None,
) -> list[RelatedPeer]:
    info.context.principal.require_peer(workspace, peer)
    if after_distance is not None and (after is None or not 1 <= after_distance <= members.ALL):
        raise InvalidInput(
            f"afterDistance goes with after, and is from 1 to {members.ALL}: the distance the "
            "previous page listed that peer at"
        )
    found = await lister(
        info.context.services.db,
        workspace,
        peer,
        depth=int(depth),
        limit=page_size(info.context, first),
        after=after,
        after_distance=after_distance,
    )
    return [RelatedPeer.of(r) for r in found.items]


AFTER = (
    "The name of the last peer of the previous page: the list goes on after it (it is "
    "ordered by distance, then name). Alone, that peer must still be listed."
)
AFTER_DISTANCE = (
    "The distance the previous page listed `after` at: the list then goes on from that place "
    "in its order even if that peer has left it since."
)


@strawberry.type
class MemberQuery:
    @strawberry.field(
        description="The peers below `peer` (its sub-peers, theirs, ...) down to `depth` "
        "levels, each once at its shortest distance, nearest first."
    )
    async def sub_peers(
        self,
        info: Info,
        workspace: WorkspaceArg,
        peer: Annotated[str, strawberry.argument(description="The peer whose sub-peers to list.")],
        depth: ListDepthArg = ONE_LEVEL,
        first: FirstArg = None,
        after: Annotated[str | None, strawberry.argument(description=AFTER)] = None,
        after_distance: Annotated[
            int | None, strawberry.argument(description=AFTER_DISTANCE)
        ] = None,
    ) -> list[RelatedPeer]:
        return await _related(
            info, members.below, workspace, peer, depth, first, after, after_distance
        )

    @strawberry.field(
        description="The peers above `peer` (its parents, theirs, ...) up to `depth` levels, "
        "each once at its shortest distance, nearest first."
    )
    async def parent_peers(
        self,
        info: Info,
        workspace: WorkspaceArg,
        peer: Annotated[str, strawberry.argument(description="The peer whose parents to list.")],
        depth: ListDepthArg = ONE_LEVEL,
        first: FirstArg = None,
        after: Annotated[str | None, strawberry.argument(description=AFTER)] = None,
        after_distance: Annotated[
            int | None, strawberry.argument(description=AFTER_DISTANCE)
        ] = None,
    ) -> list[RelatedPeer]:
        return await _related(
            info, members.above, workspace, peer, depth, first, after, after_distance
        )


@strawberry.type
class MemberMutation:
    @strawberry.mutation(
        description="Make `child` a sub-peer of `parent` (a peer may have several parents); "
        "both must exist (NOT_FOUND). Refused when it would make a cycle or a chain longer than "
        "BELIEFGRAPH_MAX_PEER_DEPTH."
    )
    async def add_sub_peer(
        self, info: Info, workspace: WorkspaceArg, parent: ParentArg, child: ChildArg
    ) -> SubPeerChange:
        info.context.principal.require_workspace(workspace)
        services = info.context.services
        created = await members.add(
            services.db, workspace, parent, child, max_depth=services.settings.max_peer_depth
        )
        return SubPeerChange(parent=parent, child=child, changed=created)

    @strawberry.mutation(description="`child` stops being a sub-peer of `parent`.")
    async def remove_sub_peer(
        self, info: Info, workspace: WorkspaceArg, parent: ParentArg, child: ChildArg
    ) -> SubPeerChange:
        info.context.principal.require_workspace(workspace)
        removed = await members.remove(info.context.services.db, workspace, parent, child)
        return SubPeerChange(parent=parent, child=child, changed=removed)
