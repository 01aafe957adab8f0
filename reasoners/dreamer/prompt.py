"""The dream specialists' prompts and how beliefs are shown to them (pure)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graph.repo.peer_cards import MAX_ENTRY_CHARS
from reasoners.dreamer.plan import PATTERN_TYPES, Belief, CardLine
from reasoners.dreamer.rules import MAX_CARD_LINES
from reasoners.llm.interface import ChatMessage, system, user
from reasoners.text.transcript import indented, minute

SHOWN_CHARS = 400


def _moment(value: datetime) -> str:
    """To the minute (in UTC): two statements of one day, a new number and an old, are told
    apart by which came later."""
    return minute(value)


def render_belief(belief: Belief) -> str:
    notes = [belief.level, f"valid {_moment(belief.valid_at)}"]
    if belief.stated > belief.valid_at:  # a repeat merged into it: it holds from then too
        notes.append(f"stated again {_moment(belief.stated)}")
    if belief.session:
        notes.append(f"session {belief.session}")
    text = " ".join(belief.content.split())
    if len(text) > SHOWN_CHARS:
        text = text[: SHOWN_CHARS - 1] + "…"
    line = f"[obs:{belief.id}] ({', '.join(notes)}) {text}"
    if belief.premise_ids:
        line += "\n    premises: " + ", ".join(f"[obs:{p}]" for p in belief.premise_ids)
    return line


def render_card(card: Sequence[CardLine]) -> str:
    if not card:
        return "(empty)"
    lines = []
    for line in card:
        cited = (
            ", ".join(f"[obs:{i}]" for i in line.support) if line.support else "written by the app"
        )
        lines.append(f"- {line.text} ({cited})")
    return "\n".join(lines)


_COMMON = """\
You maintain {observer}'s beliefs about {observed}: a graph of observations, each with an id
shown as [obs:<id>]. Explicit observations are facts stated in conversation; deductive,
inductive and contradiction observations were derived from premises.

Work in two phases and repeat them until no supported edit is left:
1. Discovery: look at the recent beliefs, find related ones (search_beliefs, similar_beliefs)
   and read the messages behind them (source_messages).
2. Action: make the edits your tools allow.

Every id you pass must be one a tool showed you. Each edit is checked before it is accepted:
premises must exist, belong to this representation and be current (neither stale, deleted nor
superseded). A rejected edit comes back with the reason; fix it or drop it. When nothing more is
supported, answer with one short sentence and no tool call. Never invent facts."""

DEDUCTION = (
    _COMMON
    + """

You are the deduction specialist. Your edits:
- Knowledge updates (update_belief): the same attribute now has a new value (moved to another
  city, changed jobs, a new age, a new favourite). Name the outdated belief and the newer one
  (or write the updated statement with its premises). Never when both can be true at once.
- Implications (add_deduction): what the beliefs certainly imply but do not state (a stated
  role implies its skills; "my flight to Rome is tomorrow" implies where they will be). Cite
  every premise. Certain implications only, no guesses.
- Contradictions (add_contradiction): two beliefs that cannot both be true where nothing newer
  settles which holds. Cite both and say what conflicts.
- Pruning (prune_belief): a deductive or inductive belief its premises no longer support."""
    + "{card_edit}"
)
CARD_EDIT = """
- The peer card (set_peer_card): stable identity markers only: canonical identity (name, age,
  pronouns), durable attributes (where they live, work, their occupation), relationships
  (family, partner, pets) and standing instructions they gave. Never behaviour, passing states
  or inferred preferences: those stay observations. At most {max_lines} lines of at most
  {max_chars} characters, each citing the beliefs that support it. Send the whole card, and
  only when it should change; lines the app wrote itself are kept for you."""
NO_CARDS = "\nThe app keeps peer cards unwritten here: leave the card as it is."

INDUCTION = (
    _COMMON
    + """

You are the induction specialist. You only add beliefs; you cannot change or remove any.
Read across the explicit and deductive beliefs and write patterns (add_induction): a
preference, a behaviour, a personality trait or a temporal trend ({pattern_types}). A pattern
needs at least two supporting beliefs, and its confidence is set from how many you cite, so
cite every belief that supports it. Do not restate a single fact as a pattern, and do not
repeat a pattern an inductive belief already states."""
)


GUIDANCE_HEADING = "The app's instructions for this workspace (the rules above still hold):"


def specialist_messages(
    prompt: str,
    observer: str,
    observed: str,
    recent: Sequence[Belief],
    card: Sequence[CardLine],
    *,
    recent_label: str,
    cards: bool = True,
    guidance: str | None = None,
) -> list[ChatMessage]:
    """The system prompt (its card rules, or with cards off a line saying so; the app's
    `guidance` after it) and the beliefs to work on."""
    card_edit = CARD_EDIT if cards else NO_CARDS
    instructions = prompt.replace("{card_edit}", card_edit).format(
        observer=observer,
        observed=observed,
        max_lines=MAX_CARD_LINES,
        max_chars=MAX_ENTRY_CHARS,
        pattern_types=", ".join(PATTERN_TYPES),
    )
    if guidance:
        instructions += f"\n\n{GUIDANCE_HEADING}\n{indented(guidance)}"
    shown = "\n".join(render_belief(b) for b in recent) or "(none)"
    return [
        system(instructions),
        user(
            f"{recent_label} ({len(recent)}):\n{shown}\n\n"
            f"{observer}'s current peer card of {observed}:\n{render_card(card)}"
        ),
    ]
