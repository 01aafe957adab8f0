"""Passages: the short stretches of a message that get vectors of their own.

One vector per message averages everything the message says, so a fact mentioned in passing
("by the way, I saw Dr. Smith on March 3rd" inside a question about a cough) is lost in the
message's main topic. A message of more than one passage also gets one vector per passage, and
search scores it by the closer of the message and its best passage (reasoners/search/).

A passage packs whole sentences (reasoners/text/sentences.py: line breaks end them, bullets
are dropped) up to PASSAGE_CHARS; a longer sentence is a passage alone.
Passages cover the message's opening PASSAGE_SPAN characters only: on the LongMemEval
sample's tuning half, passages from further in (long assistant answers, lists) matched
questions by accident more often than they found evidence, and each passage costs an embedding
at ingest (docs/BENCHMARKS.md bench:memory measures that cost).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from reasoners.embeddings.model import Embedder, embed_async
from reasoners.text.sentences import split_sentences

PASSAGE_CHARS = 200
PASSAGE_SPAN = 600


def passages(text: str) -> list[str]:
    """The passages of `text` to embed: none when it holds a single passage (its own vector
    says the same), otherwise those starting in its first PASSAGE_SPAN characters."""
    packed: list[str] = []
    current = ""
    covered = 0
    for sentence in _sentences(text):
        if current and len(current) + 1 + len(sentence) > PASSAGE_CHARS:
            packed.append(current)
            covered += len(current) + 1
            current = ""
            if covered >= PASSAGE_SPAN:
                break
        current = f"{current} {sentence}" if current else sentence
    if current:
        packed.append(current)
    return packed if len(packed) > 1 else []


def _sentences(text: str) -> list[str]:
    # Only the stretch passages can cover is split: a sentence longer than that is a passage
    # of its own, and the model reads at most a few hundred words of it anyway.
    return split_sentences(text[: PASSAGE_SPAN + 4 * PASSAGE_CHARS])


@dataclass(frozen=True)
class MessageVectors:
    embedding: list[float]
    # The passages' vectors one after another; empty for a one-passage message (stored so, it
    # tells the background backfill this message needs nothing: reasoners/ingest/backfill.py);
    # None when passages are off (BELIEFGRAPH_MESSAGE_PASSAGES): stored as nothing, so the
    # backfill embeds them once they are on again.
    passages: list[float] | None


def model_inputs(texts: Sequence[str]) -> tuple[list[str], list[list[str]]]:
    """What the model embeds for these messages: the texts, then every passage in order;
    and each text's passages."""
    split = [passages(text) for text in texts]
    return [*texts, *(p for parts in split for p in parts)], split


async def embed_messages(
    embedder: Embedder, texts: Sequence[str], *, with_passages: bool = True
) -> list[MessageVectors]:
    """Each text's vector and its passages' vectors, in one call to the model (without
    passages: the texts alone, and no passage vectors)."""
    if not with_passages:
        return [MessageVectors(own, None) for own in await embed_async(embedder, list(texts))]
    inputs, split = model_inputs(texts)
    vectors = await embed_async(embedder, inputs)
    rest = iter(vectors[len(texts) :])
    out = []
    for own, parts in zip(vectors[: len(texts)], split, strict=True):
        flat = [x for _ in parts for x in next(rest)]
        out.append(MessageVectors(own, flat))
    return out
