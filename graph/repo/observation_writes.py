"""Observation writes of the deriver: new explicit facts, and repeats of known ones."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph import models
from graph.db import Tx
from graph.keys import scope_key
from graph.props import node_props
from graph.repo.scope_index import SCOPE_INDEX_MIN
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


DUPLICATE_NEIGHBOURS = 10  # nearest beliefs checked in a scope's own vector index


async def _duplicates(
    tx: Tx, workspace: str, facts: list[ExplicitFact], threshold: float
) -> dict[int, str]:
    """fact position -> the existing belief it repeats. Small scopes are compared with every
    belief; scopes with an index of their own through it (a cosine over 100k beliefs per fact
    would make the write path grow with the scope)."""
    scopes = sorted({(f.observer, f.observed) for f in facts})
    rows = await tx.rows(
        "scope_indexes_of",
        workspace=workspace,
        scopes=[{"observer": o, "observed": d} for o, d in scopes],
    )
    index_of = {(r["observer"], r["observed"]): r["index"] for r in rows}
    plain: list[dict[str, Any]] = []
    indexed: list[dict[str, Any]] = []
    for i, f in enumerate(facts):
        candidate = {
            "index": i,
            "observer": f.observer,
            "observed": f.observed,
            "key": f.content_key,
            "embedding": f.embedding,
        }
        vector_index = index_of.get((f.observer, f.observed))
        if vector_index is None:
            plain.append(candidate)
        else:
            indexed.append({**candidate, "vector_index": vector_index})
    found: list[dict[str, Any]] = []
    if plain:
        found += await tx.rows(
            "find_scope_duplicates", workspace=workspace, threshold=threshold, candidates=plain
        )
    if indexed:
        found += await tx.rows(
            "find_scope_duplicates_indexed",
            workspace=workspace,
            threshold=threshold,
            neighbours=DUPLICATE_NEIGHBOURS,
            candidates=indexed,
        )
    return {int(r["index"]): str(r["id"]) for r in found if r["id"] is not None}


@dataclass(frozen=True)
class WriteOutcome:
    created: list[str]
    reinforced: int
    # (observer, observed) scopes now above SCOPE_INDEX_MIN beliefs without an index of their
    # own: the caller builds one after the commit (graph/repo/scope_index.py).
    to_index: list[tuple[str, str]] = field(default_factory=list)


async def write_explicit(
    tx: Tx,
    workspace: str,
    facts: list[ExplicitFact],
    *,
    threshold: float,
    index_min: int = SCOPE_INDEX_MIN,
) -> WriteOutcome:
    """Create the facts that are new to their scope; count the others as derived again.

    The duplicate check runs inside the write transaction, so it sees what concurrent
    derivations of the same scope committed before it (through a scope's own vector index,
    what they committed before the index caught up: a near-duplicate can slip through there,
    never an exact repeat).
    """
    if not facts:
        return WriteOutcome([], 0)
    duplicate_of = await _duplicates(tx, workspace, facts, threshold)
    stamp = now()
    fresh = [
        {
            "message_id": f.message_id,
            "span": f.span,
            "props": node_props(
                models.Observation,
                {
                    "uid": str(uuid.uuid4()),
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
                },
            ),
        }
        for i, f in enumerate(facts)
        if i not in duplicate_of
    ]
    rows = (
        await tx.rows("create_explicit_observations", workspace=workspace, observations=fresh)
        if fresh
        else []
    )
    created = [str(r["id"]) for r in rows]
    to_index = {
        (str(r["observer"]), str(r["observed"]))
        for r in rows
        if not r["indexed"] and int(r["observations"]) > index_min
    }
    repeats = [
        {"id": duplicate_of[i], "message_id": f.message_id, "span": f.span}
        for i, f in enumerate(facts)
        if i in duplicate_of
    ]
    if repeats:
        await tx.rows("reinforce_observations", workspace=workspace, repeats=repeats)
    return WriteOutcome(created, len(repeats), sorted(to_index))
