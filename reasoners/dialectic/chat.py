"""The dialectic: answers a question about a peer from one observer's view, with citations.

    question ─► embed ─► prefetch: the view's 8 observations nearest to it (with source spans)
                         and its 4 turns that searchMessages ranks first
             ─► tool loop: the model calls the tools of tools.py (one view, read-only)
                for at most the level's iteration budget and the tool time; then one call
                without tools forces the answer
             ─► citations: [obs:<id>] / [msg:<id>] markers of the answer, kept only when a tool
                showed that node in this conversation (the `Evidence` ledger)

Reasoning levels trade latency and cost for more retrieval: each maps to a tool-iteration
budget and to the LLM role `dialectic-<level>`, whose model is configured per role
(BELIEFGRAPH_LLM_MODEL_DIALECTIC_<LEVEL>). With no LLM configured, the answer is the prefetched
evidence itself, and it says so.

The prompt (prompt.py), levels (levels.py) and citations (citations.py) are pure; `chat` and
`chat_stream` here do the I/O.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.configuration import card_used, instructions, joined
from graph.db import Database
from graph.repo import peer_cards, peers, sessions, workspaces
from graph.repo.card_view import lines_in_view
from graph.validation import MAX_QUERY_CHARS, MAX_QUESTION_CHARS, check_query
from graph.validation import now as utc_now
from reasoners.dialectic.citations import (
    Citations,
    cite_all,
    known_markers,
    parse_citations,
    resolve_citations,
)
from reasoners.dialectic.evidence import ObservationItem, View
from reasoners.dialectic.levels import DEFAULT_LEVELS, ReasoningLevel, ReasoningLevels
from reasoners.dialectic.prompt import (
    BUDGET_SPENT,
    dialectic_messages,
    extractive_text,
    fit_evidence,
)
from reasoners.dialectic.tool_results import MessageItem
from reasoners.dialectic.tools import Toolbox
from reasoners.embeddings.model import Embedder, embed_async
from reasoners.llm.interface import (
    LLM,
    ChatMessage,
    LLMError,
    Usage,
    assistant_turn,
    tool_result,
    user,
)

log = logging.getLogger(__name__)

PREFETCH = 8
# The view's turns closest to the question, shown beside the observations: a fact said but not
# yet (or never) made an observation is still in front of the model, and of the no-LLM answer.
PREFETCH_MESSAGES = 4
# A turn may ask for several calls at once; past this many, the rest are answered with an error
# so that one turn cannot run an unbounded number of queries.
MAX_CALLS_PER_TURN = 8
READ_ENOUGH = "Error: this question has read as much as it may; answer from what it has."
EXTRACTIVE_MODE = "extractive"


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
    """One question's state: its view, tools, messages and what the loop has spent."""

    view: View
    level: ReasoningLevel
    toolbox: Toolbox
    prefetched: list[ObservationItem]
    turns: list[MessageItem]  # the prefetched messages
    messages: list[ChatMessage]
    iterations: int = 0
    tool_calls: int = 0
    usage: Usage = field(default_factory=Usage)
    tool_chars: int = 0  # tool output read so far

    def answer(self, text: str, mode: str) -> ChatAnswer:
        return ChatAnswer(
            answer=known_markers(text, self.toolbox.evidence),
            mode=mode,
            level=self.level.name,
            citations=resolve_citations(parse_citations(text), self.toolbox.evidence),
            iterations=self.iterations,
            tool_calls=self.tool_calls,
            usage=self.usage,
        )

    def fallback(self) -> ChatAnswer:
        """The answer without the model after the tools ran (the model's answer was refused),
        with what the loop spent."""
        return dataclasses.replace(
            self.extractive(),
            iterations=self.iterations,
            tool_calls=self.tool_calls,
            usage=self.usage,
        )

    def extractive(self) -> ChatAnswer:
        return ChatAnswer(
            answer=extractive_text(self.view, self.prefetched, self.turns),
            mode=EXTRACTIVE_MODE,
            level=self.level.name,
            # What the answer shows: beliefs past the evidence budget are not in it.
            citations=cite_all(
                fit_evidence(self.prefetched).items, self.turns, self.toolbox.evidence
            ),
            iterations=0,
            tool_calls=0,
            usage=Usage(),
        )


async def app_configuration(db: Database, view: View) -> list[dict[str, Any]]:
    """The configurations whose switches the answer obeys, most specific first: the view's
    session's (if it names one the asker may know of), then the workspace's. A session a
    peer key names unchecked is read only if the observer has been in it: its switches would
    tell the key that it exists."""
    found = [await workspaces.configuration_of(db, view.workspace)]
    session = view.session
    if session is not None and (
        view.session_checked
        or await sessions.joined_by(db, view.workspace, view.observer, {session})
    ):
        found.insert(0, await sessions.configuration_of(db, view.workspace, session))
    return found


