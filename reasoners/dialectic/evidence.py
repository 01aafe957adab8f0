"""The evidence ledger citations are checked against, and the beliefs and messages the
dialectic's tools show (the other results are in tool_results.py).

Every result is plain data with a compact `render()` for the model, naming each node as
`[obs:<id>]` or `[msg:<id>]`. `Evidence` records everything a tool showed in one conversation;
citations in the answer count only when they name an entry there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime

from graph.records import MessageRecord, ObservationRecord, Replaced, SourceSpan
from graph.repo.observation_search import ObservationQuery
from graph.validation import aware
from reasoners.text.spans import locate
from reasoners.text.transcript import minute

MAX_PROVENANCE_NODES = 40
LEAD_CHARS = 200  # span of a message cited without a narrower one
SHOWN_CHARS = 500  # message text shown to the model per message
GREP_WINDOW = 200  # characters shown on each side of a grep match


@dataclass(frozen=True)
class View:
    """Whose view the tools read: what `observer` knows about `observed` and about the
    `aggregated` peers below it (its sub-peers, at the depth the caller asked), within the
    session filters."""

    workspace: str
    observer: str
    observed: str
    session: str | None = None  # only this session's evidence
    as_of: datetime | None = None  # answer from the beliefs as they stood then
    aggregated: tuple[str, ...] = ()
    session_ids: tuple[str, ...] | None = None  # only these sessions (with `session`: both)
    exclude_session_ids: tuple[str, ...] | None = None
    exclude_derived: bool = False  # leave out beliefs with no session (deductions, inductions)
    # Whether the asker may read the covered peers' files (a key for the observed peer, or a
    # workspace key); without it, file search shows only this view's own peer cards.
    read_files: bool = False
    # Whether a `session` that does not exist is NOT_FOUND. A peer key may not learn which
    # sessions out of its reach exist: for it, one that does not exist reads as one it was
    # never in (no evidence there).
    session_checked: bool = True

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return self.query().pairs

    @property
    def sessions(self) -> list[str] | None:
        """The sessions evidence may come from (None: any)."""
        if self.session is None:
            return list(self.session_ids) if self.session_ids is not None else None
        if self.session_ids is not None and self.session not in self.session_ids:
            return []
        return [self.session]

    def query(self, levels: list[str] | None = None) -> ObservationQuery:
        return ObservationQuery(
            observer=self.observer,
            observed=self.observed,
            levels=levels,
            session_ids=self.sessions,
            exclude_session_ids=(
                list(self.exclude_session_ids) if self.exclude_session_ids is not None else None
            ),
            exclude_derived=self.exclude_derived,
            as_of=self.as_of,
            aggregated=self.aggregated,
        )


# --- the evidence ledger ----------------------------------------------------------------------

# How well a span pins down the evidence in a message, best last: the first characters, the text
# a grep matched, the verbatim span an observation was derived from.
SPAN_LEAD, SPAN_MATCH, SPAN_SOURCE = 0, 1, 2


@dataclass(frozen=True)
class EvidenceMessage:
    message: MessageRecord
    span: str
    strength: int


@dataclass
class Evidence:
    """Every observation and message any tool returned in one conversation.

    Citations in the answer count only when they name an entry here: a model cannot cite a node
    it never saw, nor one that does not exist.
    """

    observations: dict[str, ObservationRecord] = field(default_factory=dict)
    messages: dict[str, EvidenceMessage] = field(default_factory=dict)
    # What each shown observation rests on: its premises' ids and its source messages' ids,
    # so citing a derived belief cites its premises down to the message spans.
    premises: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, list[str]] = field(default_factory=dict)
    # The span each observation was derived from in each source message: a message two beliefs
    # came from is cited, for each, with its own span.
    source_spans: dict[tuple[str, str], str] = field(default_factory=dict)

    def snapshot(self) -> tuple[frozenset[str], dict[str, EvidenceMessage]]:
        """The observations and messages recorded so far (for forget_unshown)."""
        return frozenset(self.observations), dict(self.messages)

    def forget_unshown(
        self, before: tuple[frozenset[str], dict[str, EvidenceMessage]], shown: str
    ) -> None:
        """Forget what a tool recorded since `before` that its answer, cut to size (or never
        sent: timed out), does not show: a citation of it would cite a node the model never
        saw. A message shown before keeps the span it had then."""
        seen_observations, seen_messages = before
        for oid in [o for o in self.observations if o not in seen_observations]:
            if f"[obs:{oid}]" not in shown:
                del self.observations[oid]
                self.premises.pop(oid, None)
                self.sources.pop(oid, None)
        for mid in list(self.messages):
            if f"[msg:{mid}]" in shown:
                continue
            if mid in seen_messages:
                self.messages[mid] = seen_messages[mid]
            else:
                del self.messages[mid]
        for key in [k for k in self.source_spans if k[0] not in self.observations]:
            del self.source_spans[key]

    def add_observation(self, observation: ObservationRecord) -> None:
        self.observations.setdefault(observation.id, observation)

    def add_message(self, message: MessageRecord, span: str, strength: int) -> None:
        # Keep the most precise span seen for a message; a source span beats a grep match.
        span = verbatim(span, message.content)
        if not span:
            span, strength = lead(message.content), SPAN_LEAD
        known = self.messages.get(message.id)
        if known is None or strength > known.strength:
            self.messages[message.id] = EvidenceMessage(message, span, strength)

    def add_item(self, item: ObservationItem) -> None:
        self.add_observation(item.observation)
        self.premises.setdefault(item.observation.id, list(item.premise_ids))
        self.sources.setdefault(item.observation.id, [s.message.id for s in item.sources])
        for source in item.sources:
            self.add_message(source.message, source.span, SPAN_SOURCE)
            if span := verbatim(source.span, source.message.content):
                key = (item.observation.id, source.message.id)
                self.source_spans.setdefault(key, span)
        for premise in item.premises:
            self.add_item(premise)

    def grounds(self, observation_id: str, limit: int = MAX_PROVENANCE_NODES) -> list[str]:
        """The observation and its premises down to explicit facts, as far as shown here."""
        order: list[str] = []
        frontier = [observation_id]
        while frontier and len(order) < limit:
            current = frontier.pop(0)
            if current in order or current not in self.observations:
                continue
            order.append(current)
            frontier.extend(self.premises.get(current, []))
        return order


def lead(text: str) -> str:
    return text[:LEAD_CHARS]


def verbatim(span: str, content: str) -> str:
    """`span` as it stands in `content`, so that a cited span is always a substring of its
    message: the grounding check accepts spans that differ in case, quotes or whitespace."""
    if not span or span in content:
        return span
    where = locate(span, content)
    return content[where[0] : where[1]] if where else ""


# --- results ----------------------------------------------------------------------------------


def utc(value: datetime) -> datetime:
    return aware(value) or value  # aware gives UTC


def when(value: datetime | None) -> str:
    return "undated" if value is None else minute(value)


def day(value: datetime | None) -> str:
    return "undated" if value is None else utc(value).date().isoformat()


def matched_span(content: str, text: str) -> str:
    """The words of `content` that a case-insensitive search for `text` matched."""
    lowered = content.lower()
    # lower() changes the length of a few characters (e.g. "İ"); positions then no longer map
    # back to the original, so fall back to a case-folding regex search.
    if len(lowered) == len(content):
        at = lowered.find(text.lower())
        if at >= 0:
            return content[at : at + len(text)]
    match = re.search(re.escape(text), content, re.IGNORECASE)
    return match.group(0) if match else lead(content)


def shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def quote(text: str) -> str:
    return '"' + shorten(text, 300) + '"'


@dataclass(frozen=True)
class ObservationItem:
    """An observation with its premise ids and verbatim source spans; for a derived one, its
    premises themselves (down to explicit facts); for a knowledge update, what it replaced."""

    observation: ObservationRecord
    premise_ids: list[str] = field(default_factory=list)
    sources: list[SourceSpan] = field(default_factory=list)
    score: float | None = None
    premises: tuple[ObservationItem, ...] = ()
    replaces: tuple[Replaced, ...] = ()
    replaced_by: tuple[str, ...] = ()
    replaced_on: datetime | None = None  # when the earliest of replaced_by was stated
    about: str | None = None  # the sub-peer it is about, in a view aggregating sub-peers
    source_count: int = 0  # its live sources read; `sources` holds the first and the latest

    def _until(self, old: Replaced) -> datetime | None:
        """When the replaced belief stopped holding: when this one was stated after it last
        was, not when the update was written (a dream today over history from last year said
        it held until today)."""
        stated = self.observation.valid_at if old.until is None else old.until
        if stated is None or (old.superseded_at is not None and stated > old.superseded_at):
            return old.superseded_at
        return stated

    def _ended(self, superseded_at: datetime) -> datetime:
        """When this superseded belief stopped holding: when its replacement was stated, not
        when the update was written (_until, from the other side)."""
        stated = self.replaced_on
        return superseded_at if stated is None or stated > superseded_at else stated

    def render(self, indent: str = "") -> str:
        o = self.observation
        notes = [o.level, f"valid {day(o.valid_at or o.created_at)}"]
        if self.about is not None:
            notes.insert(0, f"about {self.about}")
        if o.session:
            notes.append(f"session {o.session}")
        if o.times_derived > 1:
            notes.append(f"stated {o.times_derived} times")
        if o.confidence is not None:
            notes.append(f"confidence {o.confidence:.2f}")
        if o.superseded_at is not None:
            notes.append(f"SUPERSEDED on {day(self._ended(o.superseded_at))}")
        if o.stale:
            notes.append(f"STALE ({o.stale_reason or 'a premise changed'})")
        lines = [f"{indent}[obs:{o.id}] ({', '.join(notes)}) {shorten(o.content)}"]
        for old in self.replaces:
            lines.append(
                f"{indent}    replaces [obs:{old.id}] (current until {day(self._until(old))}): "
                f"{quote(old.content)}"
            )
        if self.replaced_by:
            newer = ", ".join(f"[obs:{i}]" for i in self.replaced_by)
            lines.append(f"{indent}    replaced by {newer}")
        if self.premises:
            lines.append(f"{indent}    premises:")
            lines += [p.render(indent + "      ") for p in self.premises]
        elif self.premise_ids:
            premises = ", ".join(f"[obs:{p}]" for p in self.premise_ids)
            lines.append(f"{indent}    premises: {premises}")
        for index, s in enumerate(self.sources):
            m = s.message
            lines.append(
                f"{indent}    from [msg:{m.id}] {m.peer}, {when(m.created_at)}, "
                f"session {m.session}: {quote(s.span or lead(m.content))}"
            )
            if index == 0 and (left := self.source_count - len(self.sources)) > 0:
                lines.append(f"{indent}    ... said in {left} more messages between these")
        return "\n".join(lines)


def render_message(message: MessageRecord, text: str | None = None) -> str:
    shown = shorten(message.content) if text is None else text
    return (
        f"[msg:{message.id}] {when(message.created_at)}, session {message.session}, "
        f"{message.peer}: {shown}"
    )
