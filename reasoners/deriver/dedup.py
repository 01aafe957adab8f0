"""Duplicate detection for observations: an exact key, then cosine similarity of embeddings."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graph.errors import LimitExceeded
from reasoners.text.numbers import figures
from reasoners.text.sense import same_claim
from reasoners.text.spans import normalize

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


def repeated_items(
    keys: Sequence[str],
    embeddings: Sequence[Sequence[float]],
    threshold: float,
    contents: Sequence[str] | None = None,
) -> list[int | None]:
    """For items in order, None for one that is kept, else the index of the earlier kept item
    it repeats: the first with the same non-empty key, else the most similar at a cosine of at
    least `threshold` (the earliest on ties; a zero vector repeats nothing). The cosines are
    one matrix product per item rather than Python loops (a long message can yield a thousand
    facts, and comparing each with the others in Python took minutes). With `contents`, a
    similar item repeats only one that says the same (`same_claim`: numbers, negation, tense)."""
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
