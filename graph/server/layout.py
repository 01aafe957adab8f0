"""Where a managed Neo4j instance lives and how it is configured and launched (pure).

Paths of an instance, the `neo4j.conf` and log configuration texts, and the java / Maven
command lines: no process is started here, so all of it is unit-tested without a server.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from graph.errors import InvalidInput
from graph.settings import Settings
from graph.settings_checks import MEMORY_SIZE

ENTRY_POINT = "org.neo4j.server.Neo4jCommunity"
# The entry point of the 5.x servers this project managed before: recognized so that a server
# still running from before an upgrade is found, stopped and reported, never started twice.
LEGACY_ENTRY_POINT = "org.neo4j.server.CommunityEntryPoint"
ADMIN_TOOL = "org.neo4j.cli.AdminTool"
# The initial admin user of every fresh Neo4j; `set-initial-password` sets its password.
ADMIN_USER = "neo4j"
MIN_JAVA = 21  # Neo4j 2025+ is compiled for Java 21

# The JVM flags of Neo4j's default neo4j.conf (`server.jvm.additional`), which its own launcher
# passes; the entry point does not read them, so we pass them. The --add-opens flags let Neo4j
# reach NIO buffers. Left out: -XX:+AlwaysPreTouch (touches the whole heap up front, slowing
# every start of a dev server). Added: exit on OOM so `status` notices, and the incubating
# Vector API, which Lucene uses for vector search (an index builds ~3x faster with it).
DEFAULT_COLLECTOR = "-XX:+UseG1GC"
JVM_FLAGS: tuple[str, ...] = (
    DEFAULT_COLLECTOR,
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-XX:FlightRecorderOptions=stackdepth=256",
    "-XX:+UnlockDiagnosticVMOptions",
    "-XX:+DebugNonSafepoints",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
    "-Dlog4j2.disable.jmx=true",
    "-Dlog4j.layout.jsonTemplate.maxStringLength=32768",
    "-Dfile.encoding=UTF-8",
    "--add-modules=jdk.incubator.vector",
)
# Java 23+ warns at every start that Neo4j uses sun.misc.Unsafe; Neo4j's own launcher allows it.
UNSAFE_FLAG = "--sun-misc-unsafe-memory-access=allow"
UNSAFE_FLAG_FROM = 23

_COLLECTOR = re.compile(r"-XX:\+Use\w+GC")
# Set by the settings of their own (heap) or by the launcher (class path, entry point).
_OWNED_FLAGS = re.compile(r"-X(ms|mx)\S*|-cp|-classpath|--class-path\S*|-jar")
_INSTANCE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
# Characters that survive picocli's @argfile parsing unquoted (the password travels in one).
PASSWORD_PATTERN = re.compile(r"[A-Za-z0-9_.~+=!%^*,:-]{8,256}")
_JAVA_VERSION = re.compile(r'version "(\d+)(?:\.(\d+))?')

# Log4j2 configs; `${config:...}` is Neo4j's lookup of its own settings, so the files name no
# paths. The debug log takes everything; the user log is the short start/stop story.
_LOGS_DIR = "${config:server.directories.logs}"
_PLAIN = "%d{yyyy-MM-dd HH:mm:ss.SSSZ}{GMT+0} %-5p %m%n"
_DEBUG = "%d{yyyy-MM-dd HH:mm:ss.SSSZ}{GMT+0} %-5p [%c{1.}] %m%n"


def _appender(name: str, file: str, layout: str = "PatternLayout", pattern: str = _PLAIN) -> str:
    """A size-rolled file appender: 20 MB a file, 3 kept."""
    return f"""\
    <RollingRandomAccessFile name="{name}" fileName="{_LOGS_DIR}/{file}"
        filePattern="${_LOGS_DIR}/{file}.%02i">
      <{layout} pattern="{pattern}"/>
      <Policies><SizeBasedTriggeringPolicy size="20 MB"/></Policies>
      <DefaultRolloverStrategy fileIndex="min" max="3"/>
    </RollingRandomAccessFile>
