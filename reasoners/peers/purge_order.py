"""A purge's order (pure): which jobs go, which beliefs go first, and batches."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, TypeVar

from reasoners.peers.starts import OPERATIONS, named_peers

T = TypeVar("T")
Row = dict[str, Any]


def jobs_to_purge(rows: Sequence[Row], message_ids: set[str], peer: str | None) -> list[str]:
    """Which candidate jobs go (pure): a derive job whose messages are all purged; with a
    peer, the peer's jobs, the dreams of its representations and the renames, merges and
    splits that name it (only a dead-lettered one can, as the purge began: run again, it would
    act on a peer made since under the name). Other jobs stay: a derive job naming a purged
    message among live ones simply finds it gone."""
    chosen = []
    for row in rows:
        payload = json.loads(row.get("payload") or "{}")
        named = set(payload.get("message_ids") or [])
        kind = str(row.get("kind"))
        if (
            peer is not None
            and (
                row.get("peer") == peer
                or peer in (payload.get("observer"), payload.get("observed"))
                or (kind in OPERATIONS and peer in named_peers(kind, payload))
            )
        ) or (kind == "derive" and named and named <= message_ids):
            chosen.append(str(row["id"]))
    return chosen


def dependents_first(premises: Mapping[str, Sequence[str]]) -> list[str]:
    """The beliefs ordered so that each comes after every belief of the set built on it (pure):
    deleted in this order, batch by batch, no remaining belief ever lacks a premise.
    `premises`: each belief's premises; those outside the set do not matter."""
    dependents = {belief: 0 for belief in premises}  # how many are not yet placed
    for belief, ps in premises.items():
        for p in set(ps) - {belief}:
            if p in dependents:
                dependents[p] += 1
    ready = sorted((b for b, n in dependents.items() if n == 0), reverse=True)
    order: list[str] = []
    while ready:
        belief = ready.pop()
        order.append(belief)
        for p in sorted(set(premises[belief]) - {belief}):
            if p in dependents:
                dependents[p] -= 1
                if dependents[p] == 0:
                    ready.append(p)
    # A cycle cannot be written (a premise exists before what rests on it); were one there,
    # its beliefs would still go, last.
    placed = set(order)
    return order + sorted(b for b in premises if b not in placed)


def chunks(items: Sequence[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])
