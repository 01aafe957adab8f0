"""The summarizer's prompt: fold new messages into the previous summary (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from reasoners.llm.interface import ChatMessage, system, user
from reasoners.text.transcript import INDENT, SpokenMessage, indented, render_turn

SUMMARY_SYSTEM_PROMPT = """\
You keep a running summary of a conversation for a memory system. You get the previous summary \
(if any) and the messages since then, each with its speaker and timestamp.

Write one updated summary of the whole conversation so far: merge the new messages into the \
previous summary, then compress the result to the requested length. The word limit is soft: \
stay near it rather than counting exactly.

Keep who said what (by speaker name), facts people stated about themselves, decisions, plans, \
commitments, open questions, and dates as absolute dates (resolve "tomorrow" against the \
message timestamps). Drop greetings, filler and repetition. Write plain third-person prose, no \
headings or lists. Never add anything that is not in the previous summary or the messages.

Output a JSON object {"summary": "..."}.
"""

_SUMMARY_KIND = {
    "short": "a short summary: the gist of the conversation in a few sentences",
    "long": "a long summary: thorough, keeping the details that may matter later",
}


def summary_messages(
    kind: Literal["short", "long"],
    previous: str | None,
    new_messages: Sequence[SpokenMessage],
    word_limit: int,
    guidance: str | None = None,
) -> list[ChatMessage]:
    """The summarizer call: fold `new_messages` into `previous`, within about `word_limit`
    words, following the app's `guidance` (its `summary.custom_instructions`) if any."""
    if kind not in _SUMMARY_KIND:
        raise ValueError(f"kind must be short or long, not {kind!r}")
    if word_limit < 1:
        raise ValueError("word_limit must be >= 1")
    earlier = indented(previous) if previous and previous.strip() else INDENT + "(none yet)"
    rendered = "\n".join(render_turn(message, message.peer) for message in new_messages)
    blocks = [
        f"Previous summary:\n{earlier}",
        f"New messages:\n{rendered or INDENT + '(none)'}",
        f"Write {_SUMMARY_KIND[kind]}, in at most about {word_limit} words.",
    ]
    if guidance:
        blocks.append(f"The app's instructions for this summary:\n{indented(guidance)}")
    return [system(SUMMARY_SYSTEM_PROMPT), user("\n\n".join(blocks))]
