"""Conclusions: an observer's beliefs about an observed peer (observations, in the graph).

Created conclusions are explicit beliefs the app states (no source message); a delete
tombstones the belief and marks what was derived from it stale. Lists are newest first.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import AliasChoices, BaseModel, Field
from starlette.responses import JSONResponse, Response

from graph.errors import Forbidden, InvalidInput
from graph.records import ObservationRecord
from graph.repo import observations, stated_observations, workspaces
from graph.repo.observation_search import ObservationQuery
from reasoners.ingest.beliefs import BeliefInput, add_beliefs
from reasoners.peers.invalidation import delete_observation
from reasoners.search.observations import search_observations
from resolvers.by_id import below_key_peer, read_by_id
from resolvers.rest import shapes
from resolvers.rest.http import Call, no_content
from resolvers.rest.paging import PageQuery, page_of, page_slice, read_all
from resolvers.rest.representation import require_view
from resolvers.rest.workspaces import ListBody

MAX_IDS = 100
LEVELS = ("explicit", "deductive", "inductive", "contradiction")


class ConclusionCreate(BaseModel):
    content: str = Field(min_length=1, max_length=65_535)
    observer_id: str
    observed_id: str
    session_id: str | None = None


class ConclusionBatch(BaseModel):
    conclusions: list[ConclusionCreate] = Field(
        validation_alias=AliasChoices("conclusions", "observations")
    )


class ConclusionQueryBody(BaseModel):
    query: str = Field(min_length=1)
    top_k: int = Field(10, ge=1, le=100)
    distance: float | None = Field(None, ge=0, le=1)
    filters: dict[str, Any] | None = None


@dataclass(frozen=True)
class Selection:
    observer: str | None = None
    observed: str | None = None
    session: str | None = None
    levels: list[str] | None = None
    ids: list[str] | None = None
    source: str | None = None  # derived from this belief (`source_ids: {"contains": id}`)


def _text(value: Any, key: str) -> str:
    if not isinstance(value, str):
        raise InvalidInput(f"filters.{key} must be a string id")
    return value


def _id(value: Any, key: str) -> str:
    """A non-empty string id: an empty one matches nothing rather than everything."""
    if not _text(value, key):
        raise InvalidInput(f"filters.{key} must not be empty")
    return str(value)


def _levels(value: Any) -> list[str]:
    """A level, a list of levels or {"in": [levels]}; any other shape (an operator this route
    does not apply, an empty list) is refused rather than ignored."""
    levels = value.get("in") if isinstance(value, dict) and set(value) == {"in"} else value
    levels = [levels] if isinstance(levels, str) else levels
    if not isinstance(levels, list) or not levels or any(v not in LEVELS for v in levels):
        raise InvalidInput(
            f'filters.level must be a level, a list of levels or {{"in": [levels]}}, '
            f"with levels among {list(LEVELS)}"
        )
    return levels


def selection(filters: dict[str, Any] | None) -> Selection:
    given = dict(filters or {})
    allowed = {
        "observer_id",
        "observer",
        "observed_id",
        "observed",
        "session_id",
        "level",
        "id",
        "source_ids",
    }
    unknown = sorted(set(given) - allowed)
    if unknown:
        raise InvalidInput(f"filters {unknown} are not supported on conclusions")
    observer = given.get("observer_id", given.get("observer"))
    observed = given.get("observed_id", given.get("observed"))
    levels = _levels(given["level"]) if given.get("level") is not None else None
    session = given.get("session_id")
    ids = given.get("id")
    if ids is not None:
        ids = (
            [ids]
            if isinstance(ids, str)
            else ids.get("in")
            if isinstance(ids, dict) and set(ids) == {"in"}
            else None
        )
        if not isinstance(ids, list) or not 1 <= len(ids) <= MAX_IDS:
            raise InvalidInput(f'filters.id must be an id or {{"in": [1-{MAX_IDS} ids]}}')
    source = given.get("source_ids")
    if source is not None and ids is not None:
        raise InvalidInput("filters.source_ids and filters.id do not combine: give one")
    if source is not None:
        if not (isinstance(source, dict) and set(source) == {"contains"}):
            raise InvalidInput('filters.source_ids takes {"contains": id}')
        source = _id(source["contains"], "source_ids.contains")
    return Selection(
        source=source,
        observer=_id(observer, "observer_id") if observer is not None else None,
        observed=_id(observed, "observed_id") if observed is not None else None,
        session=None if session is None else _id(session, "session_id"),
        levels=levels,
        ids=[_id(i, "id") for i in ids] if ids is not None else None,
    )


def _kept(o: ObservationRecord, s: Selection) -> bool:
    return (
        (s.observer is None or o.observer == s.observer)
        and (s.observed is None or o.observed == s.observed)
        and (s.session is None or o.session == s.session)
        and (s.levels is None or o.level in s.levels)
    )


def _query(s: Selection) -> ObservationQuery:
    if s.observer is None or s.observed is None:
        raise InvalidInput("filters must name observer_id and observed_id (or an id list)")
    return ObservationQuery(
        s.observer,
        s.observed,
        levels=s.levels,
        session_ids=[s.session] if s.session else None,
    )


async def _shaped(call: Call, found: list[ObservationRecord]) -> list[dict[str, Any]]:
    """The conclusions as Honcho's clients read them, with their `source_ids`."""
    sources = await observations.premise_ids(
        call.services.db, call.workspace, [o.id for o in found]
    )
    return [shapes.conclusion(o, sources.get(o.id)) for o in found]


