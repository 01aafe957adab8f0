"""A dream's last write (the beliefs it read, the representation's counters, its DreamRun)
and the runs as GraphQL lists and streams them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph import models
from graph.db import Database, Tx
from graph.keys import Representation
from graph.props import node_props
from graph.records import required_datetime, to_datetime
from graph.repo.dream_writes import ProvenanceRejected


@dataclass(frozen=True)
class ProcessedBelief:
    id: str
    slot: str | None
    claim: str | None


@dataclass(frozen=True)
class Finished:
    seq: int  # the run's number in its representation
    remaining: int  # beliefs still undreamed
    claimed: str | None  # the follow-up dream's job id, to enqueue
    paced: datetime | None = None  # the last dream the follow-up is paced from (None: none)


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


async def lock(tx: Tx, view: Representation) -> None:
    """A dream's first write: its representation's edge, before any belief (why, in
    lock_dream_view.cypher)."""
    await tx.rows("lock_dream_view", **view.params())


async def finish(
    tx: Tx,
    view: Representation,
    run: RunRecord,
    processed: Sequence[ProcessedBelief],
    *,
    job_ids: Sequence[str],
    idle_at: datetime | None,
    more_waiting: bool = False,
    threshold: int = 0,
    dreamed: bool = True,
) -> Finished:
    """Close the dream (finish_dream.cypher), counting the `run.created` beliefs it wrote. With
    `more_waiting`, or `threshold` (0: never) beliefs still undreamed, the representation claims
    a follow-up dream (Finished.claimed: its job, to enqueue) unless another waits or runs.
    `dreamed` false (a run that only reconciled) leaves the pacing of the next dream alone."""
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
        now=run.finished_at,
        job_ids=list(job_ids),
        idle_at=idle_at,
        created=run.created,
        more_waiting=more_waiting,
        threshold=threshold,
        dreamed=dreamed,
        processed=[{"id": p.id, "slot": p.slot, "claim": p.claim} for p in processed],
        processed_ids=[p.id for p in processed],
        scope=view.key,
        run=props,
    )
    if row is None:
        raise ProvenanceRejected([f"no representation {view.observer} -> {view.observed}"])
    claimed = row["claimed"]
    return Finished(
        int(row["seq"]),
        int(row["remaining"]),
        None if claimed is None else str(claimed),
        to_datetime(row.get("paced")),
    )


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
