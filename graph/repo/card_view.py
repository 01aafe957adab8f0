"""The peer card as a read shows it: only the lines whose beliefs the read may show."""

from __future__ import annotations

import dataclasses

from graph.db import Database
from graph.repo import observations
from graph.repo.observation_search import ObservationQuery
from graph.repo.peer_cards import PeerCard


async def lines_in_view(
    db: Database, workspace: str, card: PeerCard, query: ObservationQuery
) -> list[str]:
    """The card's lines a read narrowed by `query` may show: the app's own lines (they cite no
    belief), and a dream's whose every belief is current and, with session filters, of the
    sessions read. Until the view's next dream writes the card again, a line on a belief
    deleted, stale or superseded since is not shown; nor, ever, one learnt in a session the
    read leaves out (`excludeSessionIds` of a private session showed what it taught)."""
    cited = sorted({i for support in card.support for i in support})
    if not cited:
        return list(card.entries)
    now = dataclasses.replace(query, as_of=None, levels=None, since=None, until=None)
    found = await observations.in_view(db, workspace, now, cited)
    shown = {
        r.observation.id
        for r in found
        if not r.observation.stale and r.observation.superseded_at is None
    }
    return [
        line
        for line, support in zip(card.entries, card.support, strict=True)
        if all(i in shown for i in support)
    ]
