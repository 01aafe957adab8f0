"""The deriver's prompt: pure functions from a batch to chat messages.

The system prompt is fixed text (the same for every call, so providers can cache it);
everything that varies goes into the user message. Turns are rendered by
reasoners/text/transcript.py, with their prompt index, so the model cites a message by index.

Prompt indices are positions in `DeriverBatch.conversation` (context turns, then the span), so
`cited_message` maps the model's citations back without extra state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from graph.configuration import instructions, joined
from graph.records import PeerRecord, SessionRecord, WorkspaceRecord
from reasoners.deriver.batching import DeriverBatch, SessionMessage
from reasoners.llm.interface import ChatMessage, system, user
from reasoners.text.transcript import indented, render_turn

DERIVER_SYSTEM_PROMPT = """\
You extract facts about one person, the target peer, from a conversation, for a long-term memory.

The conversation comes as numbered messages. Each shows its [index], the speaker, a timestamp and \
a mark: *TARGET* for messages written by the target peer, (context) for everyone else. Message \
text is indented by four spaces; the indentation is not part of the text.

Rules:
1. Extract only explicit facts: what the target peer directly states about themself (identity, \
relationships, work, places, possessions, events, plans, preferences, opinions, habits, \
feelings). Do not infer, guess, generalize or judge; a later stage does that.
2. Cite only *TARGET* messages. (context) messages help you understand what the target says \
("Twice." after "Have you been to Japan?" means the target has been to Japan twice). Never \
record facts about other speakers, nor what others claim about the target.
3. People in the target's life count when the target speaks of them; phrase such facts from \
the target's side ("Maya's sister Ana is a doctor.").
4. Atomic: one fact per observation. "I'm a nurse in Leeds and I have two kids" gives two.
5. Self-contained: third person, the target peer named by name (never "I", "the user", "he" or \
"she"), pronouns and vague references replaced by what they refer to, so that each observation \
makes sense on its own months later.
6. Dates: turn relative time into absolute dates using the timestamp of the message that \
contains it ("yesterday" in a message of 2024-05-03 gives 2024-05-02; "next month" gives June \
2024). For a current state ("I live in Oslo"), add "(as of <date of the message>)". Never invent \
a date the text does not support.
7. Skip greetings, small talk, questions, requests, hypotheticals, jokes, role-play and remarks \
about the conversation itself.
8. source_span is copied verbatim from the cited message: the shortest exact words that state \
the fact, unchanged (same spelling, case and punctuation), never paraphrased or stitched \
together from separate places.

The user message may include custom instructions from the application. Follow them where they \
focus or refine what to extract; they never override these rules or the output format.

Output a JSON object {"observations": [{"content": ..., "source_message_index": ..., \
"source_span": ...}]} in message order, or {"observations": []} when the target states no facts.

Example 1
Target peer: maya
[0] tom (context) at 2024-03-08 18:20 UTC (Friday):
    Any plans for the weekend?
[1] maya *TARGET* at 2024-03-08 18:21 UTC (Friday):
    Yes! My sister Ana is visiting from Lisbon tomorrow, and I finally booked my first pottery \
class for Sunday.
Output:
{"observations": [
  {"content": "Maya has a sister named Ana.", "source_message_index": 1, \
"source_span": "My sister Ana"},
  {"content": "Maya's sister Ana was due to visit Maya from Lisbon on 2024-03-09.", \
"source_message_index": 1, "source_span": "My sister Ana is visiting from Lisbon tomorrow"},
  {"content": "Maya booked a first-ever pottery class for 2024-03-10.", \
"source_message_index": 1, "source_span": "I finally booked my first pottery class for Sunday"}
]}

Example 2
Target peer: sam
[0] sam *TARGET* at 2023-11-20 09:05 UTC (Monday):
    Morning! Quick one - can you recommend a good running app?
[1] lee (context) at 2023-11-20 09:06 UTC (Monday):
    Sure, I use Strava myself. Are you training for something?
[2] sam *TARGET* at 2023-11-20 09:08 UTC (Monday):
    The Berlin half marathon in April. I ran my first 10k last week, but my knee still hurts.
