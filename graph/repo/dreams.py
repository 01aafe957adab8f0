"""Dreams on the graph: scheduling claims and what a dream reads (its checked writes are in
dream_writes.py, its runs in dream_runs.py).

A representation's dream bookkeeping lives on its OBSERVES edge: `since_dream` (explicit
beliefs written since the last dream), `idle_dream_at` (when its idle trigger fires),
`dream_job` (the newest dream claimed: a running one may have a waiting one claimed behind
it, and that one is then the edge's), `last_dream_at`, `dream_runs` (how many committed) and
the peer card with each line's support. New beliefs carry `dream_pending` until a dream has
read them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph.db import Database, Tx
from graph.keys import Representation
from graph.records import DreamClaim, required_datetime, to_datetime
from graph.repo.jobs import payload_json
from graph.repo.peer_cards import CardLine, card_path
from graph.repo.repeats import neo4j_similarity


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
    # When a live message last stated it: a repeat the deriver merged into it may be later
    # than valid_at (None: not read).
    stated_last: datetime | None = None

    @property
    def stated(self) -> datetime:
        """When it was last stated: "I live in Lisbon" said again in June, after "I live in
        Berlin" in March, holds from June, though the belief dates from the first time."""
        if self.stated_last is None or self.stated_last < self.valid_at:
            return self.valid_at
        return self.stated_last

    @property
    def when(self) -> tuple[datetime, datetime, str]:
        """Order of truth: the later statement wins, then the later write, then the id."""
        return (self.stated, self.created_at, self.id)

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
            stated_last=to_datetime(row.get("stated_last")),
            near=None
            if row.get("near_ids") is None
            else tuple(
                zip(row["near_ids"], map(float, row.get("near_similarities") or ()), strict=True)
            ),
        )


# --- scheduling ---------------------------------------------------------------------------


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


async def claim_now(
    tx: Tx, view: Representation, *, now: datetime, payload: dict[str, Any] | None = None
) -> tuple[str, bool] | None:
    """(job id, whether it is new) of the representation's dream; None if a peer is missing.
    A dream already waiting that is reused takes `payload` (the app's request) if given."""
    given = None if payload is None else payload_json(payload)
    row = await tx.one("claim_dream", **view.params(), now=now, payload=given)
    return None if row is None else (str(row["job_id"]), bool(row["created"]))


# --- what a dream reads ----------------------------------------------------------------------


@dataclass(frozen=True)
class DreamState:
    dream_runs: int
    card: list[CardLine]
    exists: bool = True  # False: no such representation (its peers renamed, merged or purged)


async def state(db: Database, view: Representation) -> DreamState:
    row = await db.read_one(
        "get_dream_state", **view.params(), path=card_path(view.observer, view.observed)
    )
    if row is None:
        return DreamState(0, [], exists=False)
    return DreamState(int(row["dream_runs"]), _card(row))


async def card_in(tx: Tx, view: Representation) -> list[CardLine]:
    """The representation's card with each line's support, read in `tx`."""
    row = await tx.one(
        "get_dream_state", **view.params(), path=card_path(view.observer, view.observed)
    )
    return [] if row is None else _card(row)


def _card(row: dict[str, Any]) -> list[CardLine]:
    support = list(row["card_support"])
    return [
        CardLine(text, tuple(str(support[i]).split()) if i < len(support) else ())
        for i, text in enumerate(row["card"])
    ]


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
    settled: Collection[str] = (),
) -> list[Belief]:
    """Current beliefs filling `slots` (or a slot starting with one of `prefixes`); stale ones
    in `settled` count as current (a reconciliation about to commit keeps them)."""
    rows = await db.read(
        "find_slot_beliefs",
        workspace=view.workspace,
        scope=view.key,
        slots=sorted(set(slots)),
        prefixes=list(prefixes),
        exclude=list(exclude),
        limit=limit,
        settled=sorted(settled),
    )
    return [Belief.from_row(r["observation"]) for r in rows]


async def by_claims(
    db: Database,
    view: Representation,
    claims: Sequence[str],
    *,
    exclude: Sequence[str],
    limit: int,
    settled: Collection[str] = (),
) -> dict[str, list[Belief]]:
    """Current beliefs by the signed claim key they make (stale ones in `settled` too)."""
    if not claims:
        return {}
    rows = await db.read(
        "find_claim_beliefs",
        workspace=view.workspace,
        scope=view.key,
        claims=sorted(set(claims)),
        exclude=list(exclude),
        limit=limit,
        settled=sorted(settled),
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


async def current_ids(tx: Tx, view: Representation, ids: Collection[str]) -> set[str]:
    """Those of `ids` that are current beliefs of the representation, read in `tx`."""
    if not ids:
        return set()
    rows = await tx.rows(
        "list_current_ids", workspace=view.workspace, scope=view.key, ids=sorted(ids)
    )
    return {str(r["id"]) for r in rows}


async def links(db: Database, view: Representation, ids: Sequence[str]) -> list[Belief]:
    """Current inductions and contradictions citing any of `ids`, with their premise ids."""
    if not ids:
        return []
    rows = await db.read(
        "find_dream_links", workspace=view.workspace, scope=view.key, ids=sorted(set(ids))
    )
    return [Belief.from_row(r["observation"], r["premise_ids"]) for r in rows]