async def _derived_from(call: Call, chosen: Selection) -> list[ObservationRecord]:
    """The current beliefs derived from `chosen.source` that the filters keep and the key may
    read; none for an unknown id (as Honcho's clients expect)."""
    assert chosen.source is not None
    call.principal.in_workspace(call.workspace)
    current = await observations.current_dependents(call.services.db, call.workspace, chosen.source)
    return await _readable(call, [o for o in current if _kept(o, chosen)])


async def _readable(call: Call, found: list[ObservationRecord]) -> list[ObservationRecord]:
    """Those of `found` the key reads: its views', and those about a peer below the key's
    peer (each such peer checked once)."""
    below: dict[str, bool] = {}
    kept = []
    for o in found:
        try:
            require_view(call, o.observer, o.observed)
        except Forbidden:
            if o.observed not in below:
                below[o.observed] = await below_key_peer(
                    call.principal, call.services.db, call.workspace, o.observed
                )
            if not below[o.observed]:
                continue
        kept.append(o)
    return kept


async def create(call: Call) -> Response:
    batch = await call.body(ConclusionBatch)
    for c in batch.conclusions:
        call.principal.require_peer(call.workspace, c.observer_id)
    services = call.services
    created = await add_beliefs(
        services.db,
        services.embedder,
        services.settings,
        call.workspace,
        [
            BeliefInput(c.observer_id, c.observed_id, c.content, c.session_id)
            for c in batch.conclusions
        ],
    )
    return JSONResponse(await _shaped(call, created), status_code=201)


async def list_all(call: Call) -> Response:
    query = call.query(PageQuery)
    chosen = selection((await call.body(ListBody, empty={})).filters)
    db = call.services.db
    if chosen.source is not None:
        found = await _derived_from(call, chosen)
        found.sort(key=lambda o: (o.created_at, o.id))
    elif chosen.ids is not None:
        call.principal.in_workspace(call.workspace)
        await workspaces.get(db, call.workspace)  # once, not for each id it does not hold
        found = []
        for ident in dict.fromkeys(chosen.ids):  # each once, however often it is named
            o = await stated_observations.find_current(db, call.workspace, ident)
            if o is not None and _kept(o, chosen):
                found.append(o)
        found = await _readable(call, found)
        found.sort(key=lambda o: (o.created_at, o.id))
    elif chosen.observer is not None and chosen.observed is not None:
        q = _query(chosen)
        require_view(call, q.observer, q.observed)
        found = await read_all(
            lambda after, limit: observations.list_page(
                db, call.workspace, q, after=after, limit=limit
            )
        )
    else:
        # Across representations: a workspace key, or a peer key naming itself as the observer
        # or the observed peer (the views it may read).
        principal = call.principal
        principal.in_workspace(call.workspace)
        if principal.peer is None or principal.peer not in (chosen.observer, chosen.observed):
            principal.require_workspace(call.workspace)
        found = await read_all(
            lambda after, limit: observations.list_workspace_page(
                db,
                call.workspace,
                observer=chosen.observer,
                observed=chosen.observed,
                session=chosen.session,
                levels=chosen.levels,
                after=after,
                limit=limit,
            )
        )
    if not found:  # an empty list of a workspace that does not exist would say it has none
        await workspaces.get(db, call.workspace)
    chosen_page, total = page_slice(list(reversed(found)), query)  # newest first
    return JSONResponse(page_of(await _shaped(call, chosen_page), query, total, lambda x: x))


async def search(call: Call) -> Response:
    body = await call.body(ConclusionQueryBody)
    chosen = selection(body.filters)
    if chosen.ids is not None or chosen.source is not None:
        raise InvalidInput("filters.id and source_ids are for lists (…/conclusions/list)")
    q = _query(chosen)
    require_view(call, q.observer, q.observed)
    services = call.services
    hits = await search_observations(
        services.db, services.embedder, call.workspace, body.query, q, body.top_k
    )
    if not hits:
        await workspaces.get(services.db, call.workspace)
    return JSONResponse(await _shaped(call, [h.item for h in hits if h.within(body.distance)]))


async def _owned(call: Call) -> ObservationRecord:
    call.principal.in_workspace(call.workspace)
    o = await stated_observations.get_current(
        call.services.db, call.workspace, call.path("conclusion")
    )
    await read_by_id(
        call.principal,
        call.services.db,
        call.workspace,
        check=lambda: require_view(call, o.observer, o.observed),
        missing=observations.missing(call.workspace, o.id),
        about=o.observed,
    )
    return o


async def get(call: Call) -> Response:
    return JSONResponse((await _shaped(call, [await _owned(call)]))[0])


async def delete(call: Call) -> Response:
    o = await _owned(call)
    # Removing a belief is its observer's (or the workspace's) call, not the observed peer's.
    call.principal.require_peer(call.workspace, o.observer)
    # The same delete as deleteObservation: a tombstone, its descendants stale and reconciled.
    await delete_observation(call.services.db, call.services.settings, call.workspace, o.id)
    return no_content()


C = "/workspaces/{workspace}/conclusions"
ROUTES = [
    ("POST", C, create),
    ("POST", f"{C}/list", list_all),
    ("POST", f"{C}/query", search),
    ("GET", f"{C}/{{conclusion}}", get),
    ("DELETE", f"{C}/{{conclusion}}", delete),
]
