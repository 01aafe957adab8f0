"""A dream's checked writes: derived beliefs with their premises, supersessions, prunes and
the peer card.

Every write checks its provenance inside its Cypher statement and writes all of its items or
none; a rejected item raises `ProvenanceRejected` with the statement's reasons and the rejected
items (a specialist gets the reasons as tool feedback from a dry run first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graph import models
from graph.db import Tx
from graph.errors import InvalidInput
from graph.keys import Representation, peer_key
from graph.props import node_props
from graph.repo.peer_cards import CardLine, card_path


class ProvenanceRejected(InvalidInput):
    """A dream's write broke a provenance rule; nothing of it was written."""

    def __init__(self, problems: list[str], ids: Sequence[str] = ()) -> None:
        super().__init__("; ".join(problems), problems=problems)
        self.problems = problems
        self.ids = list(ids)  # the rejected items (beliefs, replaced beliefs, card lines)


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
    # The content normalized as the deriver's exact dedup key: a current belief of the view at
    # the same level with this key already says it, and the write is refused. None: unchecked.
    content_key: str | None = None


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
                    "content_key": b.content_key,
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
    tx: Tx,
    view: Representation,
    lines: Sequence[CardLine],
    *,
    now: datetime,
    vectors: Mapping[str, list[float]] | None = None,
) -> None:
    """The dream's card, written to the card's file. `vectors` (line text -> embedding) embeds
    the lines' chunks; a line without one keeps the embedding the same line had."""
    row = await tx.one(
        "set_dream_card",
        **view.params(),
        scope=view.key,
        path=card_path(view.observer, view.observed),
        peer_key=peer_key(view.workspace, view.observed),
        lines=[
            {
                "text": line.text,
                "support": list(line.support),
                "joined": line.joined,
                "own": not line.support,
                "embedding": (vectors or {}).get(line.text),
            }
            for line in lines
        ],
        now=now,
    )
    if row is None:
        raise ProvenanceRejected([f"no representation {view.observer} -> {view.observed}"])
    _raise_rejected(row)
