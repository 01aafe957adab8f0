"""Dreams on the graph: scheduling claims, what a dream reads, its checked writes, its runs.

A representation's dream bookkeeping lives on its OBSERVES edge: `since_dream` (explicit
beliefs written since the last dream), `idle_dream_at` (when its idle trigger fires),
`dream_job` (the dream waiting or running; at most one), `last_dream_at`, `dream_runs` (how
many committed) and the peer card with each line's support. New beliefs carry
`dream_pending` until a dream has read them.

Every write of a dream checks its provenance inside its Cypher statement and writes all of its
items or none; a rejected item raises `ProvenanceRejected` with the statement's reasons, which
aborts the transaction (a specialist gets the reasons as tool feedback from a dry run first).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph import models
from graph.db import Database, Tx
from graph.errors import InvalidInput
from graph.keys import Representation
from graph.props import node_props
from graph.records import required_datetime, to_datetime
from graph.repo.observation_writes import neo4j_similarity
from graph.repo.peer_cards import CardLine


class ProvenanceRejected(InvalidInput):
    """A dream's write broke a provenance rule; nothing of it was written."""

    def __init__(self, problems: list[str], ids: Sequence[str] = ()) -> None:
        super().__init__("; ".join(problems), problems=problems)
        self.problems = problems
        self.ids = list(ids)  # the rejected items (beliefs, replaced beliefs, card lines)


@dataclass(frozen=True)
class Belief:
    """An observation as a dreamer reads it."""

    id: str
    content: str
    level: str
    valid_at: datetime
    created_at: datetime
    session: str | None = None
    premise_ids: tuple[str, ...] = ()
    embedding: tuple[float, ...] = ()
    current: bool = True  # neither stale, deleted nor superseded
    # The beliefs the deriver found it resembles (id, cosine); None when it recorded none.
    near: tuple[tuple[str, float], ...] | None = None

    @property
    def when(self) -> tuple[datetime, datetime, str]:
        """Order of truth: the later valid_at wins, then the later write, then the id."""
        return (self.valid_at, self.created_at, self.id)

    @classmethod
    def from_row(cls, row: dict[str, Any], premise_ids: Sequence[str] = ()) -> Belief:
        created = required_datetime(row["created_at"])
        return cls(
            id=row["id"],
            content=row["content"],
            level=row["level"],
            valid_at=to_datetime(row.get("valid_at")) or created,
            created_at=created,
            session=row.get("session"),
            premise_ids=tuple(premise_ids),
            embedding=tuple(row.get("embedding") or ()),
            current=row.get("deleted_at") is None
            and row.get("superseded_at") is None
            and not row.get("stale"),
            near=None
            if row.get("near_ids") is None
            else tuple(
                zip(row["near_ids"], map(float, row.get("near_similarities") or ()), strict=True)
            ),
        )


# --- scheduling ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DreamClaim:
    """A representation that claimed a dream: the job with this id must be enqueued."""

    workspace: str
    observer: str
    observed: str
    job_id: str
    last_dream_at: datetime | None


async def note_new_beliefs(
    tx: Tx,
    workspace: str,
    written: dict[tuple[str, str], int],
    *,
    threshold: int,
    idle_at: datetime | None,
) -> list[DreamClaim]:
    """Count a derivation's new beliefs toward each representation's next dream; the
    representations that reached `threshold` (0: none) claim one."""
    if not written:
        return []
    rows = await tx.rows(
        "note_new_beliefs",
        workspace=workspace,
        written=[
            {"observer": observer, "observed": observed, "count": count}
            for (observer, observed), count in sorted(written.items())
        ],
        threshold=threshold,
        idle_at=idle_at,
    )
    return [
        DreamClaim(
            workspace, r["observer"], r["observed"], r["job_id"], to_datetime(r["last_dream_at"])
        )
        for r in rows
    ]


