"""Writes a dream plan in one transaction, each part through its checked statement, and
describes what was written as the run's events (what `dreamEvents` subscribers receive)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from graph.db import Tx
from graph.keys import Representation
from graph.repo import dream_writes, reconciliation
from graph.repo.dream_writes import DerivedWrite, ProvenanceRejected
from graph.repo.reconciliation import StaleBelief
from reasoners.deriver.dedup import exact_key
from reasoners.dreamer.plan import (
    CONTRADICTION,
    CardLine,
    DreamPlan,
    NewBelief,
    Prune,
    Supersession,
    card_diff,
)

log = logging.getLogger("beliefgraph.dreamer")
T = TypeVar("T")
R = TypeVar("R")

EVENT_TEXT = 300  # characters of a belief's content kept in an event


@dataclass
class Applied:
    events: list[dict[str, Any]] = field(default_factory=list)
    created: int = 0
    superseded: int = 0
    contradictions: int = 0
    pruned: int = 0
    card_changes: int = 0
    rejected: int = 0  # items left out by a lenient write
    superseded_ids: list[str] = field(default_factory=list)  # what rests on them turns stale
    pruned_ids: list[str] = field(default_factory=list)  # and on these


def _ref(node: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if node is None:
        return None
    return {
        "id": node["id"],
        "level": node.get("level"),
        "content": str(node.get("content") or "")[:EVENT_TEXT],
    }


def reconciled_events(
    reconciled: reconciliation.Applied, read: Mapping[str, StaleBelief]
) -> list[dict[str, Any]]:
    """The run's events for the verdicts written: each belief as it stands now, the verdict
    (keep, update, drop) and why the belief was awaiting one."""
    return [
        {
            "kind": "reconciled",
            "belief": _ref(reconciled.beliefs.get(belief_id)),
            "verdict": action,
            "reason": read[belief_id].reason if belief_id in read else None,
        }
        for belief_id, action in reconciled.actions.items()
    ]


def card_changed(before: Sequence[CardLine], after: Sequence[CardLine]) -> bool:
    return [(c.text, c.support) for c in before] != [(c.text, c.support) for c in after]


def waves(beliefs: Sequence[NewBelief]) -> list[list[NewBelief]]:
    """The plan's beliefs in order, cut into as few statements as possible: a belief that
    cites (or supersedes) one written earlier in the plan starts a new statement, because a
    statement checks its premises before it creates anything."""
    cut: list[list[NewBelief]] = []
    ids: set[str] = set()
    for belief in beliefs:
        refs = set(belief.premise_ids) | ({belief.supersedes} if belief.supersedes else set())
        if not cut or refs & ids:
            cut.append([])
            ids = set()
        cut[-1].append(belief)
        ids.add(belief.id)
    return cut


async def _dropping_rejected(
    write: Callable[[list[T]], Awaitable[R]],
    items: list[T],
    key: Callable[[T], str],
    *,
    lenient: bool,
    applied: Applied,
) -> R:
    """Run a checked write; when lenient, leave out the items it rejects and run it again (the
    statement writes all or nothing, so a rejected run wrote nothing)."""
    while True:
        try:
            return await write(items)
        except ProvenanceRejected as rejected:
            kept = [item for item in items if key(item) not in set(rejected.ids)]
            if not lenient or len(kept) == len(items):
                raise
            log.warning("dream of %s: left out %s", items and key(items[0]), rejected.problems)
            applied.rejected += len(items) - len(kept)
            items = kept


async def _write_card(
    tx: Tx,
    view: Representation,
    card: list[CardLine],
    card_before: Sequence[CardLine],
    now: datetime,
    lenient: bool,
    applied: Applied,
    card_vectors: Mapping[str, list[float]] | None = None,
) -> list[CardLine]:
    """The card as written (the rejection names lines by their position in this write)."""
    while card_changed(card_before, card):
        try:
            await dream_writes.set_card(tx, view, card, now=now, vectors=card_vectors)
            break
        except ProvenanceRejected as rejected:
            bad = {int(i) for i in rejected.ids}
            if not lenient or not bad:
                raise
            log.warning("dream card of %s: left out %s", view.observed, rejected.problems)
            applied.rejected += len(bad)
            card = [line for i, line in enumerate(card) if i not in bad]
    return card


async def apply_plan(
    tx: Tx,
    view: Representation,
    plan: DreamPlan,
    vectors: Mapping[str, list[float]],
    *,
    card_before: Sequence[CardLine],
    origin: str,
    now: datetime,
    lenient: bool = False,
    card_vectors: Mapping[str, list[float]] | None = None,
) -> Applied:
    """Supersessions first (they only relate existing beliefs), prunes, then new beliefs (which
    may cite beliefs written just before), and the card last (its support must be current after
    everything else). A rejected item raises ProvenanceRejected and nothing is written; with
    `lenient` (the zero-key dreamer, which has no one to give the rejection to) the item is left
    out instead, with whatever cites it, so a flaw in the rules cannot stall a representation's
    dreams."""
    applied = Applied()

    async def supersede(items: list[Supersession]) -> list[dict[str, Any]]:
        pairs = [(s.old_id, s.new_id) for s in items]
        return await dream_writes.supersede(tx, view, pairs, origin=origin, now=now)

    for row in await _dropping_rejected(
        supersede, list(plan.supersessions), lambda s: s.old_id, lenient=lenient, applied=applied
    ):
        applied.superseded += 1
        applied.superseded_ids.append(str(row["old"]["id"]))
        applied.events.append(
            {"kind": "superseded", "old": _ref(row["old"]), "new": _ref(row["new"])}
        )

    async def prune(items: list[Prune]) -> list[dict[str, Any]]:
        return await dream_writes.prune(tx, view, [(p.id, p.reason) for p in items])

    for row in await _dropping_rejected(
        prune, list(plan.prunes), lambda p: p.id, lenient=lenient, applied=applied
    ):
        applied.pruned += 1
        applied.pruned_ids.append(str(row["id"]))
        applied.events.append({"kind": "pruned", "belief": _ref(row), "reason": row["reason"]})

    async def create(wave: list[NewBelief]) -> list[dict[str, Any]]:
        return await dream_writes.create_derived(
            tx,
            view,
            [
                DerivedWrite(
                    id=belief.id,
                    level=belief.level,
                    content=belief.content,
                    embedding=vectors[belief.id],
                    premise_ids=belief.premise_ids,
                    pattern_type=belief.pattern_type,
                    confidence=belief.confidence,
                    supersedes=belief.supersedes,
                    content_key=exact_key(belief.content),
                )
                for belief in wave
            ],
            origin=origin,
            now=now,
        )

    for wave in waves(plan.beliefs):
        written = await _dropping_rejected(
            create, wave, lambda b: b.id, lenient=lenient, applied=applied
        )
        rows = {row["id"]: row for row in written}
        for belief in wave:
            found = rows.get(belief.id)
            if found is None:
                continue  # left out (lenient)
            applied.created += 1
            applied.contradictions += belief.level == CONTRADICTION
            replaced = _ref(found["replaced"])
            applied.superseded += replaced is not None
            if replaced is not None:  # what rested on it turns stale, as for a supersession
                applied.superseded_ids.append(str(found["replaced"]["id"]))
            applied.events.append(
                {
                    "kind": "belief",
                    "belief": {
                        "id": belief.id,
                        "level": belief.level,
                        "content": belief.content[:EVENT_TEXT],
                        "pattern_type": belief.pattern_type,
                        "confidence": belief.confidence,
                    },
                    "premises": [_ref(p) for p in found["premises"]],
                    "replaced": replaced,
                }
            )
    if plan.card is not None:
        card = await _write_card(
            tx, view, list(plan.card), card_before, now, lenient, applied, card_vectors
        )
        if card_changed(card_before, card):
            added, removed = card_diff(list(card_before), card)
            applied.card_changes = len(added) + len(removed)
            if added or removed:  # not for lines that only cite other beliefs now
                applied.events.append({"kind": "card", "added": added, "removed": removed})
    return applied
