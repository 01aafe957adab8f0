"""POST …/peers/{peer}/chat: the dialectic, as one JSON answer or as server-sent events.

The stream sends one `data: {"delta": {"content": …}, "done": false}` event per piece of text,
then `data: {"done": true}` (with `evidence` when it was asked for).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel, Field, StrictInt
from starlette.responses import JSONResponse, Response, StreamingResponse

from graph.errors import Forbidden, InvalidInput
from graph.repo import members, observations
from graph.validation import MAX_QUESTION_CHARS
from reasoners.dialectic import chat as dialectic
from reasoners.dialectic.citations import Citations
from reasoners.dialectic.evidence import View
from reasoners.llm.interface import DialecticLevel
from resolvers.connected import while_connected
from resolvers.rest import shapes
from resolvers.rest.filters import session_allowlist
from resolvers.rest.http import Call, log
from resolvers.rest.members import parse_depth


class ChatBody(BaseModel):
    query: str = Field(min_length=1, max_length=MAX_QUESTION_CHARS)
    stream: bool = False
    session_id: str | None = None
    target: str | None = None
    reasoning_level: DialecticLevel = DialecticLevel.LOW
    response_format: dict[str, Any] | None = None
    filters: dict[str, Any] | None = None
    scope: str | list[str] | None = None
    include_evidence: bool = False
    depth: StrictInt | str = 1  # sub-peer levels the answer covers (0: the target alone; "all")


async def view_of(call: Call, body: ChatBody) -> View:
    peer = call.path("peer")
    if body.response_format is not None:
        raise InvalidInput("response_format is not supported: answers are plain text")
    if body.scope is not None:
        raise InvalidInput("scope is not supported: use filters.session_id or session_id")
    principal = call.principal
    principal.require_peer(call.workspace, peer)
    observed = body.target or peer
    try:
        principal.require_peer(call.workspace, observed)  # what reading its files takes
        read_files = True
    except Forbidden:
        read_files = False
    allowlist = session_allowlist(body.filters)
    services = call.services
    below = await members.aggregation_set(
        services.db,
        call.workspace,
        observed,
        depth=parse_depth(body.depth),
        max_peers=services.settings.max_aggregation_peers,
    )
    return View(
        call.workspace,
        peer,
        observed,
        body.session_id,
        None,
        aggregated=tuple(below[1:]),
        session_ids=tuple(allowlist) if allowlist is not None else None,
        read_files=read_files,
        session_checked="session" in principal.names_it_may_check(),
    )


async def evidence(call: Call, citations: Citations) -> dict[str, Any]:
    """The cited conclusions and messages; a conclusion's `source_ids` is a list here, of its
    premises (empty for one taken from messages), as Honcho's clients parse evidence."""
    cited = citations.observations
    premises = await observations.premise_ids(
        call.services.db, call.workspace, [o.id for o in cited]
    )
    return {
        "conclusions": [
            {**shapes.conclusion(o), "source_ids": premises.get(o.id, [])} for o in cited
        ],
        "messages": [shapes.message(m.message) for m in citations.messages],
        "tool_calls": [],
        "reasoning_trace_id": None,
    }


def event(data: dict[str, Any]) -> bytes:
    return f"data: {json.dumps(data)}\n\n".encode()


async def chat(call: Call) -> Response:
    body = await call.body(ChatBody)
    view = await view_of(call, body)
    services = call.services
    levels = services.reasoning_levels
    # A client that leaves stops its chat (the model's calls are the operator's tokens).
    if not body.stream:
        asked = dialectic.chat(
            services.db,
            services.embedder,
            services.llm,
            view,
            body.query,
            level=body.reasoning_level.value,
            levels=levels,
        )
        answer = await while_connected(call.request, asked, "before its answer")
        result: dict[str, Any] = {"content": answer.answer}
        if body.include_evidence:
            result["evidence"] = await evidence(call, answer.citations)
        return JSONResponse(result)
    events = dialectic.chat_stream(
        services.db,
        services.embedder,
        services.llm,
        view,
        body.query,
        level=body.reasoning_level.value,
        levels=levels,
    ).__aiter__()
    # The first event is awaited before answering, so a missing peer or a bad request is still
    # an ordinary error status rather than a broken stream.
    first = await while_connected(call.request, anext(events), "before its answer")

    async def stream() -> AsyncIterator[bytes]:
        current: dialectic.ChatEvent | None = first
        try:
            while current is not None:
                if current.answer is not None:
                    done: dict[str, Any] = {"done": True}
                    if body.include_evidence:
                        done["evidence"] = await evidence(call, current.answer.citations)
                    yield event(done)
                    return
                yield event({"delta": {"content": current.delta or ""}, "done": False})
                current = await anext(events, None)
        except Exception:  # headers are sent: end the stream, saying it was cut short
            log.exception("chat stream failed")
        yield event({"done": True, "error": "the answer was cut short; the server log has why"})

    return StreamingResponse(
        stream(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


ROUTES = [("POST", "/workspaces/{workspace}/peers/{peer}/chat", chat)]
