"""What a probe of the served app found, each as a plain HTTP or WebSocket request against it.

Every malformed request gets a 4xx JSON answer with `extensions.code`, the server stays
responsive (on the same connection where the protocol allows), and no answer shows another
peer's data.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
import uuid
from typing import Any

import httpx
import pytest
import websockets
from websockets.exceptions import InvalidStatus

from resolvers.auth import ADMIN, KeyScope, Principal, issue_key
from resolvers.body_limit import KEYLESS_BODY_SECONDS, KEYLESS_MAX_BYTES
from resolvers.graphql.websocket import (
    CONNECTION_INIT_SECONDS,
    FRAME_BURST,
    MAX_FRAME_BYTES,
    MAX_FRAMES_BEFORE_INIT,
    MAX_SOCKETS_PER_KEY,
    MAX_SOCKETS_PER_WORKSPACE,
    MAX_SUBSCRIPTIONS,
)
from resolvers.head_timeout import HEAD_SECONDS, MAX_HEAD_BYTES
from tests.e2e.conftest import Served

pytestmark = pytest.mark.e2e

HEALTH = {"query": "{ health { ok } }"}
TRANSPORT_WS: Any = "graphql-transport-ws"  # websockets types subprotocols as its own str
SUBSCRIPTION = 'subscription { queueStatus(workspace: "w") { done } }'
CREATE_PEER = "mutation($w: String!, $p: String!) { createPeer(workspace: $w, name: $p) { name } }"
SEARCH = "query($w: String!, $q: String!) { searchMessages(workspace: $w, query: $q) { score } }"


def codes(response: httpx.Response) -> list[str]:
    body = response.json()
    return [e["extensions"]["code"] for e in body["errors"]]


def assert_coded(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/json"), response.text
    assert codes(response) == [code], response.text


def post_raw(client: httpx.Client, path: str, body: Any) -> httpx.Response:
    """`body` (bytes, or an iterable of them) posted as JSON, as it is."""
    return client.post(path, content=body, headers={"content-type": "application/json"})


def still_answers(client: httpx.Client) -> None:
    response = client.post("/graphql", json=HEALTH)
    assert response.status_code == 200 and response.json()["data"]["health"]["ok"] is True


def fragment_bomb(levels: int) -> str:
    parts = [f"query {{ ...F{levels} }}", "fragment F0 on Query { health { ok } }"]
    parts += [f"fragment F{i} on Query {{ ...F{i - 1} ...F{i - 1} }}" for i in range(1, levels + 1)]
    return "\n".join(parts)


def test_a_fragment_fan_out_is_answered_at_once(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=10) as client:
        started = time.monotonic()
        response = client.post("/graphql", json={"query": fragment_bomb(30)})
        assert time.monotonic() - started < 2.0
        assert response.status_code == 200 and response.json()["data"] == {"health": {"ok": True}}
        still_answers(client)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"null", "INVALID_INPUT"),
        (b"123", "INVALID_INPUT"),
        (b'"str"', "INVALID_INPUT"),
        (b"true", "INVALID_INPUT"),
        (b"[]", "INVALID_INPUT"),
        (b'[{"query": "{ health { ok } }"}]', "INVALID_INPUT"),
        (b'{"query": "{ health { ok } }"', "INVALID_INPUT"),
        (b'{"query": "{ health { ok } }", "x": "\xff\xfe"}', "INVALID_INPUT"),
        (b"[" * 50_000, "LIMIT_EXCEEDED"),
        (b'{"query": 5}', "INVALID_INPUT"),
        (b'{"query": "{ health { ok } }", "variables": [1]}', "INVALID_INPUT"),
    ],
)
def test_a_body_that_is_not_a_request_gets_a_coded_400(
    served: Served, body: bytes, code: str
) -> None:
    with httpx.Client(base_url=served.url, timeout=10) as client:
        response = post_raw(client, "/graphql", body)
        assert_coded(response, 400, code)
        still_answers(client)  # the same connection goes on


def test_variables_nested_5000_deep_are_refused(served: Served) -> None:
    nested = '{"a": ' * 5000 + '"x"' + "}" * 5000
    text = ('{"query": "{ health { ok } }", "variables": {"v": ' + nested + "}}").encode()
    with httpx.Client(base_url=served.url, timeout=10) as client:
        response = post_raw(client, "/graphql", text)
        assert_coded(response, 400, "LIMIT_EXCEEDED")
        still_answers(client)


def test_a_chunked_body_over_the_limit_gets_413(served: Served) -> None:
    def chunks() -> Any:
        piece = b" " * 65_536
        for _ in range(80):  # 5 MB, and no Content-Length
            yield piece

    with httpx.Client(base_url=served.url, timeout=30) as client:
        response = post_raw(client, "/graphql", chunks())
        assert_coded(response, 413, "LIMIT_EXCEEDED")
    with httpx.Client(base_url=served.url, timeout=10) as client:
        still_answers(client)


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"),
    [
        ("POST", "/graphql", {"content": b"{}", "headers": {"content-type": "text/plain"}}, 415),
        ("PUT", "/graphql", {"json": HEALTH}, 405),
        ("DELETE", "/health", {}, 405),
        ("GET", "/graphql", {"params": {"query": 'mutation { retryJobs(workspace: "w") }'}}, 405),
        ("GET", "/graphql", {"params": {"query": "{ health { ok } }", "variables": "{"}}, 400),
        ("GET", "/nowhere", {}, 404),
        ("POST", "/graphql", {"json": {"query": SUBSCRIPTION}}, 400),
        ("POST", "/graphql", {"json": {"query": "{ health { ok }"}}, 200),
        ("POST", "/graphql", {"json": {"query": "{ nope }"}}, 200),
    ],
)
def test_every_error_answer_carries_a_code(
    served: Served, method: str, path: str, kwargs: dict[str, Any], status: int
) -> None:
    with httpx.Client(base_url=served.url, timeout=10) as client:
        response = client.request(method, path, **kwargs)
        assert response.status_code == status, response.text
        assert response.json()["errors"], response.text
        assert all(isinstance(c, str) and c for c in codes(response)), response.text


def test_a_lone_surrogate_is_invalid_input_everywhere(served: Served) -> None:
    workspace = f"e2e-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=served.url, timeout=10) as client:

        def post(query: str, variables: dict[str, Any]) -> httpx.Response:
            return client.post("/graphql", json={"query": query, "variables": variables})

        ok = post("mutation($w: String!) { createWorkspace(name: $w) { name } }", {"w": workspace})
        assert not ok.json().get("errors"), ok.text
        lone = "bad \ud800 text"
        for query, variables in [
            (CREATE_PEER, {"w": workspace, "p": lone}),
            (SEARCH, {"w": workspace, "q": lone}),
        ]:
            # The JSON carries the escape \\ud800, which decodes to a lone surrogate.
            text = json.dumps({"query": query, "variables": variables}).encode()
            response = post_raw(client, "/graphql", text)
            assert_coded(response, 400, "INVALID_INPUT")
        literal = 'mutation { createWorkspace(name: "x\\ud800") { name } }'
        response = post(literal, {})
        assert response.status_code == 200 and codes(response) == ["INVALID_INPUT"], response.text
        still_answers(client)


NOT_JSON_NUMBERS = [b"NaN", b"Infinity", b"-Infinity", b"1e999"]
CREATE_WORKSPACE = (
    "mutation($w: String!, $m: JSON) { createWorkspace(name: $w, metadata: $m) { name } }"
)
LITERAL = 'mutation { createWorkspace(name: "%s", metadata: {n: 1e999}) { name } }'
WORKSPACES = "{ workspaces(first: 100) { nodes { name } } }"


def with_number(payload: dict[str, Any], number: bytes) -> bytes:
    """`payload` as JSON, with the raw `number` in place of the string "N"."""
    return json.dumps(payload).encode().replace(b'"N"', number)


@pytest.mark.parametrize("number", NOT_JSON_NUMBERS)
def test_a_number_json_cannot_carry_is_refused_and_never_stored(
    served: Served, number: bytes
) -> None:
    """Python's parser reads NaN, the infinities and a number too large for a float; a JSON
    answer cannot carry them. Stored in metadata, one made every later list that returned it
    fail (500), for whoever listed."""
    workspace = f"e2e-{uuid.uuid4().hex[:8]}"
    variables = {"w": workspace, "m": {"n": "N"}}
    graphql = with_number({"query": CREATE_WORKSPACE, "variables": variables}, number)
    rest = with_number({"id": workspace, "metadata": {"n": "N"}}, number)
    with httpx.Client(base_url=served.url, timeout=10) as client:
        response = post_raw(client, "/graphql", graphql)
        assert_coded(response, 400, "INVALID_INPUT")
        response = post_raw(client, "/v3/workspaces", rest)
        assert response.status_code == 422, response.text
        assert "not valid JSON" in response.json()["detail"], response.text
        # As a GraphQL literal, which the document's parser reads as infinity.
        response = client.post("/graphql", json={"query": LITERAL % workspace})
        assert response.status_code == 200 and codes(response) == ["INVALID_INPUT"], response.text
        listed = client.post("/graphql", json={"query": WORKSPACES})
        assert listed.status_code == 200 and not listed.json().get("errors"), listed.text
        assert client.post("/v3/workspaces/list", json={}).status_code == 200


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b'{"id": "x", "metadata": ' + b"[" * 5000 + b"]" * 5000 + b"}", "deeper than"),
        (b'{"id": "x", "metadata": {"s": "\\ud800"}}', "lone surrogate"),
        (b'{"id": "x\xff"}', "not UTF-8"),
    ],
)
def test_a_rest_body_the_parser_cannot_take_is_a_422(
    served: Served, body: bytes, problem: str
) -> None:
    with httpx.Client(base_url=served.url, timeout=10) as client:
        response = post_raw(client, "/v3/workspaces", body)
        assert response.status_code == 422, response.text
        assert problem in response.json()["detail"], response.text
        assert client.post("/v3/workspaces/list", json={}).status_code == 200


def test_a_rest_page_past_what_the_database_can_skip_is_a_422(served: Served) -> None:
    workspace = f"e2e-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=served.url, timeout=10) as client:
        assert client.post("/v3/workspaces", json={"id": workspace}).status_code == 201
        session = f"/v3/workspaces/{workspace}/sessions"
        assert client.post(session, json={"id": "s"}).status_code == 201
        for page, status in ((10_000_000, 200), (10_000_001, 422), (10**20, 422)):
            response = client.post(f"{session}/s/messages/list", params={"page": page}, json={})
            assert response.status_code == status, response.text


QUEUE_EVERY = 'subscription { queueStatus(workspace: "w", intervalSeconds: 5) { done } }'


async def test_a_socket_past_the_subscription_limit_gets_a_coded_error(served: Served) -> None:
    async with websockets.connect(served.ws, subprotocols=[TRANSPORT_WS]) as socket_:
        await socket_.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await socket_.recv())["type"] == "connection_ack"
        for k in range(MAX_SUBSCRIPTIONS + 1):
            payload = {"query": QUEUE_EVERY}
            await socket_.send(json.dumps({"id": str(k), "type": "subscribe", "payload": payload}))
        while True:  # the others' first events come first
            message = json.loads(await asyncio.wait_for(socket_.recv(), 10))
            if message["type"] == "error":
                break
        assert message["id"] == str(MAX_SUBSCRIPTIONS)
        [error] = message["payload"]
        assert error["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": "subscriptions"}


async def test_a_socket_that_never_says_connection_init_is_closed(served: Served) -> None:
    started = time.monotonic()
    async with websockets.connect(served.ws, subprotocols=[TRANSPORT_WS]) as socket_:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(socket_.recv(), CONNECTION_INIT_SECONDS + 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4408
    assert CONNECTION_INIT_SECONDS - 1 < time.monotonic() - started < CONNECTION_INIT_SECONDS + 5


async def test_only_graphql_transport_ws_is_spoken(served: Served) -> None:
    async with websockets.connect(served.ws, subprotocols=["graphql-ws"]) as socket_:  # type: ignore[list-item]
        # No protocol agreed: the server closes the socket at once.
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(socket_.recv(), 5)


def ask(client: httpx.Client, query: str, variables: dict[str, Any]) -> httpx.Response:
    return client.post("/graphql", json={"query": query, "variables": variables})


UTC_OVERFLOWS = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00"]
MESSAGES_SINCE = """query($w: String!, $t: DateTime) {
  messages(workspace: $w, filter: {since: $t}, first: 5) { nodes { id } }
}"""


@pytest.mark.parametrize("time", UTC_OVERFLOWS)
def test_a_time_outside_the_years_utc_can_hold_is_invalid_input(served: Served, time: str) -> None:
    """Valid ISO-8601, but in UTC (what the driver sends) a year 0 or 10000: it failed in the
    driver, as an internal error."""
    workspace = f"e2e-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=served.url, timeout=10) as client:
        assert client.post("/v3/workspaces", json={"id": workspace}).status_code == 201
        response = ask(client, MESSAGES_SINCE, {"w": workspace, "t": time})
        assert codes(response) == ["INVALID_INPUT"], response.text
        assert "outside the years 1 to 9999" in response.json()["errors"][0]["message"]
        sessions = f"/v3/workspaces/{workspace}/sessions"
        assert client.post(sessions, json={"id": "s"}).status_code == 201
        body = {"filters": {"created_at": {"gte": time}}}
        response = client.post(f"{sessions}/s/messages/list", json=body)
        assert response.status_code == 422, response.text


CREATE_SESSION = """mutation($w: String!, $p: [SessionPeerInput!]) {
  createSession(workspace: $w, name: "s", peers: $p) { name }
}"""
ADD_PEERS = """mutation($w: String!, $p: [SessionPeerInput!]!) {
  addSessionPeers(workspace: $w, session: "s", peers: $p) { peer }
}"""
PEER_COUNT = "query($w: String!) { peers(workspace: $w, first: 100) { nodes { name } } }"
SESSION_NAMES = "query($w: String!) { sessions(workspace: $w, first: 10) { nodes { name } } }"


def test_a_membership_change_names_at_most_100_peers(served: Served) -> None:
    """3,000 peers in one createSession held the server for a minute; the Honcho-compatible
    route created 5,000 peers one by one (27 s) before answering."""
    workspace = f"e2e-{uuid.uuid4().hex[:8]}"
    many = [{"peer": f"p{i}"} for i in range(101)]
    with httpx.Client(base_url=served.url, timeout=30) as client:
        assert client.post("/v3/workspaces", json={"id": workspace}).status_code == 201
        for query in (CREATE_SESSION, ADD_PEERS):
            response = ask(client, query, {"w": workspace, "p": many})
            assert codes(response) == ["LIMIT_EXCEEDED"], response.text
            assert response.json()["errors"][0]["extensions"]["limit"] == "peers"
        route = f"/v3/workspaces/{workspace}/sessions/s/peers"
        response = client.post(route, json={f"p{i}": {} for i in range(101)})
        assert response.status_code == 422 and "the limit is 100" in response.text
        created = {"id": "s", "peers": {f"p{i}": {} for i in range(101)}}
        response = client.post(f"/v3/workspaces/{workspace}/sessions", json=created)
        assert response.status_code == 422 and "the limit is 100" in response.text
        # A peer that does not exist is refused before the session is made, too.
        response = ask(client, CREATE_SESSION, {"w": workspace, "p": [{"peer": "nobody"}]})
        assert codes(response) == ["NOT_FOUND"], response.text
        nodes = ask(client, PEER_COUNT, {"w": workspace}).json()["data"]["peers"]["nodes"]
        assert nodes == [], "nothing is created before the refusal"
        listed = ask(client, SESSION_NAMES, {"w": workspace}).json()["data"]["sessions"]["nodes"]
        assert listed == [], "no session is left behind by a refused change"
        assert client.post(route, json={f"p{i}": {} for i in range(100)}).status_code == 200
        assert ask(client, ADD_PEERS, {"w": workspace, "p": many[:100]}).json()["data"]


def test_a_host_this_server_does_not_answer_to_is_refused(served: Served) -> None:
    with httpx.Client(base_url=served.url, timeout=10) as client:
        response = client.post("/graphql", json=HEALTH, headers={"host": "evil.example:8000"})
        assert_coded(response, 403, "FORBIDDEN")
        for host in ("localhost", f"127.0.0.1:{served.port}", "[::1]"):
            assert client.post("/graphql", json=HEALTH, headers={"host": host}).status_code == 200


def test_one_host_is_named_once_and_refusals_on_rest_routes_have_a_detail(
    served: Served,
) -> None:
    """Two Host headers: the check read the last, the app the first. "localhost:1@evil.com"
    passed as localhost. A refused host or body on the Honcho routes answered in the GraphQL
    shape, where their clients read `detail`."""
    host = served.url.split("//")[1]
    for head, status in (
        (f"Host: evil.example\r\nHost: {host}", 400),
        (f"Host: {host}\r\nHost: evil.example", 400),
        ("Host: localhost:1@evil.example", 403),
    ):
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
            sock.sendall(f"GET /health HTTP/1.1\r\n{head}\r\n\r\n".encode())
            reply = sock.recv(4096)
        assert reply.startswith(f"HTTP/1.1 {status} ".encode()), (head, reply[:80])
    with httpx.Client(base_url=served.url, timeout=10) as client:
        r = client.get("/v3/workspaces/w/queue/status", headers={"Host": "evil.example"})
        assert r.status_code == 403 and "evil.example" in r.json()["detail"]
        r = client.post("/v3/workspaces", content=b" " * 5_000_000)
        assert r.status_code == 413 and "at most" in r.json()["detail"]
        r = client.post("/graphql", content=b" " * 5_000_000)
        assert r.status_code == 413 and codes(r) == ["LIMIT_EXCEEDED"]


def test_writes_from_another_site_are_refused(served: Served) -> None:
    """A web page can post a text/plain or multipart body anywhere without a CORS preflight:
    with auth off, any page the user opened created workspaces and posted messages that were
    derived into beliefs."""
    workspace = f"cs-{uuid.uuid4().hex[:8]}"
    body = json.dumps({"id": workspace})
    page = {"Content-Type": "text/plain;charset=UTF-8"}
    with httpx.Client(base_url=served.url, timeout=10) as client:
        for sent in (
            {"Origin": "https://evil.example"},
            {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
            {"Origin": "null"},
            {"Origin": f"http://localhost:{served.port + 1}", "Sec-Fetch-Site": "same-site"},
        ):
            r = client.post("/v3/workspaces", content=body, headers={**page, **sent})
            assert r.status_code == 403 and "cross-site" in r.json()["detail"], (sent, r.text)
            r = client.post(
                "/v3/workspaces/w/sessions/s/messages/upload",
                files={"file": ("a.txt", b"hello", "text/plain")},
                data={"peer_id": "alice"},
                headers=sent,
            )
            assert r.status_code == 403, (sent, r.text)
            assert_coded(client.post("/graphql", json=HEALTH, headers=sent), 403, "FORBIDDEN")
        asked = {"query": "query($w: String!) { workspace(name: $w) { name } }"}
        found = client.post("/graphql", json={**asked, "variables": {"w": workspace}})
        assert codes(found) == ["NOT_FOUND"], "nothing was created"
        # The API's own pages (GraphiQL), and clients that are not browsers, still write.
        own = {"Origin": served.url, "Sec-Fetch-Site": "same-origin"}
        assert client.post("/graphql", json=HEALTH, headers=own).status_code == 200
        assert client.post("/v3/workspaces", content=body, headers=page).status_code in (200, 201)
        # A query in a link or an image runs too (a `chat` spends LLM tokens): refused, as a
        # link followed to it; a link to GraphiQL, Neo4j Browser's guide and /health are not.
        image = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors"}
        link = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
        for sent in (image, link):
            r = client.get("/graphql", params={"query": "{ health { ok } }"}, headers=sent)
            assert_coded(r, 403, "FORBIDDEN")
        html = {**link, "Accept": "text/html"}
        assert "graphiql" in client.get("/graphql", headers=html).text.lower()
        browser = {"Origin": "http://localhost:7474", "Sec-Fetch-Site": "same-site"}
        assert client.get("/browser/guide.html", headers=browser).status_code == 200
        assert client.get("/health", headers=image).status_code == 200


def test_with_auth_on_a_request_from_another_site_needs_its_key_only(
    served_with_auth: Served,
) -> None:
    """No other site's page holds a key: the cross-site refusal is for auth off."""
    key = issue_key(served_with_auth.secret, ADMIN)
    sent = {"Origin": "https://app.example", "Sec-Fetch-Site": "cross-site"}
    made = {"query": 'mutation { createWorkspace(name: "cs-auth") { name } }'}
    with httpx.Client(base_url=served_with_auth.url, timeout=10) as client:
        assert codes(client.post("/graphql", json=made, headers=sent)) == ["UNAUTHENTICATED"]
        keyed = {**sent, "Authorization": f"Bearer {key}"}
        answer = client.post("/graphql", json=made, headers=keyed)
        assert answer.status_code == 200 and "errors" not in answer.json(), answer.text


