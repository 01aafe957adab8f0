"""Citations (pure): the [obs:<id>] / [msg:<id>] markers of an answer, kept only when a tool
showed that node in the conversation (the `Evidence` ledger)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graph.records import MessageRecord, ObservationRecord
from reasoners.dialectic.evidence import Evidence, ObservationItem
from reasoners.dialectic.tool_results import MessageItem

_MARKER = re.compile(r"(?<![A-Za-z0-9_])(obs|msg)\s*:\s*([A-Za-z0-9][A-Za-z0-9_-]*)")


def parse_citations(text: str) -> list[tuple[str, str]]:
    """(kind, id) of every [obs:<id>] / [msg:<id>] marker, first appearance first, no repeats.

    Brackets are not required: models also write (obs:<id>) or [obs:<a>, obs:<b>], and a marker
    only counts once the ledger knows its id anyway.
    """
    found: dict[tuple[str, str], None] = {}
    for kind, identifier in _MARKER.findall(text):
        found.setdefault((kind, identifier.rstrip("-_")), None)
    return list(found)


# A bracket that opens with a marker ("[obs:a]", "(obs:a, msg:b)", doubled "[[obs:a]]" or
# mismatched "[obs:a)]" as models write them too), with the space before it.
_GROUP = re.compile(r"(\s?)(\[\[|\(\(|[\[(])(\s*(?:obs|msg)\s*:[^\[\]()]*)(\]\]|\)\)|[\])])")
_SEPARATORS = re.compile(r"[\s,;]*")
_EDGE_SEPARATORS = re.compile(r"^[\s,;:]+|[\s,;:]+$")
# A marker outside brackets is taken out only if written tight and with an id of the ledger's
# shape (digits or dashes in it): "the obs: field" or "msg:hello" is prose.
_BARE = re.compile(r"\s?(?<![A-Za-z0-9_])(obs|msg):([A-Za-z0-9_]*[0-9-][A-Za-z0-9_-]*)")


def known_markers(text: str, evidence: Evidence) -> str:
    """`text` without the markers of nodes no tool showed (a model's made-up `[obs:X]` read
    as a citation in the answer, though the citations left it out). A bracket left empty goes
    with its space; one holding words too keeps them, its markers treated as outside one."""

    def known(kind: str, identifier: str) -> bool:
        identifier = identifier.rstrip("-_")
        if kind == "obs":
            return identifier in evidence.observations
        return identifier in evidence.messages

    def group(match: re.Match[str]) -> str:
        lead, opening, inner, closing = match.groups()
        # As many closing brackets as opening ones: "[see [obs:a]]" keeps the outer bracket.
        n = min(len(opening), len(closing))
        before, opening = opening[: len(opening) - n], opening[len(opening) - n :]
        closing, after = closing[:n], closing[n:]
        kept = bracket(opening, inner, closing)
        if kept == f"{opening}{inner}{closing}":
            return match.group(0)
        if kept:
            return f"{lead}{before}{kept}{after}"
        return f"{lead if before else ''}{before}{after}"  # it goes with its space

    def bracket(opening: str, inner: str, closing: str) -> str:
        """The bracket with only known markers; empty when none is left."""
        if _SEPARATORS.fullmatch(_MARKER.sub("", inner)) is None:
            # The model's own words, with markers: those of the ledger's shape are checked,
            # and the separators a dropped one leaves at the bracket's ends go with it.
            words = _BARE.sub(bare, inner)
            if words != inner:
                words = _EDGE_SEPARATORS.sub("", words)
            return f"{opening}{words}{closing}" if words else ""
        markers = list(_MARKER.finditer(inner))
        kept = [m.group(0) for m in markers if known(m.group(1), m.group(2))]
        if len(kept) == len(markers):
            return f"{opening}{inner}{closing}"
        return f"{opening}{', '.join(kept)}{closing}" if kept else ""

    def bare(match: re.Match[str]) -> str:
        return match.group(0) if known(match.group(1), match.group(2)) else ""

    out: list[str] = []
    end = 0
    for found in _GROUP.finditer(text):  # bare markers are looked for between the brackets
        out += [_BARE.sub(bare, text[end : found.start()]), group(found)]
        end = found.end()
    out.append(_BARE.sub(bare, text[end:]))
    return "".join(out)


@dataclass(frozen=True)
class MessageCitation:
    id: str
    span: str  # verbatim text of the message that supports the answer
    message: MessageRecord


@dataclass(frozen=True)
class Citations:
    observations: list[ObservationRecord] = field(default_factory=list)
    messages: list[MessageCitation] = field(default_factory=list)


def resolve_citations(refs: list[tuple[str, str]], evidence: Evidence) -> Citations:
    """The cited nodes a tool showed in this conversation; any other marker is dropped.

    A cited derived belief brings its premises (as far as they were shown), and every cited
    observation its source messages, so a citation always reaches the message spans."""
    observation_ids: dict[str, None] = {}
    # Each message with the span it is cited for: that of the belief that reached it (one
    # message may ground two beliefs, each from its own words), else the best one shown.
    message_ids: dict[str, str | None] = {}
    for kind, identifier in refs:
        if kind == "obs":
            for grounded in evidence.grounds(identifier):
                observation_ids.setdefault(grounded, None)
                for message_id in evidence.sources.get(grounded, []):
                    span = evidence.source_spans.get((grounded, message_id))
                    message_ids.setdefault(message_id, span)
        elif identifier in evidence.messages:
            message_ids.setdefault(identifier, None)
    observations = [evidence.observations[i] for i in observation_ids]
    messages = [
        MessageCitation(i, span or evidence.messages[i].span, evidence.messages[i].message)
        for i, span in message_ids.items()
        if i in evidence.messages
    ]
    return Citations(observations, messages)


def cite_all(
    items: list[ObservationItem], turns: list[MessageItem], evidence: Evidence
) -> Citations:
    refs = [("obs", item.observation.id) for item in items]
    refs += [("msg", s.message.id) for item in items for s in item.sources]
    refs += [("msg", turn.message.id) for turn in turns]
    return resolve_citations(list(dict.fromkeys(refs)), evidence)
