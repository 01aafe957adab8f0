"""GraphQL for the work queue: status, jobs, flush, retry, and the queueStatus subscription."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator
from typing import Annotated

import strawberry

from graph.errors import NotFound
from graph.repo import jobs, queue_status
from graph.repo.jobs import JobRecord
from graph.repo.queue_status import QueueStatus as QueueStatusRecord
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import WorkspaceArg, page_size
from resolvers.graphql.polling import Interval, pause
from resolvers.graphql.types import Job, QueueStatus

SessionScope = Annotated[
    str | None,
    strawberry.argument(description="Only the jobs of this session; omitted: any session."),
]
PeerScope = Annotated[
    str | None,
    strawberry.argument(
        description="Only the jobs of this peer (see Job.peer); omitted: any peer."
    ),
]


def _status(record: QueueStatusRecord) -> QueueStatus:
    return QueueStatus(
        pending=record.pending,
        running=record.running,
        done=record.done,
        dead=record.dead,
        tokens_in=record.tokens_in,
        tokens_out=record.tokens_out,
    )


def _job(r: JobRecord) -> Job:
    return Job(
        id=strawberry.ID(r.id),
        kind=r.kind,
        status=r.status,
        session=r.session,
        peer=r.peer,
        attempts=r.attempts,
        max_attempts=r.max_attempts,
        error=r.error,
        run_after=r.run_after,
        created_at=r.created_at,
        updated_at=r.updated_at,
        tokens_in=r.tokens_in,
        tokens_out=r.tokens_out,
        notes=list(r.notes),
        cursor=jobs.job_cursor(r),
    )


@strawberry.type
class QueueQuery:
    @strawberry.field(
        description="Jobs by status at workspace, session or peer scope (NOT_FOUND for a "
        "workspace, session or peer that does not exist; a peer or session key learns that only "
        "of its own peer or session, and counts zero jobs of another name)."
    )
    async def queue_status(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: SessionScope = None,
        peer: PeerScope = None,
    ) -> QueueStatus:
        principal = info.context.principal
        principal.require_peer_or_session(workspace, peer, session)
        checked = principal.names_it_may_check()
        return _status(
            await queue_status.status(info.context.services.db, workspace, session, peer, checked)
        )

    @strawberry.field(
        description="Jobs, most recently updated first; dead-lettered ones keep their last error. "
        "Page on with `after`."
    )
    async def jobs(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: SessionScope = None,
        peer: PeerScope = None,
        statuses: Annotated[
            list[str] | None,
            strawberry.argument(
                description='Only jobs in these statuses ("pending", "running", "done", '
                '"dead"; another is INVALID_INPUT); omitted: any.'
            ),
        ] = None,
        with_errors: Annotated[
            bool,
            strawberry.argument(
                description="Only jobs with an error recorded (a failed attempt's); default false."
            ),
        ] = False,
        first: Annotated[
            int | None,
            strawberry.argument(
                description="How many to list: 1 to the page-size limit (100 by default); 20 "
                "when omitted."
            ),
        ] = None,
        after: Annotated[
            str | None,
            strawberry.argument(
                description="The cursor of the last job of the previous page: the list goes on "
                "from where that job stood when it was read; omitted: from the most recent."
            ),
        ] = None,
    ) -> list[Job]:
        info.context.principal.require_peer_or_session(workspace, peer, session)
        records = await jobs.list_jobs(
            info.context.services.db,
            workspace,
            session=session,
            peer=peer,
            statuses=statuses,
            with_errors=with_errors,
            limit=page_size(info.context, first),
            after=after,
        )
        return [_job(r) for r in records]


@strawberry.type
class QueueMutation:
    @strawberry.mutation(
        description="Make waiting work in scope run now instead of at its "
        "token target or max age. Returns how many jobs were released."
    )
    async def flush_queue(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: SessionScope = None,
        peer: PeerScope = None,
    ) -> int:
        info.context.principal.require_peer_or_session(workspace, peer, session)
        return await jobs.flush(info.context.services.db, workspace, session, peer)

    @strawberry.mutation(
        description="Put dead-lettered jobs back in the queue (all in scope, or those listed)."
    )
    async def retry_jobs(
        self,
        info: Info,
        workspace: WorkspaceArg,
        ids: Annotated[
            list[strawberry.ID] | None,
            strawberry.argument(
                description="Only these jobs (those not dead-lettered are left alone); "
                "omitted: every dead-lettered job in scope."
            ),
        ] = None,
        session: SessionScope = None,
        peer: PeerScope = None,
    ) -> int:
        info.context.principal.require_workspace(workspace)
        return await jobs.retry_dead(
            info.context.services.db,
            workspace,
            ids=[str(i) for i in ids] if ids is not None else None,
            session=session,
            peer=peer,
        )


@strawberry.type
class Subscription:
    @strawberry.subscription(
        description="Queue status, sent when it changes; with untilIdle "
        "the stream completes once nothing is pending or running."
    )
    async def queue_status(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: SessionScope = None,
        peer: PeerScope = None,
        interval_seconds: Interval = 1.0,
        until_idle: Annotated[
            bool,
            strawberry.argument(
                description="End the stream once nothing is pending or running; default "
                "false: it runs until you stop it."
            ),
        ] = False,
    ) -> AsyncGenerator[QueueStatus, None]:
        principal = info.context.principal
        principal.require_peer_or_session(workspace, peer, session)
        scope = queue_status.QueueScope(workspace, session, peer, principal.names_it_may_check())
        # The first status at once (a misspelt name is an error now, not at the first tick);
        # then the values of the process's shared look read after it, never an older one.
        current: QueueStatusRecord | NotFound | None = await queue_status.status(
            info.context.services.db, workspace, session, peer, scope.checked
        )
        since = time.monotonic()
        last: QueueStatusRecord | None = None
        async with info.context.services.queue_watch.watching(scope, since) as latest:
            while True:
                # The key at each poll: one that expires ends the stream (UNAUTHENTICATED).
                info.context.principal.require_peer_or_session(workspace, peer, session)
                if isinstance(current, NotFound):  # gone since the stream began
                    raise NotFound(current.message)  # the look's own is shared by streams
                if current is not None and current != last:
                    yield _status(current)
                    last = current
                if until_idle and last is not None and last.pending == 0 and last.running == 0:
                    return
                await asyncio.sleep(pause(interval_seconds))
                current = latest()
