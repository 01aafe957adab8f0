"""GraphQL for dreams: `scheduleDream`, `dreamRuns`, and the `dreamEvents` subscription.

A dream belongs to its observer: scheduling one needs the observer's key (or a workspace or
admin key); reading runs and events, like reading the representation, also the observed
peer's.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Annotated

import strawberry

from graph.errors import InvalidInput, NotFound
from graph.keys import Representation
from graph.repo import dream_runs, dreams, peers, workspaces
from graph.repo.dream_runs import DreamRunRecord
from reasoners.dreamer import scheduling
from resolvers.fair_share import share_for
from resolvers.graphql.context import Info
from resolvers.graphql.dream_events import DreamEvent, events_of
from resolvers.graphql.inputs import ObservedArg, ObserverArg, WorkspaceArg, page_size
from resolvers.graphql.polling import Interval, wait
from resolvers.shared_look import GONE

RUNS_PER_POLL = 20


@strawberry.type(description="One committed dream of a representation.")
class DreamRun:
    id: strawberry.ID = strawberry.field(description="The run's id.")
    observer: str = strawberry.field(description="The peer whose beliefs were revised.")
    observed: str = strawberry.field(description="The peer those beliefs are about.")
    run_number: int = strawberry.field(
        description="The representation's run number, from 1; never reused."
    )
    trigger: str = strawberry.field(
        description="What started it: threshold (enough new beliefs), idle, manual (the app "
        "asked: scheduleDream) or reconcile (a change left beliefs to settle: an edit, "
        "deletion, correction, merge, split or rename, or another dream's knowledge update)."
    )
    mode: str = strawberry.field(description="How it dreamed: rules (no LLM) or llm.")
    started_at: datetime = strawberry.field(description="When the dream started (UTC).")
    finished_at: datetime = strawberry.field(description="When it committed (UTC).")
    observations_read: int = strawberry.field(
        description="Beliefs it read that no dream had read before."
    )
    created: int = strawberry.field(description="New derived beliefs, contradictions included.")
    superseded: int = strawberry.field(description="Beliefs it replaced with a newer version.")
    contradictions: int = strawberry.field(description="New contradiction beliefs.")
    pruned: int = strawberry.field(description="Derived beliefs it marked stale.")
    card_changes: int = strawberry.field(
        description="Lines added to and removed from the peer card."
    )
    tokens_in: int = strawberry.field(description="LLM input tokens it used (0 with rules).")
    tokens_out: int = strawberry.field(description="LLM output tokens it used (0 with rules).")
    events: list[DreamEvent] = strawberry.field(
        description="What it did, in commit order, starting with its RUN event."
    )

    @classmethod
    def of(cls, r: DreamRunRecord) -> DreamRun:
        return cls(
            id=strawberry.ID(r.id),
            observer=r.observer,
            observed=r.observed,
            run_number=r.seq,
            trigger=r.trigger,
            mode=r.mode,
            started_at=r.started_at,
            finished_at=r.finished_at,
            observations_read=r.observations,
            created=r.created,
            superseded=r.superseded,
            contradictions=r.contradictions,
            pruned=r.pruned,
            card_changes=r.card_changes,
            tokens_in=r.tokens_in,
            tokens_out=r.tokens_out,
            events=events_of(r),
        )


@strawberry.type(description="The dream job scheduleDream made runnable or queued.")
class ScheduledDream:
    job_id: strawberry.ID = strawberry.field(
        description="The dream's job (see `jobs`, kind dream: listed under the observed "
        "peer, `jobs(peer: observed)`, which a workspace key or the observed peer's key reads; "
        "the observer's key follows it with `dreamEvents`)."
    )
    created: bool = strawberry.field(
        description="False when a dream of this representation was already waiting (it is "
        "made runnable now). A dream already running does not count: it read the beliefs "
        "before this call, so a new one is queued to run after it."
    )


def _require_view(info: Info, workspace: str, observer: str, observed: str) -> Representation:
    principal = info.context.principal
    principal.in_workspace(workspace)
    if principal.peer not in (observer, observed):
        principal.require_workspace(workspace)
    return Representation(workspace, observer, observed)


@strawberry.type
class DreamQuery:
    @strawberry.field(
        description="A representation's committed dreams, newest first. NOT_FOUND if either "
        "peer does not exist."
    )
    async def dream_runs(
        self,
        info: Info,
        workspace: WorkspaceArg,
        observer: ObserverArg,
        observed: ObservedArg,
        before: Annotated[
            int | None,
            strawberry.argument(
                description="Only runs numbered below this (pass the last runNumber of the "
                "previous page); omitted: from the newest."
            ),
        ] = None,
        first: Annotated[
            int | None,
            strawberry.argument(
                description="How many runs: 1 to the page-size limit (100 by default); 20 "
                "when omitted."
            ),
        ] = None,
    ) -> list[DreamRun]:
        view = _require_view(info, workspace, observer, observed)
        if before is not None and before < 1:
            raise InvalidInput(f"before is a run number, from 1: {before} names none")
        db = info.context.services.db
        # A misspelt name is an error, as for `observations`, not an empty history.
        await peers.require_all(db, workspace, sorted({observer, observed}))
        runs = await dream_runs.list_runs(
            db, view, before=before, limit=page_size(info.context, first)
        )
        return [DreamRun.of(r) for r in runs]


@strawberry.type
class DreamMutation:
    @strawberry.mutation(
        description="Dream now over observer's beliefs about observed (default: itself): the "
        "dream already waiting, made runnable now, else a new dream job (queued behind one "
        "that is running, which read the beliefs before this call)."
    )
    async def schedule_dream(
        self,
        info: Info,
        workspace: WorkspaceArg,
        observer: Annotated[
            str, strawberry.argument(description="The peer whose beliefs the dream revises.")
        ],
        observed: Annotated[
            str | None,
            strawberry.argument(
                description="The peer those beliefs are about; omitted: the observer itself."
            ),
        ] = None,
    ) -> ScheduledDream:
        target = observed or observer
        info.context.principal.require_peer(workspace, observer)
        services = info.context.services
        await peers.require_all(services.db, workspace, sorted({observer, target}))
        if not scheduling.enabled(services.settings):
            raise InvalidInput("dreams are off (BELIEFGRAPH_DREAM_MODE=off)")
        job_id, created = await scheduling.on_demand(
            services.db, services.settings, Representation(workspace, observer, target)
        )
        return ScheduledDream(job_id=strawberry.ID(job_id), created=created)


@strawberry.type
class DreamSubscription:
    @strawberry.subscription(
        description="Each committed dream's events, in commit order, as they commit: from the "
        "run after `afterRun` (default: runs committed from now on). NOT_FOUND if either peer "
        "does not exist or the workspace is being deleted (and the stream ends when either "
        "becomes so)."
    )
    async def dream_events(
        self,
        info: Info,
        workspace: WorkspaceArg,
        observer: ObserverArg,
        observed: ObservedArg,
        after_run: Annotated[
            int | None,
            strawberry.argument(
                description="Replay from the run after this run number (a subscriber that "
                "reconnects passes the last runNumber it got; past the last run committed, or "
                "below 0, is INVALID_INPUT); omitted: runs committed from now on."
            ),
        ] = None,
        interval_seconds: Interval = 1.0,
    ) -> AsyncGenerator[DreamEvent, None]:
        view = _require_view(info, workspace, observer, observed)
        services = info.context.services
        db = services.db
        # Its own reads (these, then a replay's pages) in the key holder's share, as any
        # operation's: streams are not counted by it, and thousands replaying at once took
        # every connection.
        async with share_for(services, info.context.principal, may_refuse=False):
            await workspaces.refuse_if_being_deleted(db, workspace)
            # A stream for peers that do not exist would wait for good: a misspelt name is an
            # error.
            await peers.require_all(db, workspace, sorted({observer, observed}))
            committed = (await dreams.state(db, view)).dream_runs
        if after_run is None:
            after_run = committed
        elif after_run < 0:
            raise InvalidInput(f"afterRun is a run number, or 0 for all: not {after_run}")
        elif after_run > committed:
            # Its runs would never be sent: a number kept from before the representation was
            # made again (its runs start over), or another representation's.
            raise InvalidInput(
                f"afterRun {after_run} is past the last run of {observer!r} about {observed!r} "
                f"({committed}): pass a runNumber this representation has sent, or 0"
            )
        seen: int | None = None  # the count at the last look
        async with info.context.services.dream_watch.watching(view) as latest:
            while True:
                # The key again at each poll: one that expires ends the stream (UNAUTHENTICATED).
                _require_view(info, workspace, observer, observed)
                count = latest()
                if count == GONE:
                    # Its workspace's deletion, or the workspace gone, named as such: a read in
                    # the share, as every stream of the workspace ends at once.
                    async with share_for(services, info.context.principal, may_refuse=False):
                        await workspaces.refuse_if_gone(db, workspace)
                    who = " or ".join(repr(p) for p in dict.fromkeys((observer, observed)))
                    raise NotFound(
                        f"peer {who} no longer exists in workspace {workspace!r} (purged, "
                        "merged away or renamed)"
                    )
                if count is not None and seen is not None and count < seen:
                    after_run = 0  # made again since (its runs start over): follow the new one
                seen = count if count is not None else seen
                runs = []
                if count is None or count > after_run:  # the runs only once the count moved
                    async with share_for(services, info.context.principal, may_refuse=False):
                        runs = await dream_runs.runs_since(
                            db, view, after=after_run, limit=RUNS_PER_POLL
                        )
                for run in runs:
                    for event in events_of(run):
                        yield event
                    after_run = run.seq
                if len(runs) < RUNS_PER_POLL:
                    # Runs up to the count read are committed: any not returned were purged.
                    after_run = max(after_run, count or 0)
                    await wait(interval_seconds, lambda: latest() == GONE)