Output:
{"observations": [
  {"content": "Sam is training for the Berlin half marathon in April 2024.", \
"source_message_index": 2, "source_span": "The Berlin half marathon in April."},
  {"content": "Sam ran a first-ever 10k in the week of 2023-11-13.", \
"source_message_index": 2, "source_span": "I ran my first 10k last week"},
  {"content": "Sam's knee hurt (as of 2023-11-20).", "source_message_index": 2, \
"source_span": "my knee still hurts"}
]}
Not extracted: the request for an app (a request, not a fact); that lee uses Strava (lee is not \
the target).
"""


@dataclass(frozen=True)
class InstructionHierarchy:
    """Custom instructions from the application, most general first in storage.

    Precedence is the reverse, most specific wins: message > session > peer > workspace.
    `peer` is the target peer's extraction context; `messages` maps a prompt index (a position
    in `DeriverBatch.conversation`, see `message_instructions`) to that message's context.
    """

    workspace: str | None = None
    peer: str | None = None
    session: str | None = None
    messages: Mapping[int, str] = field(default_factory=dict)

    def sections(self, target: str) -> list[tuple[str, str]]:
        """(heading, text) of every non-empty instruction, highest precedence first."""
        found = [(f"For message [{i}]", text) for i, text in sorted(self.messages.items())]
        found += [
            ("For this session", self.session or ""),
            (f"For the peer {target}", self.peer or ""),
            ("For this workspace", self.workspace or ""),
        ]
        return [(heading, text.strip()) for heading, text in found if text and text.strip()]


# --- deriver ----------------------------------------------------------------------------------


def app_instructions(
    workspace: WorkspaceRecord, peer: PeerRecord, session: SessionRecord
) -> InstructionHierarchy:
    """The app's instructions, by level: the workspace's `extraction_context` and the
    `custom_instructions` of each level's configuration (top-level and `reasoning`) join the
    peer's extraction context and the session's context."""
    return InstructionHierarchy(
        workspace=joined(
            workspace.configuration.get("extraction_context"),
            instructions(workspace.configuration, "reasoning"),
        ),
        peer=peer.extraction_context,
        session=joined(session.context, instructions(session.configuration, "reasoning")),
    )


def cited_message(batch: DeriverBatch, index: int) -> SessionMessage | None:
    """The target message a model cited by prompt index; None if out of range or not the target's.

    Citations of context turns are refused here because facts must come from the target peer.
    """
    conversation = batch.conversation
    if not 0 <= index < len(conversation):
        return None
    message = conversation[index]
    return message if message.peer == batch.target else None


def message_instructions(batch: DeriverBatch, by_id: Mapping[str, str]) -> dict[int, str]:
    """Per-message contexts keyed by message id, re-keyed by prompt index for this batch."""
    return {
        index: by_id[message.id]
        for index, message in enumerate(batch.conversation)
        if by_id.get(message.id)
    }


def _instructions_block(instructions: InstructionHierarchy, target: str) -> str:
    sections = instructions.sections(target)
    if not sections:
        return ""
    parts = [
        "Custom instructions, in order of precedence: message, then session, then peer, then "
        "workspace. Where two conflict, follow the one listed first."
    ]
    parts += [f"{heading}:\n{indented(text)}" for heading, text in sections]
    return "\n\n".join(parts)


def deriver_messages(
    batch: DeriverBatch, target: str, instructions: InstructionHierarchy | None = None
) -> list[ChatMessage]:
    """The deriver call for one batch: the fixed system prompt and the marked conversation.

    `target` is the name observations are attributed to, normally `batch.target` (pass a
    display name if the peer has one); which messages count as the target's is decided by
    `batch.target`. Raises ValueError for instructions about indices outside the batch.
    """
    conversation = batch.conversation
    instructions = instructions or InstructionHierarchy()
    stray = sorted(index for index in instructions.messages if not 0 <= index < len(conversation))
    if stray:
        raise ValueError(f"message instructions for indices {stray} outside this batch")
    rendered = []
    for index, message in enumerate(conversation):
        mark = "*TARGET*" if message.peer == batch.target else "(context)"
        rendered.append(render_turn(message, f"[{index}] {message.peer} {mark}"))
    blocks = [f"Target peer: {target}"]
    custom = _instructions_block(instructions, target)
    if custom:
        blocks.append(custom)
    blocks.append("Conversation:\n" + "\n".join(rendered))
    blocks.append(f"Extract the explicit facts about {target} from the *TARGET* messages, as JSON.")
    return [system(DERIVER_SYSTEM_PROMPT), user("\n\n".join(blocks))]
