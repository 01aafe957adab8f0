"""Beliefs an app states or removes itself (the deriver's writes are observation_writes.py).

A stated belief is explicit, with origin "api" and no source message. Removal is a tombstone
(`deleted_at`): the node stays so provenance still resolves, reads skip it, and the beliefs
derived from it are marked stale in the same statement.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta

from graph import models
from graph.db import Database, Tx
from graph.errors import Conflict
from graph.keys import scope_key
from graph.props import node_props
from graph.records import ObservationRecord
from graph.repo import observations, peers
from graph.validation import now


@dataclass(frozen=True)
class StatedBelief:
    observer: str
    observed: str
    content: str
    content_key: str
    embedding: list[float]
    session: str | None = None


async def create(
    db: Database, workspace: str, beliefs: list[StatedBelief]
) -> list[ObservationRecord]:
    """Store the beliefs in one transaction, in input order; every peer named must exist."""
    await peers.require_all(
        db, workspace, sorted({b.observer for b in beliefs} | {b.observed for b in beliefs})
    )
    stamp = now()
    # Each item a microsecond after the one before: lists ordered by time keep the batch order.
    props = [
        node_props(
            models.Observation,
            {
                "uid": str(uuid.uuid4()),
                "workspace": workspace,
                "observer": b.observer,
                "observed": b.observed,
                "level": "explicit",
                "content": b.content,
                "content_key": b.content_key,
                "scope_key": scope_key(workspace, b.observer, b.observed),
                "embedding": b.embedding,
                "created_at": stamp + timedelta(microseconds=i),
                "valid_at": stamp + timedelta(microseconds=i),
                "session": b.session,
                "times_derived": 1,
                "stale": False,
                "facets": [],
                "origin": "api",
                "dream_pending": True,
            },
        )
        for i, b in enumerate(beliefs)
    ]

    async def work(tx: Tx) -> list[ObservationRecord]:
        rows = await tx.rows("create_stated_observations", workspace=workspace, observations=props)
        if len(rows) != len(props):
            # A peer merged away or deleted since it was checked: its rows were not written,
            # and the answer listed fewer beliefs than sent, saying nothing. None is kept.
            raise Conflict(
                f"{len(props) - len(rows)} of the beliefs name a peer that no longer exists "
                "(deleted, or merged away meanwhile); nothing was stored"
            )
        return [ObservationRecord.from_row(r["observation"]) for r in rows]

    return await db.write_tx(work)


async def get_current(db: Database, workspace: str, observation_id: str) -> ObservationRecord:
    """One belief that has not been deleted (NotFound otherwise)."""
    found = (await observations.get_detail(db, workspace, observation_id)).observation
    if found.deleted_at is not None:
        raise observations.missing(workspace, observation_id)
    return found


async def find_current(
    db: Database, workspace: str, observation_id: str
) -> ObservationRecord | None:
    """get_current's, or None (the workspace not read: the caller checked it)."""
    found = await observations.find_detail(db, workspace, observation_id)
    if found is None or found.observation.deleted_at is not None:
        return None
    return found.observation
