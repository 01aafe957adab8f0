"""The managed local Neo4j: jars gathered by Maven once, one folder per instance, one JVM.

Used when `NEO4J_URI` is not set. The jars live in `<home>/neo4j-<version>/lib` and are shared;
each instance keeps its conf, data, logs, run and plugins folders and its password file under
`<home>/instances/<name>/`. Nothing here runs at import; the pure builders (`config_text`,
`java_command`, ...) are unit-tested without a server.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Literal

import neo4j
from neo4j.exceptions import AuthError, ClientError, DriverError, Neo4jError

from graph.errors import InvalidInput, Unavailable
from graph.server.jars import ensure_jars
from graph.server.java import JVM_ROOTS, find_java
from graph.server.layout import (
    ADMIN_USER,
    ENTRY_POINT,
    LEGACY_ENTRY_POINT,
    SERVER_LOGS_XML,
    USER_LOGS_XML,
    ServerStatus,
    config_text,
    env_name,
    instance_paths,
    java_command,
    listening_ports,
)
from graph.server.locks import flocked
from graph.server.logs import file_size, log_tails, rotate_console_log, start_failure
from graph.server.password import read_or_create_password, set_initial_password
from graph.server.probe import browser_answers, ping, ping_driver, port_free
from graph.settings import Settings


def command_line(pid: int, *, proc: Path = Path("/proc")) -> str | None:
    """`pid`'s command line, its arguments joined by spaces; None when no such process runs.
    Read from /proc, or from `ps` where there is none (macOS)."""
    if proc.is_dir():
        try:
            return " ".join(
                a.decode(errors="replace")
                for a in (proc / str(pid) / "cmdline").read_bytes().split(b"\0")
            )
        except OSError:
            return None
    try:
        done = subprocess.run(
            ["ps", "-ww", "-o", "command=", "-p", str(pid)],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def _signal(pid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it exited on its own meanwhile
        os.kill(pid, signum)


class ManagedNeo4j:
    """One local Neo4j server, identified by its instance name."""

    def __init__(
        self,
        settings: Settings,
        instance: str = "default",
        *,
        java_roots: Sequence[str] = JVM_ROOTS,
    ) -> None:
        self.settings = settings
        self.instance = instance
        self.java_roots = java_roots  # where installed JDKs are looked for (see java.py)
        self.paths = instance_paths(settings, instance)
        self._process: subprocess.Popen[bytes] | None = None
        self._debug_from = 0  # debug.log's size when this object last started a server

    @property
    def bolt_uri(self) -> str:
        return f"bolt://127.0.0.1:{self.settings.neo4j_bolt_port}"

    @property
    def browser_url(self) -> str:
        return f"http://127.0.0.1:{self.settings.neo4j_http_port}/browser/"

    @property
    def user(self) -> str:
        return ADMIN_USER

    # -- files ------------------------------------------------------------------------------

    def ensure_jars(self) -> Path:
        """The shared lib folder, filled by Maven the first time (Java is checked first)."""
        find_java(os.environ, self.java_roots)
        return ensure_jars(self.paths.lib, self.settings.neo4j_version)

    def password(self) -> str:
        """The admin password, generated into a 0600 file the first time."""
        return read_or_create_password(self.paths)

    def write_config(self) -> None:
        for folder in (self.paths.root, self.paths.conf, self.paths.data, self.paths.logs):
            folder.mkdir(parents=True, exist_ok=True)
        self.paths.root.chmod(0o700)  # data and password inside
        self.paths.run.mkdir(exist_ok=True)
        self.paths.plugins.mkdir(exist_ok=True)
        (self.paths.conf / "neo4j.conf").write_text(
            config_text(self.settings, self.paths), encoding="utf-8"
        )
        (self.paths.conf / "server-logs.xml").write_text(SERVER_LOGS_XML, encoding="utf-8")
        (self.paths.conf / "user-logs.xml").write_text(USER_LOGS_XML, encoding="utf-8")

    # -- process ----------------------------------------------------------------------------

    def start(self, wait: bool = True, *, mark: bool = False) -> None:
        """Start the server unless it already runs; with `wait`, return once it answers. With
        `mark` (a serve), a server started here gets the serve marker as soon as it runs, so
        a start cut short (a signal while it waits) still leaves it to be stopped."""
        # Two starters at once (parallel test workers, two terminals) must not race: the second
        # waits here, then finds the first one's server running.
        with self._locked():
            self._start(wait, mark)

    def _start(self, wait: bool, mark: bool = False) -> None:
        pid = self.pid()
        if pid is not None:
            if self._entry_point(pid) == LEGACY_ENTRY_POINT:
                raise Unavailable(
                    f"a Neo4j 5 server of this instance still runs (pid {pid}): stop it with "
                    "`beliefgraph neo4j stop` and start again; its data then opens in Neo4j "
                    f"{self.settings.neo4j_version}, which upgrades it in place (5.x cannot "
                    "open it afterwards)"
                )
            running = self.running_ports()
            wanted = (self.settings.neo4j_bolt_port, self.settings.neo4j_http_port)
            if running is not None and running != wanted:
                # Waiting for an answer on the other ports took the whole start timeout.
                raise InvalidInput(
                    f"Neo4j instance {self.instance!r} already runs (pid {pid}) on Bolt port "
                    f"{running[0]} and HTTP port {running[1]}, not {wanted[0]} and "
                    f"{wanted[1]}: set BELIEFGRAPH_NEO4J_BOLT_PORT={running[0]} and "
                    f"BELIEFGRAPH_NEO4J_HTTP_PORT={running[1]}, or stop it first"
                )
            if wait:
                self._wait_until_answering(pid, started_here=False)
            return
        self.paths.pid_file.unlink(missing_ok=True)
        self.serve_marker.unlink(missing_ok=True)  # a server started here is nobody's yet
        self._check_ports()
        self._debug_from = file_size(self.paths.logs / "debug.log")  # what this start writes
        java = find_java(os.environ, self.java_roots)
        self.ensure_jars()
        self.write_config()
        password = self.password()
        if not self.paths.system_database.exists():
            set_initial_password(self.paths, java, password)
        rotate_console_log(self.paths)
        with self.paths.console_log.open("wb") as console:
            process = subprocess.Popen(
                java_command(self.settings, self.paths, java.path, java.version),
                stdin=subprocess.DEVNULL,
                stdout=console,
                stderr=subprocess.STDOUT,
                cwd=self.paths.root,
                start_new_session=True,  # outlives this process and its terminal's signals
            )
        self._process = process
        self.paths.pid_file.write_text(f"{process.pid}\n", encoding="utf-8")
        if mark:
            self.serve_marker.touch()
        if wait:
            self._wait_until_answering(process.pid, started_here=True)

    def stop(self, timeout: float = 60.0) -> bool:
        """SIGTERM (a clean checkpoint), SIGKILL after `timeout`. True if a server was running."""
        pid = self.pid()
        if pid is None:
            self.paths.pid_file.unlink(missing_ok=True)
            return False
        _signal(pid, signal.SIGTERM)
        # A stopped (frozen) server takes SIGTERM only once continued, and would sit out the
        # whole timeout; continuing a running one does nothing.
        _signal(pid, signal.SIGCONT)
        if not self._wait_for_exit(pid, timeout):
            _signal(pid, signal.SIGKILL)
            self._wait_for_exit(pid, 10.0)
        self.paths.pid_file.unlink(missing_ok=True)
        return True

    @property
    def serve_marker(self) -> Path:
        """Present while the running server is one `beliefgraph serve` started: the last serve
        or worker using it stops it (resolvers/serve.py)."""
        return self.paths.root / "serve.started"

    @contextlib.contextmanager
    def in_use(self) -> Iterator[None]:
        """This process uses the server until the block ends (a shared lock on users.lock).
        Taken before a start: while another process stops the server (stop_unless_used), it
        waits, then starts a fresh one rather than adopting one about to go."""
        with flocked(self.paths.root / "users.lock", fcntl.LOCK_SH):
            yield

    def stop_unless_used(self) -> Literal["stopped", "not running", "in use"]:
        """Stop the server unless another process holds it in use (`in_use`), in which case it
        is left running for that process: a service restarted before the old one finished
        stopping (or a worker beside it) keeps its database."""
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(
                    flocked(self.paths.root / "users.lock", fcntl.LOCK_EX | fcntl.LOCK_NB)
                )
            except BlockingIOError:
                return "in use"
            return "stopped" if self.stop() else "not running"

    def running_ports(self) -> tuple[int, int] | None:
        """The (Bolt, HTTP) ports the running server was started on (its neo4j.conf)."""
        try:
            conf = (self.paths.conf / "neo4j.conf").read_text(encoding="utf-8")
        except OSError:
            return None
        return listening_ports(conf)

    def status(self) -> ServerStatus:
        """The server as it runs: on the ports it was started on, which may not be the
        settings' (it said "not answering" of a server answering on its own ports)."""
        pid = self.pid()
        ports = (self.running_ports() if pid is not None else None) or (
            self.settings.neo4j_bolt_port,
            self.settings.neo4j_http_port,
        )
        bolt_uri = f"bolt://127.0.0.1:{ports[0]}"
        answering = False
        if pid is not None and self.paths.password_file.exists():
            try:
                ping(bolt_uri, self.user, self.password(), self.settings.neo4j_database, 2.0)
                answering = True
            except Unavailable:
                answering = False
        return ServerStatus(
            running=pid is not None,
            pid=pid,
            bolt_uri=bolt_uri,
            browser_url=f"http://127.0.0.1:{ports[1]}/browser/",
            answering=answering,
        )

    def pid(self) -> int | None:
        """The pid of this instance's server if it runs (ours or Neo4j's own pid file)."""
        for path in (self.paths.pid_file, self.paths.neo4j_pid_file):
            try:
                pid = int(path.read_text(encoding="utf-8").strip())
            except (OSError, ValueError):
                continue
            if self._is_ours(pid):
                return pid
        return None

    # -- helpers ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with flocked(self.paths.root / "start.lock", fcntl.LOCK_EX):
            yield

    def _entry_point(self, pid: int) -> str | None:
        """The server class `pid` runs if it is this instance's server (its command line)."""
        args = command_line(pid)
        if args is None or f"--config-dir {self.paths.conf} " not in args + " ":
            return None
        for entry in (ENTRY_POINT, LEGACY_ENTRY_POINT):
            if entry in args:
                return entry
        return None

    def _is_ours(self, pid: int) -> bool:
        """True if `pid` is alive and is this instance's server (pids get reused: a pid file
        that outlived a reboot names another program, which a stop would have killed)."""
        if self._process is not None and self._process.pid == pid:
            return self._process.poll() is None
        return self._entry_point(pid) is not None

    def _wait_for_exit(self, pid: int, timeout: float) -> bool:
        if self._process is not None and self._process.pid == pid:
            try:
                self._process.wait(timeout)
            except subprocess.TimeoutExpired:
                return False
            return True
        deadline = time.monotonic() + timeout
        while self._is_ours(pid):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.1)
        return True

    def _check_ports(self) -> None:
        for setting, what in (("neo4j_bolt_port", "Bolt"), ("neo4j_http_port", "HTTP")):
            port = int(getattr(self.settings, setting))
            if not port_free(port):
                raise Unavailable(
                    f"port {port} on 127.0.0.1 (Neo4j {what}) is taken by another program: "
                    f"stop it, or set {env_name(setting)} to a free port",
                    port_taken=port,
                )

    def _stop_if(self, started_here: bool) -> str:
        """Stop a server this start began, which would be left up owned by no one; the words
        an error adds to say so."""
        if not started_here:
            return ""
        self.stop(timeout=30.0)
        return " (the server this start began was stopped)"

    def failed_start(self) -> str | None:
        """Why this start's database failed, from debug.log; None while it has not."""
        return start_failure(self.paths.logs / "debug.log", self._debug_from)

    def _wait_until_answering(self, pid: int, *, started_here: bool) -> None:
        timeout = self.settings.neo4j_start_timeout
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        with neo4j.GraphDatabase.driver(
            self.bolt_uri,
            auth=(self.user, self.password()),
            connection_timeout=2.0,
            max_connection_pool_size=1,
        ) as driver:
            while True:
                if not self._is_ours(pid):
                    self.paths.pid_file.unlink(missing_ok=True)
                    raise Unavailable(
                        f"Neo4j exited while starting; see {self.paths.logs}.\n"
                        + log_tails(self.paths)
                    )
                try:
                    ping_driver(driver, self.settings.neo4j_database)
                    # HTTP comes up a moment after Bolt.
                    if browser_answers(self.browser_url):
                        return
                    last = f"{self.browser_url} does not answer yet"
                except AuthError as exc:
                    stopped = self._stop_if(started_here)
                    raise Unavailable(
                        f"Neo4j refused the password in {self.paths.password_file}: it does not "
                        f"match the database in {self.paths.data}. Restore the file, or stop the "
                        f"server and delete {self.paths.data} to start over{stopped}. "
                        f"({exc.message})"
                    ) from exc
                except ClientError as exc:
                    stopped = self._stop_if(started_here)
                    raise Unavailable(
                        f"Neo4j answered with an error{stopped}: {exc.message}"
                    ) from exc
                except (Neo4jError, DriverError, OSError) as exc:
                    last = str(exc)  # still starting: Bolt closed or database not yet online
                    if started_here and (failure := self.failed_start()) is not None:
                        self.stop(timeout=30.0)
                        raise Unavailable(
                            f"Neo4j could not start its database (the server was stopped); "
                            f"from {self.paths.logs / 'debug.log'}:\n{failure}"
                        ) from exc
                if time.monotonic() > deadline:
                    break
                time.sleep(0.25)
        if started_here:
            self.stop(timeout=30.0)
        raise Unavailable(
            f"Neo4j did not answer within {timeout:g} s ({last}); raise "
            f"{env_name('neo4j_start_timeout')} on a slow machine"
            + (" (the server was stopped)" if started_here else "")
            + f".\n{log_tails(self.paths)}"
        )
