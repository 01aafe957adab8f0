"""Reads of what the service knows: a peer's representation and context, a session's context
and its summaries."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from starlette.responses import JSONResponse, Response

from graph.configuration import card_used
from graph.errors import InvalidInput
from graph.records import ObservationRecord, SummaryRecord
from graph.repo import messages, peer_cards, sessions, summaries, workspaces
from graph.repo.card_view import lines_in_view
from graph.repo.observation_search import ObservationQuery
from reasoners.context.assemble import MAX_BUDGET, ContextRequest, get_context
from reasoners.context.beliefs import BeliefSelection, select_beliefs
from resolvers.rest import shapes
from resolvers.rest.filters import session_allowlist
from resolvers.rest.http import Call

DEFAULT_CONTEXT_TOKENS = 100_000


class RepresentationBody(BaseModel):
    session_id: str | None = None
    target: str | None = None
    filters: dict[str, Any] | None = None
    scope: str | list[str] | None = None
    search_query: str | None = None
    search_top_k: int | None = Field(None, ge=1, le=100)
    search_max_distance: float | None = Field(None, ge=0, le=1)
    include_most_frequent: bool = False
    max_conclusions: int = Field(25, ge=1, le=100)


class PeerContextQuery(BaseModel):
    target: str | None = None
    search_query: str | None = None
    search_top_k: int | None = Field(None, ge=1, le=100)
    search_max_distance: float | None = Field(None, ge=0, le=1)
    include_most_frequent: bool = True
    max_conclusions: int = Field(100, ge=1, le=100)


class SessionContextQuery(BaseModel):
    tokens: int | None = Field(None, ge=1, le=MAX_BUDGET)
    summary: bool = True
    peer_target: str | None = None
    peer_perspective: str | None = None
    search_query: str | None = None
    limit_to_session: bool = False
    search_top_k: int | None = Field(None, ge=1, le=100)
    search_max_distance: float | None = Field(None, ge=0, le=1)
    include_most_frequent: bool = False
    max_conclusions: int | None = Field(None, ge=1, le=100)
    sessions: list[str] | str | None = None  # repeated: an allowlist that includes this session
    scope: str | None = None  # Honcho's scopes are not served: refused, never ignored

    def untargeted(self) -> str | None:
        """The first parameter given that only chooses among a peer_target's beliefs."""
        given = {
            "peer_perspective": self.peer_perspective is not None,
            "search_query": self.search_query is not None,
            "search_top_k": self.search_top_k is not None,
            "search_max_distance": self.search_max_distance is not None,
            "include_most_frequent": self.include_most_frequent,
            "max_conclusions": self.max_conclusions is not None,
            "sessions": self.sessions is not None,
            "limit_to_session": self.limit_to_session,
        }
        return next((name for name, set_ in given.items() if set_), None)

    def allowlist(self, session: str) -> list[str] | None:
        if self.sessions is None:
            return [session] if self.limit_to_session else None
        chosen = [self.sessions] if isinstance(self.sessions, str) else self.sessions
        if self.limit_to_session or session not in chosen:
            raise InvalidInput("sessions must include this session, without limit_to_session")
        return chosen


def require_view(call: Call, observer: str, observed: str) -> None:
    principal = call.principal
    principal.in_workspace(call.workspace)
    if principal.peer not in (observer, observed):
        principal.require_workspace(call.workspace)


async def _beliefs(call: Call, selection: BeliefSelection) -> list[ObservationRecord]:
    services = call.services
    return await select_beliefs(services.db, services.embedder, call.workspace, selection)


async def representation(call: Call) -> Response:
    observer = call.path("peer")
    body = await call.body(RepresentationBody, empty={})
    if body.scope is not None:
        raise InvalidInput("scope is not supported: use filters.session_id or session_id")
    observed = body.target or observer
    require_view(call, observer, observed)
    allowlist = session_allowlist(body.filters)
    if body.session_id is not None:
        allowlist = (
            [body.session_id]
            if allowlist is None
            else [s for s in allowlist if s == body.session_id]
        )
    found = await _beliefs(
        call,
        BeliefSelection(
            observer,
            observed,
            body.max_conclusions,
            session_ids=allowlist,
            search_query=body.search_query,
            search_limit=body.search_top_k,
            most_derived=body.include_most_frequent,
            search_max_distance=body.search_max_distance,
        ),
    )
    if not found:  # none, as for a peer with no beliefs; a missing workspace is named
        await workspaces.get(call.services.db, call.workspace)
    return JSONResponse({"representation": shapes.representation(found)})