async def open_conversation(
    db: Database,
    embedder: Embedder,
    view: View,
    query: str,
    *,
    level: str,
    levels: ReasoningLevels,
    tools: bool,
    now: datetime | None,
) -> Conversation:
    """Check the request, prefetch the evidence, and write the opening messages."""
    text = check_query(query, limit=MAX_QUESTION_CHARS)
    reasoning = levels.get(level)
    await peers.get(db, view.workspace, view.observer)
    if view.observed != view.observer:
        await peers.get(db, view.workspace, view.observed)
    if view.session is not None and view.session_checked:
        await sessions.get(db, view.workspace, view.session)
    levels_of = await app_configuration(db, view)
    toolbox = Toolbox(db, embedder, view, cards=card_used(*levels_of))
    [embedding] = await embed_async(embedder, [text])
    # Independent reads: side by side, the opening waits for the slowest.
    prefetched, turns, card = await asyncio.gather(
        toolbox.prefetch(embedding, PREFETCH),
        toolbox.search_messages(text[:MAX_QUERY_CHARS], PREFETCH_MESSAGES, embedding=embedding),
        peer_cards.get(db, view.workspace, view.observer, view.observed),
    )
    lines = await lines_in_view(db, view.workspace, card, view.query()) if toolbox.cards else []
    messages = dialectic_messages(
        view,
        text,
        today=now or utc_now(),
        card=lines,
        prefetched=prefetched,
        turns=turns.items,
        tools=tools and reasoning.max_tool_iterations > 0,
        guidance=joined(*(instructions(c, "dialectic") for c in reversed(levels_of))),
    )
    return Conversation(view, reasoning, toolbox, prefetched, turns.items, messages)


async def run_tools(llm: LLM, conversation: Conversation) -> str | None:
    """The tool loop: the model's answer, or None when it must still be forced.

    A turn without tool calls ends the loop with its text. When the budget is spent first (its
    turns, or its time: a turn still waiting then is cut off), or the model answered with
    nothing, a note asking for the answer ends the conversation, and the caller makes the last
    call without tools, so the model cannot ask for more. Each call has the LLM's own deadline,
    so a chat ends within the tool time plus one call's.
    """
    c = conversation
    budget = c.level.max_tool_iterations
    clock = asyncio.get_running_loop()
    deadline = clock.time() + c.level.tool_seconds
    while c.iterations < budget:
        remaining = deadline - clock.time()
        if remaining <= 0:
            break
        try:
            turn = await asyncio.wait_for(
                llm.chat(c.level.role, c.messages, tools=c.toolbox.specs), remaining
            )
        except TimeoutError:
            break  # the cut-off turn's tokens are not reported: its answer never came
        except LLMError:
            if c.iterations == 0:
                raise  # nothing read yet: the question fails as the endpoint did
            # A later turn failed (the endpoint refused a long conversation, say): what the
            # tools read so far is answered from, not thrown away.
            log.warning("dialectic: turn %d failed; answering from what was read", c.iterations)
            break
        c.usage += turn.usage
        if not turn.tool_calls:
            if turn.content and turn.content.strip():
                return turn.content.strip()
            break
        c.messages.append(assistant_turn(turn))
        # Every call gets a result, even refused ones: the chat format requires one per call.
        for index, call in enumerate(turn.tool_calls):
            left = deadline - clock.time()
            if index >= MAX_CALLS_PER_TURN:
                result = f"Error: at most {MAX_CALLS_PER_TURN} tool calls per turn; not run."
            elif left <= 0:
                result = "Error: the time for tools is spent; not run."
            elif c.tool_chars >= c.level.tool_chars:
                result = READ_ENOUGH
            else:
                try:
                    result = await asyncio.wait_for(c.toolbox.dispatch(call), left)
                    c.tool_calls += 1
                except TimeoutError:
                    result = "Error: the time for tools ran out; not finished."
                c.tool_chars += len(result)
            c.messages.append(tool_result(call.id, result))
        c.iterations += 1
        if c.tool_chars >= c.level.tool_chars:
            break
    if budget > 0:
        c.messages.append(user(BUDGET_SPENT))
    return None


NO_ANSWER = "The model returned no answer."


async def chat(
    db: Database,
    embedder: Embedder,
    llm: LLM | None,
    view: View,
    query: str,
    *,
    level: str = "low",
    levels: ReasoningLevels = DEFAULT_LEVELS,
    now: datetime | None = None,
) -> ChatAnswer:
    """Answer `query` about `view.observed` from `view.observer`'s view."""
    c = await open_conversation(
        db, embedder, view, query, level=level, levels=levels, tools=llm is not None, now=now
    )
    if llm is None:
        return c.extractive()
    text = await run_tools(llm, c)
    if text is None:
        try:
            turn = await llm.chat(c.level.role, c.messages)
        except LLMError:
            if c.iterations == 0:
                raise
            # The forced answer failed too, after tools ran: the answer without a model, from
            # the prefetched evidence, rather than none.
            log.warning("dialectic: the final call failed; answering without the model")
            return c.fallback()
        c.usage += turn.usage
        text = (turn.content or "").strip() or NO_ANSWER
    return c.answer(text, llm.mode)


async def chat_stream(
    db: Database,
    embedder: Embedder,
    llm: LLM | None,
    view: View,
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
        db, embedder, view, query, level=level, levels=levels, tools=llm is not None, now=now
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
        try:
            async for delta in llm.stream(c.level.role, c.messages):
                if delta:
                    pieces.append(delta)
                    yield ChatEvent(delta=delta)
        except LLMError:
            if pieces or c.iterations == 0:
                raise  # what was sent cannot be taken back; nothing was read to answer from
            log.warning("dialectic: the final call failed; answering without the model")
            answer = c.fallback()
            yield ChatEvent(delta=answer.answer)
            yield ChatEvent(answer=answer)
            return
        text = "".join(pieces).strip()
        if not text:
            text = NO_ANSWER
            yield ChatEvent(delta=text)
    yield ChatEvent(answer=c.answer(text, llm.mode))
