"""A real `beliefgraph serve` per test session (one with auth off, one with auth on), reached
over HTTP and WebSocket as any client would."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from graph.settings import Settings

SECRET = "e2e-secret-" + "x" * 32


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@dataclass(frozen=True)
class Served:
    url: str
    port: int
    secret: str | None = None

    @property
    def ws(self) -> str:
        return self.url.replace("http://", "ws://") + "/graphql"


def serve(settings: Settings, password: str, **env: str) -> Iterator[Served]:
    port = free_port()
    full = {
        **os.environ,
        "NEO4J_URI": settings.bolt_uri,
        "NEO4J_PASSWORD": password,
        "BELIEFGRAPH_PORT": str(port),
        "BELIEFGRAPH_WORKER": "off",  # a shared worker would take other tests' jobs
        **env,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "resolvers.cli", "serve"],
        env=full,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(f"{url}/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            assert process.poll() is None, "serve exited during start-up"
            assert time.monotonic() < deadline, "serve did not answer in 90 s"
            time.sleep(0.5)
        yield Served(url, port, env.get("BELIEFGRAPH_AUTH_SECRET"))
    finally:
        process.terminate()
        process.wait(30)


@contextmanager
def worker_process(settings: Settings, password: str, workspace: str) -> Iterator[None]:
    """A separate `beliefgraph worker` for one workspace, as a deployment with dedicated workers
    runs it; scoped so it never takes another test's jobs."""
    env = {**os.environ, "NEO4J_URI": settings.bolt_uri, "NEO4J_PASSWORD": password}
    process = subprocess.Popen(
        [sys.executable, "-m", "resolvers.cli", "worker", "--workspace", workspace],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield
    finally:
        process.terminate()
        process.wait(30)


@pytest.fixture(scope="session")
def served(test_settings: Settings, neo4j_password: str) -> Iterator[Served]:
    """Auth off (loopback), as `scripts/serve` runs by default."""
    yield from serve(test_settings, neo4j_password, BELIEFGRAPH_AUTH="off")


@pytest.fixture(scope="session")
def served_with_auth(test_settings: Settings, neo4j_password: str) -> Iterator[Served]:
    yield from serve(
        test_settings,
        neo4j_password,
        BELIEFGRAPH_AUTH="on",
        BELIEFGRAPH_AUTH_SECRET=SECRET,
        BELIEFGRAPH_WORKER="off",
    )
