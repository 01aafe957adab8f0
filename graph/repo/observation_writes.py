"""Observation writes of the deriver: new explicit facts, and repeats of known ones."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from graph import models
from graph.db import Tx
from graph.keys import scope_key
from graph.props import node_props
from graph.repo.retrieval import OBSERVATIONS
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


DUPLICATE_NEIGHBOURS = 10  # nearest beliefs checked through the index in a large scope


def neo4j_similarity(cosine: float) -> float:
    """A cosine threshold on the scale of vector.similarity.cosine, which maps [-1, 1] to
    [0, 1] ((1 + cos) / 2), as the vector index scores do."""
    return (1.0 + cosine) / 2.0


async def _duplicates(
    tx: Tx, workspace: str, facts: list[ExplicitFact], threshold: float
) -> dict[int, str]:
    """fact position -> the existing belief it repeats (see find_scope_duplicates.cypher).

    It runs inside the write transaction. A small representation is compared belief by
    belief, so a concurrent derivation's commit is always seen; in a large one the vector index
    may lag a just-committed near-duplicate (never an exact repeat: that lookup is exact)."""
    candidates = [
        {
            "index": i,
            "observer": f.observer,
            "observed": f.observed,
            "scope": scope_key(workspace, f.observer, f.observed),
            "key": f.content_key,
            "embedding": f.embedding,
        }
        for i, f in enumerate(facts)
    ]
    found = await tx.rows(
        "find_scope_duplicates",
        workspace=workspace,
        threshold=neo4j_similarity(threshold),
        exact_scan_limit=OBSERVATIONS.exact_scan_limit,
        neighbours=DUPLICATE_NEIGHBOURS,
        candidates=candidates,
    )
    return {int(r["index"]): str(r["id"]) for r in found if r["id"] is not None}


@dataclass(frozen=True)
class WriteOutcome:
    created: list[str]
    reinforced: int


async def write_explicit(
    tx: Tx,
    workspace: str,
    facts: list[ExplicitFact],
    *,
    threshold: float,
) -> WriteOutcome:
    """Create the facts that are new to their scope; count the others as derived again
    (`threshold` is a cosine: facts at least this similar to a belief repeat it)."""
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
    repeats = [
        {"id": duplicate_of[i], "message_id": f.message_id, "span": f.span}
        for i, f in enumerate(facts)
        if i in duplicate_of
    ]
    if repeats:
        await tx.rows("reinforce_observations", workspace=workspace, repeats=repeats)
    return WriteOutcome(created, len(repeats))
