"""serve starts its managed Neo4j again when it exits on its own, and only then."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from graph.errors import Unavailable
from graph.server.watch import MAX_RESTARTS, RESTART_WINDOW, Neo4jWatch

pytestmark = pytest.mark.unit


@dataclass
class Paths:
    pid_file: Path
    logs: Path


@dataclass
class FakeServer:
    """A server whose process may die (pid file left) or be stopped (pid file removed)."""

    paths: Paths
    serve_marker: Path
    alive: bool = True
    starts: int = 0
    fails: bool = False
    port_taken: bool = False  # a start refused before it runs anything
    log: list[str] = field(default_factory=list)

    def pid(self) -> int | None:
        return 4242 if self.alive else None

    def start(self, wait: bool = True) -> None:
        self.starts += 1
        self.serve_marker.unlink(missing_ok=True)  # as ManagedNeo4j's start does
        if self.port_taken:
            self.paths.pid_file.unlink(missing_ok=True)
            raise Unavailable("port 7687 on 127.0.0.1 (Neo4j Bolt) is taken", port_taken=7687)
        if self.fails:  # as ManagedNeo4j's failed start does, its pid file goes
            self.paths.pid_file.unlink(missing_ok=True)
            raise Unavailable("Neo4j exited while starting")
        self.paths.pid_file.write_text("4242\n")
        self.alive = True


def server(tmp_path: Path) -> FakeServer:
    pid_file = tmp_path / "server.pid"
    pid_file.write_text("4242\n")
    marker = tmp_path / "serve.marker"
    marker.touch()  # a serve started it
    return FakeServer(Paths(pid_file, tmp_path / "logs"), marker)


def test_a_server_that_died_is_started_again(tmp_path: Path) -> None:
    """kill -9 of the managed Neo4j left every request UNAVAILABLE until an operator came."""
    s = server(tmp_path)
    watch = Neo4jWatch(s, clock=lambda: 0.0)
    assert watch.check() == "running"
    s.alive = False  # killed: its pid file stays
    assert watch.check() == "restarted" and s.starts == 1
    assert watch.check() == "running"
    # Still the serve's: it stops it when it stops (it was left running after a restart).
    assert s.serve_marker.exists()


def test_a_server_an_operator_stopped_stays_stopped(tmp_path: Path) -> None:
    s = server(tmp_path)
    s.alive = False
    s.paths.pid_file.unlink()  # `beliefgraph neo4j stop` removes it
    watch = Neo4jWatch(s)
    assert watch.check() == "stopped" and s.starts == 0


def test_a_server_that_keeps_dying_is_left_to_an_operator(tmp_path: Path) -> None:
    s = server(tmp_path)
    now = [0.0]
    watch = Neo4jWatch(s, clock=lambda: now[0])
    s.fails = True
    s.alive = False
    for _ in range(MAX_RESTARTS):
        assert watch.check() == "failed"
    assert watch.check() == "gave up" and s.starts == MAX_RESTARTS
    now[0] = RESTART_WINDOW + 1  # the window has passed: one more try
    s.fails = False
    assert watch.check() == "restarted"
    # Failed starts cleared the serve's mark, and the one that worked was then left running.
    assert s.serve_marker.exists()


def test_a_restart_that_failed_is_tried_again_not_read_as_an_operators_stop(
    tmp_path: Path,
) -> None:
    """A failed start removes the pid file: the next look read that as an operator's stop and
    left Neo4j down for good once its port was free again."""
    s = server(tmp_path)
    watch = Neo4jWatch(s, clock=lambda: 0.0)
    s.alive, s.fails = False, True
    assert watch.check() == "failed"
    assert not s.paths.pid_file.exists()
    s.fails = False  # the port is free again
    assert watch.check() == "restarted" and s.starts == 2
    assert watch.check() == "running"
    # Once it ran again, a stop by an operator is one again.
    s.alive = False
    s.paths.pid_file.unlink()
    assert watch.check() == "stopped"


def test_a_stop_after_an_operators_start_is_theirs_again(tmp_path: Path) -> None:
    """A failed restart, then an operator's `neo4j start`: their later `neo4j stop` was read
    as a failed restart, and the watch started Neo4j against them."""
    s = server(tmp_path)
    watch = Neo4jWatch(s, clock=lambda: 0.0)
    s.alive, s.fails = False, True
    assert watch.check() == "failed"
    s.alive, s.fails = True, False  # `beliefgraph neo4j start`
    s.paths.pid_file.write_text("4242\n")
    assert watch.check() == "running"
    s.alive = False
    s.paths.pid_file.unlink()  # `beliefgraph neo4j stop`
    assert watch.check() == "stopped" and s.starts == 1


def test_a_port_held_a_while_is_waited_out_not_counted_as_a_crash(tmp_path: Path) -> None:
    """Its Bolt port held for 20 s after a kill -9: three refused starts in 15 s read as a crash
    loop, and the watch gave up for good."""
    s = server(tmp_path)
    watch = Neo4jWatch(s, clock=lambda: 0.0)
    s.alive, s.port_taken = False, True
    for _ in range(MAX_RESTARTS * 4):
        assert watch.check() == "failed"
    s.port_taken = False
    assert watch.check() == "restarted" and watch.check() == "running"
