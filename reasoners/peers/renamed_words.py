"""A rename's or merge's new name in the words of the beliefs it moves (a step's part)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graph.db import Tx
from graph.repo import invalidation
from reasoners.deriver.dedup import belief_fits, exact_key
from reasoners.dreamer.claims import claim_of
from reasoners.dreamer.plan import EXPLICIT
from reasoners.dreamer.slots import slot_of
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.text.names import renamed

# Beliefs a step moves into a representation of another peer, at most: their new words are
# embedded inside the step's transaction, which holds the peer's lock meanwhile.
RENAMED_PER_STEP = 128


async def write_new_name(
    tx: Tx,
    embedder: Embedder,
    workspace: str,
    source: str,
    target: str,
    moved: Sequence[dict[str, Any]],
) -> None:
    """Moved beliefs now about `target` name it where they named `source` as their subject:
    "Alicia loves jazz" merged into alice is "Alice loves jazz", which the merge's dedup then
    finds repeats hers, and which the same fact said again under the new name repeats. The
    keys a dream stored from the old words (slot, claim) are read from the new ones; words
    too long to store stay as they were."""
    changed = [
        (b, words)
        for b in moved
        if (words := renamed(str(b["content"]), source, target)) != b["content"]
        and belief_fits(words)
    ]
    if not changed:
        return
    vectors = await embed_async(embedder, [words for _, words in changed])
    items = []
    for (belief, words), vector in zip(changed, vectors, strict=True):
        explicit = belief["level"] == EXPLICIT
        fill = slot_of(words, target) if explicit else None
        claim = claim_of(words) if explicit else None
        items.append(
            {
                "id": str(belief["id"]),
                "was": str(belief["content"]),
                "content": words,
                "content_key": exact_key(words),
                "embedding": vector,
                "keys": True,
                "slot": fill.key if fill else None,
                "claim": claim.signed_key if claim else None,
            }
        )
    await invalidation.reword(tx, workspace, items)
