"""Observation writes of the deriver: new explicit facts, and repeats of known ones."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from graph import models
from graph.db import Tx
from graph.errors import Conflict, RaceLost
from graph.keys import scope_key
from graph.props import node_props
from graph.records import DreamClaim, required_datetime, to_datetime
from graph.repo.invalidation import Redated
from graph.repo.repeats import (
    DUPLICATE_NEIGHBOURS,
    Agrees,
    Candidate,
    always,
    first_repeat,
    neo4j_similarity,
    probe,
)
from graph.validation import now


@dataclass(frozen=True)
class ExplicitFact:
    """One fact for one (observer, observed) scope, with its source message and span."""

    observer: str
    observed: str
    content: str
    content_key: str
    embedding: list[float]
    message_id: str
    span: str
    valid_at: datetime
    session: str


def _similar_pairs(
    facts: Sequence[ExplicitFact], positions: Sequence[int], near: float
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) for facts i < j of one write and one scope at least `near` similar: the
    index cannot see them yet, as they are written together."""
    by_scope: dict[tuple[str, str], list[int]] = {}
    for i in positions:
        by_scope.setdefault((facts[i].observer, facts[i].observed), []).append(i)
    pairs = []
    for group in by_scope.values():
        if len(group) < 2:
            continue
        m = np.asarray([facts[i].embedding for i in group], dtype=np.float32)
        m /= np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)
        sims = np.triu(m @ m.T, k=1)
        for a, b in zip(*np.nonzero(sims >= near), strict=True):
            pairs.append((group[int(a)], group[int(b)], float(sims[a, b])))
    return pairs


async def _view_writes(
    tx: Tx, workspace: str, views: Collection[tuple[str, str]]
) -> dict[tuple[str, str], int]:
    rows = await tx.rows(
        "get_view_writes",
        workspace=workspace,
        views=[{"observer": a, "observed": b} for a, b in sorted(views)],
    )
    return {(r["observer"], r["observed"]): int(r["writes"]) for r in rows}


async def _check_unraced(
    tx: Tx,
    workspace: str,
    before: dict[tuple[str, str], int],
    after: dict[tuple[str, str], int],
    fact_of: dict[str, ExplicitFact],
    created: list[str],
    threshold: float,
    agrees: Agrees,
) -> None:
    """Raise RaceLost when a belief just created repeats one (by the probe's rule, `agrees`
    included) that a concurrent write committed after the duplicate probe read its view.

    The probe reads under read-committed isolation, before this write holds the views' OBSERVES
    edges; two derivations into one view could each miss the other's new belief and both
    create it. Each write of explicit beliefs into a view adds one to the edge's `writes`, and
    its beliefs keep the number as their view_write: `before` is what the probe's transaction
    read before probing, `after` what this write's own addition left, while holding the edge's
    lock (so every other write into the view has committed and is visible). A view that took
    more than this one write in between has the new beliefs compared with those writes'
    beliefs only, whose numbers lie between the two, exactly and however large the view. The
    number only grows, so a write that also removed beliefs from the view (a split) cannot hide
    another's addition."""
    seen = {view: before.get(view, 0) for view, n in after.items() if n != before.get(view, 0) + 1}
    candidates = []
    for belief in created:
        fact = fact_of[belief]
        view = (fact.observer, fact.observed)
        if view in seen:
            candidates.append(
                {
                    "id": belief,
                    "scope": scope_key(workspace, *view),
                    "seen": seen[view],
                    "own": after[view],
                    "key": fact.content_key,
                    "embedding": fact.embedding,
                }
            )
    if not candidates:
        return
    floor = neo4j_similarity(threshold)
    rows = await tx.rows(
        "find_concurrent_repeats",
        workspace=workspace,
        floor=floor,
        neighbours=DUPLICATE_NEIGHBOURS,
        candidates=candidates,
    )
    repeats = [first_repeat(r["found"], fact_of[str(r["id"])].content, floor, agrees) for r in rows]
    raced = [r for r in repeats if r is not None]
    if raced:
        raise RaceLost(
            f"{len(raced)} new beliefs repeat beliefs a concurrent write committed",
            beliefs=raced,
        )


def _near_props(close: list[tuple[str, float]] | None) -> dict[str, Any]:
    if close is None:
        return {}
    ranked = sorted(close, key=lambda pair: -pair[1])[:DUPLICATE_NEIGHBOURS]
    return {"near_ids": [i for i, _ in ranked], "near_similarities": [s for _, s in ranked]}


@dataclass(frozen=True)
class WriteOutcome:
    created: list[str]
    reinforced: int
    retired: int = 0  # facts dropped because they repeat a deleted or corrected belief
    # Representations that reached the dream threshold and claimed a dream: enqueue each.
    claims: list[DreamClaim] = field(default_factory=list)
    # Beliefs a repeat from an earlier message dated anew: their words are the caller's to date.
    redated: list[Redated] = field(default_factory=list)