async def test_websockets_from_other_hosts_or_origins_are_refused(served: Served) -> None:
    for headers in (
        {"Host": "evil.example"},
        {"Origin": "http://evil.example"},
        # Another local server's page: with auth off a socket runs mutations for anyone, and
        # only the host name was compared.
        {"Origin": f"http://localhost:{served.port + 1}"},
        {"Origin": f"http://127.0.0.1:{served.port + 1}", "Sec-Fetch-Site": "same-site"},
    ):
        with pytest.raises(InvalidStatus):
            async with websockets.connect(
                served.ws, subprotocols=["graphql-transport-ws"], additional_headers=headers
            ):
                pass
    # A page of this server itself (GraphiQL) may connect.
    async with websockets.connect(
        served.ws,
        subprotocols=["graphql-transport-ws"],
        additional_headers={"Origin": served.url},
    ) as socket_:
        await socket_.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await socket_.recv())["type"] == "connection_ack"


def _gql(
    client: httpx.Client, query: str, variables: dict[str, Any], key: str | None = None
) -> Any:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return client.post(
        "/graphql", json={"query": query, "variables": variables}, headers=headers
    ).json()


SETUP = """mutation($w: String!) {
  createWorkspace(name: $w) { name }
  a: createPeer(workspace: $w, name: "alice") { name }
  b: createPeer(workspace: $w, name: "bob") { name }
  s1: createSession(workspace: $w, name: "s1", peers: [{peer: "alice"}, {peer: "bob"}]) { name }
  s2: createSession(workspace: $w, name: "s2", peers: [{peer: "bob"}]) { name }
}"""
ADD = """mutation($w: String!, $s: String!, $m: [MessageInput!]!) {
  addMessages(workspace: $w, session: $s, messages: $m) {
    created messages { peer session content }
  }
}"""


