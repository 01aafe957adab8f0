"""The dialectic: answers a question about a peer from one observer's view, with citations.

    question ─► embed ─► prefetch: the scope's 8 observations nearest to it (with source spans)
             ─► tool loop: the model calls the tools of `dialectic_tools` (one scope, read-only)
                for at most the level's iteration budget; then one call without tools forces
                the answer
             ─► citations: [obs:<id>] / [msg:<id>] markers of the answer, kept only when a tool
                showed that node in this conversation (the `Evidence` ledger)

Reasoning levels trade latency and cost for more retrieval: each maps to a tool-iteration
budget and to the LLM role `dialectic-<level>`, whose model is configured per role
(BELIEFGRAPH_LLM_MODEL_DIALECTIC_<LEVEL>). With no LLM configured, the answer is the prefetched
evidence itself, and it says so.

The prompt builders and citation parsing are pure; `chat` and `chat_stream` do the I/O.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from graph.db import Database
from graph.errors import InvalidInput
from graph.records import MessageRecord, ObservationRecord
from graph.repo import peer_cards, peers, sessions
from graph.validation import now as utc_now
from reasoners.dialectic.evidence import Evidence, ObservationItem, Scope, day
from reasoners.dialectic.tools import Toolbox
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.llm.interface import (
    DIALECTIC_LEVELS,
    LLM,
    ChatMessage,
    Usage,
    assistant_turn,
    system,
    tool_result,
    user,
)

MAX_QUERY_CHARS = 2000
PREFETCH = 8
# A turn may ask for several calls at once; past this many, the rest are answered with an error
# so that one turn cannot run an unbounded number of queries.
MAX_CALLS_PER_TURN = 8
EXTRACTIVE_MODE = "extractive"


# --- reasoning levels -------------------------------------------------------------------------


@dataclass(frozen=True)
class ReasoningLevel:
    name: str
    max_tool_iterations: int  # model turns that may call tools before the answer is forced

    @property
    def role(self) -> str:
        """The LLM role, so each level's model is configuration, not code."""
        return f"dialectic-{self.name}"


@dataclass(frozen=True)
class ReasoningLevels:
    """The table of levels; `parse` overrides budgets from a setting such as "low=3,max=12"."""

    budgets: Mapping[str, int]

    def __post_init__(self) -> None:
        unknown = set(self.budgets) - set(DIALECTIC_LEVELS)
        if unknown:
            raise InvalidInput(
                f"unknown reasoning level(s) {sorted(unknown)}; "
                f"the levels are {', '.join(DIALECTIC_LEVELS)}"
            )
        for name, budget in self.budgets.items():
            if not 0 <= budget <= 50:
                raise InvalidInput(f"reasoning level {name}: budget {budget} is not in 0..50")

    def get(self, name: str) -> ReasoningLevel:
        if name not in self.budgets:
            raise InvalidInput(f"reasoning level {name!r} is not one of {', '.join(self.budgets)}")
        return ReasoningLevel(name, self.budgets[name])

    @classmethod
    def parse(cls, text: str, base: ReasoningLevels | None = None) -> ReasoningLevels:
        budgets = dict((base or DEFAULT_LEVELS).budgets)
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, sep, value = part.partition("=")
            if not sep or not value.strip().isdigit():
                raise InvalidInput(f"reasoning levels: {part!r} is not <level>=<iterations>")
            budgets[name.strip()] = int(value)
        return cls(budgets)


DEFAULT_LEVELS = ReasoningLevels({"minimal": 0, "low": 2, "medium": 4, "high": 6, "max": 10})


# --- prompts (pure) ---------------------------------------------------------------------------

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
never repeat a call with the same arguments.
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


def view_name(scope: Scope) -> str:
    if scope.observer == scope.observed:
        return f"{scope.observed}'s own self-model"
    return f"{scope.observer}'s view of {scope.observed}"


def render_evidence(items: list[ObservationItem]) -> str:
    return "\n".join(item.render() for item in items)


