"""The zero-key dreamer (pure): what can be revised honestly without a model.

- Knowledge updates: two current facts fill one updatable slot (slots.py) with different
  values; the one stated later supersedes the other (a belief is stated when its first message
  was, valid_at, or when a live message last repeated it, if later). A tie between different
  values is left alone (which one holds cannot be told).
- "No longer" facts: "Alice no longer eats meat" and "Alice eats meat" make one claim with
  opposite polarity, one of them lapsed; the later supersedes the earlier.
- Contradictions: the same claim with opposite polarity and no "no longer": one
  `contradiction` belief citing both, once per pair.
- Inductions: at least three near-identical explicit facts (cosine >= the similarity setting,
  and the same numbers) from at least two sessions: one inductive belief citing them, its
  confidence by their number (plan.confidence_for). When an earlier induction covered part of
  the group, the new one, with the whole group, supersedes it.
- The peer card: one line per identity slot (name, age, residence, hometown, occupation,
  workplace, relationship status; family members and pets), each from the latest current fact
  of the slot and backed by it. Lines an app wrote itself (no support) are kept, first.

Only pairs that include at least one of the dream's new facts are looked at, so the work grows
with the new facts, not with the representation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from graph.repo.peer_cards import MAX_ENTRIES, MAX_ENTRY_CHARS, one_line
from reasoners.dreamer.claims import claim_of
from reasoners.dreamer.induction_text import (
    MIN_INDUCTION_FACTS,
    MIN_INDUCTION_SESSIONS,
    induction_text,
)
from reasoners.dreamer.plan import (
    CONTRADICTION,
    EXPLICIT,
    INDUCTIVE,
    Belief,
    CardLine,
    DreamPlan,
    NewBelief,
    Supersession,
    confidence_for,
)
from reasoners.dreamer.slots import (
    AGE,
    HOMETOWN,
    NAME,
    OCCUPATION,
    RELATIONSHIP,
    RESIDENCE,
    WORKPLACE,
    Slot,
    core_text,
    slot_of,
    without_lead_in,
)
from reasoners.text.numbers import same_figures

CARD_ORDER = (NAME, AGE, RESIDENCE, HOMETOWN, OCCUPATION, WORKPLACE, RELATIONSHIP)
MAX_CARD_LINES = 20  # lines the rules write; an app's own lines come on top, up to MAX_ENTRIES
_PREFERENCE = re.compile(
    r"\b(?:likes?|loves?|enjoys?|prefers?|favou?rite|hates?|dislikes?|fan of)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Neighbour:
    belief: Belief
    similarity: float  # cosine


@dataclass(frozen=True)
class Related:
    """What the graph holds around the new facts (current beliefs only, new facts excluded)."""

    slotted: Sequence[Belief] = ()  # beliefs filling the new facts' slots or the card's
    by_claim: Mapping[str, Sequence[Belief]] = field(default_factory=dict)  # signed claim key
    neighbours: Mapping[str, Sequence[Neighbour]] = field(default_factory=dict)  # by new id
    inductions: Sequence[Belief] = ()  # current inductions citing any of those facts
    contradicted: frozenset[frozenset[str]] = frozenset()  # pairs a contradiction already cites
    card: Sequence[CardLine] = ()


@dataclass(frozen=True)
class Keys:
    """What the dream stores on a new fact so that later dreams find it by index."""

    slot: str | None
    claim: str | None


def keys_of(belief: Belief, name: str) -> Keys:
    fill = slot_of(belief.content, name) if belief.level == EXPLICIT else None
    claim = claim_of(belief.content) if belief.level == EXPLICIT else None
    return Keys(fill.key if fill else None, claim.signed_key if claim else None)


def plan_rules(
    name: str,
    new: Sequence[Belief],
    related: Related,
    *,
    similarity: float,
    new_id: Callable[[], str],
) -> DreamPlan:
    plan = DreamPlan()
    _updates(name, new, related, plan)
    _claims(new, related, plan, new_id)
    _inductions(name, new, related, plan, similarity, new_id)
    _drop_retired_premises(plan)
    plan.card = _card(name, new, related, plan)
    return plan


def _drop_retired_premises(plan: DreamPlan) -> None:
    """A belief citing one this plan supersedes would be rejected by the write (premises must
    be current): e.g. "eats meat" contradicted by "doesn't eat meat" and ended by "no longer
    eats meat" in one batch. The supersession stands; the belief is left out."""
    superseded = plan.superseded_ids
    plan.beliefs = [b for b in plan.beliefs if not superseded & set(b.premise_ids)]


def _updates(name: str, new: Sequence[Belief], related: Related, plan: DreamPlan) -> None:
    fills: dict[str, list[tuple[Belief, str, Slot]]] = {}
    seen: set[str] = set()
    for belief in [*new, *related.slotted]:
        fill = slot_of(belief.content, name) if belief.level == EXPLICIT else None
        if fill is None or belief.id in seen:
            continue
        seen.add(belief.id)
        fills.setdefault(fill.key, []).append((belief, fill.value, fill.slot))
    new_ids = {b.id for b in new}
    for entries in fills.values():
        if not entries[0][2].updatable or not any(b.id in new_ids for b, _, _ in entries):
            continue
        entries.sort(key=lambda e: e[0].when)
        winner, value, _ = entries[-1]
        rivals = [e for e in entries[:-1] if e[1] != value]
        if any(e[0].stated == winner.stated for e in rivals):
            continue  # two values at one moment: which holds cannot be told
        for old, _, _ in rivals:
            plan.supersessions.append(Supersession(old.id, winner.id))


