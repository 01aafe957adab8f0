"""What a dream decides, as plain data (pure): the beliefs it adds, the ones it supersedes or
prunes, and the peer card it leaves. Both dreamers (rules.py, specialists.py) produce a
`DreamPlan`; the handler writes it in one transaction, where every item is checked again."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph.models import ObservationLevel
from graph.repo.dreams import Belief
from graph.repo.peer_cards import CardLine

__all__ = ["Belief", "CardLine"]  # what the dreamers read and write, from the graph layer

DEDUCTIVE = ObservationLevel.DEDUCTIVE.value
INDUCTIVE = ObservationLevel.INDUCTIVE.value
CONTRADICTION = ObservationLevel.CONTRADICTION.value
EXPLICIT = ObservationLevel.EXPLICIT.value

PATTERN_TYPES = ("preference", "behaviour", "trait", "temporal trend")


@dataclass(frozen=True)
class NewBelief:
    id: str  # chosen before the write, so later items of the same dream can cite it
    level: str
    content: str
    premise_ids: tuple[str, ...]
    pattern_type: str | None = None
    confidence: float | None = None
    supersedes: str | None = None  # a knowledge update: the belief this one replaces


@dataclass(frozen=True)
class Supersession:
    """`new_id` replaces `old_id` (both existing beliefs of the representation)."""

    old_id: str
    new_id: str


@dataclass(frozen=True)
class Prune:
    """A derived belief that no longer holds: it is marked stale, not deleted."""

    id: str
    reason: str


@dataclass
class DreamPlan:
    beliefs: list[NewBelief] = field(default_factory=list)
    supersessions: list[Supersession] = field(default_factory=list)
    prunes: list[Prune] = field(default_factory=list)
    card: list[CardLine] | None = None  # None: the card stays as it is

    @property
    def superseded_ids(self) -> set[str]:
        return {s.old_id for s in self.supersessions} | {
            b.supersedes for b in self.beliefs if b.supersedes is not None
        }


def confidence_for(premises: int) -> float:
    """An induction's confidence, scaled by its support: n / (n + 1), so 2 premises give 0.67,
    3 give 0.75, 9 give 0.9; it approaches but never reaches 1."""
    return round(premises / (premises + 1), 3)


def card_diff(before: list[CardLine], after: list[CardLine]) -> tuple[list[str], list[str]]:
    """(added, removed) line texts."""
    old = [line.text for line in before]
    new = [line.text for line in after]
    return [t for t in new if t not in old], [t for t in old if t not in new]


def without_support(card: list[CardLine], dropped: set[str]) -> list[CardLine] | None:
    """The card without the beliefs in `dropped` as support (a line left with none goes; the
    app's own lines, which cite none, stay); None when no line cites one of them (pure)."""
    if not any(set(line.support) & dropped for line in card):
        return None
    kept = [
        CardLine(line.text, tuple(i for i in line.support if i not in dropped)) for line in card
    ]
    return [new for new, old in zip(kept, card, strict=True) if new.support or not old.support]