async def peer_context(call: Call) -> Response:
    observer = call.path("peer")
    q = call.query(PeerContextQuery)
    observed = q.target or observer
    require_view(call, observer, observed)
    found = await _beliefs(
        call,
        BeliefSelection(
            observer,
            observed,
            q.max_conclusions,
            search_query=q.search_query,
            search_limit=q.search_top_k,
            most_derived=q.include_most_frequent,
            search_max_distance=q.search_max_distance,
        ),
    )
    db = call.services.db
    # Read, not just its configuration: a missing workspace is named, not answered empty.
    used = card_used((await workspaces.get(db, call.workspace)).configuration)
    card = await peer_cards.get(db, call.workspace, observer, observed)
    lines = await lines_in_view(db, call.workspace, card, ObservationQuery(observer, observed))
    return JSONResponse(
        {
            "peer_id": observer,
            "target_id": observed,
            "representation": shapes.representation(found),
            "peer_card": (lines or None) if used else None,
        }
    )


async def summary_json(call: Call, record: SummaryRecord | None) -> dict[str, Any] | None:
    if record is None:
        return None
    # A summary covers the session up to a message: clients want that message's id, or, once
    # it is purged, the last covered one left (it was "" then).
    covered = await messages.latest_up_to(
        call.services.db, call.workspace, record.session, record.up_to_message
    )
    return shapes.summary(record, "" if covered is None else covered.id)


async def session_context(call: Call) -> Response:
    session = call.path("session")
    q = call.query(SessionContextQuery)
    if q.scope is not None:
        raise InvalidInput("scope is not supported: use sessions or limit_to_session")
    if q.peer_target is None and (name := q.untargeted()) is not None:
        # Each picks among the target's beliefs: without one it did nothing, and said nothing.
        raise InvalidInput(f"{name} needs a peer_target: it chooses among that peer's beliefs")
    principal = call.principal
    if q.peer_target is not None:
        require_view(call, q.peer_perspective or q.peer_target, q.peer_target)
    principal.require_session(call.workspace, session)
    allowlist = q.allowlist(session)
    services = call.services
    result = await get_context(
        services.db,
        services.embedder,
        services.tokens,
        ContextRequest(
            workspace=call.workspace,
            tokens=q.tokens or DEFAULT_CONTEXT_TOKENS,
            session=session,
            peer_target=q.peer_target,
            peer_perspective=q.peer_perspective,
            search_query=q.search_query,
            search_limit=q.search_top_k or 10,
            search_max_distance=q.search_max_distance,
            most_derived=(q.max_conclusions or 5) if q.include_most_frequent else 0,
            most_recent=q.max_conclusions or 5,
            # This shape's `messages` are the session's own; it has no place for matched ones.
            search_message_limit=0,
            include_summary=q.summary,
            session_ids=allowlist,
            # The card is not session by session: with sessions listed it is left out, and
            # takes none of the budget from the messages.
            include_card=allowlist is None,
            rendered=False,  # this answer is the parts, not the rendered text
        ),
    )
    targeted = q.peer_target is not None
    return JSONResponse(
        {
            "id": session,
            "messages": [shapes.message(m) for m in result.messages],
            "summary": await summary_json(call, result.summary),
            "peer_representation": shapes.representation(result.representation)
            if targeted
            else None,
            "peer_card": (result.card or None) if targeted else None,
        }
    )


async def session_summaries(call: Call) -> Response:
    session = call.path("session")
    call.principal.require_session(call.workspace, session)
    db = call.services.db
    await sessions.get(db, call.workspace, session)
    short = await summaries.latest(db, call.workspace, session, "short")
    long = await summaries.latest(db, call.workspace, session, "long")
    return JSONResponse(
        {
            "id": session,
            "short_summary": await summary_json(call, short),
            "long_summary": await summary_json(call, long),
        }
    )


ROUTES = [
    ("POST", "/workspaces/{workspace}/peers/{peer}/representation", representation),
    ("GET", "/workspaces/{workspace}/peers/{peer}/context", peer_context),
    ("GET", "/workspaces/{workspace}/sessions/{session}/context", session_context),
    ("GET", "/workspaces/{workspace}/sessions/{session}/summaries", session_summaries),
]
