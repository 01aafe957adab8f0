"""GraphQL queries: thin checks of the caller's scope over the repositories."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from importlib import metadata as package_metadata
from typing import Annotated

import strawberry

from graph.errors import InvalidInput
from graph.repo import messages, observations, peers, sessions, workspaces
from graph.repo.observation_search import ObservationQuery
from graph.validation import check_name
from reasoners.search.messages import search_messages
from resolvers.auth import KeyScope
from resolvers.by_id import read_by_id
from resolvers.graphql.belief_types import Observation, ObservationDetail
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import (
    AfterArg,
    ExcludeDerivedArg,
    ExcludeSessionIdsArg,
    FirstArg,
    IncludeStaleArg,
    IncludeSupersededArg,
    LevelsArg,
    LimitArg,
    MessageFilterInput,
    MetadataFilterArg,
    ObservedArg,
    ObserverArg,
    QueryArg,
    SessionIdsArg,
    WorkspaceArg,
    filter_map,
    message_filter,
    page_size,
)
from resolvers.graphql.members import ONE_LEVEL, Depth, DepthArg, aggregated
from resolvers.graphql.types import (
    Connection,
    Health,
    Message,
    MessageHit,
    Peer,
    Session,
    Workspace,
    connection,
)


def version() -> str:
    try:
        return package_metadata.version("beliefgraph")
    except package_metadata.PackageNotFoundError:
        return "0+unknown"


async def check_asker(info: Info, workspace: str, asker: str) -> None:
    """May this key search on behalf of `asker` (auth.Principal.may_ask_as)?"""
    check_name(asker, "asker")
    principal = info.context.principal
    members: list[str] = []
    if principal.scope is KeyScope.SESSION and principal.session is not None:
        # The asker's own windows only: a session's whole history can be long.
        joined = await sessions.joined_by(
            info.context.services.db, workspace, asker, [principal.session]
        )
        members = [asker] if joined else []
    principal.may_ask_as(workspace, asker, members)


@strawberry.type
class Query:
    @strawberry.field(description="Liveness of the API and its Neo4j connection; no key needed.")
    async def health(self, info: Info) -> Health:
        neo4j_ok = await info.context.services.db.ping()
        return Health(ok=neo4j_ok, neo4j=neo4j_ok, version=version())

    @strawberry.field(description="The version of the beliefgraph service answering.")
    def version(self) -> str:
        return version()

    @strawberry.field(description="One workspace by name (NOT_FOUND when it does not exist).")
    async def workspace(
        self,
        info: Info,
        name: Annotated[str, strawberry.argument(description="The workspace's name.")],
    ) -> Workspace | None:
        info.context.principal.in_workspace(name)
        return Workspace.of(await workspaces.get(info.context.services.db, name))

    @strawberry.field(description="All workspaces (admin keys only).")
    async def workspaces(
        self, info: Info, first: FirstArg = None, after: AfterArg = None
    ) -> Connection[Workspace]:
        info.context.principal.require_admin("the list of workspaces")
        page = await workspaces.list_page(
            info.context.services.db, after=after, limit=page_size(info.context, first)
        )
        return connection(page, Workspace.of)

    @strawberry.field(description="One peer by name (NOT_FOUND when it does not exist).")
    async def peer(
        self,
        info: Info,
        workspace: WorkspaceArg,
        name: Annotated[str, strawberry.argument(description="The peer's name.")],
    ) -> Peer | None:
        info.context.principal.require_peer(workspace, name)
        return Peer.of(await peers.get(info.context.services.db, workspace, name))

    @strawberry.field(
        description="Peers of a workspace; `metadata` keeps those whose "
        "top-level metadata keys equal the given values."
    )
    async def peers(
        self,
        info: Info,
        workspace: WorkspaceArg,
        metadata: MetadataFilterArg = None,
        first: FirstArg = None,
        after: AfterArg = None,
    ) -> Connection[Peer]:
        info.context.principal.require_workspace(workspace)
        await workspaces.get(info.context.services.db, workspace)  # NOT_FOUND, not an empty page
        page = await peers.list_page(
            info.context.services.db,
            workspace,
            metadata=filter_map(info.context, metadata, "metadata"),
            after=after,
            limit=page_size(info.context, first),
        )
        return connection(page, Peer.of)

    @strawberry.field(description="One session by name (NOT_FOUND when it does not exist).")
    async def session(
        self,
        info: Info,
        workspace: WorkspaceArg,
        name: Annotated[str, strawberry.argument(description="The session's name.")],
    ) -> Session | None:
        info.context.principal.require_session(workspace, name)
        return Session.of(await sessions.get(info.context.services.db, workspace, name))

    @strawberry.field(
        description="Sessions of a workspace in name order, filtered by metadata, state and "
        "member (a peer key lists the sessions its peer is or was in)."
    )
    async def sessions(
        self,
        info: Info,
        workspace: WorkspaceArg,
        metadata: MetadataFilterArg = None,
        active: Annotated[
            bool | None,
            strawberry.argument(
                description="Only active (true) or closed (false) sessions; omitted: both."
            ),
        ] = None,
        peer: Annotated[
            str | None,
            strawberry.argument(description="Only sessions this peer is or was a member of."),
        ] = None,
        first: FirstArg = None,
        after: AfterArg = None,
    ) -> Connection[Session]:
        info.context.principal.require_peer_or_session(workspace, peer, None)
        await workspaces.get(info.context.services.db, workspace)
        page = await sessions.list_page(
            info.context.services.db,
            workspace,
            metadata=filter_map(info.context, metadata, "metadata"),
            active=active,
            peer=peer,
            after=after,
            limit=page_size(info.context, first),
        )
        return connection(page, Session.of)

    @strawberry.field(
        description="One message by id (NOT_FOUND when it does not exist, or when the key may "
        "not read it: the same answer, so a key learns nothing of ids beyond its reach)."
    )
    async def message(
        self,
        info: Info,
        workspace: WorkspaceArg,
        id: Annotated[strawberry.ID, strawberry.argument(description="The message's id.")],
    ) -> Message | None:
        principal = info.context.principal
        principal.in_workspace(workspace)
        db = info.context.services.db
        record = await messages.get(db, workspace, str(id))
        await read_by_id(
            principal,
            db,
            workspace,
            check=lambda: principal.require_peer_or_session(workspace, record.peer, record.session),
            missing=messages.missing(workspace, str(id)),
            about=record.peer,
        )
        return Message.of(record)

    @strawberry.field(
        description="Messages oldest first (those of one time in the order they were sent), "
        "filtered, with cursor pagination."
    )
    async def messages(
        self,
        info: Info,
        workspace: WorkspaceArg,
        filter: Annotated[
            MessageFilterInput | None,
            strawberry.argument(description="Which messages to list; omitted: all of them."),
        ] = None,
        first: FirstArg = None,
        after: AfterArg = None,
    ) -> Connection[Message]:
        filters = message_filter(info.context, filter)
        info.context.principal.require_peer_or_session(workspace, filters.peer, filters.session)
        await workspaces.get(info.context.services.db, workspace)
        page = await messages.list_page(
            info.context.services.db,
            workspace,
            filters,
            after=after,
            limit=page_size(info.context, first),
        )
        return connection(page, Message.of)

    @strawberry.field(
        description="Hybrid search (vector + fulltext, fused by score; the sender's name is "
        "searched with the text; a long message is as close as its closest passage, and a "
        "message as its closest derived belief, a little less) over "
        "messages of a workspace, a session or a peer (and its sub-peers). Messages of a peer "
        "the query names, or points at through `asker`, rank a little higher."
    )
    async def search_messages(
        self,
        info: Info,
        workspace: WorkspaceArg,
        query: QueryArg,
        filter: Annotated[
            MessageFilterInput | None,
            strawberry.argument(
                description="The scope and filters: a session, a sender (with `depth`, its "
                "sub-peers too), times and metadata; omitted: the whole workspace."
            ),
        ] = None,
        limit: LimitArg = None,
        depth: Annotated[
            Depth,
            strawberry.argument(
                description="With `filter.peer`: how many levels of its sub-peers' messages "
                'to search too: 0 (the peer alone), 1 (the default), 2, ... or "ALL". Each '
                "hit's message names its sender. Another value without `filter.peer` is "
                "refused."
            ),
        ] = ONE_LEVEL,
        asker: Annotated[
            str | None,
            strawberry.argument(
                description="The peer on whose behalf the app searches (usually the user it "
                'answers). A query in the first person ("what did I order") then favours '
                'this peer\'s messages, one asking what "you" said or gave favours the other '
                "peers' in the sessions this peer has been in, most their replies to this "
                "peer's messages that match. Peers named in "
                "the query are favoured with or without it. Must be a "
                "peer of the workspace; a peer key may name only its own peer, a session key "
                "a peer of its session."
            ),
        ] = None,
    ) -> list[MessageHit]:
        filters = message_filter(info.context, filter)
        if filters.peer is None and depth != ONE_LEVEL:
            raise InvalidInput("depth chooses among a peer's sub-peers: give filter.peer with it")
        info.context.principal.require_peer_or_session(workspace, filters.peer, filters.session)
        services = info.context.services
        await workspaces.get(services.db, workspace)
        if asker is not None:
            await check_asker(info, workspace, asker)
        if filters.peer is not None:
            below = await aggregated(info, workspace, filters.peer, depth)
            filters = replace(filters, also_peers=below)
        hits = await search_messages(
            services.db,
            services.embedder,
            workspace,
            query,
            filters,
            page_size(info.context, limit),
            asker=asker,
        )
        return [MessageHit.of(h) for h in hits]

    @strawberry.field(
        description="Observer's beliefs about observed (and, with `depth`, about its "
        "sub-peers), oldest first. NOT_FOUND if either peer does not exist."
    )
    async def observations(
        self,
        info: Info,
        workspace: WorkspaceArg,
        observer: ObserverArg,
        observed: ObservedArg,
        levels: LevelsArg = None,
        include_stale: IncludeStaleArg = False,
        include_superseded: IncludeSupersededArg = False,
        first: FirstArg = None,
        after: AfterArg = None,
        as_of: Annotated[
            datetime | None,
            strawberry.argument(
                description="The beliefs as they stood at this time: written by then and not yet "
                "superseded (superseded ones come back for times before their update, with "
                "supersededAt null, as they were then).",
            ),
        ] = None,
        depth: DepthArg = ONE_LEVEL,
        session_ids: SessionIdsArg = None,
        exclude_session_ids: ExcludeSessionIdsArg = None,
        exclude_derived: ExcludeDerivedArg = False,
    ) -> Connection[Observation]:
        principal = info.context.principal
        principal.in_workspace(workspace)
        if principal.peer not in (observer, observed):
            principal.require_workspace(workspace)
        # NOT_FOUND for a misspelt name, as `context` answers, not an empty list.
        await peers.require_all(info.context.services.db, workspace, sorted({observer, observed}))
        page = await observations.list_page(
            info.context.services.db,
            workspace,
            ObservationQuery(
                observer=observer,
                observed=observed,
                levels=None if levels is None else [level.value for level in levels],
                include_stale=include_stale,
                include_superseded=include_superseded,
                as_of=as_of,
                session_ids=session_ids,
                exclude_session_ids=exclude_session_ids,
                exclude_derived=exclude_derived,
                aggregated=await aggregated(info, workspace, observed, depth),
            ),
            after=after,
            limit=page_size(info.context, first),
        )
        return connection(page, Observation.of)

    @strawberry.field(
        description="One observation with its DERIVED_FROM neighbours: premises, "
        "source message spans, and the beliefs derived from it. NOT_FOUND when it does not "
        "exist, or when the key may not read it (the same answer)."
    )
    async def observation(
        self,
        info: Info,
        workspace: WorkspaceArg,
        id: Annotated[
            strawberry.ID,
            strawberry.argument(description="The belief's id (a deleted belief is still shown)."),
        ],
    ) -> ObservationDetail | None:
        principal = info.context.principal
        principal.in_workspace(workspace)
        db = info.context.services.db
        detail = await observations.get_detail(db, workspace, str(id))
        o = detail.observation
        if principal.peer not in (o.observer, o.observed):
            await read_by_id(
                principal,
                db,
                workspace,
                check=lambda: principal.require_workspace(workspace),
                missing=observations.missing(workspace, str(id)),
                about=o.observed,
            )
        return ObservationDetail.of(detail)