def test_keys_reach_only_what_they_may(served_with_auth: Served) -> None:
    secret = served_with_auth.secret
    assert secret
    admin = issue_key(secret, Principal(KeyScope.ADMIN))
    workspace = f"e2e-{uuid.uuid4().hex[:8]}"
    alice = issue_key(secret, Principal(KeyScope.PEER, workspace, "alice"))
    with httpx.Client(base_url=served_with_auth.url, timeout=10) as client:
        assert not _gql(client, SETUP, {"w": workspace}, admin).get("errors")
        bob_says = [{"peer": "bob", "content": "My locker code is 4711.", "clientId": "c-1"}]
        posted = _gql(client, ADD, {"w": workspace, "s": "s1", "m": bob_says}, admin)
        assert not posted.get("errors"), posted

        # Replaying bob's clientId as alice: a conflict that reveals nothing of bob's message.
        replay = [{"peer": "alice", "content": "Hello", "clientId": "c-1"}]
        body = _gql(client, ADD, {"w": workspace, "s": "s1", "m": replay}, alice)
        assert body["errors"][0]["extensions"]["code"] == "CONFLICT", body
        assert "4711" not in json.dumps(body) and "bob" not in json.dumps(body)
        # The same clientId in another session names no session either.
        other = _gql(client, ADD, {"w": workspace, "s": "s2", "m": bob_says}, admin)
        assert other["errors"][0]["extensions"]["code"] == "CONFLICT"
        assert "s1" not in other["errors"][0]["message"]

        # alice's key may not write bob's card about alice.
        card = """mutation($w: String!) {
          setPeerCard(workspace: $w, observer: "bob", observed: "alice", entries: ["x"]) { entries }
        }"""
        assert _gql(client, card, {"w": workspace}, alice)["errors"][0]["extensions"]["code"] == (
            "FORBIDDEN"
        )

        # alice's key may not join s2 by posting into it.
        joining = [{"peer": "alice", "content": "Hi, I am new here."}]
        body = _gql(client, ADD, {"w": workspace, "s": "s2", "m": joining}, alice)
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN", body
        # ...but posts where she is present.
        assert not _gql(client, ADD, {"w": workspace, "s": "s1", "m": joining}, alice).get("errors")


