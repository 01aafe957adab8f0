"""The managed Neo4j's conf and command lines, built without starting anything."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

from graph.errors import InvalidInput, Unavailable
from graph.server.layout import (
    ENTRY_POINT,
    ServerStatus,
    config_text,
    instance_paths,
    java_command,
    java_major,
    listening_ports,
    maven_command,
    set_password_command,
)
from graph.server.probe import port_free
from graph.server.process import ManagedNeo4j, command_line
from graph.settings import Settings

pytestmark = pytest.mark.unit


def settings(tmp_path: Path, **overrides: object) -> Settings:
    return Settings.from_env({"BELIEFGRAPH_HOME": str(tmp_path)}, **overrides)


def conf(tmp_path: Path, **overrides: object) -> dict[str, list[str]]:
    s = settings(tmp_path, **overrides)
    values: dict[str, list[str]] = {}
    for line in config_text(s, instance_paths(s, "t")).splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.partition("=")
            values.setdefault(key, []).append(value)
    return values


def test_listens_on_loopback_only(tmp_path: Path) -> None:
    values = conf(tmp_path)
    assert values["server.default_listen_address"] == ["127.0.0.1"]
    listen = [v for k, vs in values.items() if k.endswith("listen_address") for v in vs]
    assert listen and all(v.startswith("127.0.0.1") for v in listen)
    assert values["server.https.enabled"] == ["false"]


def test_auth_is_on(tmp_path: Path) -> None:
    values = conf(tmp_path)
    assert values["dbms.security.auth_enabled"] == ["true"]
    assert int(values["dbms.security.auth_minimum_password_length"][0]) >= 8


def test_ports_come_from_settings(tmp_path: Path) -> None:
    values = conf(tmp_path, neo4j_bolt_port=23687, neo4j_http_port=23474)
    assert values["server.bolt.listen_address"] == ["127.0.0.1:23687"]
    assert values["server.http.listen_address"] == ["127.0.0.1:23474"]
    # Neo4j Browser connects where the server advertises Bolt, so that must follow the port too.
    assert values["server.bolt.advertised_address"] == ["127.0.0.1:23687"]


def test_memory_comes_from_settings(tmp_path: Path) -> None:
    values = conf(tmp_path, neo4j_heap="768m", neo4j_pagecache="2g")
    assert values["server.memory.heap.initial_size"] == ["768m"]
    assert values["server.memory.heap.max_size"] == ["768m"]
    assert values["server.memory.pagecache.size"] == ["2g"]


def test_directories_are_inside_the_instance(tmp_path: Path) -> None:
    values = conf(tmp_path)
    root = tmp_path / "instances" / "t"
    for name in ("data", "logs", "run", "plugins"):
        assert values[f"server.directories.{name}"] == [str(root / name)]
    assert values["server.directories.lib"] == [str(tmp_path / "neo4j-2026.09.0" / "lib")]


def test_the_2026_server_starts_quiet_and_speaks_cypher_25(tmp_path: Path) -> None:
    values = conf(tmp_path)
    assert values["db.query.default_language"] == ["CYPHER_25"]
    for name in (
        "dbms.fleet_manager.enabled",
        "server.fleet_discovery.enabled",
        "server.http.x_forward.enabled",
        "client.allow_telemetry",
    ):
        assert values[name] == ["false"], name
    [hosts] = values["browser.remote_content_hostname_whitelist"]
    loud = conf(tmp_path, host="LOCALHOST")["browser.remote_content_hostname_whitelist"]
    assert loud == [hosts], loud  # host names have no case
    assert len(hosts.split(",")) == len(set(hosts.split(","))), hosts  # localhost was twice
    # The 5.x name of this setting is deprecated in 2026; the new one takes a duration.
    assert values["internal.dbms.bolt.netty_server_shutdown_quiet_period_duration"] == ["1s"]
    assert "internal.dbms.bolt.netty_server_shutdown_quiet_period" not in values


def test_log_config_files_are_named(tmp_path: Path) -> None:
    values = conf(tmp_path)
    conf_dir = tmp_path / "instances" / "t" / "conf"
    assert values["server.logs.config"] == [str(conf_dir / "server-logs.xml")]
    assert values["server.logs.user.config"] == [str(conf_dir / "user-logs.xml")]
    assert values["db.tx_log.rotation.retention_policy"]


def test_write_config_writes_conf_and_log_configs(tmp_path: Path) -> None:
    server = ManagedNeo4j(settings(tmp_path), "t")
    server.write_config()
    conf_dir = server.paths.conf
    assert (conf_dir / "neo4j.conf").read_text().startswith("# Written by beliefgraph")
    for name in ("server-logs.xml", "user-logs.xml"):
        text = (conf_dir / name).read_text()
        assert text.startswith('<?xml version="1.0"') and "server.directories.logs" in text
    for folder in ("data", "logs", "run", "plugins"):
        assert (server.paths.root / folder).is_dir()
    assert server.paths.root.stat().st_mode & 0o077 == 0


def test_java_command_runs_the_community_entry_point(tmp_path: Path) -> None:
    s = settings(tmp_path, neo4j_heap="512m")
    paths = instance_paths(s, "t")
    command = java_command(s, paths, java="/opt/jdk/bin/java", java_version=25)
    assert command[0] == "/opt/jdk/bin/java"
    assert "--add-modules=jdk.incubator.vector" in command
    assert "--sun-misc-unsafe-memory-access=allow" in command  # Java 23+ only
    assert "--sun-misc-unsafe-memory-access=allow" not in java_command(s, paths, java_version=21)
    assert "--add-opens=java.base/java.nio=ALL-UNNAMED" in command
    assert "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED" in command
    assert {"-Xms512m", "-Xmx512m"} <= set(command)
    assert command[command.index("-cp") + 1] == f"{paths.lib}/*"
    entry = command.index(ENTRY_POINT)
    assert command[entry + 1 :] == ["--home-dir", str(paths.root), "--config-dir", str(paths.conf)]
    # JVM options must come before the main class or Java passes them to Neo4j.
    assert all(not arg.startswith("-X") for arg in command[entry:])


def test_extra_jvm_flags_follow_the_defaults_and_a_collector_replaces_g1(tmp_path: Path) -> None:
    paths = instance_paths(settings(tmp_path), "t")
    plain = java_command(settings(tmp_path), paths)
    assert "-XX:+UseG1GC" in plain
    logged = settings(tmp_path, neo4j_jvm_flags=" -Xlog:gc:file=gc.log  -XX:+AlwaysPreTouch ")
    command = java_command(logged, paths)
    heap = plain.index("-Xmx1g") + 1
    assert command[:heap] == plain[:heap]  # the defaults, then the extras
    extras = command[heap : command.index("-cp")]
    assert extras == ["-Xlog:gc:file=gc.log", "-XX:+AlwaysPreTouch"]
    zgc = java_command(settings(tmp_path, neo4j_jvm_flags="-XX:+UseZGC"), paths)
    assert "-XX:+UseZGC" in zgc and "-XX:+UseG1GC" not in zgc


@pytest.mark.parametrize(
    "flags", ["gc.log", "-Xmx8g", "-Xms1g", "-cp /tmp/x", "-jar", "--class-path=/tmp"]
)
def test_jvm_flags_the_launcher_owns_are_refused(tmp_path: Path, flags: str) -> None:
    paths = instance_paths(settings(tmp_path), "t")
    with pytest.raises(InvalidInput, match="BELIEFGRAPH_NEO4J_JVM_FLAGS"):
        java_command(settings(tmp_path, neo4j_jvm_flags=flags), paths)


def test_password_never_appears_on_a_command_line(tmp_path: Path) -> None:
    s = settings(tmp_path)
    paths = instance_paths(s, "t")
    command = set_password_command(paths, paths.root / "args", java="java", java_version=25)
    assert command[-1] == f"@{paths.root / 'args'}"
    assert command[1] == "--sun-misc-unsafe-memory-access=allow"


def test_maven_gathers_runtime_jars_of_the_configured_version(tmp_path: Path) -> None:
    command = maven_command(Path("graph/server/pom.xml"), tmp_path, "5.26.31")
    assert command[:3] == ["mvn", "-q", "-B"]
    assert "dependency:copy-dependencies" in command
    assert f"-DoutputDirectory={tmp_path}" in command
    assert "-DincludeScope=runtime" in command
    assert "-Dneo4j.version=5.26.31" in command


@pytest.mark.parametrize("bad", ["1 g", "-1g", "lots", "1g; rm -rf /", ""])
@pytest.mark.parametrize("uri", ["", "bolt://127.0.0.1:7687"])
@pytest.mark.parametrize(
    ("setting", "env"),
    [("neo4j_heap", "BELIEFGRAPH_NEO4J_HEAP"), ("neo4j_pagecache", "BELIEFGRAPH_NEO4J_PAGECACHE")],
)
def test_a_bad_memory_size_names_the_setting(
    tmp_path: Path, bad: str, uri: str, setting: str, env: str
) -> None:
    # Refused when settings are read, whether or not this process manages a Neo4j: with
    # NEO4J_URI set (or a managed one already up) it was not checked until one started.
    env_vars = {"BELIEFGRAPH_HOME": str(tmp_path), "NEO4J_URI": uri}
    with pytest.raises(InvalidInput, match=f"{env}={bad!r}: use a size such as 512m"):
        Settings.from_env(env_vars, **{setting: bad})


@pytest.mark.parametrize("bad", ["../etc", "a/b", "", ".hidden", "x" * 65])
def test_instance_names_cannot_leave_the_instances_folder(tmp_path: Path, bad: str) -> None:
    with pytest.raises(InvalidInput):
        instance_paths(settings(tmp_path), bad)


@pytest.mark.parametrize(
    ("output", "major"),
    [
        ('openjdk version "17.0.15" 2025-04-15', 17),
        ('openjdk version "21" 2023-09-19', 21),
        ('java version "1.8.0_292"', 8),
        ("no java here", None),
    ],
)
def test_java_major(output: str, major: int | None) -> None:
    assert java_major(output) == major


def test_password_is_generated_once_into_a_private_file(tmp_path: Path) -> None:
    server = ManagedNeo4j(settings(tmp_path), "t")
    first = server.password()
    assert len(first) >= 32
    assert server.paths.password_file.stat().st_mode & 0o777 == 0o600
    assert ManagedNeo4j(settings(tmp_path), "t").password() == first


def test_a_lost_password_file_is_not_silently_replaced(tmp_path: Path) -> None:
    server = ManagedNeo4j(settings(tmp_path), "t")
    server.paths.system_database.mkdir(parents=True)
    with pytest.raises(Unavailable, match=r"neo4j\.password is missing"):
        server.password()


def test_a_taken_port_is_not_free() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        assert not port_free(sock.getsockname()[1])


def test_status_of_a_never_started_instance(tmp_path: Path) -> None:
    server = ManagedNeo4j(settings(tmp_path, neo4j_bolt_port=23687, neo4j_http_port=23474), "t")
    assert server.status() == ServerStatus(
        running=False,
        pid=None,
        bolt_uri="bolt://127.0.0.1:23687",
        browser_url="http://127.0.0.1:23474/browser/",
        answering=False,
    )
    assert server.stop() is False


def _tool(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + script + "\n", encoding="utf-8")
    path.chmod(0o755)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding only the fake tools a test puts there."""
    folder = tmp_path / "bin"
    folder.mkdir()
    monkeypatch.setenv("PATH", str(folder))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    return folder


