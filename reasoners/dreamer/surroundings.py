"""What the graph holds around a dream's new facts, for the zero-key planner (rules.py): the
beliefs of the slots and opposite claims they touch, each fact's near-identical beliefs both
ways, and the inductions and contradictions linked to them; index lookups per new fact, so a
dream's reading grows with what it reads, not with the representation."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from graph.db import Database
from graph.keys import Representation
from graph.repo import dreams
from graph.repo.dreams import Belief
from reasoners.dreamer.plan import CardLine
from reasoners.dreamer.rules import Neighbour, Related, keys_of
from reasoners.dreamer.slots import CARD_PREFIXES

NEIGHBOURS = 10  # nearest beliefs a new fact is compared with for inductions
RELATED_LIMIT = 5000  # beliefs one lookup of slots or claims may return
CARD_SLOTS = (
    "name",
    "age",
    "residence",
    "hometown",
    "occupation",
    "workplace",
    "relationship status",
)


async def surroundings(
    db: Database,
    view: Representation,
    new: Sequence[Belief],
    card: list[CardLine],
    settled: Collection[str] = (),
    *,
    similarity: float,
) -> Related:
    """What the graph holds around the new facts, through index lookups per new fact
    (stale beliefs in `settled`, which this dream's reconciliation keeps, count)."""
    ids = [b.id for b in new]
    keys = [keys_of(b, view.observed) for b in new]
    slots = {k.slot for k in keys if k.slot} | set(CARD_SLOTS)
    slotted = await dreams.by_slots(
        db,
        view,
        sorted(slots),
        CARD_PREFIXES,
        exclude=ids,
        limit=RELATED_LIMIT,
        settled=settled,
    )
    opposite = [("-" if k.claim.startswith("+") else "+") + k.claim[1:] for k in keys if k.claim]
    by_claim = await dreams.by_claims(
        db, view, opposite, exclude=ids, limit=RELATED_LIMIT, settled=settled
    )
    neighbours = await _neighbours(db, view, new, similarity)
    linked_ids = set(ids) | {n.belief.id for ns in neighbours.values() for n in ns}
    linked_ids |= {b.id for bs in by_claim.values() for b in bs}
    linked = await dreams.links(db, view, sorted(linked_ids))
    return Related(
        slotted=slotted,
        by_claim=by_claim,
        neighbours=neighbours,
        inductions=[b for b in linked if b.level == "inductive"],
        contradicted=frozenset(
            frozenset(b.premise_ids) for b in linked if b.level == "contradiction"
        ),
        card=card,
    )


async def _neighbours(
    db: Database, view: Representation, new: Sequence[Belief], threshold: float
) -> dict[str, list[Neighbour]]:
    """Each new explicit fact's near-identical beliefs, both ways: the neighbours the
    deriver recorded (read by id), a vector search for facts it recorded none for, and each
    of those links reversed, so that an earlier fact also sees the later ones."""
    explicit = [b for b in new if b.level == "explicit"]
    searched = await dreams.near(
        db,
        view,
        [b for b in explicit if b.near is None],
        threshold=threshold,
        neighbours=NEIGHBOURS,
    )
    recorded = {
        b.id: [(i, s) for i, s in b.near if s >= threshold] for b in explicit if b.near is not None
    }
    wanted = {i for pairs in recorded.values() for i, _ in pairs}
    known = {b.id: b for b in explicit}
    found = {b.id: b for b in await dreams.current(db, view, sorted(wanted - set(known)))}
    found.update(known)
    links: dict[str, dict[str, float]] = {}

    def link(a: str, b: str, similarity: float) -> None:
        links.setdefault(a, {})[b] = max(similarity, links.get(a, {}).get(b, -1.0))

    for key, pairs in recorded.items():
        for other, similarity in pairs:
            if other in found:
                link(key, other, similarity)
                link(other, key, similarity)
    for key, hits in searched.items():
        for belief, similarity in hits:
            found.setdefault(belief.id, belief)
            link(key, belief.id, similarity)
            link(belief.id, key, similarity)
    return {
        key: [
            Neighbour(found[other], similarity)
            for other, similarity in sorted(links.get(key, {}).items(), key=lambda p: -p[1])
        ]
        for key in known
    }
