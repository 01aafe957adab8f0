"""Settings from the environment: each bad value refused at start, naming its variable."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from graph.errors import InvalidInput
from graph.settings import Settings
from resolvers import cli
from resolvers.runtime import neo4j_password

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(
    ("env", "value", "says"),
    [
        # NaN and infinity parse as floats and failed later, with a traceback from the worker
        # or the driver; a negative lease started a worker that dropped every unit it claimed.
        ("BELIEFGRAPH_JOB_LEASE", "nan", "finite"),
        ("BELIEFGRAPH_NEO4J_TIMEOUT", "inf", "finite"),
        ("BELIEFGRAPH_JOB_LEASE", "0", "more than 0 and at most 86400"),
        ("BELIEFGRAPH_JOB_LEASE", "-1", "more than 0 and at most 86400"),
        ("BELIEFGRAPH_JOB_BACKOFF", "-5", "from 0"),
        # Port 70000 was taken as 4464 (uvicorn's modulo), while the log said 70000.
        ("BELIEFGRAPH_PORT", "70000", "1 to 65535"),
        ("BELIEFGRAPH_NEO4J_BOLT_PORT", "0", "1 to 65535"),
        ("BELIEFGRAPH_DEDUP_THRESHOLD", "1.5", "between 0.5 and 1"),
        ("BELIEFGRAPH_DEDUP_THRESHOLD", "0", "between 0.5 and 1"),
        ("BELIEFGRAPH_DEDUP_THRESHOLD", "-1", "between 0.5 and 1"),  # its range, not "from 0"
        ("BELIEFGRAPH_MAX_REQUEST_BYTES", "0", "between 1 and 1073741824"),
        ("BELIEFGRAPH_MAX_QUERY_DEPTH", "-1", "from 0"),
        ("BELIEFGRAPH_EMBEDDING_BATCH", "0", "between 1 and 4096"),
        ("BELIEFGRAPH_SUMMARY_SHORT_WORDS", "0", "between 2 and 10000"),
        # One word passed, and every summary job of the extractive summarizer failed.
        ("BELIEFGRAPH_SUMMARY_LONG_WORDS", "1", "between 2 and 10000"),
        ("BELIEFGRAPH_MAX_BATCH", "0", "between 1 and 10000"),
        ("BELIEFGRAPH_DERIVER_MAX_AGE", "1e12", "at most 315,360,000"),
        ("BELIEFGRAPH_DREAM_IDLE", "1e10", "at most 315,360,000"),
        ("BELIEFGRAPH_MAX_QUERY_DEPTH", "300000000", "at most 10,000,000"),
        ("BELIEFGRAPH_WORKER_CONCURRENCY", "100000", "between 1 and 256"),
        ("BELIEFGRAPH_NEO4J_TIMEOUT", "1e300", "more than 0 and at most 86400"),
        ("BELIEFGRAPH_MAX_REQUEST_BYTES", "2000000000", "between 1 and 1073741824"),
        ("NEO4J_DATABASE", " ", "must name a database"),
        # Read when GraphiQL's files were first fetched: a traceback.
        ("BELIEFGRAPH_NPM_REGISTRY", "notaurl", "an http:// or https:// URL"),
        ("BELIEFGRAPH_NPM_REGISTRY", "ftp://registry.example", "an http:// or https:// URL"),
        ("BELIEFGRAPH_NPM_REGISTRY", "https://", "names no host"),
        ("BELIEFGRAPH_NPM_REGISTRY", "https://[::1", "not a URL"),
        ("BELIEFGRAPH_NPM_REGISTRY", "http://registry.example:99999", "not a URL"),
        ("BELIEFGRAPH_NPM_REGISTRY", "http://registry.example:0", "its port is out of range"),
        ("BELIEFGRAPH_HOME", "relative/home", "must be an absolute path"),
        ("NEO4J_URI", "nonsense://foo", "the scheme must be one of"),
        ("NEO4J_URI", "bolt://[::1", "not a URI the driver reads"),
        ("NEO4J_URI", "bolt://127.0.0.1:abc", "not a URI the driver reads"),
        ("NEO4J_URI", "bolt://127.0.0.1:7687?x=1", "only a neo4j:// URI takes a routing"),
        ("NEO4J_URI", "neo4j+s://user@db.example.com", "a user goes in NEO4J_USER"),
        ("NEO4J_URI", "neo4j://db.example.com?policy=", "each key once, with a value"),
        ("NEO4J_URI", "neo4j://db.example.com?a=1&a=2", "each key once, with a value"),
        ("BELIEFGRAPH_NEO4J_TIMEOUT", "0", "more than 0 and at most 86400"),
        ("BELIEFGRAPH_NEO4J_HTTP_PORT", "7687", "need three ports"),
        ("BELIEFGRAPH_PORT", "7474", "need three ports"),
        ("BELIEFGRAPH_AUTH", "maybe", "auto, on or off, not 'maybe'"),
        ("BELIEFGRAPH_DREAM_MODE", "dreamy", "auto, rules, llm or off"),
        ("BELIEFGRAPH_MESSAGE_PASSAGES", "yes", "on or off"),
        ("BELIEFGRAPH_MAX_PEER_DEPTH", "40", "between 1 and 32"),
        ("BELIEFGRAPH_MAX_PEER_DEPTH", "0", "between 1 and 32"),
        ("BELIEFGRAPH_FILE_CHUNK_TOKENS", "8", "between 16 and 256"),
        ("BELIEFGRAPH_WARMUP_SECONDS", "4000", "between 0 and 3600"),
        ("BELIEFGRAPH_DREAM_SIMILARITY", "1.5", "between 0.5 and 1"),
        ("BELIEFGRAPH_DREAM_SIMILARITY", "0.49", "between 0.5 and 1"),
    ],
)
def test_a_bad_number_is_refused_naming_its_variable(env: str, value: str, says: str) -> None:
    with pytest.raises(InvalidInput, match=re.escape(env) + ".*" + re.escape(says)):
        Settings.from_env({env: value})


def test_zero_stays_allowed_where_it_means_at_once_or_never() -> None:
    settings = Settings.from_env(
        {
            "BELIEFGRAPH_DREAM_THRESHOLD": "0",
            "BELIEFGRAPH_DERIVER_MAX_AGE": "0",
            "BELIEFGRAPH_JOB_BACKOFF": "0",
            "BELIEFGRAPH_WARMUP_SECONDS": "0",
        }
    )
    assert (settings.dream_threshold, settings.deriver_max_age) == (0, 0.0)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["worker", "--concurrency", "-1"], "--concurrency must be at least 1"),
        (["worker", "--concurrency", "0"], "--concurrency must be at least 1"),
        # A name no workspace can have started a worker that never claimed anything.
        (["worker", "--workspace", "bad name!"], "--workspace"),
        (["worker", "--workspace", ""], "--workspace"),
        # The default scope is admin: `--workspace w` alone issued an admin key.
        (["key", "--workspace", "acme"], "admin key takes no workspace"),
        (["key", "--scope", "workspace", "--workspace", "w", "--peer", "p"], "takes no peer"),
    ],
)
def test_the_command_line_refuses_what_it_would_misread(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BELIEFGRAPH_AUTH_SECRET", "s" * 32)
    assert cli.main(argv) == 1
    assert says in capsys.readouterr().err


def test_a_misspelt_variable_is_named() -> None:
    env = {
        "BELIEFGRAPH_AUTH_SECRT": "x",  # the typo
        "BELIEFGRAPH_AUTH_SECRET": "y",
        "BELIEFGRAPH_LLM_MODEL_DERIVER": "m",  # read by the LLM's own configuration
        "BELIEFGRAPH_TEST_KEEP_NEO4J": "1",
        "HOME": "/root",
    }
    assert cli.unknown_variables(env) == ["BELIEFGRAPH_AUTH_SECRT"]


@pytest.mark.parametrize(
    ("env", "value", "says"),
    [
        # serve died in a traceback from the server's start-up, not naming the variable.
        ("BELIEFGRAPH_DIALECTIC_LEVELS", "bogus", "BELIEFGRAPH_DIALECTIC_LEVELS: 'bogus'"),
        ("BELIEFGRAPH_DIALECTIC_LEVELS", "huge=3", "BELIEFGRAPH_DIALECTIC_LEVELS: unknown"),
        # With no endpoint configured, LLM values were never read: wrong, silently.
        ("BELIEFGRAPH_LLM_TIMEOUT", "abc", "BELIEFGRAPH_LLM_TIMEOUT='abc'"),
        ("BELIEFGRAPH_LLM_MODE", "foo", "LLM mode must be one of"),
        ("BELIEFGRAPH_LLM_MODEL_DERIVR", "m", "BELIEFGRAPH_LLM_MODEL_DERIVR names no role"),
        # Refused once Neo4j had started and the model loaded, in a traceback.
        ("BELIEFGRAPH_DREAM_MODE", "llm", "BELIEFGRAPH_DREAM_MODE=llm needs an LLM endpoint"),
    ],
)
def test_serve_refuses_a_bad_value_before_it_starts(
    env: str,
    value: str,
    says: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("BELIEFGRAPH_LLM_BASE_URL", "BELIEFGRAPH_LLM_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(env, value)
    assert cli.main(["serve", "--no-neo4j"]) == 1
    assert says in capsys.readouterr().err


def test_serve_refuses_a_taken_port_before_it_starts_anything(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found 25 s later, when uvicorn bound it, after Neo4j, the model and the worker."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        monkeypatch.setenv("BELIEFGRAPH_PORT", str(taken.getsockname()[1]))
        assert cli.main(["serve", "--no-neo4j"]) == 1
    assert "is taken by another program" in capsys.readouterr().err


def test_the_managed_server_keeps_its_own_password(tmp_path: Path) -> None:
    """A NEO4J_PASSWORD meant for another server was used against the managed one: every
    connection failed authentication."""
    managed = Settings.from_env({"BELIEFGRAPH_HOME": str(tmp_path), "NEO4J_PASSWORD": "other"})
    generated = neo4j_password(managed)
    assert generated != "other" and generated == neo4j_password(managed)
    own = Settings.from_env({"NEO4J_URI": "bolt://db:7687", "NEO4J_PASSWORD": "other"})
    assert neo4j_password(own) == "other"


@pytest.mark.parametrize(
    ("hosts", "on"),
    [
        ("", False),
        ("localhost, 127.0.0.1,::1", False),
        ("127.0.0.2", False),
        ("LOCALHOST,LocalHost", False),  # host names have no case
        ("127.proxy.example.com", True),  # a name, not an address
        ("memory.example.com", True),
        ("localhost,memory.example.com", True),
        ("*", True),
    ],
)
def test_auth_auto_turns_on_for_a_public_name_behind_a_proxy(hosts: str, on: bool) -> None:
    """A proxy on this machine forwards the world to 127.0.0.1: listing its public name left
    auth off, and the API open to anyone, as admin."""
    secret = {"BELIEFGRAPH_AUTH_SECRET": "s" * 32}
    settings = Settings.from_env({"BELIEFGRAPH_ALLOWED_HOSTS": hosts, **secret})
    assert settings.auth_enabled is on
    if on:
        with pytest.raises(InvalidInput, match="a public name in BELIEFGRAPH_ALLOWED_HOSTS"):
            Settings.from_env({"BELIEFGRAPH_ALLOWED_HOSTS": hosts})
    # Off when the operator says so (a proxy that authenticates on its own).
    off = Settings.from_env({"BELIEFGRAPH_ALLOWED_HOSTS": hosts, "BELIEFGRAPH_AUTH": "off"})
    assert not off.auth_enabled


def test_serve_ends_a_failed_start_up_with_the_errors_line(tmp_path: Path) -> None:
    """Neo4j not answering at NEO4J_URI: serve printed uvicorn's traceback of its lifespan and
    exited 3 (the worker printed one line and exited 1), and told to run `neo4j start`."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with socket.socket() as api:
        api.bind(("127.0.0.1", 0))
        api_port = api.getsockname()[1]
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
        "BELIEFGRAPH_HOME": str(tmp_path),
        "NEO4J_URI": f"bolt://127.0.0.1:{port}",
        "NEO4J_PASSWORD": "x",
        "BELIEFGRAPH_PORT": str(api_port),
        "BELIEFGRAPH_NEO4J_TIMEOUT": "1",
        "BELIEFGRAPH_NPM_REGISTRY": "http://127.0.0.1:9",
    }
    done = subprocess.run(
        [sys.executable, "-m", "resolvers.cli", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr[-2000:]
    assert "error [UNAVAILABLE]: Neo4j at bolt://127.0.0.1:" in done.stderr
    assert "it does not answer" in done.stderr
    assert "check NEO4J_URI" in done.stderr
    assert "Traceback" not in done.stderr, done.stderr[-2000:]


def test_a_secret_of_spaces_is_no_secret() -> None:
    with pytest.raises(InvalidInput, match="BELIEFGRAPH_AUTH_SECRET"):
        Settings.from_env({"BELIEFGRAPH_AUTH": "on", "BELIEFGRAPH_AUTH_SECRET": " " * 40})


@pytest.mark.parametrize(
    "uri",
    [
        "bolt://localhost",
        "neo4j+s://db.example.com:7687/?policy=eu",
        "bolt://[::1]:7687",
        "BOLT://localhost:7687/neo4j",
    ],
)
def test_a_neo4j_uri_the_driver_reads_is_taken(uri: str) -> None:
    assert Settings.from_env({"NEO4J_URI": uri}).neo4j_uri == uri


def test_a_home_under_the_users_folder_may_say_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    assert str(Settings.from_env({"BELIEFGRAPH_HOME": "~/memory"}).home_path) == (
        "/home/someone/memory"
    )
