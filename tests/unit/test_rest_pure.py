"""The REST layer's pure parts: pages, error statuses, filters and rendered representations."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette

from graph.errors import Conflict, Forbidden, InvalidInput, LimitExceeded, NotFound, Unauthenticated
from graph.records import ObservationRecord, Page
from resolvers.rest import MODULES, filters, routes, shapes
from resolvers.rest.conclusions import selection
from resolvers.rest.http import BadRequest, error_answer
from resolvers.rest.paging import PageQuery, numbered, read_all
from resolvers.services import Services


def test_numbered_pages_cut_count_and_reverse() -> None:
    items = list(range(1, 8))
    first = numbered(items, PageQuery(page=1, size=3), lambda i: {"n": i})
    assert first == {
        "items": [{"n": 1}, {"n": 2}, {"n": 3}],
        "total": 7,
        "page": 1,
        "size": 3,
        "pages": 3,
    }
    last = numbered(items, PageQuery(page=3, size=3), lambda i: {"n": i})
    assert last["items"] == [{"n": 7}]
    newest = numbered(items, PageQuery(page=1, size=2, reverse=True), lambda i: {"n": i})
    assert newest["items"] == [{"n": 7}, {"n": 6}]
    empty = numbered([], PageQuery(), lambda i: {"n": i})
    assert (empty["total"], empty["pages"], empty["items"]) == (0, 0, [])


def test_page_query_bounds() -> None:
    with pytest.raises(ValidationError):
        PageQuery(page=0)
    with pytest.raises(ValidationError):
        PageQuery(size=101)


async def test_read_all_follows_cursors_to_the_end() -> None:
    pages = {None: Page([1, 2], "a", True), "a": Page([3], None, False)}
    asked: list[str | None] = []

    async def fetch(after: str | None, limit: int) -> Page[int]:
        asked.append(after)
        return pages[after]

    assert await read_all(fetch) == [1, 2, 3]
    assert asked == [None, "a"]


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (NotFound("x"), 404),
        (Forbidden("x"), 403),
        (Unauthenticated("x"), 401),
        (InvalidInput("x"), 422),
        (LimitExceeded("x"), 422),
        (Conflict("x"), 409),
        (BadRequest("x"), 400),
        (RuntimeError("secret internals"), 500),
    ],
)
def test_error_statuses_and_detail(error: Exception, status: int) -> None:
    answer = error_answer(error)
    assert answer.status_code == status
    body = json.loads(bytes(answer.body))
    expected = "An unexpected error occurred" if status == 500 else "x"
    assert body == {"detail": expected}


def test_validation_errors_list_the_field() -> None:
    class Body(BaseModel):
        query: str

    with pytest.raises(ValidationError) as caught:
        Body.model_validate({})
    answer = error_answer(caught.value)
    assert answer.status_code == 422
    problems = json.loads(bytes(answer.body))["detail"]
    assert problems[0]["loc"] == ["query"] and problems[0]["type"] == "missing"


def test_message_filters_map_and_refuse_unknown_keys() -> None:
    f = filters.messages_of(
        {"peer_id": "alice", "metadata": {"k": 1}, "created_at": {"gte": "2026-01-01T00:00:00"}},
        "s1",
        16384,
    )
    assert (f.session, f.peer, f.metadata) == ("s1", "alice", {"k": 1})
    assert f.since == datetime(2026, 1, 1, tzinfo=UTC)
    with pytest.raises(InvalidInput, match="token_count"):
        filters.messages_of({"token_count": {"gt": 3}}, None, 16384)
    with pytest.raises(InvalidInput, match="this session"):
        filters.messages_of({"session_id": "other"}, "s1", 16384)
    # No larger than stored metadata may be: a 300,000-key filter held the server 1.5 s.
    wide = {"metadata": {f"k{i}": i for i in range(2_000)}}
    with pytest.raises(LimitExceeded, match=r"filters\.metadata is .* the limit is 16384"):
        filters.messages_of(wide, None, 16384)
    with pytest.raises(LimitExceeded):
        filters.metadata_of(wide, "on peers", 16384)
    with pytest.raises(LimitExceeded):
        filters.session_selection(wide, 16384)


def test_time_bounds_keep_gt_and_lte_apart_from_gte_and_lt() -> None:
    """gt was read as gte and lte as lt: a client paging with gt got its last item again, and
    one asking up to T inclusive lost the items at T."""
    t = "2026-12-04T16:44:00.655603+00:00"
    at = datetime(2026, 12, 4, 16, 44, 0, 655603, tzinfo=UTC)
    tick = timedelta(microseconds=1)
    assert filters.time_bounds({"gte": t, "lt": t}) == (at, at)
    assert filters.time_bounds({"gt": t, "lte": t}) == (at + tick, at + tick)
    later = "2026-12-04T17:00:00+00:00"
    assert filters.time_bounds({"gte": t, "gt": later})[0] == datetime(
        2026, 12, 4, 17, 0, 0, 1, tzinfo=UTC
    )  # the tighter of the two
    # At the last time there is, lte bounds nothing and gt leaves nothing (they were read as
    # lt and gte there: a message stored at that time was left out, then listed).
    last = "9999-12-31T23:59:59.999999"
    assert filters.time_bounds({"lte": last}) == (None, None)
    end = datetime.max.replace(tzinfo=UTC)
    assert filters.time_bounds({"gt": last}) == (end, end)


def test_session_allowlist_forms() -> None:
    assert filters.session_allowlist({"session_id": "a"}) == ["a"]
    assert filters.session_allowlist({"session_id": ["a", "b"]}) == ["a", "b"]
    assert filters.session_allowlist({"session_id": {"in": ["c"]}}) == ["c"]
    assert filters.session_allowlist(None) is None
    with pytest.raises(InvalidInput):
        filters.session_allowlist({"peer_id": "x"})
    # Empty ids matched nothing, quietly: refused, as every other id filter's are.
    for empty in ("", [], [""], {"in": []}):
        with pytest.raises(InvalidInput):
            filters.session_allowlist({"session_id": empty})


@pytest.mark.parametrize(
    "given",
    [
        {"observer_id": "", "observed_id": "x"},
        {"observer_id": "x", "observed_id": ""},
        {"id": ""},
        {"id": {"in": ["a", ""]}},
    ],
)
def test_an_empty_conclusion_id_filter_is_refused(given: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        selection(given)


def _belief(level: str, content: str, when: datetime) -> ObservationRecord:
    return ObservationRecord(
        id=content,
        workspace="w",
        observer="a",
        observed="a",
        level=level,
        content=content,
        created_at=when,
        valid_at=None,
        session=None,
        confidence=None,
        pattern_type=None,
        times_derived=1,
        stale=False,
        stale_reason=None,
        facets=[],
        superseded_at=None,
        deleted_at=None,
    )


def test_representation_markdown_sections_in_level_order() -> None:
    when = datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    text = shapes.representation(
        [_belief("deductive", "likes tea", when), _belief("explicit", "drinks tea", when)]
    )
    assert text == (
        "## Explicit Observations\n[2026-03-04 05:06:07] drinks tea\n\n"
        "## Deductive Observations\n[2026-03-04 05:06:07] likes tea"
    )
    assert shapes.representation([]) == ""


def test_peer_configuration_keeps_only_observe_me() -> None:
    assert shapes.peer_configuration({"observe_me": False, "other": 1}) == {"observe_me": False}
    assert shapes.peer_configuration({"other": 1}) == {}


def test_every_route_is_unique_and_under_workspaces() -> None:
    seen = set()
    for module in MODULES:
        for method, path, _ in module.ROUTES:
            assert path.startswith("/workspaces"), path
            assert (method, path) not in seen
            seen.add((method, path))
    assert len(seen) >= 40


async def test_unknown_paths_and_methods_answer_detail() -> None:
    def no_services() -> Services:
        raise AssertionError("not reached")

    app = Starlette(routes=routes(no_services))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        r = await http.post("/v3/workspaces/w/scopes/list")
        assert r.status_code == 404 and r.json()["detail"].startswith("no route")
        r = await http.get("/v3/workspaces/w/peers/list")
        assert r.status_code == 405 and "GET" in r.json()["detail"]
        # Methods no route takes answer the same way (OPTIONS fell through to GraphQL's 405).
        for method in ("OPTIONS", "TRACE"):
            r = await http.request(method, "/v3/workspaces/w/peers/list")
            assert r.status_code == 405 and method in r.json()["detail"], method
