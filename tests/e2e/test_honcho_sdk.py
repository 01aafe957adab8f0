"""The official Honcho SDK (honcho-ai), sync and async, against a real `beliefgraph serve`."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata

import httpx
import pytest
from honcho import Honcho  # type: ignore[import-untyped]
from honcho.http.exceptions import (  # type: ignore[import-untyped]
    AuthenticationError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    UnprocessableEntityError,
)

from resolvers.auth import KeyScope, Principal, issue_key
from tests.e2e.conftest import SECRET, Served

pytestmark = pytest.mark.e2e


@contextmanager
def honcho_client(url: str, workspace: str, key: str | None = None) -> Iterator[Honcho]:
    """A sync client over an HTTP connection pool this test closes."""
    with httpx.Client(timeout=10) as http:
        yield Honcho(
            base_url=url, workspace_id=workspace, api_key=key, max_retries=0, http_client=http
        )


def fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def quick_start() -> str:
    """The Quick Start code of the SDK's own README, as published in its package metadata."""
    readme = metadata.metadata("honcho-ai").json["description"]
    assert isinstance(readme, str)
    section = readme.split("## Quick Start", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.S)
    assert found is not None
    return found.group(1)


def test_readme_quick_start_runs_unmodified(served: Served) -> None:
    code = quick_start()
    assert 'Honcho(api_key="your-api-key")' in code and "alice.chat(" in code
    env = {**os.environ, "HONCHO_URL": served.url, "HONCHO_WORKSPACE_ID": fresh("qs")}
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip(), "the quick start prints the chat answer"


def test_sync_flow_stream_and_pagination(served: Served) -> None:
    with honcho_client(served.url, fresh("sdk")) as honcho:
        sync_flow(honcho)


def sync_flow(honcho: Honcho) -> None:
    alice = honcho.peer("alice", metadata={"role": "user"})
    bot = honcho.peer("bot")
    session = honcho.session("s1")
    session.add_peers([alice, bot])
    added = session.add_messages(
        [alice.message(f"Note {i}: I keep bees in Leeds.") for i in range(7)]
        + [bot.message("How many hives?")]
    )
    assert len(added) == 8 and added[0].peer_id == "alice"

    page = session.messages(size=3)
    assert page.total == 8 and page.pages == 3 and len(page.items) == 3
    assert [m.content for m in page][-1] == "How many hives?"  # iterates all pages
    assert {p.id for p in session.peers()} == {"alice", "bot"}
    assert [p.id for p in honcho.peers()] == ["alice", "bot"]
    assert alice.get_metadata() == {"role": "user"}
    session.set_metadata({"topic": "bees"})
    assert session.get_metadata() == {"topic": "bees"}

    context = session.context()
    openai = context.to_openai(assistant="bot")
    assert len(openai) == 8 and openai[-1]["role"] == "assistant"
    assert session.search("bees") and honcho.search("hives") and alice.search("Leeds")
    assert isinstance(alice.representation(), str)
    assert alice.get_card() is None
    alice.set_card(["Beekeeper"])
    assert alice.get_card() == ["Beekeeper"]
    peer_context = alice.context()
    assert peer_context.peer_card == ["Beekeeper"]

    answer = alice.chat("Where are the bees?")
    assert isinstance(answer, str) and answer
    streamed = alice.chat_stream("Where are the bees?")
    pieces = list(streamed)
    assert pieces and "".join(pieces) == streamed.get_final_response()["content"]

    uploaded = session.upload_file(
        file=("notes.md", b"# Bees\n\nThe hives are on the allotment.", "text/markdown"),
        peer=alice,
        metadata={"source": "upload"},
    )
    assert [m.peer_id for m in uploaded] == ["alice"] and "hives" in uploaded[0].content
    edited = session.update_message(uploaded[0], {"checked": True})
    assert edited.metadata == {"checked": True}
    assert session.get_message(uploaded[0].id).content == uploaded[0].content
    summaries = session.summaries()
    assert summaries.short_summary is None and summaries.long_summary is None

    status = honcho.queue_status()
    assert status.total_work_units >= status.completed_work_units

    made = alice.conclusions.create([{"content": "Alice keeps bees"}])
    listed = list(alice.conclusions.list())
    assert [c.content for c in listed] == ["Alice keeps bees"]
    alice.conclusions.delete(made[0].id)
    assert list(alice.conclusions.list()) == []


async def test_async_flow_and_stream(served: Served) -> None:
    honcho = Honcho(base_url=served.url, workspace_id=fresh("sdk-aio"), timeout=10)
    try:
        await async_flow(honcho)
    finally:
        # The SDK builds its async connection pool itself and offers no public close.
        await honcho._async_http_client.close()


async def async_flow(honcho: Honcho) -> None:
    alice = await honcho.aio.peer("alice")
    session = await honcho.aio.session("s1")
    await session.aio.add_messages([alice.message("I moved to Porto last spring.")])
    page = await session.aio.messages()
    assert [m.content for m in page.items] == ["I moved to Porto last spring."]
    answer = await alice.aio.chat("Where does she live?")
    assert isinstance(answer, str)
    stream = await alice.aio.chat_stream("Where does she live?")
    pieces = [piece async for piece in stream]
    assert pieces
    ids = [p.id async for p in await honcho.aio.peers()]
    assert ids == ["alice"]


def test_each_error_class(served: Served) -> None:
    workspace = fresh("sdk-err")
    with honcho_client(served.url, workspace) as honcho:
        error_flow(honcho, workspace)


def error_flow(honcho: Honcho, workspace: str) -> None:
    session = honcho.session("s1")
    alice = honcho.peer("alice")
    session.add_messages([alice.message("hello")])
    with pytest.raises(NotFoundError):
        session.get_message("no-such-message")
    with pytest.raises(ConflictError):
        honcho.delete_workspace(workspace)  # it still has an active session
    with pytest.raises(UnprocessableEntityError, match="limit is 100"):
        session.add_messages([alice.message(f"m{i}") for i in range(101)])


def test_keys_as_bearer_tokens(served_with_auth: Served) -> None:
    url = served_with_auth.url
    workspace = fresh("sdk-auth")
    admin = issue_key(SECRET, Principal(KeyScope.ADMIN))
    with honcho_client(url, workspace, admin) as as_admin:
        assert list(as_admin.peers()) == []  # its first call creates the workspace
    with honcho_client(url, workspace) as anonymous, pytest.raises(AuthenticationError):
        anonymous.peers()
    scoped = issue_key(SECRET, Principal(KeyScope.WORKSPACE, workspace))
    with honcho_client(url, workspace, scoped) as honcho:
        alice = honcho.peer("alice")
        honcho.session("s1").add_messages([alice.message("I play the cello.")])
        assert [p.id for p in honcho.peers()] == ["alice"]
    as_alice = issue_key(SECRET, Principal(KeyScope.PEER, workspace, peer="alice"))
    with honcho_client(url, workspace, as_alice) as own:
        assert isinstance(own.peer("alice").chat("What does she play?"), str)
        with pytest.raises(PermissionDeniedError):
            own.peer("bob").chat("Anything?")
    with (
        honcho_client(url, fresh("elsewhere"), scoped) as other,
        pytest.raises(PermissionDeniedError),
    ):
        other.peers()
