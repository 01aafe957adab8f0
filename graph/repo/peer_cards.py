"""Peer cards: an observer's compact list of stable facts about a peer.

A card is a system-managed File of the peer it is about (graph/repo/files.py): `card.md` for a
peer's card of itself, `cards/<observer>.md` for another peer's card of it. Its content is the
entries as a markdown list; the entries and their support are kept as lists on the File, and
each entry is one searchable chunk.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.db import Database
from graph.errors import InvalidInput
from graph.keys import peer_key
from graph.records import to_datetime
from graph.repo import peers
from graph.repo.files import CARD_PATH, CARDS_FOLDER
from graph.validation import now

MAX_ENTRIES = 40
MAX_ENTRY_CHARS = 300


@dataclass(frozen=True)
class CardLine:
    text: str
    support: tuple[str, ...] = ()  # observation ids; () for a line the app wrote itself

    @property
    def joined(self) -> str:
        return " ".join(self.support)


@dataclass(frozen=True)
class PeerCard:
    observer: str
    observed: str
    entries: list[str]
    updated_at: datetime | None
    support: list[tuple[str, ...]] = field(default_factory=list)  # per entry

    @classmethod
    def from_row(cls, observer: str, observed: str, row: dict[str, Any] | None) -> PeerCard:
        if row is None or row["card"] is None:
            return cls(observer, observed, [], None)
        entries = list(row["card"])
        stored = list(row.get("card_support") or [])
        support = [
            tuple(str(stored[i]).split()) if i < len(stored) else () for i in range(len(entries))
        ]
        return cls(observer, observed, entries, to_datetime(row["updated_at"]), support)


def one_line(text: str) -> str:
    """A card line a dream writes, on one line (what a belief says may span several): the
    card's file lists its lines one per line."""
    return " ".join(text.split())


def check_entries(entries: list[str]) -> list[str]:
    cleaned = [e.strip() for e in entries if e.strip()]
    if len(cleaned) > MAX_ENTRIES:
        raise InvalidInput(f"a peer card holds at most {MAX_ENTRIES} entries, not {len(cleaned)}")
    for index, entry in enumerate(cleaned):
        # One line each: the card's file lists them one per line, where "a\n\n# B\n- c" would
        # read as a heading and another entry.
        if any(c in entry for c in "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"):
            raise InvalidInput(f"card[{index}] has a line break: an entry is one line")
        if len(entry) > MAX_ENTRY_CHARS:
            raise InvalidInput(
                f"card[{index}] is {len(entry)} characters; the limit is {MAX_ENTRY_CHARS}"
            )
    return cleaned


def card_path(observer: str, observed: str) -> str:
    """Where `observer`'s card of `observed` lives among `observed`'s files."""
    return CARD_PATH if observer == observed else f"{CARDS_FOLDER}{observer}.md"


async def get(db: Database, workspace: str, observer: str, observed: str) -> PeerCard:
    row = await db.read_one(
        "get_peer_card",
        workspace=workspace,
        observer=observer,
        observed=observed,
        path=card_path(observer, observed),
    )
    return PeerCard.from_row(observer, observed, row)


async def set_card(
    db: Database,
    workspace: str,
    observer: str,
    observed: str,
    entries: list[str],
    *,
    embed: Callable[[list[str]], Awaitable[list[list[float]]]] | None = None,
) -> PeerCard:
    """Replace the card with the app's `entries`. `embed` gives each entry's chunk its
    embedding; without it an entry keeps the one it had, and a new entry has none until
    start-up embeds it (reasoners/peers/files.py embed_missing_chunks)."""
    card = check_entries(entries)
    vectors: list[list[float] | None] = list(await embed(card)) if embed and card else []
    row = await db.write_one(
        "set_peer_card",
        workspace=workspace,
        observer=observer,
        observed=observed,
        path=card_path(observer, observed),
        peer_key=peer_key(workspace, observed),
        card=card,
        vectors=vectors or [None] * len(card),
        now=now(),
    )
    if row is None:
        raise peers.pair_missing(workspace, observer, observed)
    return PeerCard.from_row(observer, observed, row)