async def claim_idle(
    tx: Tx, *, now: datetime, workspace: str | None, limit: int
) -> list[DreamClaim]:
    rows = await tx.rows("claim_idle_dreams", now=now, workspace=workspace, limit=limit)
    return [
        DreamClaim(
            r["workspace"],
            r["observer"],
            r["observed"],
            r["job_id"],
            to_datetime(r["last_dream_at"]),
        )
        for r in rows
    ]


async def claim_now(tx: Tx, view: Representation, *, now: datetime) -> tuple[str, bool] | None:
    """(job id, whether it is new) of the representation's dream; None if a peer is missing."""
    row = await tx.one("claim_dream", **view.params(), now=now)
    return None if row is None else (str(row["job_id"]), bool(row["created"]))


# --- what a dream reads ----------------------------------------------------------------------


@dataclass(frozen=True)
class DreamState:
    dream_runs: int
    card: list[CardLine]


async def state(db: Database, view: Representation) -> DreamState:
    row = await db.read_one("get_dream_state", **view.params())
    if row is None:
        return DreamState(0, [])
    support = list(row["card_support"])
    card = [
        CardLine(text, tuple(str(support[i]).split()) if i < len(support) else ())
        for i, text in enumerate(row["card"])
    ]
    return DreamState(int(row["dream_runs"]), card)


async def pending(
    db: Database, view: Representation, *, limit: int, with_embeddings: bool
) -> list[Belief]:
    """The beliefs no dream has read yet, oldest first (current or not)."""
    rows = await db.read(
        "list_pending_observations",
        workspace=view.workspace,
        scope=view.key,
        limit=limit,
        with_embeddings=with_embeddings,
    )
    return [Belief.from_row(r["observation"]) for r in rows]


async def by_slots(
    db: Database,
    view: Representation,
    slots: Sequence[str],
    prefixes: Sequence[str],
    *,
    exclude: Sequence[str],
    limit: int,
) -> list[Belief]:
    rows = await db.read(
        "find_slot_beliefs",
        workspace=view.workspace,
        scope=view.key,
        slots=sorted(set(slots)),
        prefixes=list(prefixes),
        exclude=list(exclude),
        limit=limit,
    )
    return [Belief.from_row(r["observation"]) for r in rows]


async def by_claims(
    db: Database, view: Representation, claims: Sequence[str], *, exclude: Sequence[str], limit: int
) -> dict[str, list[Belief]]:
    """Current beliefs by the signed claim key they make."""
    if not claims:
        return {}
    rows = await db.read(
        "find_claim_beliefs",
        workspace=view.workspace,
        scope=view.key,
        claims=sorted(set(claims)),
        exclude=list(exclude),
        limit=limit,
    )
    found: dict[str, list[Belief]] = {}
    for r in rows:
        found.setdefault(r["observation"]["claim_key"], []).append(
            Belief.from_row(r["observation"])
        )
    return found


async def near(
    db: Database,
    view: Representation,
    probes: Sequence[Belief],
    *,
    threshold: float,
    neighbours: int,
) -> dict[str, list[tuple[Belief, float]]]:
    """For each probe, the current explicit beliefs at least `threshold` similar (cosine)."""
    usable = [p for p in probes if p.embedding]
    if not usable:
        return {}
    rows = await db.read(
        "find_near_beliefs",
        workspace=view.workspace,
        scope=view.key,
        probes=[{"id": p.id, "embedding": list(p.embedding)} for p in usable],
        threshold=neo4j_similarity(threshold),
        neighbours=neighbours,
    )
    return {
        r["id"]: [
            (Belief.from_row(n["observation"]), 2.0 * float(n["similarity"]) - 1.0)
            for n in r["near"]
        ]
        for r in rows
    }


