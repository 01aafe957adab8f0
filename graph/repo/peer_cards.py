"""Peer cards: an observer's compact list of stable facts about a peer (on the OBSERVES edge)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.db import Database
from graph.errors import InvalidInput, NotFound
from graph.records import to_datetime
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


def check_entries(entries: list[str]) -> list[str]:
    cleaned = [e.strip() for e in entries if e.strip()]
    if len(cleaned) > MAX_ENTRIES:
        raise InvalidInput(f"a peer card holds at most {MAX_ENTRIES} entries, not {len(cleaned)}")
    for index, entry in enumerate(cleaned):
        if len(entry) > MAX_ENTRY_CHARS:
            raise InvalidInput(
                f"card[{index}] is {len(entry)} characters; the limit is {MAX_ENTRY_CHARS}"
            )
    return cleaned


async def get(db: Database, workspace: str, observer: str, observed: str) -> PeerCard:
    row = await db.read_one(
        "get_peer_card", workspace=workspace, observer=observer, observed=observed
    )
    return PeerCard.from_row(observer, observed, row)


async def set_card(
    db: Database, workspace: str, observer: str, observed: str, entries: list[str]
) -> PeerCard:
    row = await db.write_one(
        "set_peer_card",
        workspace=workspace,
        observer=observer,
        observed=observed,
        card=check_entries(entries),
        now=now(),
    )
    if row is None:
        raise NotFound(f"peers {observer!r} and {observed!r} must both exist in {workspace!r}")
    return PeerCard.from_row(observer, observed, row)
