"""GraphQL mutations of a session's members: who is present, with which observation settings.
A session key changes nothing of its session once it is closed."""

from __future__ import annotations

from typing import Annotated

import strawberry

from graph.repo import sessions
from graph.repo.sessions import MemberSettings
from resolvers.auth import Principal
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import SessionPeerInput, WorkspaceArg
from resolvers.graphql.types import SessionPeer

SessionArg = Annotated[str, strawberry.argument(description="The session's name.")]
PEERS = "The peers and their observation settings (at most 100; each must exist)."
CLOSED = " A session key changes nothing of its session once it is closed (CONFLICT)."


def members_of(inputs: list[SessionPeerInput]) -> list[MemberSettings]:
    return [MemberSettings(p.peer, p.observe_me, p.observe_others) for p in inputs]


def own_key(principal: Principal, workspace: str) -> bool:
    """Whether a session change comes from a key below the workspace's (the session's own): a
    closed session may be a deleted one (REST deletes by closing, with workspace keys only),
    and its own key neither reopens nor changes it."""
    return not principal.covers_workspace(workspace)


def _may_change(info: Info, workspace: str, session: str) -> bool:
    """Refused unless the key may change the session's members; then whether it is the
    session's own key (`open_only`: a closed session is refused it)."""
    principal = info.context.principal
    principal.require_session(workspace, session)
    return own_key(principal, workspace)


@strawberry.type
class SessionMemberMutation:
    @strawberry.mutation(
        description="Add peers to a session (or change the observation settings of peers "
        "already in it)." + CLOSED
    )
    async def add_session_peers(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: SessionArg,
        peers: Annotated[list[SessionPeerInput], strawberry.argument(description=PEERS)],
    ) -> list[SessionPeer]:
        open_only = _may_change(info, workspace, session)
        members = await sessions.add_peers(
            info.context.services.db, workspace, session, members_of(peers), open_only=open_only
        )
        return [SessionPeer.of(m) for m in members]

    @strawberry.mutation(description="Close the membership windows of these peers." + CLOSED)
    async def remove_session_peers(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: SessionArg,
        peers: Annotated[
            list[str],
            strawberry.argument(
                description="The names of the peers that leave (at most 100); the session "
                "keeps their past windows."
            ),
        ],
    ) -> list[SessionPeer]:
        open_only = _may_change(info, workspace, session)
        members = await sessions.remove_peers(
            info.context.services.db, workspace, session, peers, open_only=open_only
        )
        return [SessionPeer.of(m) for m in members]

    @strawberry.mutation(description="Make exactly these peers present in the session." + CLOSED)
    async def set_session_peers(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: SessionArg,
        peers: Annotated[
            list[SessionPeerInput],
            strawberry.argument(description=PEERS + " Members not listed leave the session."),
        ],
    ) -> list[SessionPeer]:
        open_only = _may_change(info, workspace, session)
        members = await sessions.set_peers(
            info.context.services.db, workspace, session, members_of(peers), open_only=open_only
        )
        return [SessionPeer.of(m) for m in members]
