"""GraphQL's list of a session's members, a page at a time."""

from __future__ import annotations

from typing import Annotated

import strawberry

from graph.errors import LimitExceeded
from graph.paging import MAX_LISTED
from graph.repo import sessions
from graph.validation import check_limit
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import WorkspaceArg
from resolvers.graphql.types import SessionPeer


@strawberry.type
class SessionPeerQuery:
    @strawberry.field(
        description="Peers present in a session (with past windows if asked), in the order "
        "they joined, a page at a time."
    )
    async def session_peers(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: Annotated[str, strawberry.argument(description="The session's name.")],
        include_past: Annotated[
            bool,
            strawberry.argument(
                description="Also list the windows of peers that have left (with leftAt set), "
                "one per window; default false: the current members only."
            ),
        ] = False,
        first: Annotated[
            int | None,
            strawberry.argument(
                description="Page size: 1 to the page-size limit (100 by default). Omitted "
                f"with `after`, the limit; omitted without it, the whole list (at most "
                f"{MAX_LISTED:,} windows: LIMIT_EXCEEDED past that, to page it)."
            ),
        ] = None,
        after: Annotated[
            str | None,
            strawberry.argument(
                description="The `cursor` of the last window of the previous page: the list "
                "goes on after it."
            ),
        ] = None,
    ) -> list[SessionPeer]:
        info.context.principal.require_session(workspace, session)
        db = info.context.services.db
        await sessions.get(db, workspace, session)
        # Asked for no page, the whole list, as before it had pages; bounded.
        whole = first is None and after is None
        most = info.context.services.settings.max_page_size
        found = await sessions.members_page(
            db,
            workspace,
            session,
            include_past=include_past,
            after=after,
            limit=MAX_LISTED if whole else check_limit(first, most, default=most),
        )
        if whole and found.has_next_page:
            raise LimitExceeded(
                f"session {session!r} has more than {MAX_LISTED:,} windows to list: page "
                "them with first and after",
                limit="listed",
            )
        return [SessionPeer.of(m) for m in found.items]
