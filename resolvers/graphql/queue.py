"""GraphQL for the work queue: status, jobs, flush, retry, and the queueStatus subscription."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Annotated

import strawberry

from graph.errors import NotFound
from graph.repo import job_admin, queue_status, workspaces
from graph.repo.jobs import JobRecord
from graph.repo.queue_status import QueueStatus as QueueStatusRecord
from resolvers.auth import KeyScope, Principal
from resolvers.fair_share import share_for
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import WorkspaceArg, page_size
from resolvers.graphql.polling import Interval, wait


@strawberry.type(description="Background jobs in a scope, counted by status.")
class QueueStatus:
    pending: int = strawberry.field(
        description="Jobs waiting to run: not yet due (token target, max age, retry backoff) "
        "or due and waiting for a worker."
    )
    running: int = strawberry.field(
        description="Jobs a worker is running now (those of a worker that died count as "
        "pending once its lease runs out, when the next worker may take them)."
    )
    done: int = strawberry.field(
        description="Jobs finished within BELIEFGRAPH_JOB_RETENTION_DAYS (older ones are deleted)."
    )
    dead: int = strawberry.field(
        description="Jobs that failed every attempt and were set aside (retryJobs requeues them)."
    )
    tokens_in: int = strawberry.field(
        description="LLM input tokens the jobs counted here used, in all."
    )
    tokens_out: int = strawberry.field(
        description="LLM output tokens the jobs counted here used, in all."
    )

    @strawberry.field(description="True when nothing is pending or running.")
    def idle(self) -> bool:
        return self.pending == 0 and self.running == 0


@strawberry.type(description="A unit of background work in the durable queue.")
class Job:
    id: strawberry.ID = strawberry.field(description="The job's id.")
    kind: str = strawberry.field(
        description='What it does: "derive", "summarize", "dream", "restructure" (a rename or '
        'merge) or "split".'
    )
    status: str = strawberry.field(
        description='"pending", "running", "done" or "dead" (a job whose worker died is '
        '"pending" once its lease has run out, as queueStatus counts it: the next worker to '
        "claim it runs it)."
    )
    session: str | None = strawberry.field(
        description="The session it works on, for derive and summarize jobs."
    )
    peer: str | None = strawberry.field(
        description="The peer it concerns: a derive job's sender, a dream's observed peer, or "
        "the target of a rename, merge or split."
    )
    observer: str | None = strawberry.field(
        description="For a dream job, the peer whose view of `peer` it revises (the peer itself "
        "for its self-view); null for other kinds, and for a peer or session key when it names "
        "another peer."
    )
    attempts: int = strawberry.field(description="How many attempts it has had so far.")
    max_attempts: int = strawberry.field(
        description="Attempts allowed before the job is dead-lettered."
    )
    error: str | None = strawberry.field(
        description="The last failed attempt's error, if any: its kind and, for the service's "
        "own errors, its message; any other error's text is in the server log only."
    )
    run_after: datetime = strawberry.field(
        description="The earliest time it may run (UTC): a derive job's max age (a token "
        "target or flushQueue makes it sooner), a paced dream's start, or a failed attempt's "
        "backoff."
    )
    created_at: datetime = strawberry.field(description="When it was queued (UTC).")
    updated_at: datetime = strawberry.field(description="When it last changed (UTC).")
    tokens_in: int = strawberry.field(description="LLM input tokens its runs used.")
    tokens_out: int = strawberry.field(description="LLM output tokens its runs used.")
    notes: list[str] = strawberry.field(
        description="What the job's work could not do and went on without (a merge: each "
        "sub-peer link it did not move, as it would have made a cycle or too long a chain)."
    )
    cursor: str = strawberry.field(
        description="Pass the last job's cursor as `jobs(after:)` to list the next page."
    )


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


def _observer(r: JobRecord, principal: Principal) -> str | None:
    """A dream job's observer, for a key that may learn that peer's name: a peer key lists its
    own peer's jobs, and another peer observing it is not its to know."""
    observer = r.payload.get("observer") if r.kind == "dream" else None
    if not isinstance(observer, str):
        return None
    if principal.scope in (KeyScope.PEER, KeyScope.SESSION) and observer != principal.peer:
        return None
    return observer


def _job(r: JobRecord, principal: Principal) -> Job:
    return Job(
        id=strawberry.ID(r.id),
        kind=r.kind,
        status=r.status,
        session=r.session,
        peer=r.peer,
        observer=_observer(r, principal),
        attempts=r.attempts,
        max_attempts=r.max_attempts,
        error=r.error,
        run_after=r.run_after,
        created_at=r.created_at,
        updated_at=r.updated_at,
        tokens_in=r.tokens_in,
        tokens_out=r.tokens_out,
        notes=list(r.notes),
        cursor=job_admin.job_cursor(r),
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
        records = await job_admin.list_jobs(
            info.context.services.db,
            workspace,
            session=session,
            peer=peer,
            statuses=statuses,
            with_errors=with_errors,
            limit=page_size(info.context, first),
            after=after,
        )
        if not records:  # NOT_FOUND for a workspace that does not exist, not an empty list
            await workspaces.get(info.context.services.db, workspace)
        return [_job(r, info.context.principal) for r in records]


@strawberry.type
class QueueMutation:
    @strawberry.mutation(
        description="Make waiting work in scope run now instead of at its "
        "token target or max age (and the jobs a running unit took before they were due). "
        "Returns how many jobs were released."
    )
    async def flush_queue(
        self,
        info: Info,
        workspace: WorkspaceArg,
        session: SessionScope = None,
        peer: PeerScope = None,
    ) -> int:
        info.context.principal.require_peer_or_session(workspace, peer, session)
        return await job_admin.flush(info.context.services.db, workspace, session, peer)

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
        return await job_admin.retry_dead(
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
        services = info.context.services
        async with share_for(services, principal, may_refuse=False):  # fair_share.py
            await workspaces.refuse_if_being_deleted(services.db, workspace)
            current: QueueStatusRecord | NotFound | None = await queue_status.status(
                services.db, workspace, session, peer, scope.checked
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
                # Early once its scope is gone (a purged peer): NOT_FOUND within a look.
                await wait(interval_seconds, lambda: isinstance(latest(), NotFound))
                current = latest()