JAVA_21 = "echo 'openjdk version \"21.0.5\" 2024-10-15' >&2"


def test_missing_java_says_what_to_install(tmp_path: Path, bin_dir: Path) -> None:
    with pytest.raises(Unavailable, match="needs Java 21 or later; found no Java at all"):
        ManagedNeo4j(settings(tmp_path), java_roots=[]).ensure_jars()


def test_old_java_is_refused(tmp_path: Path, bin_dir: Path) -> None:
    _tool(bin_dir, "java", "echo 'java version \"1.8.0_292\"' >&2")
    with pytest.raises(Unavailable, match=r"needs Java 21 or later; found .*\(Java 8\)"):
        ManagedNeo4j(settings(tmp_path), java_roots=[]).ensure_jars()


def test_missing_maven_says_what_to_install(tmp_path: Path, bin_dir: Path) -> None:
    _tool(bin_dir, "java", JAVA_21)
    with pytest.raises(Unavailable, match="Maven is needed"):
        ManagedNeo4j(settings(tmp_path)).ensure_jars()


def test_failing_maven_shows_its_output(tmp_path: Path, bin_dir: Path) -> None:
    _tool(bin_dir, "java", JAVA_21)
    _tool(bin_dir, "mvn", "echo 'Could not resolve org.neo4j:neo4j'; exit 1")
    server = ManagedNeo4j(settings(tmp_path))
    with pytest.raises(Unavailable, match=r"Could not resolve org\.neo4j:neo4j"):
        server.ensure_jars()
    assert not server.paths.lib.exists()
    assert list(server.paths.lib.parent.iterdir()) == []  # no half-finished download left


