"""GraphQL for dreams: `scheduleDream`, `dreamRuns`, and the `dreamEvents` subscription.

A dream belongs to its observer: scheduling one needs the observer's key (or a workspace or
admin key); reading runs and events, like reading the representation, also the observed
peer's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncGenerator
from datetime import datetime
from enum import Enum
from typing import Annotated, Any

import strawberry

from graph.errors import InvalidInput, NotFound
from graph.keys import Representation
from graph.repo import dream_runs, dreams, peers
from graph.repo.dream_runs import DreamRunRecord
from reasoners.dreamer import scheduling
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import ObservedArg, ObserverArg, WorkspaceArg, page_size
from resolvers.graphql.polling import Interval, wait
from resolvers.shared_look import GONE

RUNS_PER_POLL = 20


@strawberry.enum(description="What a dream event reports.")
class DreamEventKind(Enum):
    RUN = strawberry.enum_value(
        "run", description="The run's first event, with its trigger and mode; always sent."
    )
    BELIEF = strawberry.enum_value(
        "belief",
        description="A new deductive, inductive or contradiction belief, with its premises.",
    )
    SUPERSEDED = strawberry.enum_value(
        "superseded", description="A knowledge update: `belief` replaced `replaced`."
    )
    PRUNED = strawberry.enum_value(
        "pruned", description="A derived belief marked stale, with the reason."
    )
    CARD = strawberry.enum_value(
        "card", description="Lines added to and removed from the peer card."
    )
    RECONCILED = strawberry.enum_value(
        "reconciled",
        description="A belief left stale by a change (a deleted, edited or corrected source) "
        "judged: kept, reworded or dropped.",
    )


@strawberry.type(description="A belief as a dream event names it.")
class BeliefRef:
    id: strawberry.ID = strawberry.field(description="The belief's id.")
    level: str | None = strawberry.field(
        description='"explicit", "deductive", "inductive" or "contradiction".'
    )
    content: str = strawberry.field(description="Its text, cut to its first 300 characters.")

    @classmethod
    def of(cls, ref: dict[str, Any] | None) -> BeliefRef | None:
        if ref is None:
            return None
        return cls(id=strawberry.ID(str(ref["id"])), level=ref.get("level"), content=ref["content"])


@strawberry.type(
    description="What a committed dream did, in commit order. RUN comes first for every run, "
    "with its trigger and mode, even when the run changed nothing. BELIEF: a new deductive, "
    "inductive or "
    "contradiction belief with its premises (and the belief it replaced, for a knowledge "
    "update). SUPERSEDED: `belief` replaced `replaced`. PRUNED: a derived belief marked stale. "
    "CARD: lines added to and removed from the peer card. RECONCILED: a belief awaiting a "
    "verdict since a change left it stale, judged (these come first, after RUN: the dream "
    "writes its verdicts before its plan)."
)
class DreamEvent:
    run: strawberry.ID = strawberry.field(description="The id of the run (DreamRun.id).")
    run_number: int = strawberry.field(description="The representation's run number, from 1.")
    index: int = strawberry.field(description="Position in the run, in commit order.")
    kind: DreamEventKind = strawberry.field(description="What the event reports.")
    committed_at: datetime = strawberry.field(description="When the run committed (UTC).")
    belief: BeliefRef | None = strawberry.field(
        default=None,
        description="BELIEF: the new belief; SUPERSEDED: the newer version; PRUNED: the belief "
        "marked stale; RECONCILED: the belief judged, with its words after the verdict.",
    )
    premises: list[BeliefRef] = strawberry.field(
        default_factory=list, description="BELIEF: the beliefs it was derived from."
    )
    replaced: BeliefRef | None = strawberry.field(
        default=None,
        description="SUPERSEDED, and BELIEF for a knowledge update: the belief replaced.",
    )
    pattern_type: str | None = strawberry.field(
        default=None, description="BELIEF, for an induction: the kind of pattern."
    )
    confidence: float | None = strawberry.field(
        default=None, description="BELIEF, for an induction: its confidence."
    )
    reason: str | None = strawberry.field(
        default=None,
        description="PRUNED: why the belief was marked stale; RECONCILED: why it awaited a "
        "verdict.",
    )
    verdict: str | None = strawberry.field(
        default=None,
        description='RECONCILED: "keep" (current again; for a replaced version, sound history '
        'again), "update" (the same, reworded) or "drop" (tombstoned).',
    )
    card_added: list[str] = strawberry.field(
        default_factory=list, description="CARD: the lines added to the peer card."
    )
    card_removed: list[str] = strawberry.field(
        default_factory=list, description="CARD: the lines removed from the peer card."
    )
    trigger: str | None = strawberry.field(default=None, description="On RUN events.")
    mode: str | None = strawberry.field(default=None, description="On RUN events.")
    events: int | None = strawberry.field(
        default=None,
        description="On RUN events: how many events the run sends, this one included (indexes "
        "0 to events - 1). A client cut off before the last resumes with afterRun set to the "
        "run before this one, and drops what it had of it.",
    )


def events_of(run: DreamRunRecord) -> list[DreamEvent]:
    def common(index: int) -> dict[str, Any]:
        return {
            "run": strawberry.ID(run.id),
            "run_number": run.seq,
            "index": index,
            "committed_at": run.finished_at,
        }

    found = [DreamEvent(kind=DreamEventKind.RUN, trigger=run.trigger, mode=run.mode, **common(0))]
    for index, event in enumerate(run.events, start=1):
        kind = event.get("kind")
        if kind == "belief":
            belief = event["belief"]
            found.append(
                DreamEvent(
                    kind=DreamEventKind.BELIEF,
                    belief=BeliefRef.of(belief),
                    premises=[b for b in map(BeliefRef.of, event["premises"]) if b is not None],
                    replaced=BeliefRef.of(event.get("replaced")),
                    pattern_type=belief.get("pattern_type"),
                    confidence=belief.get("confidence"),
                    **common(index),
                )
            )
        elif kind == "superseded":
            found.append(
                DreamEvent(
                    kind=DreamEventKind.SUPERSEDED,
                    belief=BeliefRef.of(event["new"]),
                    replaced=BeliefRef.of(event["old"]),
                    **common(index),
                )
            )
        elif kind == "pruned":
            found.append(
                DreamEvent(
                    kind=DreamEventKind.PRUNED,
                    belief=BeliefRef.of(event["belief"]),
                    reason=event.get("reason"),
                    **common(index),
                )
            )
        elif kind == "reconciled":
            found.append(
                DreamEvent(
                    kind=DreamEventKind.RECONCILED,
                    belief=BeliefRef.of(event.get("belief")),
                    verdict=event.get("verdict"),
                    reason=event.get("reason"),
                    **common(index),
                )
            )
        elif kind == "card":
            found.append(
                DreamEvent(
                    kind=DreamEventKind.CARD,
                    card_added=list(event["added"]),
                    card_removed=list(event["removed"]),
                    **common(index),
                )
            )
    found[0] = dataclasses.replace(found[0], events=len(found))
    return found


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
    mode: str = strawberry.field(description="rules (no LLM) or llm")
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
        "does not exist."
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
        db = info.context.services.db
        # A stream for peers that do not exist would wait for good: a misspelt name is an error.
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
                    raise NotFound(
                        f"peer {observer!r} or {observed!r} no longer exists in {workspace!r} "
                        "(purged, merged away or renamed)"
                    )
                if count is not None and seen is not None and count < seen:
                    after_run = 0  # made again since (its runs start over): follow the new one
                seen = count if count is not None else seen
                runs = []
                if count is None or count > after_run:  # the runs only once the count moved
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