def dialectic_messages(
    scope: Scope,
    query: str,
    *,
    today: datetime,
    card: list[str],
    prefetched: list[ObservationItem],
    tools: bool,
) -> list[ChatMessage]:
    """The conversation that opens the tool loop: the fixed policy, then this question.

    Everything that varies goes into the user message, so the system prompt stays the same for
    every call and providers can cache it.
    """
    parts = [
        f"Today is {day(today)}.",
        f"Memory: {view_name(scope)} (observer {scope.observer}, peer {scope.observed}).",
    ]
    if scope.session is not None:
        parts.append(f"Only evidence from session {scope.session} is available.")
    if not tools:
        parts.append("No tools are available for this question: answer from the evidence below.")
    parts.append(f"\nQuestion: {query}")
    if card:
        parts.append("\nPeer card (stable facts):\n" + "\n".join(f"- {e}" for e in card))
    if prefetched:
        parts.append("\nObservations most similar to the question:\n" + render_evidence(prefetched))
    else:
        parts.append("\nNo observations in this memory are similar to the question.")
    return [system(DIALECTIC_SYSTEM_PROMPT), user("\n".join(parts))]


def extractive_text(scope: Scope, items: list[ObservationItem]) -> str:
    """The no-LLM answer: the evidence itself, saying plainly that no model answered."""
    if not items:
        return (
            "No language model is configured, so no model answered this question, and "
            f"{view_name(scope)} holds no observations related to it."
        )
    return (
        "No language model is configured; here is the evidence instead (no model answered "
        f"the question). The observations in {view_name(scope)} closest to it, with the "
        "messages they came from:\n\n" + render_evidence(items)
    )


# --- citations (pure) -------------------------------------------------------------------------

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
    """The cited nodes a tool showed in this conversation; any other marker is dropped."""
    observations = [
        evidence.observations[i] for k, i in refs if k == "obs" and i in evidence.observations
    ]
    messages = [
        MessageCitation(i, evidence.messages[i].span, evidence.messages[i].message)
        for k, i in refs
        if k == "msg" and i in evidence.messages
    ]
    return Citations(observations, messages)


def cite_all(items: list[ObservationItem], evidence: Evidence) -> Citations:
    refs = [("obs", item.observation.id) for item in items]
    refs += [("msg", s.message.id) for item in items for s in item.sources]
    return resolve_citations(list(dict.fromkeys(refs)), evidence)


# --- answers ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChatAnswer:
    answer: str
    mode: str  # "extractive" or the LLM provider's mode
    level: str
    citations: Citations
    iterations: int  # model turns that called tools
    tool_calls: int
    usage: Usage


@dataclass(frozen=True)
class ChatEvent:
    """A piece of a streamed answer: a text delta, or (last) the whole answer and citations."""

    delta: str | None = None
    answer: ChatAnswer | None = None

    @property
    def done(self) -> bool:
        return self.answer is not None


@dataclass
class Conversation:
    """One question's state: its scope, tools, messages and what the loop has spent."""

    scope: Scope
    level: ReasoningLevel
    toolbox: Toolbox
    prefetched: list[ObservationItem]
    messages: list[ChatMessage]
    iterations: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)

    def answer(self, text: str, mode: str) -> ChatAnswer:
        return ChatAnswer(
            answer=text,
            mode=mode,
            level=self.level.name,
            citations=resolve_citations(parse_citations(text), self.toolbox.evidence),
            iterations=self.iterations,
            tool_calls=self.tool_calls,
            usage=self.usage,
        )

    def extractive(self) -> ChatAnswer:
        return ChatAnswer(
            answer=extractive_text(self.scope, self.prefetched),
            mode=EXTRACTIVE_MODE,
            level=self.level.name,
            citations=cite_all(self.prefetched, self.toolbox.evidence),
            iterations=0,
            tool_calls=0,
            usage=Usage(),
        )


def check_query(query: str) -> str:
    text = query.strip()
    if not text:
        raise InvalidInput("query: empty question")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInput(f"query: {len(query)} characters; the limit is {MAX_QUERY_CHARS}")
    return text


