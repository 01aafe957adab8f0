"""GraphQL for the dialectic: `chat` answers a question about a peer, `chatStream` streams it.

`peer` is the observer whose memory answers; `target` the peer asked about (default: the peer
itself, its self-model). A peer-scoped key may ask from its own perspective only; workspace
and admin keys from any.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, TypeVar

import strawberry

from graph.errors import Forbidden
from graph.repo import workspaces
from reasoners.dialectic import chat as dialectic
from reasoners.dialectic import citations
from reasoners.dialectic.evidence import View
from reasoners.llm.interface import DialecticLevel
from resolvers.fair_share import share_for
from resolvers.graphql.belief_types import Observation
from resolvers.graphql.context import Info
from resolvers.graphql.inputs import (
    ChatExcludeSessionIdsArg,
    ChatSessionIdsArg,
    ExcludeDerivedArg,
    WorkspaceArg,
)
from resolvers.graphql.members import ONE_LEVEL, DepthArg, aggregated
from resolvers.graphql.types import Message, described_enum

# The dialectic's own enum, exposed as is (strawberry registers it in place). The tool turns
# are the defaults; BELIEFGRAPH_DIALECTIC_LEVELS changes them.
ReasoningLevel = DialecticLevel
described_enum(
    ReasoningLevel,
    name="ReasoningLevel",
    description="How much retrieval the dialectic may do before answering.",
    values={
        "MINIMAL": "No tool turns by default: one model call on the prefetched evidence.",
        "LOW": "Up to 2 tool turns by default; the default level.",
        "MEDIUM": "Up to 4 tool turns by default.",
        "HIGH": "Up to 6 tool turns by default.",
        "MAX": "Up to 10 tool turns by default.",
    },
)


T = TypeVar("T")


async def _prepend(first: T, rest: AsyncIterator[T]) -> AsyncIterator[T]:
    yield first
    async for item in rest:
        yield item


@strawberry.type(description="A message cited by an answer, with the words that support it.")
class CitedMessage:
    id: strawberry.ID = strawberry.field(description="The message's id, as the answer cites it.")
    span: str = strawberry.field(description="Verbatim text of the message.")
    message: Message = strawberry.field(description="The cited message.")


@strawberry.type(description="The nodes an answer cites; every one was shown to the model.")
class Citations:
    observations: list[Observation] = strawberry.field(
        description="The beliefs cited (a cited derived belief brings its premises)."
    )
    messages: list[CitedMessage] = strawberry.field(description="The messages cited.")

    @classmethod
    def of(cls, c: citations.Citations) -> Citations:
        return cls(
            observations=[Observation.of(o) for o in c.observations],
            messages=[
                CitedMessage(id=strawberry.ID(m.id), span=m.span, message=Message.of(m.message))
                for m in c.messages
            ],
        )


@strawberry.type(description="An answer of the dialectic, with what it rests on and what it cost.")
class ChatAnswer:
    answer: str = strawberry.field(
        description="The answer in natural language, with [obs:<id>] and [msg:<id>] markers "
        "where it cites."
    )
    mode: str = strawberry.field(
        description='What produced the answer: "extractive" (no model; the answer is the '
        "evidence) or the LLM provider."
    )
    reasoning_level: ReasoningLevel = strawberry.field(description="The level it ran at.")
    citations: Citations = strawberry.field(
        description="The beliefs and messages the answer cites."
    )
    iterations: int = strawberry.field(description="Model turns that called tools.")
    tool_calls: int = strawberry.field(description="Tool calls run, over all turns.")
    tokens_in: int = strawberry.field(
        description="LLM input tokens of all its model calls (0 without a model)."
    )
    tokens_out: int = strawberry.field(
        description="LLM output tokens of all its model calls (0 without a model)."
    )

    @classmethod
    def of(cls, a: dialectic.ChatAnswer) -> ChatAnswer:
        return cls(
            answer=a.answer,
            mode=a.mode,
            reasoning_level=ReasoningLevel(a.level),
            citations=Citations.of(a.citations),
            iterations=a.iterations,
            tool_calls=a.tool_calls,
            tokens_in=a.usage.input_tokens,
            tokens_out=a.usage.output_tokens,
        )


@strawberry.type(
    description="Part of a streamed answer: text deltas first, then one event with the "
    "citations and done = true."
)
class ChatEvent:
    delta: str | None = strawberry.field(
        default=None, description="The next piece of the answer's text; null on the last event."
    )
    answer: str | None = strawberry.field(
        default=None,
        description="The whole answer as `chat` gives it, markers of nodes no tool showed taken "
        "out (the deltas are the model's text as it came); set on the last event only.",
    )
    citations: Citations | None = strawberry.field(
        default=None, description="What the answer cites; set on the last event only."
    )
    mode: str | None = strawberry.field(default=None, description="Set on the last event.")
    done: bool = strawberry.field(
        default=False, description="True on the last event, after which the stream completes."
    )


PeerArg = Annotated[
    str,
    strawberry.argument(
        description="The observer whose memory answers (a peer key may give only its own peer)."
    ),
]
QuestionArg = Annotated[
    str,
    strawberry.argument(
        description="The question, in natural language (at most 10,000 characters)."
    ),
]
TargetArg = Annotated[
    str | None,
    strawberry.argument(
        description="The peer the question is about; omitted: `peer` itself (its self-model)."
    ),
]
SessionArg = Annotated[
    str | None,
    strawberry.argument(
        description="Use only this session's messages and beliefs (beliefs of no session, "
        "such as deductions, are then left out)."
    ),
]
LevelArg = Annotated[
    ReasoningLevel,
    strawberry.argument(description="How much retrieval before answering; default LOW."),
]
AS_OF = (
    "Answer from the beliefs as they stood at this time (written by then and not yet "
    "superseded); messages and the peer card stay current."
)


async def _view(
    info: Info,
    workspace: str,
    peer: str,
    target: str | None,
    session: str | None,
    as_of: datetime | None,
    filters: SessionFilters,
) -> View:
    principal = info.context.principal
    principal.require_peer(workspace, peer)
    observed = target if target is not None else peer
    try:
        principal.require_peer(workspace, observed)  # what reading its files takes
        read_files = True
    except Forbidden:
        read_files = False
    return View(
        workspace,
        peer,
        observed,
        session,
        as_of,
        aggregated=await aggregated(info, workspace, observed, filters.depth),
        session_ids=tuple(filters.session_ids) if filters.session_ids is not None else None,
        exclude_session_ids=(
            tuple(filters.exclude_session_ids) if filters.exclude_session_ids is not None else None
        ),
        exclude_derived=filters.exclude_derived,
        read_files=read_files,
        session_checked="session" in principal.names_it_may_check(),
    )


@dataclass(frozen=True)
class SessionFilters:
    depth: int
    session_ids: list[str] | None
    exclude_session_ids: list[str] | None
    exclude_derived: bool


@strawberry.type
class DialecticQuery:
    @strawberry.field(
        description="Answer a question about `target` (default: `peer` itself) from what "
        "`peer` knows of it, citing the observations and messages the answer rests on."
    )
    async def chat(
        self,
        info: Info,
        workspace: WorkspaceArg,
        peer: PeerArg,
        query: QuestionArg,
        target: TargetArg = None,
        session: SessionArg = None,
        reasoning_level: LevelArg = ReasoningLevel.LOW,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
        depth: DepthArg = ONE_LEVEL,
        session_ids: ChatSessionIdsArg = None,
        exclude_session_ids: ChatExcludeSessionIdsArg = None,
        exclude_derived: ExcludeDerivedArg = False,
    ) -> ChatAnswer:
        filters = SessionFilters(depth, session_ids, exclude_session_ids, exclude_derived)
        view = await _view(info, workspace, peer, target, session, as_of, filters)
        services = info.context.services
        answer = await dialectic.chat(
            services.db,
            services.embedder,
            services.llm,
            view,
            query,
            level=reasoning_level.value,
            levels=services.reasoning_levels,
        )
        return ChatAnswer.of(answer)


@strawberry.type
class DialecticSubscription:
    @strawberry.subscription(
        description="`chat`, streamed: text deltas, then one event with the whole answer, "
        "the citations and done = true, then the stream completes."
    )
    async def chat_stream(
        self,
        info: Info,
        workspace: WorkspaceArg,
        peer: PeerArg,
        query: QuestionArg,
        target: TargetArg = None,
        session: SessionArg = None,
        reasoning_level: LevelArg = ReasoningLevel.LOW,
        as_of: Annotated[datetime | None, strawberry.argument(description=AS_OF)] = None,
        depth: DepthArg = ONE_LEVEL,
        session_ids: ChatSessionIdsArg = None,
        exclude_session_ids: ChatExcludeSessionIdsArg = None,
        exclude_derived: ExcludeDerivedArg = False,
    ) -> AsyncGenerator[ChatEvent, None]:
        filters = SessionFilters(depth, session_ids, exclude_session_ids, exclude_derived)
        services = info.context.services
        # The key holder's share is held until the first event (its reads and tool turns), as
        # for any operation; the rest streams outside it.
        async with share_for(services, info.context.principal):
            # As every query and mutation naming it (deleting.py covers those only).
            await workspaces.refuse_if_being_deleted(services.db, workspace)
            view = await _view(info, workspace, peer, target, session, as_of, filters)
            events = dialectic.chat_stream(
                services.db,
                services.embedder,
                services.llm,
                view,
                query,
                level=reasoning_level.value,
                levels=services.reasoning_levels,
            )
            first = await anext(events, None)
        if first is None:
            return
        async for event in _prepend(first, events):
            if event.answer is None:
                yield ChatEvent(delta=event.delta)
            else:
                yield ChatEvent(
                    answer=event.answer.answer,
                    citations=Citations.of(event.answer.citations),
                    mode=event.answer.mode,
                    done=True,
                )
