"""What the dialectic's tools return besides single beliefs (evidence.py): lists of beliefs
and messages, context windows, provenance, the card, peers and files, each with a compact
`render()` for the model."""

from __future__ import annotations

from dataclasses import dataclass

from graph.records import FileChunkRecord, MessageRecord, SourceSpan
from reasoners.dialectic.evidence import (
    GREP_WINDOW,
    MAX_PROVENANCE_NODES,
    ObservationItem,
    render_message,
    shorten,
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


@dataclass(frozen=True)
class PeerList:
    """Peers above or below one peer, each with its distance in MEMBER_OF levels."""

    direction: str  # "sub-peers" or "parent peers"
    peer: str
    peers: list[tuple[str, int]]

    def render(self) -> str:
        if not self.peers:
            return f"{self.peer} has no {self.direction} visible in this memory."
        lines = [
            f"- {name} ({distance} level{'s' if distance > 1 else ''} away)"
            for name, distance in self.peers
        ]
        return f"The {self.direction} of {self.peer}:\n" + "\n".join(lines)


@dataclass(frozen=True)
class FileResults:
    query: str
    passages: list[FileChunkRecord]

    def render(self) -> str:
        if not self.passages:
            return f"No file passage in this memory matches {self.query!r}."
        lines = [f"File passages matching {self.query!r}, best first:"]
        for chunk in self.passages:
            lines.append(
                f"- {chunk.peer}/{chunk.path} (part {chunk.index + 1}): {shorten(chunk.content)}"
            )
        return "\n".join(lines)
