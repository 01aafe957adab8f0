"""What a tool call hands the model: the union of tool results, and the cut to its budget."""

from __future__ import annotations

from reasoners.dialectic.tool_results import (
    FileResults,
    MessageContext,
    MessageResults,
    ObservationResults,
    PeerCardResult,
    PeerList,
    Provenance,
)

# Longest tool output the model gets; a longer one is cut with a note, so that one broad call
# cannot crowd the rest of the conversation out of the model's context.
MAX_TOOL_CHARS = 12_000


def clip(text: str, limit: int = MAX_TOOL_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + "\n(output cut here; ask for less, e.g. a smaller limit)"


ToolResult = (
    ObservationResults
    | MessageResults
    | MessageContext
    | Provenance
    | PeerCardResult
    | PeerList
    | FileResults
)
