"""GraphQL mutations: each checks the caller's scope, then calls one repository or service."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from graph.errors import InvalidInput
from graph.repo import peers, sessions, workspaces
from graph.repo.sessions import MemberSettings
from reasoners.ingest.messages import MessageInput as IngestItem
from reasoners.ingest.messages import add_messages
from resolvers.auth import KeyScope, Principal, issue_key
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import as_map, meta
from resolvers.graphql.types import (
    AddMessagesResult,
    DeleteResult,
    Message,
    MessageInput,
    Peer,
    Session,
    SessionPeer,
    SessionPeerInput,
    Workspace,
)

UNSET = strawberry.UNSET


def _members(inputs: list[SessionPeerInput]) -> list[MemberSettings]:
    return [MemberSettings(p.peer, p.observe_me, p.observe_others) for p in inputs]


@strawberry.type
class Mutation:
    @strawberry.mutation(description="Get or create a workspace (admin keys only).")
    async def create_workspace(
        self,
        info: Info,
        name: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
    ) -> Workspace:
        info.context.principal.require_admin("creating workspaces")
        services = info.context.services
        record = await workspaces.get_or_create(
            services.db,
            name,
            meta(info.context, metadata, configuration, "workspace"),
        )
        return Workspace.of(record)

    @strawberry.mutation
    async def update_workspace(
        self,
        info: Info,
        name: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
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
    async def delete_workspace(self, info: Info, name: str) -> DeleteResult:
        info.context.principal.require_admin("deleting workspaces")
        deleted = await workspaces.delete(info.context.services.db, name)
        return DeleteResult(deleted_nodes=deleted)

    @strawberry.mutation(
        description="Get or create a peer: calling it again returns the existing peer unchanged."
    )
    async def create_peer(
        self,
        info: Info,
        workspace: str,
        name: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
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
        workspace: str,
        name: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        extraction_context: str | None = UNSET,
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
        )
        return Peer.of(record)

    @strawberry.mutation(description="Get or create a session, optionally adding peers to it.")
    async def create_session(
        self,
        info: Info,
        workspace: str,
        name: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        peers: list[SessionPeerInput] | None = None,
    ) -> Session:
        info.context.principal.require_session(workspace, name)
        services = info.context.services
        members = _members(peers or [])
        # Refused peers leave no session behind.
        await sessions.check_members(services.db, workspace, members)
        record = await sessions.get_or_create(
            services.db,
            workspace,
            name,
            meta(info.context, metadata, configuration, "session"),
        )
        if members:
            await sessions.add_peers(services.db, workspace, name, members)
        return Session.of(record)

    @strawberry.mutation
    async def update_session(
        self,
        info: Info,
        workspace: str,
        name: str,
        metadata: JSON | None = None,
        configuration: JSON | None = None,
        active: bool | None = None,
        context: str | None = UNSET,
    ) -> Session:
        info.context.principal.require_session(workspace, name)
        services = info.context.services
        record = await sessions.update(
            services.db,
            workspace,
            name,
            meta(info.context, metadata, configuration, "session"),
            active=active,
            context=None if context is UNSET else context,
            set_context=context is not UNSET,
        )
        return Session.of(record)

    @strawberry.mutation(
        description="Add peers to a session (or change the observation "
        "settings of peers already in it)."
    )
    async def add_session_peers(
        self, info: Info, workspace: str, session: str, peers: list[SessionPeerInput]
    ) -> list[SessionPeer]:
        info.context.principal.require_session(workspace, session)
        members = await sessions.add_peers(
            info.context.services.db, workspace, session, _members(peers)
        )
        return [SessionPeer.of(m) for m in members]

    @strawberry.mutation(description="Close the membership windows of these peers.")
    async def remove_session_peers(
        self, info: Info, workspace: str, session: str, peers: list[str]
    ) -> list[SessionPeer]:
        info.context.principal.require_session(workspace, session)
        members = await sessions.remove_peers(info.context.services.db, workspace, session, peers)
        return [SessionPeer.of(m) for m in members]

    @strawberry.mutation(description="Make exactly these peers present in the session.")
    async def set_session_peers(
        self, info: Info, workspace: str, session: str, peers: list[SessionPeerInput]
    ) -> list[SessionPeer]:
        info.context.principal.require_session(workspace, session)
        members = await sessions.set_peers(
            info.context.services.db, workspace, session, _members(peers)
        )
        return [SessionPeer.of(m) for m in members]

    @strawberry.mutation(
        description="Store 1-100 messages in one transaction. A bad item "
        "writes nothing; items with a known clientId are not stored again."
    )
    async def add_messages(
        self, info: Info, workspace: str, session: str, messages: list[MessageInput]
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
        description="Issue an API key. Admin keys may issue any key; "
        "workspace keys may issue peer and session keys of their workspace."
    )
    async def create_key(
        self,
        info: Info,
        scope: KeyScope,
        workspace: str | None = None,
        peer: str | None = None,
        session: str | None = None,
        ttl_seconds: int | None = None,
    ) -> str:
        principal = info.context.principal
        wanted = Principal(scope, workspace, peer, session)
        if wanted.scope in (KeyScope.ADMIN, KeyScope.WORKSPACE):
            principal.require_admin(f"issuing {wanted.scope.value} keys")
        else:
            principal.require_workspace(workspace or "")
        settings = info.context.services.settings
        if not settings.auth_secret:
            raise InvalidInput("set BELIEFGRAPH_AUTH_SECRET to issue keys")
        return issue_key(settings.auth_secret, wanted, ttl_seconds=ttl_seconds)
