"""Duplicate detection for observations: an exact key, then cosine similarity of embeddings."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from graph.errors import LimitExceeded
from reasoners.text.numbers import figures
from reasoners.text.sense import same_claim
from reasoners.text.spans import normalize

IdT = TypeVar("IdT")


# A belief states one fact. Its exact key is indexed with its representation's key, and
# Neo4j's range index refuses a key of more than about 8 KB, so a longer one could not be
# stored at all (normalization can lengthen text: one character may become 18).
MAX_BELIEF_CHARS = 2_000
MAX_KEY_BYTES = 6_000


def exact_key(content: str) -> str:
    """A key equal for texts that differ only in case, spacing, quote style or end punctuation."""
    return normalize(content)


def belief_fits(content: str) -> bool:
    """Whether `content` can be stored as a belief (see MAX_BELIEF_CHARS)."""
    if len(content) > MAX_BELIEF_CHARS:
        return False
    return len(exact_key(content).encode("utf-8")) <= MAX_KEY_BYTES


def check_belief(content: str, what: str) -> None:
    """LimitExceeded for a belief too long to store."""
    if not belief_fits(content):
        raise LimitExceeded(
            f"{what}: a belief may hold {MAX_BELIEF_CHARS} characters "
            f"({MAX_KEY_BYTES} bytes once normalized); this one has {len(content)}",
            limit="belief",
        )


def cosine(left: Sequence[float], right: Sequence[float]) -> float:
    """Cosine similarity; 0.0 when either vector is all zeros (it points nowhere)."""
    if len(left) != len(right):
        raise ValueError(f"embedding dimensions differ: {len(left)} != {len(right)}")
    dot = math.fsum(a * b for a, b in zip(left, right, strict=True))
    norms = math.hypot(*left) * math.hypot(*right)
    if norms == 0.0:
        return 0.0
    return dot / norms


def find_duplicate(
    candidate_embedding: Sequence[float],
    candidate_key: str,
    existing: Sequence[tuple[IdT, str, Sequence[float]]],
    threshold: float = 0.95,
) -> IdT | None:
    """The id of an existing item that duplicates the candidate, or None.

    An equal, non-empty exact key wins outright (the first such item). Otherwise the most
    similar item whose cosine similarity is >= threshold, the earliest on ties. Vectors need
    not be normalized: cosine divides by their norms.
    """
    if candidate_key:
        for item_id, key, _ in existing:
            if key == candidate_key:
                return item_id
    best_id: IdT | None = None
    best_score = threshold
    for item_id, _, embedding in existing:
        score = cosine(candidate_embedding, embedding)
        if score >= best_score and (best_id is None or score > best_score):
            best_id, best_score = item_id, score
    return best_id


def repeated_items(
    keys: Sequence[str],
    embeddings: Sequence[Sequence[float]],
    threshold: float,
    contents: Sequence[str] | None = None,
) -> list[int | None]:
    """For items in order, None for one that is kept, else the index of the earlier kept item
    it repeats by `find_duplicate`'s rule (the same text, else the most similar). The same
    answers as calling it item by item, with the cosines computed as one matrix product per item
    rather than in Python (a long message can yield a thousand facts, and comparing each with
    the others in Python took minutes). With `contents`, a similar item repeats only one that
    says the same (`same_claim`: numbers, negation, tense, which `find_duplicate` does not
    know)."""
    if not keys:
        return []
    vectors = np.asarray(embeddings, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    # A zero vector points nowhere: its cosine with anything is 0.
    unit = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    # Items of the same numbers share a class: compared as integers, not lists, item by item;
    # what each number counts is checked for the few similar enough.
    classes: dict[tuple[str, ...], int] = {}
    figure_class = np.asarray(
        [classes.setdefault(tuple(figures(c)), len(classes)) for c in contents]
        if contents is not None
        else [0] * len(keys)
    )
    kept_keys: dict[str, int] = {}
    kept_rows: list[int] = []
    result: list[int | None] = []
    for i, key in enumerate(keys):
        repeats: int | None = kept_keys.get(key) if key else None
        if repeats is None and kept_rows:
            similarities = unit[kept_rows] @ unit[i]
            similarities[figure_class[kept_rows] != figure_class[i]] = -np.inf
            repeats = _most_similar_agreeing(similarities, kept_rows, i, threshold, contents)
        result.append(repeats)
        if repeats is None:
            kept_rows.append(i)
            kept_keys.setdefault(key, i)
    return result


def _most_similar_agreeing(
    similarities: np.ndarray,
    kept_rows: list[int],
    item: int,
    threshold: float,
    contents: Sequence[str] | None,
) -> int | None:
    """The most similar kept item at or above `threshold` whose numbers count the same things
    as the item's, in the same sense (`same_claim`: a class holds the same numbers, not what
    each counts)."""
    best = int(similarities.argmax())
    if similarities[best] < threshold:
        return None
    if contents is None or same_claim(contents[kept_rows[best]], contents[item]):
        return kept_rows[best]
    for other in np.argsort(-similarities, kind="stable"):  # rare: the best counts otherwise
        if similarities[other] < threshold:
            return None
        row = kept_rows[int(other)]
        if same_claim(contents[row], contents[item]):
            return row
    return None