def _claims(
    new: Sequence[Belief], related: Related, plan: DreamPlan, new_id: Callable[[], str]
) -> None:
    superseded = plan.superseded_ids
    done: set[frozenset[str]] = set(related.contradicted)
    by_key: dict[str, list[Belief]] = {}
    for key, beliefs in related.by_claim.items():
        by_key.setdefault(key, []).extend(beliefs)
    for belief in new:
        claim = claim_of(belief.content) if belief.level == EXPLICIT else None
        if claim is not None:
            by_key.setdefault(claim.signed_key, []).append(belief)
    for belief in new:
        claim = claim_of(belief.content) if belief.level == EXPLICIT else None
        if claim is None or belief.id in superseded:
            continue
        for other in by_key.get(claim.opposite_key, []):
            pair = frozenset((belief.id, other.id))
            if other.id in superseded or pair in done:
                continue
            done.add(pair)
            other_claim = claim_of(other.content)
            lapsed = claim.lapsed or (other_claim is not None and other_claim.lapsed)
            if lapsed:
                old, current = sorted((belief, other), key=lambda b: b.when)
                if old.stated == current.stated:
                    continue
                plan.supersessions.append(Supersession(old.id, current.id))
                superseded.add(old.id)
                if old.id == belief.id:
                    break
                continue
            first, second = sorted((other, belief), key=lambda b: b.when)
            plan.beliefs.append(
                NewBelief(
                    id=new_id(),
                    level=CONTRADICTION,
                    content=f'Contradiction: "{core_text(first.content)}" conflicts with '
                    f'"{core_text(second.content)}".',
                    premise_ids=(first.id, second.id),
                )
            )


def _inductions(
    name: str,
    new: Sequence[Belief],
    related: Related,
    plan: DreamPlan,
    similarity: float,
    new_id: Callable[[], str],
) -> None:
    superseded = plan.superseded_ids
    grouped: set[str] = set()
    replaced: set[str] = set()
    for belief in new:
        if belief.level != EXPLICIT or belief.id in grouped or belief.id in superseded:
            continue
        group = {belief.id: belief}
        for n in related.neighbours.get(belief.id, ()):
            b = n.belief
            if (
                n.similarity >= similarity
                and b.level == EXPLICIT
                and b.id not in superseded
                and b.id not in grouped
                and not _opposed(belief, b)
                # Three phone numbers are not a pattern, however alike they embed.
                # (On any day: "went running today" is one more instance of the habit.)
                and same_figures(belief.content, b.content, events=False)
            ):
                group.setdefault(b.id, b)
        sessions = {b.session for b in group.values() if b.session is not None}
        if len(group) < MIN_INDUCTION_FACTS or len(sessions) < MIN_INDUCTION_SESSIONS:
            continue
        members = set(group)
        earlier = [
            i
            for i in related.inductions
            if i.id not in replaced and len(members & set(i.premise_ids)) >= 2
        ]
        if any(members <= set(i.premise_ids) for i in earlier):
            continue  # already said, with this support or more
        premises = members.union(*(set(i.premise_ids) for i in earlier)) - superseded
        grouped |= members
        latest = max(group.values(), key=lambda b: b.when)
        text = core_text(latest.content)
        sentence = text[0].upper() + text[1:]
        plan.beliefs.append(
            NewBelief(
                id=new_id(),
                level=INDUCTIVE,
                content=induction_text(len(premises), len(sessions), sentence),
                premise_ids=tuple(sorted(premises)),
                pattern_type="preference" if _PREFERENCE.search(text) else "behaviour",
                confidence=confidence_for(len(premises)),
                supersedes=earlier[0].id if earlier else None,
            )
        )
        replaced |= {i.id for i in earlier}


def _opposed(a: Belief, b: Belief) -> bool:
    """One says a thing, the other that it is not (or no longer) so: near in embedding, yet
    no pattern ("eats meat", "doesn't eat meat" and "no longer eats meat" made one)."""
    first, second = claim_of(a.content), claim_of(b.content)
    return first is not None and second is not None and first.signed_key[0] != second.signed_key[0]


def _card_text(content: str) -> str:
    """A card line's words: the fact's, without a lead-in that only announced it ("Big news -
    alice lives in Berlin now" fills her home with "Alice lives in Berlin now")."""
    text = core_text(content)
    fact = without_lead_in(text)
    return text if fact == text else fact[:1].upper() + fact[1:]


def _card(name: str, new: Sequence[Belief], related: Related, plan: DreamPlan) -> list[CardLine]:
    superseded = plan.superseded_ids
    latest: dict[str, tuple[Belief, Slot]] = {}
    multi: dict[tuple[str, str], Belief] = {}
    candidates = [*new, *related.slotted]
    for belief in candidates:
        fill = slot_of(belief.content, name) if belief.level == EXPLICIT else None
        if fill is None or not fill.slot.card or belief.id in superseded:
            continue
        if fill.slot.updatable or fill.slot == HOMETOWN:
            known = latest.get(fill.key)
            if known is None or known[0].when < belief.when:
                latest[fill.key] = (belief, fill.slot)
        else:
            known_multi = multi.get((fill.key, fill.value))
            if known_multi is None or known_multi.when < belief.when:
                multi[(fill.key, fill.value)] = belief
    lines: list[CardLine] = []
    for slot in CARD_ORDER:
        if slot.name in latest:
            belief = latest[slot.name][0]
            text = _card_text(belief.content)
            if slot == AGE:
                text += f" (as of {belief.stated.date().isoformat()})"
            lines.append(CardLine(one_line(text)[:MAX_ENTRY_CHARS], (belief.id,)))
    for key in sorted(multi):
        belief = multi[key]
        lines.append(CardLine(one_line(_card_text(belief.content))[:MAX_ENTRY_CHARS], (belief.id,)))
    own = [line for line in related.card if not line.support]
    return own + lines[: max(0, min(MAX_CARD_LINES, MAX_ENTRIES - len(own)))]
