"""What makes a setting's value acceptable, checked once when settings are read: the words a
switch takes, the range a number must lie in, and the numbers that must be above 0. Every
refusal names the environment variable, so a bad deployment fails at start, not later with a
traceback."""

from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from graph.errors import InvalidInput

if TYPE_CHECKING:
    from graph.settings import Settings

# The sub-peer statements walk MEMBER_OF with this literal bound (Cypher takes no parameter
# there), so no setting may allow chains longer than it.
MAX_PEER_DEPTH_CAP = 32

CHOICES: dict[str, tuple[str, ...]] = {
    "auth": ("auto", "on", "off"),
    "worker": ("on", "off"),
    "message_passages": ("on", "off"),
    "dream_mode": ("auto", "rules", "llm", "off"),
}
# The managed Neo4j's memory sizes, as its JVM and page cache read them; checked whether or not
# this process starts that Neo4j (a bad one was first refused when it did, long after).
MEMORY_SIZE = re.compile(r"[1-9][0-9]*[kKmMgG]?")
MEMORY_SIZES = ("neo4j_heap", "neo4j_pagecache")
PORT = (1, 65535)
DAY = 86_400
# Inclusive bounds; every number is also finite and not negative.
RANGES: dict[str, tuple[float, float]] = {
    "port": PORT,
    "neo4j_bolt_port": PORT,
    "neo4j_http_port": PORT,
    "max_peer_depth": (1, MAX_PEER_DEPTH_CAP),
    "file_chunk_tokens": (16, 256),  # the embedding model reads at most 256 tokens
    # A summary of one word cannot say what was summarized (the extractive one fails below 2).
    "summary_short_words": (2, 10_000),
    "summary_long_words": (2, 10_000),
    "warmup_seconds": (0, 3600),
    "neo4j_answer_timeout": (0, 86_400),
    "job_retention_days": (0, 36_500),
    # Similarities: below a half, sentences on different subjects count as one (a dedup
    # threshold of 0 merged every new belief stating no number into an older one).
    "dedup_threshold": (0.5, 1),
    "dream_similarity": (0.5, 1),
    # Waits a request or a call may hold: a day at most.
    "neo4j_timeout": (0, DAY),
    "neo4j_start_timeout": (0, DAY),
    "dialectic_tool_seconds": (0, DAY),
    "job_lease": (0, DAY),
    # What one process or request may take of the machine.
    "worker_concurrency": (1, 256),
    "max_request_bytes": (1, 2**30),
    "embedding_batch_size": (1, 4096),
    "max_page_size": (1, 10_000),
    "max_batch": (1, 10_000),
}
# Any other time: at most this (ten years, in seconds): a time past it overflowed the date
# arithmetic of every request that scheduled work (BELIEFGRAPH_DERIVER_MAX_AGE=1e12). Any other
# count or size: at most COUNT_CEILING.
CEILING = 315_360_000
COUNT_CEILING = 10_000_000
# Numbers where 0 would mean nothing works (0 may mean "at once" or "never" elsewhere).
POSITIVE = (
    "neo4j_timeout",
    "neo4j_start_timeout",
    "dialectic_tool_seconds",
    "embedding_batch_size",
    "max_query_depth",
    "max_query_tokens",
    "max_request_bytes",
    "max_metadata_bytes",
    "job_lease",
    "max_page_size",
    "max_batch",
    "max_aggregation_peers",
    "max_message_chars",
    "max_file_chars",
    "max_files_per_peer",
    "embedding_dim",
    "deriver_token_target",
    "deriver_batch_tokens",
    "summary_short_every",
    "summary_long_every",
    "worker_concurrency",
    "job_max_attempts",
    "restructure_batch",
    "purge_batch",
    "dream_batch",
    "dream_iterations",
)


def env_name(name: str) -> str:
    """A setting's environment variable."""
    from graph.settings import Settings

    return str(next(f for f in dataclasses.fields(Settings) if f.name == name).metadata["env"])


