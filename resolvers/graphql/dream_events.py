"""GraphQL for what a committed dream did: its events, in commit order (`DreamRun.events`
and the `dreamEvents` subscription)."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from enum import Enum
from typing import Any

import strawberry

from graph.repo.dream_runs import DreamRunRecord


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
