"""The dialectic's prompt (pure): a fixed retrieval policy, then the question and its evidence.

Everything that varies goes into the user message, so the system prompt is the same for every
call and providers can cache it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from reasoners.dialectic.evidence import ObservationItem, View, day
from reasoners.dialectic.tool_results import MessageItem
from reasoners.llm.interface import ChatMessage, system, user
from reasoners.text.transcript import indented

DIALECTIC_SYSTEM_PROMPT = """\
You answer questions about one peer (a person or agent), for another AI agent, from a memory: \
what one observer knows about that peer. The memory holds only what the observer was present \
to see; there is nothing else to find, and you must not fill gaps from general knowledge.

Evidence comes in two kinds, each with an id you cite:
- [obs:<id>] observations (beliefs). Levels: explicit (stated by the peer, shown with the \
message span it came from), deductive (concluded from premises), inductive (a pattern across \
several premises), contradiction (two beliefs that clash). An observation marked SUPERSEDED \
was replaced by a later one; one marked STALE lost support from a premise.
- [msg:<id>] messages the peer wrote, with their dates.

Retrieval policy:
1. Start from the prefetched evidence in the user message. Use the tools when it does not \
answer the question directly and concretely; stop as soon as the evidence is sufficient, and \
never repeat a call with the same arguments. When no observation covers the question, search the \
messages themselves with search_messages: not every fact said has become an observation yet.
2. Derived beliefs: when a deductive or inductive observation answers the question, call \
provenance on it, check that its explicit premises and their message spans really support it, \
and cite that concrete evidence, not the derived belief alone. If the premises are weak, stale, \
indirect or missing, say so and present the claim as tentative.
3. Values that change (where the peer lives or works, counts, plans, relationships, \
preferences): look for update language with grep_messages ("moved", "now", "anymore", \
"no longer", "switched", "changed") and by date, answer with the most recent supported value, \
and say that it changed and when. SUPERSEDED observations are history, not the current value.
4. Conflicts: when statements genuinely conflict and neither is a later update of the other, \
present both with their dates and evidence; do not choose a side.
5. Exact names, numbers, quotes and dates: find the wording with grep_messages, and read \
around an observation with message_context.
6. Abstain when the evidence is thin: say plainly that the memory does not show it, and what \
it does show if that helps. Never guess, and never invent facts, quotes or ids.