def _fmt(bound: float) -> str:
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def check(settings: Settings) -> None:
    """Raise InvalidInput for the first unacceptable value, naming its variable."""
    for name, allowed in CHOICES.items():
        value = getattr(settings, name)
        if value not in allowed:
            words = ", ".join(allowed[:-1]) + f" or {allowed[-1]}"
            raise InvalidInput(f"{env_name(name)} must be {words}, not {value!r}")
    for f in dataclasses.fields(settings):
        number: Any = getattr(settings, f.name)
        if isinstance(number, bool) or not isinstance(number, int | float):
            continue
        # NaN and infinity parse as floats and failed later, with a traceback. A number with
        # a range of its own is told that range (below).
        ranged = f.name in RANGES
        if not math.isfinite(number) or (number < 0 and not ranged):
            floor = "" if ranged else " from 0"
            raise InvalidInput(f"{f.metadata['env']} must be a finite number{floor}, not {number}")
        ceiling = COUNT_CEILING if isinstance(f.default, int) else CEILING
        if f.name not in RANGES and number > ceiling:
            raise InvalidInput(f"{f.metadata['env']} must be at most {ceiling:,}, not {number:g}")
    for name, (low, high) in RANGES.items():
        value = getattr(settings, name)
        if name in POSITIVE and low == 0 and not 0 < value <= high:
            raise InvalidInput(f"{env_name(name)} must be more than 0 and at most {_fmt(high)}")
        if not low <= value <= high:
            what = "a port, " if (low, high) == PORT else "between "
            joiner = " to " if (low, high) == PORT else " and "
            raise InvalidInput(f"{env_name(name)} must be {what}{_fmt(low)}{joiner}{_fmt(high)}")
    for name in POSITIVE:
        if getattr(settings, name) <= 0:
            raise InvalidInput(f"{env_name(name)} must be positive, not {getattr(settings, name)}")
    for name in MEMORY_SIZES:
        size = getattr(settings, name)
        if not MEMORY_SIZE.fullmatch(size):
            raise InvalidInput(f"{env_name(name)}={size!r}: use a size such as 512m or 2g")
    if settings.neo4j_uri:
        parsed = _neo4j_uri(settings.neo4j_uri)
        if parsed is not None:
            raise InvalidInput(f"NEO4J_URI={settings.neo4j_uri!r}: {parsed}")
    registry = _http_url(settings.npm_registry)
    if registry is not None:
        # Checked when GraphiQL's files were first fetched, with a traceback.
        raise InvalidInput(f"BELIEFGRAPH_NPM_REGISTRY={settings.npm_registry!r}: {registry}")
    if settings.home and not settings.home_path.is_absolute():
        # Relative, it was read against whatever folder a command ran in (a checkout).
        raise InvalidInput(f"BELIEFGRAPH_HOME must be an absolute path, not {settings.home!r}")
    if not settings.neo4j_database.strip():
        raise InvalidInput("NEO4J_DATABASE must name a database (default neo4j), not be empty")
    if settings.managed:
        # One port for two listeners: the second to start failed, with the first's name.
        ports = {"port": settings.port, "neo4j_bolt_port": settings.neo4j_bolt_port}
        ports["neo4j_http_port"] = settings.neo4j_http_port
        if len(set(ports.values())) < len(ports):
            named = ", ".join(f"{env_name(n)}={p}" for n, p in ports.items())
            raise InvalidInput(f"{named}: the API and the managed Neo4j need three ports")
    if settings.auth == "off" and not settings.loopback:
        raise InvalidInput(
            "BELIEFGRAPH_AUTH=off is only allowed when BELIEFGRAPH_HOST is a loopback address"
        )
    if settings.auth_enabled and len(settings.auth_secret.strip()) < 32:
        why = ""
        if settings.auth == "auto":
            why = (
                " (BELIEFGRAPH_AUTH=auto turns it on for an API reachable from elsewhere: bound "
                "to an address that is not loopback, or answering to a public name in "
                "BELIEFGRAPH_ALLOWED_HOSTS)"
            )
        raise InvalidInput(
            f"auth is on{why}: set BELIEFGRAPH_AUTH_SECRET to a random string of 32+ characters"
        )


def _http_url(url: str) -> str | None:
    """What is wrong with an http(s) URL, None if nothing."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        return f"not a URL ({exc})"
    if parts.scheme not in ("http", "https"):
        return "it must be an http:// or https:// URL"
    if not parts.hostname:
        return "it names no host"
    return None if port is None or 0 < port < 65536 else "its port is out of range"


NEO4J_SCHEMES = ("bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc")


def _neo4j_uri(uri: str) -> str | None:
    """What is wrong with a Neo4j URI, None if nothing: a bad one failed start-up in the
    driver's traceback."""
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError as exc:
        return f"not a URI the driver reads ({exc})"
    if parts.scheme not in NEO4J_SCHEMES:
        return f"the scheme must be one of {', '.join(NEO4J_SCHEMES)}"
    if not parts.hostname:
        return "it names no host"
    if parts.username is not None or parts.password is not None:
        return "a user goes in NEO4J_USER and NEO4J_PASSWORD, not in the URI"
    # A neo4j:// URI may carry a routing context (?policy=x, each key once, with a value); a
    # path is ignored by the driver.
    if parts.fragment:
        return "it takes no fragment"
    if parts.query:
        if not parts.scheme.startswith("neo4j"):
            return "only a neo4j:// URI takes a routing context (?key=value)"
        pairs = [p.partition("=") for p in parts.query.split("&")]
        keys = [k for k, _, _ in pairs]
        if any(not k or not v for k, _, v in pairs) or len(set(keys)) < len(keys):
            return "its routing context must give each key once, with a value"
    return None if port is None or 0 < port < 65536 else "its port is out of range"