async def open_conversation(
    db: Database,
    embedder: Embedder,
    scope: Scope,
    query: str,
    *,
    level: str,
    levels: ReasoningLevels,
    tools: bool,
    now: datetime | None,
) -> Conversation:
    """Check the request, prefetch the evidence, and write the opening messages."""
    text = check_query(query)
    reasoning = levels.get(level)
    await peers.get(db, scope.workspace, scope.observer)
    if scope.observed != scope.observer:
        await peers.get(db, scope.workspace, scope.observed)
    if scope.session is not None:
        await sessions.get(db, scope.workspace, scope.session)
    toolbox = Toolbox(db, embedder, scope)
    [embedding] = await embed_async(embedder, [text])
    prefetched = await toolbox.prefetch(embedding, PREFETCH)
    card = await peer_cards.get(db, scope.workspace, scope.observer, scope.observed)
    messages = dialectic_messages(
        scope,
        text,
        today=now or utc_now(),
        card=card.entries,
        prefetched=prefetched,
        tools=tools and reasoning.max_tool_iterations > 0,
    )
    return Conversation(scope, reasoning, toolbox, prefetched, messages)


async def run_tools(llm: LLM, conversation: Conversation) -> str | None:
    """The tool loop: the model's answer, or None when it must still be forced.

    A turn without tool calls ends the loop with its text. When the budget is spent first (or
    the model answered with nothing), a note asking for the answer ends the conversation, and
    the caller makes the last call without tools, so the model cannot ask for more.
    """
    c = conversation
    budget = c.level.max_tool_iterations
    while c.iterations < budget:
        turn = await llm.chat(c.level.role, c.messages, tools=c.toolbox.specs)
        c.usage += turn.usage
        if not turn.tool_calls:
            if turn.content and turn.content.strip():
                return turn.content.strip()
            break
        c.messages.append(assistant_turn(turn))
        # Every call gets a result, even refused ones: the chat format requires one per call.
        for index, call in enumerate(turn.tool_calls):
            if index < MAX_CALLS_PER_TURN:
                result = await c.toolbox.dispatch(call)
                c.tool_calls += 1
            else:
                result = f"Error: at most {MAX_CALLS_PER_TURN} tool calls per turn; not run."
            c.messages.append(tool_result(call.id, result))
        c.iterations += 1
    if budget > 0:
        c.messages.append(user(BUDGET_SPENT))
    return None


NO_ANSWER = "The model returned no answer."


async def chat(
    db: Database,
    embedder: Embedder,
    llm: LLM | None,
    scope: Scope,
    query: str,
    *,
    level: str = "low",
    levels: ReasoningLevels = DEFAULT_LEVELS,
    now: datetime | None = None,
) -> ChatAnswer:
    """Answer `query` about `scope.observed` from `scope.observer`'s view."""
    c = await open_conversation(
        db, embedder, scope, query, level=level, levels=levels, tools=llm is not None, now=now
    )
    if llm is None:
        return c.extractive()
    text = await run_tools(llm, c)
    if text is None:
        turn = await llm.chat(c.level.role, c.messages)
        c.usage += turn.usage
        text = (turn.content or "").strip() or NO_ANSWER
    return c.answer(text, llm.mode)


async def chat_stream(
    db: Database,
    embedder: Embedder,
    llm: LLM | None,
    scope: Scope,
    query: str,
    *,
    level: str = "low",
    levels: ReasoningLevels = DEFAULT_LEVELS,
    now: datetime | None = None,
) -> AsyncIterator[ChatEvent]:
    """`chat` as text deltas, then one event with the whole answer and its citations.

    The forced answer (budget spent, or the minimal level with no tools) is streamed from the
    model. When the model finishes early with a plain answer inside the loop, that answer is
    already complete and is sent as one delta: asking again only to stream it would double the
    cost and the wait.
    """
    c = await open_conversation(
        db, embedder, scope, query, level=level, levels=levels, tools=llm is not None, now=now
    )
    if llm is None:
        answer = c.extractive()
        yield ChatEvent(delta=answer.answer)
        yield ChatEvent(answer=answer)
        return
    text = await run_tools(llm, c)
    if text is not None:
        yield ChatEvent(delta=text)
    else:
        pieces: list[str] = []
        async for delta in llm.stream(c.level.role, c.messages):
            if delta:
                pieces.append(delta)
                yield ChatEvent(delta=delta)
        text = "".join(pieces).strip()
        if not text:
            text = NO_ANSWER
            yield ChatEvent(delta=text)
    yield ChatEvent(answer=c.answer(text, llm.mode))
