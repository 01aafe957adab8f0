"""While `serve` runs, a managed Neo4j that exits on its own (killed, out of memory) is started
again: before, nothing noticed, and every request answered UNAVAILABLE until an operator ran
`beliefgraph neo4j start`.

Exited on its own means its pid file is still there: `beliefgraph neo4j stop` removes it, and a
server stopped that way is left stopped. At most MAX_RESTARTS starts in RESTART_WINDOW seconds;
past them the watch says so once and waits for an operator (a Neo4j that dies at each start
would otherwise be started again for good).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from graph.errors import BeliefgraphError

log = logging.getLogger("beliefgraph.neo4j")

CHECK_SECONDS = 5.0
MAX_RESTARTS = 3
RESTART_WINDOW = 600.0


class WatchedPaths(Protocol):
    @property
    def pid_file(self) -> Path: ...

    @property
    def logs(self) -> Path: ...


class Watched(Protocol):
    """What the watch needs of a managed server (ManagedNeo4j)."""

    @property
    def paths(self) -> WatchedPaths: ...

    @property
    def serve_marker(self) -> Path: ...

    def pid(self) -> int | None: ...

    def start(self, wait: bool = True) -> None: ...


@dataclass
class Neo4jWatch:
    server: Watched
    every: float = CHECK_SECONDS
    clock: Callable[[], float] = time.monotonic
    restarts: deque[float] = field(default_factory=deque)
    said: str = ""  # the last state logged, so each is logged once
    owned: bool | None = None  # whether a serve started the server: read before any restart
    failing: bool = False  # its last restart failed (and removed the pid file)

    def check(self) -> str:
        """Look once: "running", "stopped" (by an operator), "restarted", "failed" or
        "gave up"."""
        if self.server.pid() is not None:
            self.said = ""
            self.failing = False  # running again (an operator's start): a stop is theirs
            return "running"
        # A failed start removes the pid file too: after one of the watch's own, no pid file
        # is not an operator's stop, and it tries again (within MAX_RESTARTS).
        if not self.server.paths.pid_file.exists() and not self.failing:
            self._say("stopped", "the managed Neo4j was stopped; serve leaves it stopped")
            return "stopped"
        now = self.clock()
        while self.restarts and now - self.restarts[0] > RESTART_WINDOW:
            self.restarts.popleft()
        if len(self.restarts) >= MAX_RESTARTS:
            self._say(
                "gave up",
                f"the managed Neo4j was started {MAX_RESTARTS} times in {RESTART_WINDOW:.0f} s "
                f"and did not stay up; not starting it again: see {self.server.paths.logs}, then "
                "`beliefgraph neo4j start`",
            )
            return "gave up"
        self.restarts.append(now)
        if not self.failing:
            log.error(
                "the managed Neo4j exited on its own (see %s); starting it again",
                self.server.paths.logs,
            )
        # A start clears the mark that a serve started this server (which makes the serve
        # stop it when it stops), even one that fails: whatever the start did, the mark is put
        # back, or a server started again would outlive the serve.
        if self.owned is None:
            self.owned = self.server.serve_marker.exists()
        try:
            self.server.start()
        except BeliefgraphError as exc:
            self.failing = True
            if "port_taken" in exc.details:
                # It never ran: a port held a while (another program, a slow exit) is waited
                # out, not counted as a crash (three looks, 15 s, gave up for good); said once.
                self.restarts.pop()
                self._say(
                    "port taken",
                    f"the managed Neo4j cannot start again yet: {exc.message}; trying again "
                    f"every {self.every:g} s",
                )
            else:
                log.error("the managed Neo4j did not start again: %s", exc.message)
            return "failed"
        finally:
            if self.owned:
                self.server.serve_marker.touch()
        log.warning("the managed Neo4j runs again")
        self.failing = False
        self.said = ""
        return "restarted"

    def _say(self, state: str, message: str) -> None:
        if self.said != state:
            self.said = state
            log.error(message)

    def run(self, stop: threading.Event) -> None:
        while not stop.wait(self.every):
            try:
                self.check()
            except Exception:  # the watch must outlive any one look
                log.exception("watching the managed Neo4j failed")

    def start_thread(self) -> tuple[threading.Thread, threading.Event]:
        self.owned = self.server.serve_marker.exists()
        stop = threading.Event()
        thread = threading.Thread(target=self.run, args=(stop,), name="neo4j-watch", daemon=True)
        thread.start()
        return thread, stop
