"""Message search: hybrid search over the messages of a workspace, a session or a peer."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace

from graph.db import Database
from graph.errors import NotFound
from graph.records import MessageRecord
from graph.repo import message_search, peers, sessions
from graph.repo.messages import MessageFilter
from graph.validation import check_name, check_query
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.search.fusion import FACT_MARGIN, TEXT_WEIGHT, length_penalty, with_facts
from reasoners.search.hybrid import Candidates, Favour, Hit, fuse, gather_candidates
from reasoners.search.replies import REPLY_WEIGHT, replies_to_asker
from reasoners.search.speakers import (
    SPEAKER_WEIGHT,
    Favoured,
    favoured,
    name_candidates,
)


@dataclass(frozen=True)
class MessageRetriever:
    db: Database
    workspace: str
    filters: MessageFilter

    async def vector(self, embedding: list[float], limit: int) -> list[tuple[MessageRecord, float]]:
        return await message_search.vector_candidates(
            self.db, self.workspace, embedding, self.filters, limit
        )

    async def text(
        self, text: str, embedding: list[float], limit: int
    ) -> list[tuple[MessageRecord, float, float | None]]:
        return await message_search.text_candidates(
            self.db, self.workspace, text, self.filters, limit, embedding=embedding
        )


def message_id(message: MessageRecord) -> str:
    return message.id


def length_prior(message: MessageRecord) -> float:
    return length_penalty(len(message.content))


@dataclass(frozen=True)
class SpeakerLookup:
    """Resolves whose turns a query favours: the peers it names and, with an asker, the one
    its pronouns point at (reasoners/search/speakers.py)."""

    db: Database
    workspace: str
    query: str
    asker: str | None

    async def resolve(self) -> Favoured:
        candidates = name_candidates(self.query)
        wanted = candidates + ([self.asker] if self.asker is not None else [])
        found = await peers.existing(self.db, self.workspace, wanted) if wanted else set()
        if self.asker is not None and self.asker not in found:
            raise NotFound(
                f"asker: peer {self.asker!r} does not exist in workspace {self.workspace!r}",
                field="asker",
            )
        # The candidates hold each word in several cases: "dana" names the peer "Dana".
        named = {name for name in found if name in candidates}
        return favoured(self.query, self.asker, named)


def favour_of(who: Favoured) -> Favour[MessageRecord] | None:
    return (lambda message: who.covers(message.peer, message.session)) if who else None


async def message_candidates(
    db: Database,
    embedder: Embedder,
    workspace: str,
    query: str,
    filters: MessageFilter,
    limit: int,
    *,
    asker: str | None = None,
    embedding: list[float] | None = None,
) -> Candidates[MessageRecord]:
    """The pools `search_messages` fuses for a page of `limit`, each candidate's similarity
    raised to its closest derived belief's (fusion.with_facts), and whose turns it favours
    (pass `embedding` when the caller already has the query's)."""
    if asker is not None:
        check_name(asker, "asker")
    if embedding is None:
        [embedding] = await embed_async(embedder, [check_query(query)])
    # The speakers are looked up beside the two halves: the search takes the slowest's time.
    found, who = await asyncio.gather(
        gather_candidates(
            embedder, MessageRetriever(db, workspace, filters), query, limit, embedding=embedding
        ),
        SpeakerLookup(db, workspace, query, asker).resolve(),
    )
    if who.all_but is not None:  # asked what "you" said, on the asker's behalf
        pooled = found.pooled()
        said_to = who.all_but
        joined = await sessions.joined_by(db, workspace, said_to, {m.session for m in pooled})
        who = replace(who, within=joined)
        found = replace(found, replies=replies_to_asker(pooled, said_to))
    found = replace(found, favour=favour_of(who))
    return await raised_by_facts(db, workspace, embedding, found)


async def raised_by_facts(
    db: Database, workspace: str, embedding: list[float], found: Candidates[MessageRecord]
) -> Candidates[MessageRecord]:
    """The candidates with each similarity raised to its closest derived belief's, less
    FACT_MARGIN; the order of both lists (their ranks) stays the retrievers'."""
    ids = [m.id for m in found.pooled()]
    facts = await message_search.fact_similarity(db, workspace, embedding, list(dict.fromkeys(ids)))
    if not facts:
        return found
    # with_facts for a similarity that is never None (the vector half always has one).
    by_vector = [(m, max(s, facts.get(m.id, 0.0) - FACT_MARGIN)) for m, s in found.by_vector]
    by_text = [(m, score, with_facts(s, facts.get(m.id))) for m, score, s in found.by_text]
    return replace(found, by_vector=by_vector, by_text=by_text)


async def search_messages(
    db: Database,
    embedder: Embedder,
    workspace: str,
    query: str,
    filters: MessageFilter,
    limit: int,
    *,
    asker: str | None = None,
    embedding: list[float] | None = None,
) -> list[Hit[MessageRecord]]:
    """Hybrid search; a turn is as close as its closest derived belief, less a margin
    (fusion.py: FACT_MARGIN), the turns of the speaker the query is about rank a little higher,
    long messages a little lower (LENGTH_WEIGHT, LENGTH_REFERENCE), and when the query asks
    what "you" said, a reply to the asker shares in its request's score (replies.py)."""
    found = await message_candidates(
        db, embedder, workspace, query, filters, limit, asker=asker, embedding=embedding
    )
    return fuse(
        found.by_vector,
        found.by_text,
        message_id,
        limit,
        found.favour,
        SPEAKER_WEIGHT,
        TEXT_WEIGHT,
        length_prior,
        found.replies,
        REPLY_WEIGHT,
    )