async def current(db: Database, view: Representation, ids: Sequence[str]) -> list[Belief]:
    """The current explicit beliefs of the representation among `ids`."""
    if not ids:
        return []
    rows = await db.read(
        "get_current_beliefs", workspace=view.workspace, scope=view.key, ids=sorted(set(ids))
    )
    return [Belief.from_row(r["observation"]) for r in rows]


async def links(db: Database, view: Representation, ids: Sequence[str]) -> list[Belief]:
    """Current inductions and contradictions citing any of `ids`, with their premise ids."""
    if not ids:
        return []
    rows = await db.read(
        "find_dream_links", workspace=view.workspace, scope=view.key, ids=sorted(set(ids))
    )
    return [Belief.from_row(r["observation"], r["premise_ids"]) for r in rows]


# --- checked writes --------------------------------------------------------------------------


@dataclass(frozen=True)
class DerivedWrite:
    id: str
    level: str
    content: str
    embedding: list[float]
    premise_ids: tuple[str, ...]
    pattern_type: str | None = None
    confidence: float | None = None
    supersedes: str | None = None


def _raise_rejected(row: dict[str, Any] | None) -> dict[str, Any]:
    assert row is not None
    rejected = [item for item in row["items"] if item["problem"] is not None]
    if rejected:
        raise ProvenanceRejected(
            [str(item["problem"]) for item in rejected], [str(item["id"]) for item in rejected]
        )
    return row


async def create_derived(
    tx: Tx,
    view: Representation,
    beliefs: Sequence[DerivedWrite],
    *,
    origin: str,
    now: datetime,
) -> list[dict[str, Any]]:
    """Write derived beliefs with their premises (create_derived_observations.cypher checks
    them); returns each as {id, premises, replaced}."""
    if not beliefs:
        return []
    items = [
        {
            "premise_ids": list(dict.fromkeys(b.premise_ids)),
            "supersedes": b.supersedes,
            "props": node_props(
                models.Observation,
                {
                    "uid": b.id,
                    "workspace": view.workspace,
                    "observer": view.observer,
                    "observed": view.observed,
                    "level": b.level,
                    "content": b.content,
                    "scope_key": view.key,
                    "embedding": b.embedding,
                    "created_at": now,
                    "confidence": b.confidence,
                    "pattern_type": b.pattern_type,
                    "times_derived": 1,
                    "stale": False,
                    "facets": [],
                    "origin": origin,
                },
            ),
        }
        for b in beliefs
    ]
    row = _raise_rejected(
        await tx.one(
            "create_derived_observations", workspace=view.workspace, beliefs=items, now=now
        )
    )
    return list(row["written"])


async def supersede(
    tx: Tx,
    view: Representation,
    pairs: Sequence[tuple[str, str]],
    *,
    origin: str,
    now: datetime,
) -> list[dict[str, Any]]:
    """(old id, new id) knowledge updates between existing beliefs; returns {old, new} each."""
    if not pairs:
        return []
    row = _raise_rejected(
        await tx.one(
            "supersede_observations",
            workspace=view.workspace,
            scope=view.key,
            updates=[{"old_id": old, "new_id": new} for old, new in pairs],
            origin=origin,
            now=now,
        )
    )
    return list(row["written"])


async def prune(
    tx: Tx, view: Representation, prunes: Sequence[tuple[str, str]]
) -> list[dict[str, Any]]:
    """(id, reason): derived beliefs marked stale."""
    if not prunes:
        return []
    row = _raise_rejected(
        await tx.one(
            "prune_observations",
            workspace=view.workspace,
            scope=view.key,
            prunes=[{"id": i, "reason": reason} for i, reason in prunes],
        )
    )
    return list(row["written"])


async def set_card(
    tx: Tx, view: Representation, lines: Sequence[CardLine], *, now: datetime
) -> None:
    row = await tx.one(
        "set_dream_card",
        **view.params(),
        scope=view.key,
        lines=[
            {
                "text": line.text,
                "support": list(line.support),
                "joined": line.joined,
                "own": not line.support,
            }
            for line in lines
        ],
        now=now,
    )
    if row is None:
        raise ProvenanceRejected([f"no representation {view.observer} -> {view.observed}"])
    _raise_rejected(row)


