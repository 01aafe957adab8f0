"""The dialectic's tools: read-only views of one (observer, observed) scope for the tool loop.

A `Toolbox` is bound to one `Scope` when it is made, and no tool takes a workspace, observer or
observed argument, so whatever the model asks for it reads only what the observer could know
about the observed (theory-of-mind scoping, DESIGN invariant 2):

- observations of the scope (and, with a session, only those from that session);
- messages the observed peer sent in sessions the observer took part in, or all of the
  observed's messages when a peer asks about itself;
- the neighbours of an in-scope observation's source message, in that message's session.

An observation id from another scope reads as "not in this view", exactly like an id that does
not exist, so the tools do not even reveal that another view holds it.

Every tool returns plain data with a compact `render()` for the model, naming each node as
`[obs:<id>]` or `[msg:<id>]`. Everything a tool showed goes into the conversation's `Evidence`,
the ledger that citations are checked against. `dispatch` validates the model's arguments and
turns bad ones (and ids out of scope) into an error text for the model, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from graph.db import Database
from graph.errors import BeliefgraphError, InvalidInput, NotFound
from graph.records import MessageRecord, ObservationRecord, SourceSpan
from graph.repo import messages as message_repo
from graph.repo import observation_search as observation_repo
from graph.repo import peer_cards
from graph.repo.observation_search import ObservationQuery
from graph.validation import aware
from reasoners.embeddings import Embedder
from reasoners.grounding import locate
from reasoners.llm import ToolCall, ToolSpec
from reasoners.observation_search import search_observations

Level = Literal["explicit", "deductive", "inductive", "contradiction"]

# Longest tool output the model gets; a longer one is cut with a note, so that one broad call
# cannot crowd the rest of the conversation out of the model's context.
MAX_TOOL_CHARS = 12_000
MAX_PROVENANCE_NODES = 40
LEAD_CHARS = 200  # span of a message cited without a narrower one
SHOWN_CHARS = 500  # message text shown to the model per message
GREP_WINDOW = 200  # characters shown on each side of a grep match


@dataclass(frozen=True)
class Scope:
    """Whose view the tools read: what `observer` knows about `observed`."""

    workspace: str
    observer: str
    observed: str
    session: str | None = None

    def query(self, levels: list[str] | None = None) -> ObservationQuery:
        return ObservationQuery(
            observer=self.observer,
            observed=self.observed,
            levels=levels,
            session_ids=[self.session] if self.session is not None else None,
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
        for source in item.sources:
            self.add_message(source.message, source.span, SPAN_SOURCE)


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
    return (aware(value) or value).astimezone(UTC)


def when(value: datetime | None) -> str:
    return "undated" if value is None else utc(value).strftime("%Y-%m-%d %H:%M UTC")


def day(value: datetime | None) -> str:
    return "undated" if value is None else utc(value).date().isoformat()


def shorten(text: str, limit: int = SHOWN_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def quote(text: str) -> str:
    return '"' + shorten(text, 300) + '"'


@dataclass(frozen=True)
class ObservationItem:
    """An observation with its premise ids and verbatim source spans."""

    observation: ObservationRecord
    premise_ids: list[str] = field(default_factory=list)
    sources: list[SourceSpan] = field(default_factory=list)
    score: float | None = None

    def render(self, indent: str = "") -> str:
        o = self.observation
        notes = [o.level, f"valid {day(o.valid_at or o.created_at)}"]
        if o.session:
            notes.append(f"session {o.session}")
        if o.times_derived > 1:
            notes.append(f"stated {o.times_derived} times")
        if o.confidence is not None:
            notes.append(f"confidence {o.confidence:.2f}")
        if o.superseded_at is not None:
            notes.append(f"SUPERSEDED on {day(o.superseded_at)}")
        if o.stale:
            notes.append(f"STALE ({o.stale_reason or 'a premise changed'})")
        lines = [f"{indent}[obs:{o.id}] ({', '.join(notes)}) {shorten(o.content)}"]
        if self.premise_ids:
            premises = ", ".join(f"[obs:{p}]" for p in self.premise_ids)
            lines.append(f"{indent}    premises: {premises}")
        for s in self.sources:
            m = s.message
            lines.append(
                f"{indent}    from [msg:{m.id}] {m.peer}, {when(m.created_at)}, "
                f"session {m.session}: {quote(s.span or lead(m.content))}"
            )
        return "\n".join(lines)


def render_message(message: MessageRecord, text: str | None = None) -> str:
    shown = shorten(message.content) if text is None else text
    return (
        f"[msg:{message.id}] {when(message.created_at)}, session {message.session}, "
        f"{message.peer}: {shown}"
    )


@dataclass(frozen=True)
class ObservationResults:
    query: str
    items: list[ObservationItem]

    def render(self) -> str:
        if not self.items:
            return f"No observations in this view match {self.query!r}."
        return "\n".join(item.render() for item in self.items)


@dataclass(frozen=True)
class MessageItem:
    message: MessageRecord
    span: str  # the matched text (grep) or the message's first characters

    def render(self, excerpt: bool) -> str:
        if not excerpt:
            return render_message(self.message)
        content = self.message.content
        at = content.find(self.span)
        start, end = max(0, at - GREP_WINDOW), min(len(content), at + len(self.span) + GREP_WINDOW)
        text = " ".join(content[start:end].split())
        return render_message(
            self.message, ("…" if start else "") + text + ("…" if end < len(content) else "")
        )


@dataclass(frozen=True)
class MessageResults:
    description: str
    items: list[MessageItem]
    limit: int
    excerpts: bool = False  # show the text around each span rather than the message start

    def render(self) -> str:
        if not self.items:
            return f"No messages in this view {self.description}."
        lines = [f"{len(self.items)} message(s) {self.description}:"]
        lines += [item.render(self.excerpts) for item in self.items]
        if len(self.items) >= self.limit:
            lines.append(f"(limit of {self.limit} reached: there may be more; narrow the search)")
        return "\n".join(lines)


@dataclass(frozen=True)
class ContextWindow:
    source: SourceSpan
    messages: list[MessageRecord]


@dataclass(frozen=True)
class MessageContext:
    observation: ObservationItem
    windows: list[ContextWindow]

    def render(self) -> str:
        lines = [self.observation.render()]
        if not self.windows:
            lines.append(
                "This observation has no source messages of its own (it is derived); "
                "call provenance to reach the messages its premises came from."
            )
        for window in self.windows:
            lines.append(f"Around [msg:{window.source.message.id}]:")
            for m in window.messages:
                mark = ">>" if m.id == window.source.message.id else "  "
                lines.append(f"{mark} {render_message(m)}")
        return "\n".join(lines)


@dataclass(frozen=True)
class ProvenanceNode:
    item: ObservationItem
    depth: int


@dataclass(frozen=True)
class Provenance:
    root_id: str
    nodes: list[ProvenanceNode]
    truncated: bool = False

    def render(self) -> str:
        lines = [node.item.render("  " * node.depth) for node in self.nodes]
        if self.truncated:
            lines.append(f"(provenance cut at {MAX_PROVENANCE_NODES} observations)")
        return "\n".join(lines)


@dataclass(frozen=True)
class PeerCardResult:
    observer: str
    observed: str
    entries: list[str]

    def render(self) -> str:
        if not self.entries:
            return f"{self.observer} keeps no peer card for {self.observed}."
        return f"Peer card ({self.observer} about {self.observed}):\n" + "\n".join(
            f"- {entry}" for entry in self.entries
        )


# --- arguments --------------------------------------------------------------------------------


class _Args(BaseModel):
    # Unknown arguments are refused rather than ignored: a misspelt "limt" should be fixed.
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


def _observation_id(value: Any) -> Any:
    """Accept the forms a model copies from the text: `abc`, `obs:abc`, `[obs:abc]`."""
    if isinstance(value, str):
        value = value.strip().strip("[]").strip()
        if value.startswith("obs:"):
            value = value[4:].strip()
    return value


class SearchObservationsArgs(_Args):
    query: str = Field(min_length=1, max_length=500, description="What to look for, in words.")
    limit: int = Field(8, ge=1, le=20, description="How many observations to return.")
    levels: list[Level] | None = Field(None, description="Only these levels (default: all).")


class GrepMessagesArgs(_Args):
    text: str = Field(
        min_length=2, max_length=200, description="Exact text to find (case-insensitive)."
    )
    limit: int = Field(10, ge=1, le=30, description="How many messages to return.")


class MessagesByDateArgs(_Args):
    since: datetime | None = Field(None, description="Start, inclusive (ISO 8601 date or time).")
    until: datetime | None = Field(None, description="End, exclusive (ISO 8601 date or time).")
    limit: int = Field(20, ge=1, le=50, description="How many messages to return.")

    @model_validator(mode="after")
    def _ordered(self) -> MessagesByDateArgs:
        since, until = aware(self.since), aware(self.until)
        if since is not None and until is not None and since >= until:
            raise ValueError("since must be before until")
        return self


class _ObservationArgs(_Args):
    observation_id: str = Field(min_length=1, max_length=100, description="An [obs:<id>] id.")

    @field_validator("observation_id", mode="before")
    @classmethod
    def _bare_id(cls, value: Any) -> Any:
        return _observation_id(value)


class MessageContextArgs(_ObservationArgs):
    before: int = Field(3, ge=0, le=10, description="Messages to show before each source.")
    after: int = Field(3, ge=0, le=10, description="Messages to show after each source.")


class ProvenanceArgs(_ObservationArgs):
    depth: int = Field(4, ge=1, le=6, description="How many premise levels to follow.")


class PeerCardArgs(_Args):
    pass


def _spec(name: str, description: str, model: type[BaseModel]) -> ToolSpec:
    schema = model.model_json_schema()
    # Titles repeat the field names and cost tokens on every call; models do not need them.
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return ToolSpec(name, description, schema)


TOOL_SPECS: list[ToolSpec] = [
    _spec(
        "search_observations",
        "Semantic and keyword search over the observer's observations (beliefs) about the "
        "observed peer. Shows each observation's level, date, premises and source message spans.",
        SearchObservationsArgs,
    ),
    _spec(
        "grep_messages",
        "Find the observed peer's messages containing exact text (case-insensitive), newest "
        "first. Use it for names, numbers and update words such as 'moved', 'now', 'anymore'.",
        GrepMessagesArgs,
    ),
    _spec(
        "messages_by_date",
        "The observed peer's messages in a date range, oldest first.",
        MessagesByDateArgs,
    ),
    _spec(
        "message_context",
        "The source messages of an observation, with the messages around them in their "
        "conversation.",
        MessageContextArgs,
    ),
    _spec(
        "provenance",
        "Follow a derived (deductive or inductive) observation down its premises to the "
        "explicit observations and the message spans they came from.",
        ProvenanceArgs,
    ),
    _spec(
        "peer_card",
        "The observer's short card of stable facts about the observed peer.",
        PeerCardArgs,
    ),
]
ARGUMENTS: dict[str, type[_Args]] = {
    "search_observations": SearchObservationsArgs,
    "grep_messages": GrepMessagesArgs,
    "messages_by_date": MessagesByDateArgs,
    "message_context": MessageContextArgs,
    "provenance": ProvenanceArgs,
    "peer_card": PeerCardArgs,
}


def argument_error(name: str, exc: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
    )
    return f"Error: bad arguments for {name}: {problems}. Fix them and call again."


def clip(text: str, limit: int = MAX_TOOL_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + "\n(output cut here; ask for less, e.g. a smaller limit)"


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


# --- the toolbox ------------------------------------------------------------------------------


class Toolbox:
    """The tools over one scope, recording what they return in `evidence`."""

    def __init__(
        self, db: Database, embedder: Embedder, scope: Scope, evidence: Evidence | None = None
    ) -> None:
        self.db = db
        self.embedder = embedder
        self.scope = scope
        self.evidence = evidence if evidence is not None else Evidence()

    @property
    def specs(self) -> list[ToolSpec]:
        return list(TOOL_SPECS)

    # --- reads -------------------------------------------------------------------------------

    async def items(self, ids: list[str]) -> dict[str, ObservationItem]:
        """In-scope observations among `ids`, with premises and sources (others are absent)."""
        if not ids:
            return {}
        s = self.scope
        rows = await self.db.read(
            "dialectic_get_observations",
            workspace=s.workspace,
            observer=s.observer,
            observed=s.observed,
            session=s.session,
            ids=ids,
        )
        found: dict[str, ObservationItem] = {}
        for row in rows:
            sources = [
                SourceSpan(MessageRecord.from_row(src["message"]), src["span"] or "")
                for src in row["sources"]
            ]
            sources.sort(key=lambda src: (src.message.created_at, src.message.seq))
            observation = ObservationRecord.from_row(row["observation"])
            found[observation.id] = ObservationItem(
                observation, sorted(row["premise_ids"]), sources
            )
        return found

    async def item(self, observation_id: str) -> ObservationItem:
        found = await self.items([observation_id])
        if observation_id not in found:
            raise NotFound(
                f"observation {observation_id} is not in {self.scope.observer}'s view of "
                f"{self.scope.observed}; use an [obs:<id>] shown by a tool"
            )
        return found[observation_id]

    async def with_sources(
        self, ranked: list[tuple[ObservationRecord, float]]
    ) -> list[ObservationItem]:
        found = await self.items([o.id for o, _ in ranked])
        result = [
            ObservationItem(o, found[o.id].premise_ids, found[o.id].sources, score)
            for o, score in ranked
            if o.id in found
        ]
        for item in result:
            self.evidence.add_item(item)
        return result

    async def prefetch(self, embedding: list[float], limit: int) -> list[ObservationItem]:
        """The scope's observations nearest to a question's embedding (vector similarity)."""
        ranked = await observation_repo.vector_candidates(
            self.db, self.scope.workspace, embedding, self.scope.query(), limit
        )
        return await self.with_sources(ranked)

    # --- tools -----------------------------------------------------------------------------------

    async def search_observations(
        self, query: str, limit: int = 8, levels: list[str] | None = None
    ) -> ObservationResults:
        hits = await search_observations(
            self.db,
            self.embedder,
            self.scope.workspace,
            query,
            self.scope.query(levels),
            limit,
        )
        items = await self.with_sources([(h.observation, h.score) for h in hits])
        return ObservationResults(query, items)

    async def grep_messages(self, text: str, limit: int = 10) -> MessageResults:
        s = self.scope
        rows = await self.db.read(
            "dialectic_grep_messages",
            workspace=s.workspace,
            observer=s.observer,
            observed=s.observed,
            session=s.session,
            text=text,
            limit=limit,
        )
        items = []
        for row in rows:
            message = MessageRecord.from_row(row["message"])
            item = MessageItem(message, matched_span(message.content, text))
            self.evidence.add_message(message, item.span, SPAN_MATCH)
            items.append(item)
        return MessageResults(f"containing {text!r} (newest first)", items, limit, excerpts=True)

    async def messages_by_date(
        self, since: datetime | None = None, until: datetime | None = None, limit: int = 20
    ) -> MessageResults:
        s = self.scope
        rows = await self.db.read(
            "dialectic_messages_by_date",
            workspace=s.workspace,
            observer=s.observer,
            observed=s.observed,
            session=s.session,
            since=aware(since),
            until=aware(until),
            limit=limit,
        )
        items = []
        for row in rows:
            message = MessageRecord.from_row(row["message"])
            items.append(MessageItem(message, lead(message.content)))
            self.evidence.add_message(message, lead(message.content), SPAN_LEAD)
        span = f"from {when(since) if since else 'the start'} to {when(until) if until else 'now'}"
        return MessageResults(span, items, limit)

    async def message_context(
        self, observation_id: str, before: int = 3, after: int = 3
    ) -> MessageContext:
        item = await self.item(observation_id)
        self.evidence.add_item(item)
        windows = []
        for source in item.sources:
            m = source.message
            around = await message_repo.by_seq(
                self.db, self.scope.workspace, m.session, m.seq - before, m.seq + after
            )
            for neighbour in around:
                self.evidence.add_message(neighbour, lead(neighbour.content), SPAN_LEAD)
            windows.append(ContextWindow(source, around))
        return MessageContext(item, windows)

    async def provenance(self, observation_id: str, depth: int = 4) -> Provenance:
        root = await self.item(observation_id)
        nodes = [ProvenanceNode(root, 0)]
        seen = {observation_id}
        frontier = root.premise_ids
        truncated = False
        for level in range(1, depth + 1):
            frontier = [p for p in dict.fromkeys(frontier) if p not in seen]
            if not frontier:
                break
            room = MAX_PROVENANCE_NODES - len(nodes)
            if len(frontier) > room:
                frontier, truncated = frontier[:room], True
            found = await self.items(frontier)
            layer = [found[p] for p in frontier if p in found]
            nodes += [ProvenanceNode(i, level) for i in layer]
            seen.update(frontier)
            frontier = [p for i in layer for p in i.premise_ids]
            if truncated:
                break
        for node in nodes:
            self.evidence.add_item(node.item)
        return Provenance(observation_id, nodes, truncated)

    async def peer_card(self) -> PeerCardResult:
        s = self.scope
        card = await peer_cards.get(self.db, s.workspace, s.observer, s.observed)
        return PeerCardResult(s.observer, s.observed, card.entries)

    # --- dispatch --------------------------------------------------------------------------------

    async def dispatch(self, call: ToolCall) -> str:
        """The text answering one tool call; problems become an error text for the model."""
        model = ARGUMENTS.get(call.name)
        if model is None:
            return f"Error: there is no tool {call.name!r}; the tools are {', '.join(ARGUMENTS)}."
        if call.arguments_error is not None:
            return f"Error: {call.name}: {call.arguments_error}. Send a JSON object."
        try:
            args = model.model_validate(call.arguments)
        except ValidationError as exc:
            return argument_error(call.name, exc)
        try:
            return clip((await self._run(args)).render())
        except (NotFound, InvalidInput) as exc:
            return f"Error: {exc.message}"

    async def _run(
        self, args: _Args
    ) -> ObservationResults | MessageResults | MessageContext | Provenance | PeerCardResult:
        match args:
            case SearchObservationsArgs():
                return await self.search_observations(
                    args.query, args.limit, list(args.levels) if args.levels else None
                )
            case GrepMessagesArgs():
                return await self.grep_messages(args.text, args.limit)
            case MessagesByDateArgs():
                return await self.messages_by_date(args.since, args.until, args.limit)
            case MessageContextArgs():
                return await self.message_context(args.observation_id, args.before, args.after)
            case ProvenanceArgs():
                return await self.provenance(args.observation_id, args.depth)
            case PeerCardArgs():
                return await self.peer_card()
        raise BeliefgraphError(f"no runner for {type(args).__name__}")
