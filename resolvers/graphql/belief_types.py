"""GraphQL types of beliefs: an observation, its level, and its provenance."""

from __future__ import annotations

from datetime import datetime

import strawberry

from graph import models, records
from graph.repo.observations import DETAIL_DEPENDENTS, DETAIL_SOURCES
from resolvers.graphql.types import Message, described_enum

ObservationLevel = models.ObservationLevel
described_enum(
    ObservationLevel,
    description="Where a belief sits in the derivation hierarchy.",
    values={
        "EXPLICIT": "A fact taken from a message, with the verbatim words it rests on.",
        "DEDUCTIVE": "A conclusion a dream drew from other beliefs, its premises.",
        "INDUCTIVE": "A pattern (preference, behaviour, trait or trend) a dream generalized "
        "from at least two beliefs.",
        "CONTRADICTION": "A conflict a dream found between two beliefs, citing both; it is "
        "flagged, not resolved.",
    },
)


@strawberry.type(
    description="A belief: what one peer (the observer) holds about another or about itself "
    "(the observed), traceable to the messages or beliefs it came from."
)
class Observation:
    id: strawberry.ID = strawberry.field(description="The belief's id.")
    workspace: str = strawberry.field(description="The workspace it belongs to.")
    observer: str = strawberry.field(description="The peer that holds the belief.")
    observed: str = strawberry.field(description="The peer the belief is about.")
    level: ObservationLevel = strawberry.field(
        description="Explicit fact, deduction, induction or contradiction."
    )
    content: str = strawberry.field(description="The belief, as a sentence.")
    created_at: datetime = strawberry.field(description="When it was written (UTC).")
    valid_at: datetime | None = strawberry.field(
        description="When the fact was stated (UTC): for a fact taken from a message, that "
        "message's createdAt; null for beliefs a dream drew."
    )
    session: str | None = strawberry.field(
        description="The session it was taken from (for a fact stated in several, the one "
        "its validAt is from; session filters find it through any of them); null for beliefs "
        "of no session, such as a dream's deductions and inductions."
    )
    confidence: float | None = strawberry.field(
        description="For an induction: n / (n + 1) for its n premises; null otherwise."
    )
    pattern_type: str | None = strawberry.field(
        description='For an induction: "preference", "behaviour", "trait" or "temporal '
        'trend"; null otherwise.'
    )
    times_derived: int = strawberry.field(
        description="How many times the fact was taken from messages: a repeat adds one "
        "instead of a new belief, and a deleted or edited message that no longer states it "
        "takes its one away (never below 1)."
    )
    stale: bool = strawberry.field(
        description="True when something it rests on changed (a deleted or edited message, a "
        "corrected or superseded premise) or a dream pruned it; stale beliefs leave default "
        "reads."
    )
    stale_reason: str | None = strawberry.field(
        description="Why it turned stale; null while it is not."
    )
    facets: list[str] = strawberry.field(
        description="Tags of the belief; the service writes none of its own, so the list is "
        "empty (a correction keeps the old version's)."
    )
    superseded_at: datetime | None = strawberry.field(
        description="When a newer version replaced it (a knowledge update or a correction); "
        "null while it is current."
    )
    deleted_at: datetime | None = strawberry.field(
        description="When it was deleted (by deleteObservation, a deletion of its messages or "
        "a dream's reconciliation): a deleted belief leaves every list and search, and only "
        "`observation` by id, and provenance lists reached from it, still show it, with this set."
    )
    origin: str | None = strawberry.field(
        description='What wrote it: "deriver", "dreamer:rules" (no LLM), "dreamer:llm", '
        '"correction" (correctObservation) or "api" (stated by an app, with no source message).'
    )

    @classmethod
    def of(cls, r: records.ObservationRecord) -> Observation:
        return cls(
            id=strawberry.ID(r.id),
            workspace=r.workspace,
            observer=r.observer,
            observed=r.observed,
            level=ObservationLevel(r.level),
            content=r.content,
            created_at=r.created_at,
            valid_at=r.valid_at,
            session=r.session,
            confidence=r.confidence,
            pattern_type=r.pattern_type,
            times_derived=r.times_derived,
            stale=r.stale,
            stale_reason=r.stale_reason,
            facets=r.facets,
            superseded_at=r.superseded_at,
            deleted_at=r.deleted_at,
            origin=r.origin,
        )


@strawberry.type(description="A message a belief was taken from, with the words it rests on.")
class SourceSpan:
    message: Message = strawberry.field(description="The source message (deleted ones drop out).")
    span: str = strawberry.field(description="The verbatim words of the message it rests on.")


@strawberry.type(description="A belief with its provenance and what was built on it.")
class ObservationDetail:
    observation: Observation = strawberry.field(description="The belief itself.")
    premises: list[Observation] = strawberry.field(
        description="The beliefs it was derived from (for a deduction, induction or "
        "contradiction; empty for an explicit fact)."
    )
    sources: list[SourceSpan] = strawberry.field(
        description="The messages it was taken from, each with its verbatim span: "
        f"{DETAIL_SOURCES} at most, the first and the latest {DETAIL_SOURCES - 1} (sourceCount "
        "says how many there are)."
    )
    source_count: int = strawberry.field(description="How many messages it was taken from.")
    dependents: list[Observation] = strawberry.field(
        description=f"The beliefs derived from it, latest first, {DETAIL_DEPENDENTS} at most "
        "(dependentCount says how many there are)."
    )
    dependent_count: int = strawberry.field(description="How many beliefs were derived from it.")
    replaces: list[Observation] = strawberry.field(
        description="The beliefs this one superseded (a knowledge update keeps them)."
    )
    replaced_by: list[Observation] = strawberry.field(
        description="The belief that superseded this one, if any."
    )

    @classmethod
    def of(cls, d: records.ObservationDetail) -> ObservationDetail:
        return cls(
            observation=Observation.of(d.observation),
            premises=[Observation.of(p) for p in d.premises],
            sources=[SourceSpan(message=Message.of(s.message), span=s.span) for s in d.sources],
            source_count=d.source_count,
            dependents=[Observation.of(p) for p in d.dependents],
            dependent_count=d.dependent_count,
            replaces=[Observation.of(p) for p in d.replaces],
            replaced_by=[Observation.of(p) for p in d.replaced_by],
        )