"""


def _log_config(appenders: list[str], loggers: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<!-- Written by beliefgraph (graph/server); rewritten on every start. -->\n"
        '<Configuration status="ERROR">\n  <Appenders>\n'
        + "".join(appenders)
        + "  </Appenders>\n  <Loggers>\n"
        + loggers
        + "  </Loggers>\n</Configuration>\n"
    )


def _logger(name: str, appender: str) -> str:
    return (
        f'    <Logger name="{name}" level="INFO" additivity="false">\n'
        f'      <AppenderRef ref="{appender}"/>\n    </Logger>\n'
    )


SERVER_LOGS_XML = _log_config(
    [
        _appender("DebugLog", "debug.log", "Neo4jDebugLogLayout", _DEBUG),
        _appender("QueryLog", "query.log"),
        _appender("HttpLog", "http.log"),
        _appender("SecurityLog", "security.log"),
    ],
    '    <Root level="INFO"><AppenderRef ref="DebugLog"/></Root>\n'
    + _logger("QueryLogger", "QueryLog")
    + _logger("HttpLogger", "HttpLog")
    + _logger("SecurityLogger", "SecurityLog"),
)
USER_LOGS_XML = _log_config(
    [_appender("UserLog", "neo4j.log")],
    '    <Root level="INFO"><AppenderRef ref="UserLog"/></Root>\n',
)


@dataclass(frozen=True)
class InstancePaths:
    """Where one managed instance keeps its files."""

    lib: Path
    root: Path

    @property
    def conf(self) -> Path:
        return self.root / "conf"

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    @property
    def run(self) -> Path:
        return self.root / "run"

    @property
    def plugins(self) -> Path:
        return self.root / "plugins"

    @property
    def password_file(self) -> Path:
        return self.root / "neo4j.password"

    @property
    def pid_file(self) -> Path:
        return self.run / "server.pid"

    @property
    def neo4j_pid_file(self) -> Path:
        """The pid file Neo4j itself writes (and removes on a clean stop)."""
        return self.run / "neo4j.pid"

    @property
    def console_log(self) -> Path:
        return self.logs / "console.log"

    @property
    def system_database(self) -> Path:
        """Exists once the server has started at least once (the password is then fixed)."""
        return self.data / "databases" / "system"


@dataclass(frozen=True)
class ServerStatus:
    running: bool
    pid: int | None
    bolt_uri: str
    browser_url: str
    answering: bool


def instance_paths(settings: Settings, instance: str = "default") -> InstancePaths:
    if not _INSTANCE_NAME.fullmatch(instance):
        raise InvalidInput(
            f"instance name {instance!r}: use letters, digits, '_', '.' or '-' (at most 64)"
        )
    home = settings.home_path.expanduser().absolute()
    return InstancePaths(
        lib=home / f"neo4j-{settings.neo4j_version}" / "lib",
        root=home / "instances" / instance,
    )


def env_name(setting: str) -> str:
    """The environment variable behind a Settings field, for messages that say what to change."""
    for f in dataclasses.fields(Settings):
        if f.name == setting:
            return str(f.metadata["env"])
    raise KeyError(setting)


def _memory(settings: Settings, setting: str) -> str:
    value = str(getattr(settings, setting))
    if not MEMORY_SIZE.fullmatch(value):
        raise InvalidInput(f"{env_name(setting)}={value!r}: use a size such as 512m or 2g")
    return value


def listening_ports(conf: str) -> tuple[int, int] | None:
    """The (Bolt, HTTP) ports a neo4j.conf from `config_text` listens on; None if it names
    neither (pure)."""
    found: dict[str, int] = {}
    for line in conf.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("server.bolt.listen_address", "server.http.listen_address"):
            port = value.strip().rsplit(":", 1)[-1]
            if port.isdigit():
                found[key.strip().split(".")[1]] = int(port)
    if "bolt" not in found or "http" not in found:
        return None
    return found["bolt"], found["http"]


def config_text(settings: Settings, paths: InstancePaths) -> str:
    """The neo4j.conf of a managed instance."""
    heap = _memory(settings, "neo4j_heap")
    pagecache = _memory(settings, "neo4j_pagecache")
    bolt = f"127.0.0.1:{settings.neo4j_bolt_port}"
    http = f"127.0.0.1:{settings.neo4j_http_port}"
    app = settings.browser_app_url
    app_host = app.split("://", 1)[1].rsplit(":", 1)[0].strip("[]").lower()
    lines = [
        "# Written by beliefgraph (graph/server) on every start; edits here are overwritten.",
        "# Loopback only: the managed server is for this machine.",
        "server.default_listen_address=127.0.0.1",
        "server.default_advertised_address=127.0.0.1",
        "server.bolt.enabled=true",
        f"server.bolt.listen_address={bolt}",
        # Neo4j Browser connects to the advertised Bolt address, which otherwise stays :7687.
        f"server.bolt.advertised_address={bolt}",
        "server.http.enabled=true",
        f"server.http.listen_address={http}",
        f"server.http.advertised_address={http}",
        "server.https.enabled=false",
        "dbms.security.auth_enabled=true",
        "dbms.security.auth_minimum_password_length=8",
        # Nothing in beliefgraph reads local files through Cypher.
        "dbms.security.allow_csv_import_from_file_urls=false",
        "dbms.usage_report.enabled=false",
        # Community has one user database; name it what the app asks for.
        f"initial.dbms.default_database={settings.neo4j_database}",
        f"server.memory.heap.initial_size={heap}",
        f"server.memory.heap.max_size={heap}",
        f"server.memory.pagecache.size={pagecache}",
        f"server.directories.lib={paths.lib}",
        f"server.directories.data={paths.data}",
        f"server.directories.logs={paths.logs}",
        f"server.directories.run={paths.run}",
        f"server.directories.plugins={paths.plugins}",
        f"server.logs.config={paths.conf / 'server-logs.xml'}",
        f"server.logs.user.config={paths.conf / 'user-logs.xml'}",
        # A dev server needs no point-in-time recovery: keep little transaction log.
        "db.tx_log.rotation.size=25M",
        "db.tx_log.rotation.retention_policy=100M size",
        # Bolt's netty loops otherwise idle 5 s each on shutdown, making every stop take 10 s.
        "internal.dbms.bolt.netty_server_shutdown_quiet_period_duration=1s",
        # A loopback dev server phones nobody home and trusts no proxy headers.
        "dbms.fleet_manager.enabled=false",
        "server.fleet_discovery.enabled=false",
        "server.http.x_forward.enabled=false",
        "client.allow_telemetry=false",
        # New databases speak Cypher 25 (statements also say so themselves, for older stores).
        "db.query.default_language=CYPHER_25",
        # Neo4j Browser may fetch beliefgraph's guide and style (served by the API), and loads
        # both once connected: beliefs captioned with their text, peers with their names.
        "browser.remote_content_hostname_whitelist=guides.neo4j.com,"
        + ",".join(dict.fromkeys(["localhost", app_host])),
        f"browser.post_connect_cmd=style {app}/browser/style.grass; play {app}/browser/guide.html",
    ]
    return "\n".join(lines) + "\n"


def version_flags(java_version: int) -> list[str]:
    return [UNSAFE_FLAG] if java_version >= UNSAFE_FLAG_FROM else []


def extra_jvm_flags(settings: Settings) -> list[str]:
    """BELIEFGRAPH_NEO4J_JVM_FLAGS, checked: options only, none that the launcher sets."""
    flags = settings.neo4j_jvm_flags.split()
    for flag in flags:
        if not flag.startswith("-") or _OWNED_FLAGS.fullmatch(flag):
            raise InvalidInput(
                f"BELIEFGRAPH_NEO4J_JVM_FLAGS: {flag!r} is not allowed (JVM options only; the "
                "heap has BELIEFGRAPH_NEO4J_HEAP, and the class path and entry point are fixed)"
            )
    return flags


def java_command(
    settings: Settings, paths: InstancePaths, java: str = "java", java_version: int = MIN_JAVA
) -> list[str]:
    """The command that runs the server in the foreground (the caller detaches it)."""
    heap = _memory(settings, "neo4j_heap")
    extra = extra_jvm_flags(settings)
    collector_chosen = any(_COLLECTOR.fullmatch(flag) for flag in extra)
    return [
        java,
        *(f for f in JVM_FLAGS if not (collector_chosen and f == DEFAULT_COLLECTOR)),
        *version_flags(java_version),
        f"-Xms{heap}",
        f"-Xmx{heap}",
        *extra,
        "-cp",
        f"{paths.lib}/*",
        ENTRY_POINT,
        "--home-dir",
        str(paths.root),
        "--config-dir",
        str(paths.conf),
    ]


def set_password_command(
    paths: InstancePaths, argfile: Path, java: str = "java", java_version: int = MIN_JAVA
) -> list[str]:
    """`neo4j-admin dbms set-initial-password`, run in-process by AdminTool.

    The arguments come from a 0600 @argfile so the password never shows in `ps`.
    """
    flags = version_flags(java_version)
    return [java, *flags, "-Xmx256m", "-cp", f"{paths.lib}/*", ADMIN_TOOL, f"@{argfile}"]


def admin_env(paths: InstancePaths, base: Mapping[str, str]) -> dict[str, str]:
    """AdminTool finds the instance through these variables, as the neo4j-admin script sets them."""
    env = dict(base)
    env["NEO4J_HOME"] = str(paths.root)
    env["NEO4J_CONF"] = str(paths.conf)
    return env


def maven_command(pom: Path, output: Path, version: str) -> list[str]:
    return [
        "mvn",
        "-q",
        "-B",
        "-f",
        str(pom),
        "dependency:copy-dependencies",
        f"-DoutputDirectory={output}",
        "-DincludeScope=runtime",
        f"-Dneo4j.version={version}",
    ]


def java_major(version_output: str) -> int | None:
    """The feature release from `java -version` output (1.8 -> 8, 17.0.15 -> 17)."""
    match = _JAVA_VERSION.search(version_output)
    if match is None:
        return None
    major = int(match.group(1))
    if major == 1 and match.group(2) is not None:
        return int(match.group(2))
    return major


def has_jars(lib: Path) -> bool:
    return lib.is_dir() and any(lib.glob("neo4j-*.jar"))