def test_a_key_with_a_non_ascii_signature_is_unauthenticated(served_with_auth: Served) -> None:
    with socket.create_connection(("127.0.0.1", served_with_auth.port), timeout=10) as sock:
        body = json.dumps({"query": "{ workspaces { nodes { name } } }"}).encode()
        request = (
            b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer bgk_eyJ4IjoxfQ.sig\xe9nature\r\n"
            + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        sock.sendall(request)
        reply = b""
        while chunk := sock.recv(65_536):
            reply += chunk
    head, _, payload = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    assert json.loads(payload)["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"


def test_standard_introspection_passes_the_limits(served: Served) -> None:
    from graphql import get_introspection_query

    with httpx.Client(base_url=served.url, timeout=10) as client:
        response = client.post("/graphql", json={"query": get_introspection_query()})
        body = response.json()
        assert response.status_code == 200 and not body.get("errors"), body.get("errors")
        assert body["data"]["__schema"]["queryType"]["name"] == "Query"


async def test_health_answers_fast(served: Served) -> None:
    async with httpx.AsyncClient(base_url=served.url, timeout=5) as client:
        started = asyncio.get_running_loop().time()
        response = await client.get("/health")
        assert response.status_code == 200
        assert asyncio.get_running_loop().time() - started < 1.0


async def test_serve_warms_up_after_start_and_then_says_it_is_done(served: Served) -> None:
    # `serve` runs the search warm-up in the background (BELIEFGRAPH_WARMUP_SECONDS, 90 by
    # default); on the test database it ends within seconds, and the budget bounds it anyway.
    async with httpx.AsyncClient(base_url=served.url, timeout=5) as client:
        for _ in range(240):
            body = (await client.get("/health")).json()
            assert isinstance(body["warming"], bool)
            if not body["warming"]:
                break
            await asyncio.sleep(0.5)
        assert body["warming"] is False


async def _closed_with(url: str, *frames: str, init: dict[str, Any] | None = None) -> int:
    """The close code the server answers `frames` with (after `init`, when given)."""
    async with websockets.connect(url, subprotocols=[TRANSPORT_WS]) as socket_:
        if init is not None:
            await socket_.send(json.dumps(init))
            reply = json.loads(await asyncio.wait_for(socket_.recv(), 10))
            assert reply["type"] == "connection_ack", reply
        for frame in frames:
            await socket_.send(frame)
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(socket_.recv(), 10)
    assert closed.value.rcvd is not None
    return closed.value.rcvd.code


SUBSCRIBE = '{"id": "1", "type": "subscribe", "payload": %s}'
DEEP = "[" * 5_000 + "]" * 5_000


@pytest.mark.parametrize(
    "frame",
    [
        "[]",
        "null",
        "1e999",
        '{"type": 7}',
        SUBSCRIBE % "[]",
        SUBSCRIBE % '{"query": 1}',
        SUBSCRIBE % '{"query": "{ version }", "variables": [1]}',
        SUBSCRIBE % '{"query": "{ version }", "variables": {"s": "\\ud800"}}',
        SUBSCRIBE % '{"query": "{ version }", "variables": {"n": NaN}}',
        SUBSCRIBE % ('{"query": "{ version }", "variables": {"a": ' + DEEP + "}}"),
        '{"type": "complete", "id": [1]}',
        '{"id": "%s", "type": "subscribe", "payload": {"query": "{ version }"}}' % ("x" * 200),
    ],
    ids=[
        *("list", "null", "inf", "type", "payload", "query", "variables", "lone", "nan", "deep"),
        *("complete-id", "long-id"),
    ],
)
async def test_a_malformed_frame_closes_the_socket_as_a_protocol_error(
    served: Served, frame: str
) -> None:
    """Strawberry read fields of whatever the frame parsed to: a list, a number or a payload
    that is not an object raised inside the ASGI app (a traceback in the log, the socket
    dropped), and a lone surrogate or NaN in variables got as far as a resolver (INTERNAL).
    A `complete` whose id was not a string raised too, and an id of megabytes was accepted and
    echoed in every result."""
    assert await _closed_with(served.ws, frame, init={"type": "connection_init"}) == 4400
    with httpx.Client(base_url=served.url, timeout=10) as client:
        assert client.get("/health").status_code == 200


async def test_a_frame_over_the_frame_limit_closes_the_socket(served: Served) -> None:
    """Frames were held to the 4 MB body limit, and those sent before connection_init are
    parsed before any key is seen: eight clients pinging 4 MB kept /health waiting."""
    ping = json.dumps({"type": "ping", "payload": {"a": [{}] * (MAX_FRAME_BYTES // 3)}})
    assert len(ping) > MAX_FRAME_BYTES
    assert await _closed_with(served.ws, ping) == 1009  # the message is too big


async def test_a_socket_that_floods_frames_is_closed(served: Served) -> None:
    """Eight keyless sockets pinging as fast as they could, before connection_init, stalled
    /health for 20 s (every frame is answered on the event loop every request shares), and
    kept their sockets open past the 10 s given for connection_init."""
    ping = json.dumps({"type": "ping"})
    started = time.monotonic()
    assert await _closed_with(served.ws, *[ping] * (MAX_FRAMES_BEFORE_INIT + 1)) == 1008
    assert time.monotonic() - started < 5
    # After connection_init a burst is fine, a flood is not.
    init = {"type": "connection_init"}
    assert await _closed_with(served.ws, *[ping] * (FRAME_BURST * 3), init=init) == 1008
    async with websockets.connect(served.ws, subprotocols=[TRANSPORT_WS]) as socket_:
        await socket_.send(json.dumps(init))
        assert json.loads(await socket_.recv())["type"] == "connection_ack"
        for _ in range(FRAME_BURST // 2):
            await socket_.send(ping)
        for _ in range(FRAME_BURST // 2):
            assert json.loads(await asyncio.wait_for(socket_.recv(), 10))["type"] == "pong"
    with httpx.Client(base_url=served.url, timeout=10) as client:
        assert client.get("/health").status_code == 200


async def test_a_document_of_several_operations_must_name_one(served: Served) -> None:
    """With no operationName the first operation ran, a query here, where GraphQL requires the
    name."""
    document = 'query A { health { ok } } subscription B { queueStatus(workspace: "w") { done } }'
    async with websockets.connect(served.ws, subprotocols=[TRANSPORT_WS]) as socket_:
        await socket_.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await asyncio.wait_for(socket_.recv(), 10))["type"] == "connection_ack"
        payload = {"query": document, "operationName": None}
        await socket_.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        reply = json.loads(await asyncio.wait_for(socket_.recv(), 10))
        assert reply["type"] == "error", reply
        assert reply["payload"][0]["extensions"]["code"] == "INVALID_INPUT", reply
        assert "operationName" in reply["payload"][0]["message"]
        payload["operationName"] = "A"
        await socket_.send(json.dumps({"id": "2", "type": "subscribe", "payload": payload}))
        reply = json.loads(await asyncio.wait_for(socket_.recv(), 10))
        assert reply == {"id": "2", "type": "next", "payload": {"data": {"health": {"ok": True}}}}


@pytest.mark.parametrize(
    ("document", "limit"),
    [
        ('subscription { queueStatus(workspace: "w") { ' + "done " * 2100 + "} }", "tokens"),
        ("subscription { " + "a { " * 70 + "b" + " }" * 70 + " }", "depth"),
        ('subscription { queueStatus(workspace: "w") { ' + "done " * 1900 + "} }", "complexity"),
        ('subscription { queueStatus(workspace: "w", n: ' + "9" * 120 + ") { done } }", "number"),
    ],
)
async def test_a_subscription_over_a_limit_is_an_error_with_its_code(
    served: Served, document: str, limit: str
) -> None:
    """The refusal, raised in strawberry's parse, ended the stream with a bare complete and
    logged a traceback for each such frame."""
    async with websockets.connect(served.ws, subprotocols=[TRANSPORT_WS]) as socket_:
        await socket_.send(json.dumps({"type": "connection_init"}))
        assert json.loads(await asyncio.wait_for(socket_.recv(), 10))["type"] == "connection_ack"
        payload = {"query": document}
        await socket_.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        reply = json.loads(await asyncio.wait_for(socket_.recv(), 10))
        assert reply["type"] == "error", reply
        assert reply["payload"][0]["extensions"] == {"code": "LIMIT_EXCEEDED", "limit": limit}


async def test_an_over_limit_subscription_keeps_the_protocols_closes(served: Served) -> None:
    """Refused before strawberry saw it, an over-limit document sent before the connection was
    acknowledged got an error frame instead of a 4401 close, and one under an id in use got an
    error frame naming that live subscription instead of a 4409 close."""
    big = json.dumps({"query": "subscription { " + "a " * 2100 + "}"})
    assert await _closed_with(served.ws, SUBSCRIBE % big) == 4401
    live = json.dumps({"query": 'subscription { queueStatus(workspace: "w") { done } }'})
    init = {"type": "connection_init"}
    assert await _closed_with(served.ws, SUBSCRIBE % live, SUBSCRIBE % big, init=init) == 4409


async def test_a_body_that_stops_arriving_is_answered_408(served_with_auth: Served) -> None:
    """Connections that announced a body and stopped sending it stayed open for good: 400 of
    them, without a key, all still open 100 s later."""
    reader, writer = await asyncio.open_connection("127.0.0.1", served_with_auth.port)
    head = (
        f"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1:{served_with_auth.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    writer.write(head.encode() + b'{"query"')
    await writer.drain()
    started = time.monotonic()
    # The answer closes the connection; its head and body may arrive in separate segments.
    answer = await asyncio.wait_for(reader.read(), KEYLESS_BODY_SECONDS + 10)
    writer.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer
    assert b"LIMIT_EXCEEDED" in answer
    assert KEYLESS_BODY_SECONDS - 1 < time.monotonic() - started < KEYLESS_BODY_SECONDS + 5


@pytest.mark.parametrize(
    "head", [b"", b"GET /health HTTP/1.1\r\n", b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: b"]
)
async def test_a_request_head_that_stops_arriving_is_closed(served: Served, head: bytes) -> None:
    """A connection that sent nothing, or half a request head, stayed open for good."""
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(head)
    await writer.drain()
    started = time.monotonic()
    answer = await asyncio.wait_for(reader.read(4096), HEAD_SECONDS + 10)
    writer.close()
    assert answer == b""  # closed, unanswered
    assert HEAD_SECONDS - 1 < time.monotonic() - started < HEAD_SECONDS + 5


@pytest.mark.parametrize("shape", ["one header", "many headers"])
async def test_a_head_over_its_size_limit_is_refused_before_it_is_read(
    served: Served, shape: str
) -> None:
    """Without a key, one connection sending a head of tens of megabytes held the event loop
    for seconds (the parser grows each header value piece by piece) and took a gigabyte, and
    /health answered 503 meanwhile: the head's deadline bounds time, not size."""
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    if shape == "one header":
        headers = b"X-Big: " + b"x" * (4 << 20) + b"\r\n"
    else:
        headers = b"X-H: aaaaaaaaaa\r\n" * 300_000
    writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + b"\r\n")
    started = time.monotonic()
    with contextlib.suppress(ConnectionError):  # closed while it sent: answered first
        await writer.drain()
    answer = await asyncio.wait_for(reader.read(4096), 10)
    writer.close()
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:100]
    assert b'"LIMIT_EXCEEDED"' in answer and b'"head"' in answer
    assert time.monotonic() - started < 3
    async with httpx.AsyncClient(base_url=served.url, timeout=5) as client:
        assert (await client.get("/health")).status_code == 200
    # Just over it, in one piece that also ends the head: that piece was not counted, and a
    # head of up to the limit and one more read was answered (probe W: 135 to 190 KB).
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    over = b"X-Big: " + b"x" * (MAX_HEAD_BYTES + 10_000) + b"\r\n"
    writer.write(b"GET /v3/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + over + b"\r\n")
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    answer = await asyncio.wait_for(reader.read(4096), 10)
    writer.close()
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:100]
    assert b'"detail"' in answer  # a REST route's shape, read from the unparsed head
    # A head within the limit is answered as before.
    async with httpx.AsyncClient(base_url=served.url, timeout=5) as client:
        r = await client.get("/health", headers={"X-Fine": "y" * 60_000})
        assert r.status_code == 200


async def _statuses(reader: asyncio.StreamReader, count: int) -> list[bytes]:
    """The status lines of `count` answers read whole off one connection."""
    found = []
    for _ in range(count):
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
        found.append(head.split(b"\r\n")[0])
        length = int(next(v for k, v in _headers(head) if k == b"content-length"))
        await asyncio.wait_for(reader.readexactly(length), 20)
    return found


async def test_a_body_or_a_blank_line_split_over_reads_is_never_taken_for_a_head(
    served: Served,
) -> None:
    """A head whose blank line began in one read and ended in the next had the body after it
    counted as head (431); so did a request after a body whose last read was large, on a
    kept-alive connection (probe X, the diff review)."""
    body = json.dumps({"query": "{ health { ok } }", "variables": {"pad": "x" * 300_000}})
    head = (
        f"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"X-Pad: {'p' * 70_000}\r\nContent-Length: {len(body)}\r\n"
    ).encode()
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(head)  # the blank line's first half ends the head's line
    await writer.drain()
    await asyncio.sleep(0.3)
    writer.write(b"\r\n" + body.encode())
    await writer.drain()
    writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")  # kept alive
    await writer.drain()
    assert await _statuses(reader, 2) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK"]
    writer.close()
    # A request with a large head pipelined behind a body, in one write.
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    post = head + b"\r\n" + body.encode()
    big = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * 100_000 + b"\r\n\r\n"
    writer.write(post + big)
    await writer.drain()
    assert await _statuses(reader, 2) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK"]
    writer.close()
    # A request, then the next one's head up to the middle of its blank line, in one read:
    # the rest of the blank line and a large body in the next (the second diff review).
    whole = head + b"\r\n" + body.encode()
    blank = len(head) - 2  # where the four bytes that end the head begin
    for cut in (blank + 1, blank + 2, blank + 3):
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + whole[:cut])
        await writer.drain()
        await asyncio.sleep(0.3)
        writer.write(whole[cut:])
        await writer.drain()
        assert await _statuses(reader, 2) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK"], cut
        writer.close()


async def test_a_pipelined_body_is_never_taken_for_a_head(served: Served) -> None:
    """A POST pipelined behind a GET had its 300 KB body counted as head bytes (the count
    restarted when the GET's answer went, with the POST already running): it was answered 431
    in the middle of its own request."""
    body = json.dumps({"query": "{ health { ok } }", "variables": {"pad": "x" * 300_000}})
    post = (
        f"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n{body}"
    )
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + post.encode())
    await writer.drain()
    statuses = []
    for _ in range(2):
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
        statuses.append(head.split(b"\r\n")[0])
        length = int(next(v for k, v in _headers(head) if k == b"content-length"))
        await asyncio.wait_for(reader.readexactly(length), 20)
    writer.close()
    assert statuses == [b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK"]


async def test_a_head_over_the_limit_pipelined_behind_a_request_is_refused_after_it(
    served: Served,
) -> None:
    """A head that began in the read that ended the request before it was counted from the
    next read only: up to one read (256 KiB) and the limit were answered (probe Y). Refused,
    its 431 went at once and closed the stream: the request before it had run, but its answer
    was lost (the 431 stood for it) and its write failed with a traceback."""
    ask = json.dumps({"query": "{ health { ok } }"})
    post = (
        f"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(ask)}\r\n\r\n{ask}"
    ).encode()
    for size in (400_000, 1_000_000, MAX_HEAD_BYTES + 1_000, 250_000):
        big = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * size + b"\r\n\r\n"
        reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
        writer.write(post + big)
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        first = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 20)
        length = int(next(v for k, v in _headers(first) if k == b"content-length"))
        answer = json.loads(await asyncio.wait_for(reader.readexactly(length), 20))
        assert first.startswith(b"HTTP/1.1 200 "), (size, first[:100])
        assert answer == {"data": {"health": {"ok": True}}}
        rest = await asyncio.wait_for(reader.read(4096), 20)
        writer.close()
        assert rest.startswith(b"HTTP/1.1 431 "), (size, rest[:100])
        assert b'"head"' in rest


async def test_heads_within_the_limit_one_after_another_on_one_connection(
    served: Served,
) -> None:
    """The count of the head before carried over to the next request on a reused connection:
    two heads of 70 KB, each within the limit, got 200 and then 431 (the second diff review).
    A websocket upgrade refused for its size crashed the read (its method was never set)."""
    head = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"p" * 70_000 + b"\r\n\r\n"
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    for _ in range(3):
        writer.write(head)
        await writer.drain()
        assert await _statuses(reader, 1) == [b"HTTP/1.1 200 OK"]
    writer.close()
    upgrade = (
        b"GET /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nX-Big: " + b"u" * 140_000 + b"\r\n\r\n"
    )
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + upgrade)
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    assert await _statuses(reader, 1) == [b"HTTP/1.1 200 OK"]
    rest = await asyncio.wait_for(reader.read(4096), 20)
    writer.close()
    assert rest.startswith(b"HTTP/1.1 431 "), rest[:100]


async def test_a_kept_alive_connection_must_send_its_next_head_in_time(served: Served) -> None:
    """A blank line after a response (which the parser skips) stopped uvicorn's keep-alive timer
    and started no head timer: the connection stayed open for good."""
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    await writer.drain()
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
    length = int(next(v for k, v in _headers(head) if k == b"content-length"))
    await asyncio.wait_for(reader.readexactly(length), 10)
    started = time.monotonic()
    writer.write(b"\r\n")
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(4096), HEAD_SECONDS + 10)
    writer.close()
    assert answer == b""
    assert time.monotonic() - started < HEAD_SECONDS + 5


def _headers(head: bytes) -> list[tuple[bytes, bytes]]:
    lines = head.split(b"\r\n")[1:]
    return [
        (name.strip().lower(), value.strip())
        for name, _, value in (line.partition(b":") for line in lines if line)
    ]


def test_without_a_key_a_large_body_is_refused_unread(served_with_auth: Served) -> None:
    """With auth on, a 4 MB body was parsed before the missing key was noticed: a few clients
    sending them kept /health waiting (and answering 503)."""
    assert served_with_auth.secret is not None
    padding = {"a": [{}] * (KEYLESS_MAX_BYTES // 3)}
    big = {"query": "{ health { ok } }", "variables": padding}
    key = issue_key(served_with_auth.secret, ADMIN)
    with httpx.Client(base_url=served_with_auth.url, timeout=10) as client:
        for headers in ({}, {"Authorization": "Bearer bgk_forged"}):
            refused = client.post("/graphql", json=big, headers=headers)
            assert refused.status_code == 401, refused.text
            assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
            rest = client.post("/v3/workspaces", json=padding, headers=headers)
            assert rest.status_code == 401, rest.text
        # Two Authorization headers: the first is the one read, by the limit as by the handlers.
        twice = [("Authorization", "Bearer bgk_forged"), ("Authorization", f"Bearer {key}")]
        assert client.post("/graphql", json=big, headers=twice).status_code == 401
        small = client.post("/graphql", json={"query": "{ health { ok } }"})
        assert small.json() == {"data": {"health": {"ok": True}}}
        keyed = client.post("/graphql", json=big, headers={"Authorization": f"Bearer {key}"})
        assert keyed.json() == {"data": {"health": {"ok": True}}}


def test_without_a_key_a_long_query_string_is_refused(served_with_auth: Served) -> None:
    """A GET carries its document and variables in the query string, which the body limit did
    not cover: 13 MB of `variables` without a key held the event loop for 5 s before its 400."""
    assert served_with_auth.secret is not None
    variables = json.dumps({"a": [[0]] * (KEYLESS_MAX_BYTES // 4)})
    params = {"query": "{ health { ok } }", "variables": variables}
    key = issue_key(served_with_auth.secret, ADMIN)
    with httpx.Client(base_url=served_with_auth.url, timeout=10) as client:
        for headers in ({}, {"Authorization": "Bearer bgk_forged"}):
            refused = client.get("/graphql", params=params, headers=headers)
            assert refused.status_code == 401, refused.text
            assert refused.json()["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
            # Headers are not counted: a browser's cookies for localhost can pass 16 KB.
            cookies = {**headers, "Cookie": "c=" + "a" * KEYLESS_MAX_BYTES}
            health = client.get("/graphql", params={"query": "{ health { ok } }"}, headers=cookies)
            assert health.status_code == 200, health.text
        keyed = client.get("/graphql", params=params, headers={"Authorization": f"Bearer {key}"})
        assert keyed.json() == {"data": {"health": {"ok": True}}}, keyed.text
        health = client.get("/graphql", params={"query": "{ health { ok } }"})
        assert health.json() == {"data": {"health": {"ok": True}}}


@pytest.mark.parametrize(
    ("request_head", "status", "code"),
    [
        (
            b"GET /graphql?query=" + b"a" * 70_000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            414,
            "LIMIT_EXCEEDED",
        ),
        (b"NOT HTTP AT ALL\r\n\r\n", 400, "INVALID_INPUT"),
    ],
)
async def test_a_head_the_server_cannot_read_gets_a_coded_answer(
    served: Served, request_head: bytes, status: int, code: str
) -> None:
    """uvicorn answered a plain-text 400 ("Invalid HTTP request received."), with no code;
    a path and query string over 64 KB is one, as its URL parser cannot hold it."""
    reader, writer = await asyncio.open_connection("127.0.0.1", served.port)
    writer.write(request_head)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), answer
    assert json.loads(body)["errors"][0]["extensions"]["code"] == code
    with httpx.Client(base_url=served.url, timeout=10) as client:
        assert client.get("/health").status_code == 200


async def test_a_socket_without_a_key_is_refused_at_connection_init(
    served_with_auth: Served,
) -> None:
    """With auth on it was acknowledged and held open, with nothing it could do; then it was
    closed saying only "Forbidden" (probe W), where HTTP says what is missing."""
    async with websockets.connect(served_with_auth.ws, subprotocols=[TRANSPORT_WS]) as socket_:
        await socket_.send(json.dumps({"type": "connection_init"}))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(socket_.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    assert "missing API key" in closed.value.rcvd.reason, closed.value.rcvd.reason
    async with websockets.connect(served_with_auth.ws, subprotocols=[TRANSPORT_WS]) as socket_:
        forged = {"type": "connection_init", "payload": {"Authorization": "Bearer bg.nope"}}
        await socket_.send(json.dumps(forged))
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(socket_.recv(), 10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    assert closed.value.rcvd.reason not in ("", "Forbidden"), closed.value.rcvd.reason


async def test_a_key_that_expires_stops_working_on_its_open_socket(
    served_with_auth: Served,
) -> None:
    """The socket's context checked the key once: an hour after it expired, a socket opened
    before still ran every operation, and its streams went on."""
    assert served_with_auth.secret is not None
    workspace = f"w-{uuid.uuid4().hex[:8]}"
    admin = {"Authorization": f"Bearer {issue_key(served_with_auth.secret, ADMIN)}"}
    with httpx.Client(base_url=served_with_auth.url) as client:  # a queue of no workspace: 404
        created = client.post("/v3/workspaces", json={"id": workspace}, headers=admin)
        assert created.status_code == 201
    key = issue_key(
        served_with_auth.secret, Principal(KeyScope.WORKSPACE, workspace), ttl_seconds=6
    )
    init = {"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}}
    stream = """subscription($w: String!) {
      queueStatus(workspace: $w, intervalSeconds: 0.5) { done }
    }"""
    async with websockets.connect(served_with_auth.ws, subprotocols=[TRANSPORT_WS]) as socket_:
        await socket_.send(json.dumps(init))
        assert json.loads(await socket_.recv())["type"] == "connection_ack"
        payload = {"query": stream, "variables": {"w": workspace}}
        await socket_.send(json.dumps({"id": "1", "type": "subscribe", "payload": payload}))
        first = json.loads(await asyncio.wait_for(socket_.recv(), 10))
        assert first["type"] == "next" and "errors" not in first["payload"], first
        # The key expires 5 to 6 seconds from now (its expiry is in whole seconds). Then the
        # socket is closed, or first the stream (it polls every half second) ends refused.
        started = time.monotonic()
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                reply = json.loads(await asyncio.wait_for(socket_.recv(), 10))
                errors = reply["payload"] if reply["type"] == "error" else None
                if reply["type"] == "next":
                    errors = reply["payload"].get("errors")
                if errors:
                    assert errors[0]["extensions"]["code"] == "UNAUTHENTICATED", reply
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403, closed.value
    assert time.monotonic() - started < 8


async def test_the_keys_of_one_workspace_hold_at_most_its_share_of_sockets(
    served_with_auth: Served,
) -> None:
    """A workspace key issued peer keys, each counted as a holder of its own with 50 sockets:
    150 sockets from one leaked workspace key, with no bound."""
    secret = served_with_auth.secret
    assert secret is not None

    async def opened(peer: str) -> Any:
        key = issue_key(secret, Principal(KeyScope.PEER, "w-many", peer))
        socket_ = await websockets.connect(served_with_auth.ws, subprotocols=[TRANSPORT_WS])
        await socket_.send(
            json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}})
        )
        return socket_

    per_peer = MAX_SOCKETS_PER_WORKSPACE // MAX_SOCKETS_PER_KEY
    sockets = []
    try:
        for i in range(MAX_SOCKETS_PER_WORKSPACE):
            sockets.append(await opened(f"p{i % per_peer}"))
            reply = json.loads(await asyncio.wait_for(sockets[-1].recv(), 10))
            assert reply["type"] == "connection_ack", i
        refused = await opened("p-extra")
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await asyncio.wait_for(refused.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
    finally:
        await asyncio.gather(*(s.close() for s in sockets))


async def test_one_key_holds_at_most_its_share_of_sockets(served_with_auth: Served) -> None:
    """300 idle sockets opened with one peer key all stayed open: one leaked key could hold
    as many descriptors as it liked."""
    assert served_with_auth.secret is not None
    key = issue_key(served_with_auth.secret, Principal(KeyScope.WORKSPACE, "w-sockets"))
    init = json.dumps({"type": "connection_init", "payload": {"Authorization": f"Bearer {key}"}})

    async def opened() -> Any:
        socket_ = await websockets.connect(served_with_auth.ws, subprotocols=[TRANSPORT_WS])
        await socket_.send(init)
        return socket_

    sockets = [await opened() for _ in range(MAX_SOCKETS_PER_KEY)]
    try:
        for socket_ in sockets:
            assert (
                json.loads(await asyncio.wait_for(socket_.recv(), 10))["type"] == "connection_ack"
            )
        # The same key spelled with more spaces, or another key for the same holder, is
        # counted with it (the count was by the header's text: 60 of 60 such sockets opened).
        twin = issue_key(
            served_with_auth.secret, Principal(KeyScope.WORKSPACE, "w-sockets"), ttl_seconds=600
        )
        for header in (f"Bearer    {key}", f"Bearer {twin}"):
            extra = await websockets.connect(served_with_auth.ws, subprotocols=[TRANSPORT_WS])
            payload = {"Authorization": header}
            await extra.send(json.dumps({"type": "connection_init", "payload": payload}))
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await asyncio.wait_for(extra.recv(), 10)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        # Another key is counted on its own, and a closed socket frees its place.
        other = issue_key(served_with_auth.secret, Principal(KeyScope.WORKSPACE, "w-other"))
        async with websockets.connect(served_with_auth.ws, subprotocols=[TRANSPORT_WS]) as own:
            await own.send(
                json.dumps(
                    {"type": "connection_init", "payload": {"Authorization": f"Bearer {other}"}}
                )
            )
            assert json.loads(await asyncio.wait_for(own.recv(), 10))["type"] == "connection_ack"
        await sockets.pop().close()
        await asyncio.sleep(0.5)
        again = await opened()
        sockets.append(again)
        assert json.loads(await asyncio.wait_for(again.recv(), 10))["type"] == "connection_ack"
    finally:
        for socket_ in sockets:
            await socket_.close()


async def test_a_message_batch_whose_client_left_before_it_was_written_is_dropped(
    served: Served,
) -> None:
    """An SDK that timed out sent its batch again while the server went on and stored the
    first: 60 messages stored three times. A batch carries no ids to tell a resend by."""
    workspace = f"e2e-{uuid.uuid4().hex[:8]}"
    path = f"/v3/workspaces/{workspace}/sessions/s/messages"
    words = " ".join(f"word{i} about topic {i % 17} and more" for i in range(400))
    batch = {"messages": [{"peer_id": "alice", "content": f"{i} {words}"} for i in range(60)]}
    body = json.dumps(batch).encode()
    with httpx.Client(base_url=served.url, timeout=120) as client:
        assert client.post(f"/v3/workspaces/{workspace}/sessions", json={"id": "s"}).is_success
    _, writer = await asyncio.open_connection("127.0.0.1", served.port)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    writer.write(head.encode() + body)
    await writer.drain()
    await asyncio.sleep(1.0)  # the batch is being embedded: the client gives up
    writer.close()
    await writer.wait_closed()
    with httpx.Client(base_url=served.url, timeout=120) as client:
        # The same batch again (the retry), stored once it returns; the first would be too.
        assert client.post(path, json=batch).status_code == 201
        listed = client.post(f"{path}/list", params={"size": 1}, json={})
        assert listed.json()["total"] == 60