async def write_explicit(
    tx: Tx,
    workspace: str,
    facts: list[ExplicitFact],
    *,
    threshold: float,
    near: float | None = None,
    idle_at: datetime | None = None,
    dream_threshold: int = 0,
    dream_triggers: bool = True,
    echoes: Sequence[tuple[ExplicitFact, ExplicitFact]] = (),
    agrees: Agrees = always,
) -> WriteOutcome:
    """Create the facts that are new to their scope; count the others as derived again
    (`threshold` is a cosine: facts at least this similar to a belief, and that `agrees` with
    it, repeat it). With `near`,
    each new fact records the beliefs at least that similar, earlier facts of this write
    included, for the zero-key dreamer (Observation.near_ids). Each scope's new facts count
    toward its next dream, whose idle moment moves to `idle_at` (None: no idle trigger); a
    scope with `dream_threshold` undreamed beliefs (0: never) claims one (WriteOutcome.claims),
    in the same write of its edge; with `dream_triggers` false the new facts neither count
    toward a dream nor move its idle moment (they are still read by the next one). `echoes`
    pairs a fact of `facts` with one the caller left out as its repeat: the repeat's message
    becomes evidence of the belief the fact makes or repeats (counted once more when it is
    another message)."""
    if not facts:
        return WriteOutcome([], 0)
    items = [
        Candidate(
            f.observer, f.observed, f.content_key, f.embedding, f.message_id, content=f.content
        )
        for f in facts
    ]
    before = await _view_writes(tx, workspace, {(f.observer, f.observed) for f in facts})
    probed = await probe(tx, workspace, items, threshold, near, agrees)
    retired = sum(1 for r in probed if r.retired)
    # A fact dropped for repeating a deleted or corrected belief still links its message to
    # that belief: while any message stating it lives, so does the tombstone that keeps it from
    # being derived again (a purge keeps such a belief: purge/find_message_derivations.cypher).
    dropped = {
        (str(r.retired_id), facts[i].message_id): facts[i].span
        for i, r in enumerate(probed)
        if r.retired_id is not None
    }
    if retired:
        kept = [i for i, r in enumerate(probed) if not r.retired]
        facts = [facts[i] for i in kept]
        probed = [probed[i] for i in kept]
    duplicate_of = {i: r.duplicate_of for i, r in enumerate(probed) if r.duplicate_of}
    ids = [str(uuid.uuid4()) for _ in facts]
    close = [list(r.near) for r in probed]
    if near is not None:
        fresh_at = [i for i in range(len(facts)) if i not in duplicate_of]
        for i, j, similarity in _similar_pairs(facts, fresh_at, near):
            close[j].append((ids[i], similarity))
    stamp = now()
    fresh = [
        {
            "message_id": f.message_id,
            "span": f.span,
            "props": node_props(
                models.Observation,
                {
                    "uid": ids[i],
                    "workspace": workspace,
                    "observer": f.observer,
                    "observed": f.observed,
                    "level": "explicit",
                    "content": f.content,
                    "content_key": f.content_key,
                    "scope_key": scope_key(workspace, f.observer, f.observed),
                    "embedding": f.embedding,
                    "created_at": stamp,
                    "valid_at": f.valid_at,
                    "session": f.session,
                    "times_derived": 1,
                    "stale": False,
                    "facets": [],
                    "origin": "deriver",
                    "dream_pending": True,
                    **_near_props(close[i] if near is not None else None),
                },
            ),
        }
        for i, f in enumerate(facts)
        if i not in duplicate_of
    ]
    rows = (
        await tx.rows(
            "create_explicit_observations",
            workspace=workspace,
            observations=fresh,
            idle_at=idle_at,
            dream_threshold=dream_threshold,
            dream_triggers=dream_triggers,
        )
        if fresh
        else []
    )
    created = [str(r["id"]) for r in rows]
    if len(created) < len(fresh):
        # A row per belief whose message and peers exist: one was removed or merged away since
        # the caller read it. Nothing of this write is kept; the caller reads again.
        raise Conflict(
            f"{len(fresh) - len(created)} beliefs name a message or peer that no longer exists "
            "(deleted, or merged away meanwhile); try again"
        )
    fact_of = {ids[i]: f for i, f in enumerate(facts) if i not in duplicate_of}
    # The edges' part of the statement: the same on every row.
    edges: dict[str, Any] = rows[0] if rows else {"writes": [], "claims": []}
    after = {(w["observer"], w["observed"]): int(w["writes"]) for w in edges["writes"]}
    await _check_unraced(tx, workspace, before, after, fact_of, created, threshold, agrees)
    # One row per (belief, message): two facts of one message repeating one belief count once.
    repeated = dropped | {
        (duplicate_of[i], f.message_id): f.span for i, f in enumerate(facts) if i in duplicate_of
    }
    position = {id(f): i for i, f in enumerate(facts)}  # a retired fact's echoes go with it
    for first, echo in echoes:
        at = position.get(id(first))
        if at is not None and echo.message_id != first.message_id:
            belief = duplicate_of.get(at) or ids[at]
            repeated.setdefault((belief, echo.message_id), echo.span)
    repeats = [
        {"id": belief, "message_id": message, "span": span}
        for (belief, message), span in repeated.items()
    ]
    redated: list[Redated] = []
    if repeats:
        rows = await tx.rows("reinforce_observations", workspace=workspace, repeats=repeats)
        redated = [
            Redated(str(r["id"]), str(r["content"]), required_datetime(r["valid_at"]))
            for r in rows
            if r["redated"]
        ]
    claims = [
        DreamClaim(
            workspace, c["observer"], c["observed"], c["job_id"], to_datetime(c["last_dream_at"])
        )
        for c in edges["claims"]
    ]
    return WriteOutcome(created, len(repeats) - len(dropped), retired, claims, redated)