@dataclass(frozen=True)
class ProcessedBelief:
    id: str
    slot: str | None
    claim: str | None


@dataclass
class RunRecord:
    """What `finish` records about one dream."""

    id: str
    trigger: str
    mode: str
    started_at: datetime
    finished_at: datetime
    observations: int = 0
    created: int = 0
    superseded: int = 0
    contradictions: int = 0
    pruned: int = 0
    card_changes: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)


async def finish(
    tx: Tx,
    view: Representation,
    run: RunRecord,
    processed: Sequence[ProcessedBelief],
    *,
    job_ids: Sequence[str],
    idle_at: datetime | None,
) -> tuple[int, int]:
    """Close the dream (finish_dream.cypher); returns (run number, beliefs still undreamed)."""
    props = node_props(
        models.DreamRun,
        {
            "uid": run.id,
            "workspace": view.workspace,
            "observer": view.observer,
            "observed": view.observed,
            "trigger": run.trigger,
            "mode": run.mode,
            "started_at": run.started_at,
            "finished_at": run.finished_at,
            "observations": run.observations,
            "created": run.created,
            "superseded": run.superseded,
            "contradictions": run.contradictions,
            "pruned": run.pruned,
            "card_changes": run.card_changes,
            "tokens_in": run.tokens_in,
            "tokens_out": run.tokens_out,
            "events": json.dumps(run.events, sort_keys=True),
        },
    )
    row = await tx.one(
        "finish_dream",
        **view.params(),
        consumed=len(processed),
        now=run.finished_at,
        job_ids=list(job_ids),
        idle_at=idle_at,
        processed=[{"id": p.id, "slot": p.slot, "claim": p.claim} for p in processed],
        run=props,
    )
    if row is None:
        raise ProvenanceRejected([f"no representation {view.observer} -> {view.observed}"])
    return int(row["seq"]), int(row["remaining"])


# --- runs ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DreamRunRecord:
    id: str
    workspace: str
    observer: str
    observed: str
    seq: int
    trigger: str
    mode: str
    started_at: datetime
    finished_at: datetime
    observations: int
    created: int
    superseded: int
    contradictions: int
    pruned: int
    card_changes: int
    tokens_in: int
    tokens_out: int
    events: list[dict[str, Any]]

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> DreamRunRecord:
        events = json.loads(row.get("events") or "[]")
        return cls(
            id=row["id"],
            workspace=row["workspace"],
            observer=row["observer"],
            observed=row["observed"],
            seq=int(row["seq"]),
            trigger=row["trigger"],
            mode=row["mode"],
            started_at=required_datetime(row["started_at"]),
            finished_at=required_datetime(row["finished_at"]),
            observations=int(row.get("observations") or 0),
            created=int(row.get("created") or 0),
            superseded=int(row.get("superseded") or 0),
            contradictions=int(row.get("contradictions") or 0),
            pruned=int(row.get("pruned") or 0),
            card_changes=int(row.get("card_changes") or 0),
            tokens_in=int(row.get("tokens_in") or 0),
            tokens_out=int(row.get("tokens_out") or 0),
            events=events if isinstance(events, list) else [],
        )


async def list_runs(
    db: Database, view: Representation, *, before: int | None, limit: int
) -> list[DreamRunRecord]:
    rows = await db.read("list_dream_runs", **view.params(), before=before, limit=limit)
    return [DreamRunRecord.from_row(r["run"]) for r in rows]


async def runs_since(
    db: Database, view: Representation, *, after: int, limit: int
) -> list[DreamRunRecord]:
    rows = await db.read("list_dream_runs_since", **view.params(), after=after, limit=limit)
    return [DreamRunRecord.from_row(r["run"]) for r in rows]
