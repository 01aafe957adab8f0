"""The managed Neo4j, for real: start, answer, refuse a taken port, stay up while another process
uses it, stop.

Uses its own instance names and ports, so it never touches a server the suite or a developer
runs on 7687/7474 or 17687/17474.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from graph.errors import InvalidInput, Unavailable
from graph.server.layout import has_jars, instance_paths
from graph.server.process import ManagedNeo4j
from graph.settings import Settings
from tests.bench.common import bench_marker, bench_neo4j

pytestmark = pytest.mark.integration

INSTANCE = "launcher-test"


def _settings(bolt: int, http: int) -> Settings:
    # Small memory: this server runs beside the suite's own; the jars are the suite's.
    home = {k: v for k, v in os.environ.items() if k == "BELIEFGRAPH_HOME"}
    return Settings.from_env(
        home,
        neo4j_bolt_port=bolt,
        neo4j_http_port=http,
        neo4j_heap="512m",
        neo4j_pagecache="128m",
        neo4j_start_timeout=60.0,
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def server() -> Iterator[ManagedNeo4j]:
    settings = _settings(27687, 27474)
    if not has_jars(instance_paths(settings).lib):
        pytest.skip("needs the Neo4j jars (the suite's own server downloads them)")
    managed = ManagedNeo4j(settings, INSTANCE)
    managed.stop()
    # A fresh instance each run, so the first-start path (initial password) is exercised.
    shutil.rmtree(managed.paths.root, ignore_errors=True)
    # A password that starts with "-" (a generated one does 1 time in 64) must not read as an
    # option of the tool that sets it.
    managed.paths.password_file.parent.mkdir(parents=True, exist_ok=True)
    managed.paths.password_file.write_text("-" + secrets.token_urlsafe(32) + "\n")
    managed.paths.password_file.chmod(0o600)
    managed.start()
    yield managed
    managed.stop()


def test_started_server_answers_bolt_and_browser(server: ManagedNeo4j) -> None:
    status = server.status()
    assert status.running and status.answering
    assert status.pid is not None and _alive(status.pid)
    assert status.bolt_uri == "bolt://127.0.0.1:27687"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(status.browser_url, timeout=10) as response:
        assert response.status == 200
        assert b"Neo4j Browser" in response.read()


def test_password_file_is_private(server: ManagedNeo4j) -> None:
    assert server.paths.password_file.stat().st_mode & 0o777 == 0o600
    assert len(server.password()) >= 32


def test_start_again_is_a_no_op(server: ManagedNeo4j) -> None:
    before = server.status().pid
    again = ManagedNeo4j(server.settings, INSTANCE)  # e.g. a second `beliefgraph neo4j start`
    began = time.monotonic()
    again.start()
    assert time.monotonic() - began < 5
    assert again.status().pid == before


@pytest.mark.parametrize(("taken", "setting"), [(0, "BOLT"), (1, "HTTP")])
def test_a_taken_port_is_refused_by_name(server: ManagedNeo4j, taken: int, setting: str) -> None:
    ports = (27697, 27484)
    other = ManagedNeo4j(_settings(*ports), "launcher-test-ports")
    with socket.socket() as blocker:
        blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        blocker.bind(("127.0.0.1", ports[taken]))
        blocker.listen()
        with pytest.raises(Unavailable, match=f"BELIEFGRAPH_NEO4J_{setting}_PORT") as error:
            other.start()
    assert str(ports[taken]) in error.value.message
    assert other.pid() is None
    shutil.rmtree(other.paths.root, ignore_errors=True)


def test_a_server_that_dies_while_starting_is_reported_with_its_log() -> None:
    # A heap too small for the JVM makes it exit at once.
    settings = Settings.from_env({}, neo4j_bolt_port=27698, neo4j_http_port=27485, neo4j_heap="1k")
    crashing = ManagedNeo4j(settings, "launcher-test-crash")
    try:
        with pytest.raises(Unavailable, match="exited while starting") as error:
            crashing.start()
        assert "heap" in error.value.message  # the JVM's own words, from console.log
        assert crashing.pid() is None
    finally:
        shutil.rmtree(crashing.paths.root, ignore_errors=True)


def test_a_server_another_process_uses_is_left_running(server: ManagedNeo4j) -> None:
    other = ManagedNeo4j(server.settings, INSTANCE)  # a second process, as far as locks go
    with other.in_use():
        assert server.stop_unless_used() == "in use"
        assert server.status().answering


def test_an_instance_running_on_other_ports_is_named_not_waited_for(
    server: ManagedNeo4j,
) -> None:
    """Started again with other ports, it waited out the whole start timeout for an answer on
    ports the server does not listen on; status said "not answering"."""
    elsewhere = ManagedNeo4j(_settings(27688, 27475), INSTANCE)
    began = time.monotonic()
    with pytest.raises(InvalidInput, match="BELIEFGRAPH_NEO4J_BOLT_PORT=27687"):
        elsewhere.start()
    assert time.monotonic() - began < 5
    status = elsewhere.status()
    assert status.answering and status.bolt_uri == "bolt://127.0.0.1:27687"
    assert status.browser_url == "http://127.0.0.1:27474/browser/"


def test_a_bench_leaves_a_shared_instance_to_the_bench_still_using_it(
    server: ManagedNeo4j,
) -> None:
    """Two benches on one instance a bench started: the first to end stopped it under the
    other (which then died on a defunct connection); now the last one using it stops it."""
    bench_marker(server).touch()  # as the bench that started it left it
    first = bench_neo4j(INSTANCE, bolt_port=27687, http_port=27474)
    second = bench_neo4j(INSTANCE, bolt_port=27687, http_port=27474)
    assert not first.started_here and not second.started_here
    assert first.done(keep=False) is False
    assert server.status().answering
    assert second.done(keep=False) is True
    assert not server.status().running and not bench_marker(server).exists()
    server.start()
    # An instance no bench started (serve's, `neo4j start`'s) is never stopped by a bench.
    alone = bench_neo4j(INSTANCE, bolt_port=27687, http_port=27474)
    assert alone.done(keep=False) is False and server.status().answering


def test_a_refused_password_stops_the_server_its_start_began(server: ManagedNeo4j) -> None:
    """The start failed with "refused the password" and left the server it had just begun
    running, owned by no one."""
    right = server.paths.password_file.read_text()
    server.stop()
    server.paths.password_file.write_text(secrets.token_urlsafe(32) + "\n")
    try:
        with pytest.raises(Unavailable, match="refused the password") as error:
            server.start()
        assert "this start began was stopped" in error.value.message
        assert server.pid() is None
    finally:
        server.paths.password_file.write_text(right)
        server.start()
    assert server.status().answering


def test_a_serve_stopped_while_neo4j_starts_stops_it(tmp_path: Path) -> None:
    """SIGTERM to serve during the managed Neo4j's first start (a minute): serve died with no
    `finally`, and the server it began ran on, for good (a later serve adopted it unmarked)."""
    home = tmp_path / "home"
    home.mkdir()
    settings = _settings(27699, 27486)
    jars = instance_paths(settings).lib.parent
    (home / jars.name).symlink_to(jars)
    env = {
        **os.environ,
        "BELIEFGRAPH_HOME": str(home),
        "BELIEFGRAPH_PORT": str(_free_port()),
        "BELIEFGRAPH_NEO4J_BOLT_PORT": "27699",
        "BELIEFGRAPH_NEO4J_HTTP_PORT": "27486",
        "BELIEFGRAPH_NEO4J_HEAP": "256m",
        "BELIEFGRAPH_NEO4J_PAGECACHE": "64m",
        "BELIEFGRAPH_NPM_REGISTRY": "http://127.0.0.1:9",  # GraphiQL's files: not needed
    }
    env.pop("NEO4J_URI", None)
    serve = subprocess.Popen(
        [sys.executable, "-m", "resolvers.cli", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    paths = instance_paths(Settings.from_env({"BELIEFGRAPH_HOME": str(home)}))
    pid = None
    try:
        deadline = time.monotonic() + 60
        while pid is None and time.monotonic() < deadline:
            if paths.pid_file.exists() and paths.pid_file.read_text().strip():
                pid = int(paths.pid_file.read_text())
            time.sleep(0.05)
        assert pid is not None, "serve never started Neo4j"
        serve.send_signal(signal.SIGTERM)  # while Neo4j starts: it takes seconds to answer
        assert serve.wait(timeout=90) != 0
        deadline = time.monotonic() + 30
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _alive(pid), "the Neo4j serve began outlived it"
    finally:
        if serve.poll() is None:
            serve.kill()
        if pid is not None and _alive(pid):
            os.kill(pid, signal.SIGKILL)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_stop_leaves_no_process(server: ManagedNeo4j) -> None:
    pid = server.status().pid
    assert pid is not None
    assert server.stop() is True
    assert not _alive(pid)
    assert not server.paths.pid_file.exists()
    status = server.status()
    assert not status.running and not status.answering
    assert server.stop() is False
