"""GraphQL mutations: each checks the caller's scope, then calls one repository or service."""

from __future__ import annotations

from typing import Annotated

import strawberry

from graph.errors import InvalidInput
from graph.repo import peers, sessions, workspaces
from reasoners.ingest.messages import MessageInput as IngestItem
from reasoners.ingest.messages import add_messages
from resolvers.auth import KeyScope, Principal, bounded_ttl, check_key_shape, issue_key
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import (
    CreateConfigurationArg,
    CreateMetadataArg,
    MessageInput,
    SessionPeerInput,
    UpdateConfigurationArg,
    UpdateMetadataArg,
    WorkspaceArg,
    as_map,
    meta,
)
from resolvers.graphql.session_members import CLOSED, PEERS, members_of, own_key
from resolvers.graphql.types import (
    AddMessagesResult,
    DeleteResult,
    Message,
    Peer,
    Session,
    Workspace,
)

UNSET = strawberry.UNSET

NAME = "Unique within the workspace: 1 to 100 letters, digits or _ . : @ -."
WorkspaceName = Annotated[
    str,
    strawberry.argument(description="The workspace's name: 1 to 100 letters, digits or _ . : @ -."),
]
PeerName = Annotated[str, strawberry.argument(description="The peer's name. " + NAME)]
SessionName = Annotated[str, strawberry.argument(description="The session's name. " + NAME)]


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Get or create a workspace (admin keys only).")
    async def create_workspace(
        self,
        info: Info,
        name: WorkspaceName,
        metadata: CreateMetadataArg = None,
        configuration: CreateConfigurationArg = None,
    ) -> Workspace:
        info.context.principal.require_admin("creating workspaces")
        services = info.context.services
        record = await workspaces.get_or_create(
            services.db,
            name,
            meta(info.context, metadata, configuration, "workspace"),
        )
        return Workspace.of(record)

    @strawberry.mutation(
        description="Replace a workspace's metadata and/or configuration; what is omitted stays."
    )
    async def update_workspace(
        self,
        info: Info,
        name: Annotated[str, strawberry.argument(description="The workspace's name.")],
        metadata: UpdateMetadataArg = None,
        configuration: UpdateConfigurationArg = None,
    ) -> Workspace:
        info.context.principal.require_workspace(name)
        services = info.context.services
        record = await workspaces.update(
            services.db,
            name,
            meta(info.context, metadata, configuration, "workspace"),
        )
        return Workspace.of(record)

    @strawberry.mutation(description="Delete a workspace and everything in it (admin keys only).")
    async def delete_workspace(
        self,
        info: Info,
        name: Annotated[str, strawberry.argument(description="The workspace's name.")],
    ) -> DeleteResult:
        info.context.principal.require_admin("deleting workspaces")
        deleted = await workspaces.delete(info.context.services.db, name)
        return DeleteResult(deleted_nodes=deleted)

    @strawberry.mutation(
        description="Get or create a peer: calling it again returns the existing peer unchanged."
    )
    async def create_peer(
        self,
        info: Info,
        workspace: WorkspaceArg,
        name: PeerName,
        metadata: CreateMetadataArg = None,
        configuration: CreateConfigurationArg = None,
    ) -> Peer:
        info.context.principal.require_peer(workspace, name)
        services = info.context.services
        record = await peers.get_or_create(
            services.db,
            workspace,
            name,
            meta(info.context, metadata, configuration, "peer"),
        )
        return Peer.of(record)

    @strawberry.mutation(
        description="Update a peer; omitted arguments stay as they are, "
        "extractionContext: null clears it."
    )
    async def update_peer(
        self,
        info: Info,
        workspace: WorkspaceArg,
        name: Annotated[str, strawberry.argument(description="The peer's name.")],
        metadata: UpdateMetadataArg = None,
        configuration: UpdateConfigurationArg = None,
        extraction_context: Annotated[
            str | None,
            strawberry.argument(
                description="Instructions for fact extraction from this peer's messages; null "
                "clears them, omitted keeps them."
            ),
        ] = UNSET,
    ) -> Peer:
        info.context.principal.require_peer(workspace, name)
        services = info.context.services
        record = await peers.update(
            services.db,
            workspace,
            name,
            meta(info.context, metadata, configuration, "peer"),
            extraction_context=None if extraction_context is UNSET else extraction_context,
            set_extraction_context=extraction_context is not UNSET,
            may_observe_again=info.context.principal.scope is not KeyScope.PEER,
        )
        return Peer.of(record)

    @strawberry.mutation(description="Get or create a session, optionally adding peers to it.")
    async def create_session(
        self,
        info: Info,
        workspace: WorkspaceArg,
        name: SessionName,
        metadata: CreateMetadataArg = None,
        configuration: CreateConfigurationArg = None,
        peers: Annotated[
            list[SessionPeerInput] | None,
            strawberry.argument(
                description=PEERS + " They are added (or their settings updated) whether or "
                "not the session existed; a refused peer leaves no new session behind." + CLOSED
            ),
        ] = None,
    ) -> Session:
        principal = info.context.principal
        principal.require_session(workspace, name)
        services = info.context.services
        members = members_of(peers or [])
        # Refused peers leave no session behind.
        await sessions.check_members(services.db, workspace, members)
        record = await sessions.get_or_create(
            services.db,
            workspace,
            name,
            meta(info.context, metadata, configuration, "session"),
        )
        if members:
            await sessions.add_peers(
                services.db, workspace, name, members, open_only=own_key(principal, workspace)
            )
        return Session.of(record)

    @strawberry.mutation(
        description="Update a session; omitted arguments stay as they are, context: null clears "
        "it. A session key changes nothing of its session once it is closed (CONFLICT)."
    )
    async def update_session(
        self,
        info: Info,
        workspace: WorkspaceArg,
        name: Annotated[str, strawberry.argument(description="The session's name.")],
        metadata: UpdateMetadataArg = None,
        configuration: UpdateConfigurationArg = None,
        active: Annotated[
            bool | None,
            strawberry.argument(
                description="Close (false: it takes no more messages) or reopen (true) the "
                "session. Reopening takes a workspace key."
            ),
        ] = None,
        context: Annotated[
            str | None,
            strawberry.argument(
                description="Instructions for fact extraction from this session's messages; "
                "null clears them, omitted keeps them."
            ),
        ] = UNSET,
    ) -> Session:
        principal = info.context.principal
        principal.require_session(workspace, name)
        services = info.context.services
        record = await sessions.update(
            services.db,
            workspace,
            name,
            meta(info.context, metadata, configuration, "session"),
            active=active,
            context=None if context is UNSET else context,
            set_context=context is not UNSET,
            open_only=own_key(principal, workspace),
        )
        return Session.of(record)

    @strawberry.mutation(
        description="Store 1-100 messages in one transaction. A bad item "
        "writes nothing; items with a known clientId are not stored again."
    )
    async def add_messages(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: Annotated[
            str, strawberry.argument(description="The session to post into; it must exist.")
        ],
        messages: Annotated[
            list[MessageInput],
            strawberry.argument(description="The messages, 1 to 100 (by default), in order."),
        ],
    ) -> AddMessagesResult:
        principal = info.context.principal
        # A peer key posts as its peer only, into sessions its peer is already in: joining
        # would show it the session's later messages and is for workspace or session keys.
        as_peer = principal.scope is KeyScope.PEER and principal.workspace == workspace
        if as_peer:
            for m in messages:
                principal.require_peer(workspace, m.peer)
        else:
            principal.require_session(workspace, session)
        services = info.context.services
        result = await add_messages(
            services.db,
            services.embedder,
            services.tokens,
            services.settings,
            workspace,
            session,
            [
                IngestItem(
                    peer=m.peer,
                    content=m.content,
                    metadata=as_map(m.metadata, f"messages[{i}].metadata"),
                    context=m.context,
                    created_at=m.created_at,
                    client_id=m.client_id,
                )
                for i, m in enumerate(messages)
            ],
            may_join=not as_peer,
        )
        return AddMessagesResult(
            messages=[Message.of(m) for m in result.messages], created=result.created
        )

    @strawberry.mutation(
        description="Issue an API key (with auth on: INVALID_INPUT otherwise). Admin keys may "
        "issue any key; workspace keys may issue peer and session keys of their workspace."
    )
    async def create_key(
        self,
        info: Info,
        scope: Annotated[KeyScope, strawberry.argument(description="What the key may access.")],
        workspace: Annotated[
            str | None,
            strawberry.argument(
                description="The workspace of a workspace, peer or session key (none for an "
                "admin key)."
            ),
        ] = None,
        peer: Annotated[
            str | None, strawberry.argument(description="The peer of a peer key, and only then.")
        ] = None,
        session: Annotated[
            str | None,
            strawberry.argument(description="The session of a session key, and only then."),
        ] = None,
        ttl_seconds: Annotated[
            int | None,
            strawberry.argument(
                description="Seconds until the key expires, at least 1; omitted: it never "
                "expires (rotating the server's secret revokes every key). A key issued with a "
                "key that expires expires no later than that key."
            ),
        ] = None,
    ) -> str:
        services = info.context.services
        settings = services.settings
        if not settings.auth_enabled:
            # Every caller is the admin then: any local process could mint keys, valid
            # wherever the secret is shared with a server that checks them.
            raise InvalidInput(
                "keys are issued only with auth on (BELIEFGRAPH_AUTH=on, or auto off loopback), "
                "or with `beliefgraph key`"
            )
        principal = info.context.principal
        wanted = Principal(scope, workspace, peer, session)
        check_key_shape(wanted)  # before the key check: the shape tells nothing
        if wanted.scope in (KeyScope.ADMIN, KeyScope.WORKSPACE):
            principal.require_admin(f"issuing {wanted.scope.value} keys")
        else:
            principal.require_workspace(workspace or "")
        # A key for a peer or session that does not exist reaches nothing, but counted as a
        # holder of its own (its 50 sockets): issued for made-up names, keys multiplied them.
        if wanted.scope is KeyScope.PEER and peer is not None and workspace is not None:
            await peers.get(services.db, workspace, peer)
        if wanted.scope is KeyScope.SESSION and session is not None and workspace is not None:
            await sessions.get(services.db, workspace, session)
        return issue_key(
            settings.auth_secret, wanted, ttl_seconds=bounded_ttl(principal, ttl_seconds)
        )