def test_maven_download_lands_in_the_lib_folder(tmp_path: Path, bin_dir: Path) -> None:
    _tool(bin_dir, "java", JAVA_21)
    # Fake mvn: create the jar in the -DoutputDirectory it is given.
    _tool(
        bin_dir,
        "mvn",
        'for a in "$@"; do case "$a" in -DoutputDirectory=*) '
        ': > "${a#-DoutputDirectory=}/neo4j-5.26.30.jar";; esac; done',
    )
    server = ManagedNeo4j(settings(tmp_path))
    assert server.ensure_jars() == server.paths.lib
    assert (server.paths.lib / "neo4j-5.26.30.jar").exists()
    assert [p.name for p in server.paths.lib.parent.iterdir()] == ["lib"]


def test_the_ports_a_running_instance_listens_on_are_read_from_its_conf(tmp_path: Path) -> None:
    s = settings(tmp_path, neo4j_bolt_port=7699, neo4j_http_port=7486)
    assert listening_ports(config_text(s, instance_paths(s, "t"))) == (7699, 7486)
    assert listening_ports("server.bolt.listen_address=127.0.0.1:7\n") is None


def test_a_database_that_failed_to_start_is_read_from_this_starts_debug_log(
    tmp_path: Path,
) -> None:
    """A corrupt store: Neo4j ran on with its database failed, and the start waited out its
    whole timeout, then blamed a slow machine; debug.log said why 6 s in."""
    server = ManagedNeo4j(settings(tmp_path), "t")
    debug = server.paths.logs / "debug.log"
    debug.parent.mkdir(parents=True, exist_ok=True)
    old = "2026-12-01 ERROR [o.n.d.d.DatabaseLifecycles] Failed to start DatabaseId{neo4j}\n"
    debug.write_text(old, encoding="utf-8")
    server._debug_from = debug.stat().st_size  # as a start records it
    assert server.failed_start() is None  # an earlier start's failure is not this one's
    with debug.open("a", encoding="utf-8") as log:
        log.write("2026-12-05 INFO  Starting...\n")
        log.write("2026-12-05 ERROR [o.n.d.d.DatabaseLifecycles] Failed to start DatabaseId{neo4j}")
        log.write("\njava.lang.RuntimeException: Failed to read current store version.\n")
        log.write(
            "\tat org.neo4j.kernel.database.AbstractDatabase.start(AbstractDatabase.java:1)\n"
        )
        log.write("Caused by: java.io.IOException: NeoStore is corrupt\n")
        log.write("2026-12-05 INFO  Remote interface available\n")
    failure = server.failed_start()
    assert failure is not None and "2026-12-01" not in failure
    assert "Failed to read current store version" in failure and "NeoStore is corrupt" in failure
    assert "AbstractDatabase" not in failure and "Remote interface" not in failure


