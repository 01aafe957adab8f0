"""The dialectic's file search: passages of the covered peers' files a view's read may show."""

from __future__ import annotations

from graph.db import Database
from graph.records import FileChunkRecord
from graph.repo import peer_cards
from graph.repo.card_view import lines_in_view
from graph.repo.files import is_reserved
from graph.repo.peer_cards import card_path
from reasoners.dialectic.evidence import View
from reasoners.dialectic.tool_results import FileResults
from reasoners.embeddings.model import Embedder
from reasoners.search.files import search_files

FILE_OVERFETCH = 3  # file passages asked per one shown (the card rule drops some)
MAX_FILE_HITS = 240  # passages one file search of the dialectic reads at most


async def search(
    db: Database, embedder: Embedder, view: View, cards: bool, query: str, limit: int
) -> FileResults:
    """Passages of the covered peers' files. Peer cards are (observer, observed) views: only
    this view's own cards show, and of them the lines the read may show; other files only to
    an asker who may read them. `cards` False: no card passage at all."""
    own_cards = {(p, card_path(o, p)): o for o, p in view.pairs} if cards else {}
    peers = [p for _, p in view.pairs]
    # Asked wide, since the card rule drops some hits after the search; wider again while it
    # drops so many that the page is short and more were there (other observers' cards of a
    # peer can fill the first hits).
    asked = limit * FILE_OVERFETCH
    while True:
        hits = await search_files(db, embedder, view.workspace, peers, query, asked)
        kept = [
            h.item
            for h in hits
            if (h.item.peer, h.item.path) in own_cards
            or (view.read_files and not is_reserved(h.item.path))
        ]
        kept = await _card_lines_shown(db, view, kept, own_cards)
        if len(kept) >= limit or len(hits) < asked or asked >= MAX_FILE_HITS:
            return FileResults(query, kept[:limit])
        asked = min(asked * 4, MAX_FILE_HITS)


async def _card_lines_shown(
    db: Database, view: View, chunks: list[FileChunkRecord], own_cards: dict[tuple[str, str], str]
) -> list[FileChunkRecord]:
    """`chunks` less the card lines the read may not show, as the card tool leaves them out:
    a card's file holds every line, one learnt in a session the read excludes too."""
    shown: dict[tuple[str, str], set[str]] = {}
    for where in {(c.peer, c.path) for c in chunks if (c.peer, c.path) in own_cards}:
        card = await peer_cards.get(db, view.workspace, own_cards[where], where[0])
        shown[where] = set(await lines_in_view(db, view.workspace, card, view.query()))
    return [c for c in chunks if c.content in shown.get((c.peer, c.path), {c.content})]
