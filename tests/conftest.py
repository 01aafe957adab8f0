"""Test session: one Neo4j for the whole run (managed, or NEO4J_URI), one workspace per test."""

from __future__ import annotations

import contextlib
import fcntl
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from graph.repo import workspaces
from graph.settings import Settings
from resolvers.app import create_app
from resolvers.runtime import close_services, open_services
from resolvers.services import Services
from tests import interrupt

# Ports of the test server, away from the defaults so a running `serve` is left alone.
TEST_BOLT_PORT = int(os.environ.get("BELIEFGRAPH_TEST_BOLT_PORT", "17687"))
TEST_HTTP_PORT = int(os.environ.get("BELIEFGRAPH_TEST_HTTP_PORT", "17474"))


def pytest_configure(config: pytest.Config) -> None:
    interrupt.install()


@pytest.fixture(scope="session")
def test_settings() -> Settings:
    env = dict(os.environ)
    env.setdefault("BELIEFGRAPH_AUTH", "off")
    return Settings.from_env(
        env,
        neo4j_bolt_port=TEST_BOLT_PORT,
        neo4j_http_port=TEST_HTTP_PORT,
        neo4j_heap=os.environ.get("BELIEFGRAPH_NEO4J_HEAP", "1g"),
    )


def _empty(uri: str, user: str, password: str, database: str) -> None:
    """Start the session on an empty graph: the managed test instance keeps its data between
    sessions, and a test that reads the whole database (the warm-up's largest scopes) would
    see the leftovers of earlier ones. A server given by NEO4J_URI is never emptied."""
    import neo4j

    from tests import statements

    with (
        neo4j.GraphDatabase.driver(uri, auth=(user, password)) as driver,
        driver.session(database=database) as session,
    ):
        statements.autocommit(session, "wipe_database")


@contextlib.contextmanager
def _sole_session(root: Path) -> Iterator[None]:
    """Hold the managed test instance for this session. A second session at once would empty
    the first's graph as it starts, and the first would stop the server under the second."""
    from graph.server.locks import flocked

    with contextlib.ExitStack() as held:
        try:
            held.enter_context(flocked(root / "test-session.lock", fcntl.LOCK_EX | fcntl.LOCK_NB))
        except BlockingIOError:
            pytest.exit(
                f"another test session is using the managed test instance ({root}); wait for "
                "it to finish, or give this one its own server with NEO4J_URI",
                returncode=pytest.ExitCode.USAGE_ERROR,
            )
        yield


@pytest.fixture(scope="session")
def neo4j_password(test_settings: Settings) -> Iterator[str]:
    if not test_settings.managed:
        yield test_settings.neo4j_password
        return
    from graph.server.process import ManagedNeo4j

    server = ManagedNeo4j(test_settings, instance="test")
    with _sole_session(server.paths.root):
        started_here = server.pid() is None
        server.start()
        _empty(server.bolt_uri, server.user, server.password(), test_settings.neo4j_database)
        try:
            yield server.password()
        finally:
            if started_here and not os.environ.get("BELIEFGRAPH_TEST_KEEP_NEO4J"):
                server.stop()


@pytest.fixture(scope="session")
async def services(test_settings: Settings, neo4j_password: str) -> AsyncIterator[Services]:
    opened = await open_services(test_settings, password=neo4j_password)
    try:
        yield opened
    finally:
        await close_services(opened)


async def _fresh_workspace(services: Services) -> str:
    name = f"t-{uuid.uuid4().hex[:12]}"
    await workspaces.get_or_create(services.db, name)
    return name


@pytest.fixture
async def workspace(services: Services) -> str:
    """A fresh workspace: tests never see each other's data."""
    return await _fresh_workspace(services)


@pytest.fixture
async def other_workspace(services: Services) -> str:
    """A second fresh workspace, for tests that check nothing crosses between two."""
    return await _fresh_workspace(services)


class GraphQLClient:
    """Posts GraphQL documents to the in-process app, as an app would over HTTP."""

    def __init__(self, http: httpx.AsyncClient) -> None:
        self.http = http

    async def raw(
        self, query: str, variables: dict[str, Any] | None = None, key: str | None = None
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        response = await self.http.post(
            "/graphql", json={"query": query, "variables": variables or {}}, headers=headers
        )
        body: dict[str, Any] = response.json()
        return body

    async def ok(
        self, query: str, variables: dict[str, Any] | None = None, key: str | None = None
    ) -> dict[str, Any]:
        body = await self.raw(query, variables, key)
        assert not body.get("errors"), body["errors"]
        data: dict[str, Any] = body["data"]
        return data

    async def error_code(
        self, query: str, variables: dict[str, Any] | None = None, key: str | None = None
    ) -> str:
        body = await self.raw(query, variables, key)
        assert body.get("errors"), f"expected an error, got {body}"
        code: str = body["errors"][0]["extensions"]["code"]
        return code


@pytest.fixture
async def gql(services: Services) -> AsyncIterator[GraphQLClient]:
    app = create_app(services.settings, services)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        yield GraphQLClient(http)


@pytest.fixture
async def rest(services: Services) -> AsyncIterator[httpx.AsyncClient]:
    """A client of the Honcho-compatible routes (base /v3), auth off."""
    app = create_app(services.settings, services)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1/v3") as http:
        yield http