Answer:
- Lead with the direct answer, then the support, in a few sentences of plain prose.
- Give absolute dates; resolve relative ones against the dates of the evidence.
- Cite each claim with the ids it rests on, copied exactly, in square brackets right after the \
claim: [obs:<id>] or [msg:<id>]. Cite only ids that appeared in this conversation.
"""

BUDGET_SPENT = (
    "The tool budget for this question is spent. Answer now from the evidence above, following "
    "the policy: cite the ids, qualify what is weakly supported, abstain if it is too thin."
)


def view_name(view: View) -> str:
    if view.observer == view.observed:
        return f"{view.observed}'s own self-model"
    return f"{view.observer}'s view of {view.observed}"


# What the opening's observations may take of the prompt (about 6,000 tokens): each comes with
# its premises two levels down and up to ten quoted sources per node, and eight beliefs over
# six facts each wrote 250,000 characters, past many models' context, failing the question.
# The tools read more, each within its own bound.
EVIDENCE_CHARS = 24_000


@dataclass(frozen=True)
class Fitted:
    """The evidence as it fits the budget: the items shown (some without their premises and
    sources) with their text, and how many were left out."""

    items: list[ObservationItem]
    texts: list[str]
    left_out: int


def fit_evidence(items: list[ObservationItem], limit: int = EVIDENCE_CHARS) -> Fitted:
    """The items, whole while they fit in `limit` characters; past it, each without its
    premises and sources (its premises' ids stay, for the tools to read), then none."""
    shown: list[ObservationItem] = []
    texts: list[str] = []
    used = 0
    for index, item in enumerate(items):
        for form in (item, replace(item, premises=(), sources=[])):
            text = form.render()
            if used + len(text) <= limit:
                shown.append(form)
                texts.append(text)
                used += len(text) + 1
                break
        else:
            return Fitted(shown, texts, len(items) - index)
    return Fitted(shown, texts, 0)


def render_evidence(fitted: Fitted, *, tools: bool) -> str:
    lines = list(fitted.texts)
    if fitted.left_out:
        reads = ": search_observations reads them" if tools else ""
        lines.append(f"({fitted.left_out} more left out for length{reads})")
    return "\n".join(lines)


MAX_NAMED = 20  # sub-peers or sessions named in the question; the tools show the rest


def some(names: tuple[str, ...]) -> str:
    """The first names of a list, and how many more there are."""
    shown = ", ".join(names[:MAX_NAMED])
    more = len(names) - MAX_NAMED
    return shown + (f" and {more} more" if more > 0 else "")


def dialectic_messages(
    view: View,
    query: str,
    *,
    today: datetime,
    card: list[str],
    prefetched: list[ObservationItem],
    turns: list[MessageItem],
    tools: bool,
    guidance: str | None = None,
) -> list[ChatMessage]:
    """The conversation that opens the tool loop: the fixed policy, then this question (and
    the app's `guidance` for answering, from its `dialectic.custom_instructions`).

    Everything that varies goes into the user message, so the system prompt stays the same for
    every call and providers can cache it.
    """
    parts = [
        f"Today is {day(today)}.",
        f"Memory: {view_name(view)} (observer {view.observer}, peer {view.observed}).",
    ]
    if view.aggregated:
        parts.append(
            f"It includes what is known about {view.observed}'s sub-peers "
            f"({some(view.aggregated)}); observations about one of them say so."
        )
    if view.session is not None:
        parts.append(f"Only evidence from session {view.session} is available.")
    if view.session_ids is not None:
        parts.append(f"Only evidence from sessions {some(view.session_ids)} is available.")
    if view.exclude_session_ids:
        parts.append(f"Evidence from sessions {some(view.exclude_session_ids)} is excluded.")
    if not tools:
        parts.append("No tools are available for this question: answer from the evidence below.")
    if guidance:
        parts.append(f"\nThe app's instructions for answering:\n{indented(guidance)}")
    parts.append(f"\nQuestion: {query}")
    if card:
        parts.append("\nPeer card (stable facts):\n" + "\n".join(f"- {e}" for e in card))
    if prefetched:
        shown = render_evidence(fit_evidence(prefetched), tools=tools)
        parts.append("\nObservations most similar to the question:\n" + shown)
    else:
        parts.append("\nNo observations in this memory are similar to the question.")
    if turns:
        parts.append("\nMessages that match the question best:\n" + render_turns(turns))
    return [system(DIALECTIC_SYSTEM_PROMPT), user("\n".join(parts))]


def render_turns(turns: list[MessageItem]) -> str:
    return "\n".join(turn.render(excerpt=True) for turn in turns)


def extractive_text(view: View, items: list[ObservationItem], turns: list[MessageItem]) -> str:
    """The no-LLM answer: the evidence itself, saying plainly that no model answered."""
    if not items and not turns:
        return (
            "No language model is configured, so no model answered this question, and "
            f"{view_name(view)} holds no observations or messages related to it."
        )
    parts = [
        "No language model is configured; here is the evidence instead (no model answered "
        "the question)."
    ]
    if items:
        parts.append(
            f"The observations in {view_name(view)} closest to it, with the messages they "
            "came from:\n\n" + render_evidence(fit_evidence(items), tools=False)
        )
    else:
        parts.append(f"There are no observations in {view_name(view)} related to it.")
    if turns:
        parts.append("The messages that match it best:\n\n" + render_turns(turns))
    return "\n\n".join(parts)