def test_stopping_a_frozen_server_does_not_wait_out_the_timeout(tmp_path: Path) -> None:
    """A server frozen by SIGSTOP (a hang) takes SIGTERM only once continued: the stop sat out
    its whole timeout, then killed it."""
    server = ManagedNeo4j(settings(tmp_path), "t")
    frozen = subprocess.Popen(["sleep", "60"])
    server._process = frozen  # the server this object started
    server.paths.pid_file.parent.mkdir(parents=True, exist_ok=True)
    server.paths.pid_file.write_text(f"{frozen.pid}\n")
    os.kill(frozen.pid, signal.SIGSTOP)
    began = time.monotonic()
    assert server.stop(timeout=20.0)
    assert time.monotonic() - began < 5.0
    assert frozen.returncode == -signal.SIGTERM


@pytest.mark.parametrize("proc", [Path("/proc"), Path("/no/proc/here")])
def test_a_process_is_known_by_its_command_line_with_or_without_proc(proc: Path) -> None:
    """Without /proc (macOS) a pid counted as the server when it was alive: a pid file that
    outlived a reboot named another program, which `neo4j stop` then killed."""
    import subprocess
    import sys

    script = "import time; print('up', flush=True); time.sleep(30)"
    child = subprocess.Popen([sys.executable, "-c", script, "--config-dir"], stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"up\n"  # exec'd
        seen = command_line(child.pid, proc=proc)
        assert seen is not None and script in seen and "--config-dir" in seen
    finally:
        child.kill()
        child.communicate()  # reaped, its pipe closed
    assert command_line(child.pid, proc=proc) is None
