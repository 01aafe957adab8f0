"""The messages of a view ranked as `searchMessages` ranks them (the dialectic's message search
and the matched messages of `context`).

The search keeps the observed peers' turns; the view then drops those sent while the observer
was not in the session (graph/repo/message_views.py visible_in_view). When that leaves the page
short, the ranking is read deeper, within a bound, rather than returning fewer than exist.
"""

from __future__ import annotations

from graph.db import Database
from graph.records import MessageRecord
from graph.repo import message_views
from graph.repo import messages as message_repo
from graph.repo.observation_search import ObservationQuery
from graph.validation import check_query
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.search.messages import search_messages

OVERFETCH = 4  # messages ranked per one shown, and the growth of each deeper round
MAX_RANKED = 320  # deepest ranking one search reads


async def ranked_in_view(
    db: Database,
    embedder: Embedder,
    workspace: str,
    view: ObservationQuery,
    query: str,
    limit: int,
    *,
    session: str | None = None,
    embedding: list[float] | None = None,
) -> list[MessageRecord]:
    """At most `limit` of the messages `view`'s observers saw of its observed peers (within
    `session` when given), best first; pass `embedding` when the query's is at hand."""
    if embedding is None:
        # Embedded once for every round below.
        [embedding] = await embed_async(embedder, [check_query(query)])
    senders = tuple(dict.fromkeys(observed for _, observed in view.pairs))
    filters = message_repo.MessageFilter(session=session, also_peers=senders)
    fetch = limit * OVERFETCH
    while True:
        hits = await search_messages(
            db, embedder, workspace, query, filters, fetch, embedding=embedding
        )
        visible = await message_views.visible_in_view(
            db, workspace, view, [h.item.id for h in hits]
        )
        shown = [h.item for h in hits if h.item.id in visible][:limit]
        # A short page from a full ranking: the view hid some; rank deeper, within a bound.
        if len(shown) == limit or len(hits) < fetch or fetch >= MAX_RANKED:
            return shown
        fetch = min(fetch * OVERFETCH, MAX_RANKED)
