"""The deriver's dedup probe: which current belief of its representation a fact (or a belief
a merge moved) repeats, and which it resembles closely enough for a dream to compare, in one
query for many candidates (find_scope_duplicates.cypher)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from graph.db import Tx
from graph.keys import scope_key
from graph.props import Numbers
from graph.repo.retrieval import OBSERVATIONS

DUPLICATE_NEIGHBOURS = 10  # nearest beliefs checked through the index in a large scope

# Whether a fact and a belief it is similar to say the same thing beyond their cosine (the
# deriver's `same_claim`): (the fact's content, the belief's content).
Agrees = Callable[[str, str], bool]


def always(fact: str, belief: str) -> bool:
    return True


def neo4j_similarity(cosine: float) -> float:
    """A cosine threshold on the scale of vector.similarity.cosine, which maps [-1, 1] to
    [0, 1] ((1 + cos) / 2), as the vector index scores do."""
    return (1.0 + cosine) / 2.0


@dataclass(frozen=True)
class Resemblance:
    """What the probe of one fact found: the belief it repeats, if any, and the beliefs it
    resembles at or above the near threshold (id, cosine), most similar first."""

    duplicate_of: str | None
    near: list[tuple[str, float]]
    retired: bool = False  # repeats a deleted or corrected belief: not written again
    retired_id: str | None = None  # that belief


@dataclass(frozen=True)
class Candidate:
    """A belief to check against its representation by the dedup rule: a new fact, or a belief
    a merge moved (`exclude`: its own id, so it does not find itself)."""

    observer: str
    observed: str
    content_key: str
    embedding: list[float]
    message_id: str = ""  # the source of a new fact: a belief retired from it is not repeated
    exclude: str = ""
    content: str = ""  # what `agrees` compares


async def probe(
    tx: Tx,
    workspace: str,
    items: Sequence[Candidate],
    threshold: float,
    near: float | None,
    agrees: Agrees,
) -> list[Resemblance]:
    """One probe per candidate (see find_scope_duplicates.cypher). A belief of the same text
    is a repeat; a similar one only if `agrees` says so (it is still near, for dreams).

    It runs inside the write transaction. A small representation is compared belief by
    belief, so a concurrent derivation's commit is always seen; in a large one the vector index
    may lag a just-committed near-duplicate (never an exact repeat: that lookup is exact)."""
    candidates = [
        {
            "index": i,
            "observer": c.observer,
            "observed": c.observed,
            "scope": scope_key(workspace, c.observer, c.observed),
            "key": c.content_key,
            "message": c.message_id,
            "embedding": Numbers(c.embedding),
            "exclude": c.exclude,
        }
        for i, c in enumerate(items)
    ]
    floor = threshold if near is None else min(threshold, near)
    rows = await tx.rows(
        "find_scope_duplicates",
        workspace=workspace,
        floor=neo4j_similarity(floor),
        exact_scan_limit=OBSERVATIONS.exact_scan_limit,
        neighbours=DUPLICATE_NEIGHBOURS,
        candidates=candidates,
    )
    found = {int(r["index"]): r["found"] for r in rows}
    repeat = neo4j_similarity(threshold)
    out = []
    for i, item in enumerate(items):
        hits = [
            (str(h["id"]), float(h["similarity"])) for h in found.get(i, []) if not h.get("retired")
        ]
        duplicate = first_repeat(
            [h for h in found.get(i, []) if not h.get("retired")], item.content, repeat, agrees
        )
        # With no current belief it repeats, a retired one it repeats (by the dedup rule) stops a
        # new fact (the caller drops it); a merge ignores it.
        retired_id = first_repeat(
            [h for h in found.get(i, []) if h.get("retired")], item.content, repeat, agrees
        )
        retired_id = None if duplicate else retired_id
        close = (
            []
            if near is None
            else [(id_, min(1.0, 2.0 * s - 1.0)) for id_, s in hits if s >= neo4j_similarity(near)]
        )
        best: dict[str, float] = {}
        for id_, cosine in close:
            best[id_] = max(cosine, best.get(id_, -1.0))
        out.append(Resemblance(duplicate, list(best.items()), retired_id is not None, retired_id))
    return out


def first_repeat(
    hits: Sequence[dict[str, Any]], content: str, floor: float, agrees: Agrees
) -> str | None:
    """The id of the first hit (most similar first) that a fact of `content` repeats: the same
    text (similarity 2.0), or at least `floor` similar (vector.similarity.cosine's scale) and
    agreeing with it."""
    for hit in hits:
        similarity = float(hit["similarity"])
        if similarity > 1.0 or (similarity >= floor and agrees(content, str(hit["content"] or ""))):
            return str(hit["id"])
    return None


async def find_repeats(
    tx: Tx,
    workspace: str,
    items: Sequence[Candidate],
    threshold: float,
    agrees: Agrees = always,
) -> list[str | None]:
    """For each candidate, the current belief of its representation it repeats by the
    deriver's dedup rule (the same normalized text, else the most similar at a cosine of at
    least `threshold` that `agrees` with it), or None."""
    return [r.duplicate_of for r in await probe(tx, workspace, items, threshold, None, agrees)]
