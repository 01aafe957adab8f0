"""The synthetic message corpus of `bench api --synthetic` (pure: numpy, no I/O).

One workspace of messages spread over `sessions` sessions and `peers` peers, both of Zipf sizes
(`tests/bench/synthetic.scope_sizes`: half dormant with a 1-50 handful, half active sharing the
rest by rank^-1). Each session is a cluster of the shared topic space (its own topics, facets of
messages saying the same thing), so a session's messages are near each other; the speaker of
each message is drawn independently, so a peer's messages spread over the sessions it spoke
in. Content: the speaker's name, a verb and the topic and facet keywords of the message (pseudo
words), so fulltext finds facets and topics. Grown through ascending sizes: the messages added
for a size interleave the sessions and peers in a seeded shuffle, as live traffic would.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from graph.keys import peer_key, session_key, workspace_key
from tests.bench.synthetic import (
    BUCKETS,
    DIM,
    Cluster,
    Matrix,
    TopicSpace,
    Vector,
    bucket_of,
    scope_sizes,
)

Kind = Literal["workspace", "session", "peer"]
KINDS: tuple[Kind, ...] = ("workspace", "session", "peer")
BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)
PEER_SEED = 1_000_003  # the peers' Zipf draw is seeded apart from the sessions'


def session_name(index: int) -> str:
    return f"s{index:06d}"


def peer_name(index: int) -> str:
    return f"u{index:05d}"


@dataclass(frozen=True)
class Scope:
    """A searchable scope: the whole workspace, one session or one peer."""

    kind: Kind
    index: int  # session or peer index; 0 for the workspace
    name: str | None  # session or peer name; None for the workspace


@dataclass(frozen=True)
class Query:
    scope: Scope
    bucket: str
    size: int  # messages in the scope
    vector: Vector
    text: str


class MessageCorpus:
    """Seeded messages (vectors, speakers, sessions, text) grown to ascending sizes."""

    def __init__(self, workspace: str, sessions: int, peers: int, capacity: int, seed: int):
        if sessions < 2 or peers < 2:
            raise ValueError("at least 2 sessions and 2 peers")
        self.workspace = workspace
        self.seed = seed
        self.space = TopicSpace(seed)
        self.clusters: list[Cluster] = [self.space.cluster() for _ in range(sessions)]
        self.sessions = [session_name(i) for i in range(sessions)]
        self.peers = [peer_name(i) for i in range(peers)]
        self.vectors: Matrix = np.zeros((capacity, DIM), dtype=np.float32)
        self.session_of = np.zeros(capacity, dtype=np.int32)
        self.peer_of = np.zeros(capacity, dtype=np.int32)
        self.facet_of = np.zeros(capacity, dtype=np.int32)
        self.seq = np.zeros(capacity, dtype=np.int64)
        self.session_size = np.zeros(sessions, dtype=np.int64)
        self.peer_size = np.zeros(peers, dtype=np.int64)
        self.ids: list[str] = []
        self.rng = np.random.default_rng(seed + 1)

    @property
    def size(self) -> int:
        return len(self.ids)

    def targets(self, total: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Messages per session and per peer at corpus size `total` (each sums to `total`)."""
        per_session = scope_sizes(total, len(self.sessions), self.seed)
        per_peer = scope_sizes(total, len(self.peers), self.seed + PEER_SEED)
        return per_session, per_peer

    def extend(self, total: int) -> range:
        """Generate the messages that bring the corpus to `total`; returns their rows."""
        start = self.size
        if total > len(self.vectors):
            raise ValueError(f"{total} is over the capacity {len(self.vectors)}")
        per_session, per_peer = self.targets(total)
        session_delta = per_session - self.session_size
        peer_delta = per_peer - self.peer_size
        if (session_delta < 0).any() or (peer_delta < 0).any():
            raise AssertionError("scope sizes must grow with the corpus")
        added = total - start
        order = self.rng.permutation(added)
        rows = start + order  # the k-th generated message (session by session) goes to row[k]
        k = 0
        for index, delta in enumerate(session_delta.tolist()):
            if not delta:
                continue
            vectors, facets = self.space.grow(self.clusters[index], delta)
            chunk = rows[k : k + delta]
            self.vectors[chunk] = vectors
            self.session_of[chunk] = index
            self.facet_of[chunk] = facets
            k += delta
        speakers = np.repeat(np.arange(len(self.peers), dtype=np.int32), peer_delta)
        self.peer_of[start:total] = self.rng.permutation(speakers)
        # Sequence numbers count each session's messages in row (= time) order.
        counts = self.session_size.copy()
        for row, session in enumerate(self.session_of[start:total].tolist(), start):
            self.seq[row] = counts[session]
            counts[session] += 1
        self.session_size = per_session.copy()
        self.peer_size = per_peer.copy()
        id_rng = np.random.default_rng(self.seed * 7919 + total)
        self.ids.extend(str(uuid.UUID(bytes=id_rng.bytes(16), version=4)) for _ in range(added))
        return range(start, total)

    def content(self, row: int) -> str:
        return self.space.content(self.peers[int(self.peer_of[row])], int(self.facet_of[row]), row)

    def props(self, row: int) -> dict[str, Any]:
        """The Message map create_messages would store (one map per node; the bench checks one
        row per batch against graph.models)."""
        session = self.sessions[int(self.session_of[row])]
        peer = self.peers[int(self.peer_of[row])]
        content = self.content(row)
        created = BASE_TIME + timedelta(seconds=30 * row)
        return {
            "id": self.ids[row],
            "workspace": self.workspace,
            "session": session,
            "peer": peer,
            "content": content,
            "metadata": "{}",
            "meta_kv": [],
            "created_at": created,
            "received_at": created,
            "seq": int(self.seq[row]),
            "token_count": len(content.split()) + 2,
            "embedding": self.vectors[row].tolist(),
            "workspace_key": workspace_key(self.workspace),
            "session_key": session_key(self.workspace, session),
            "peer_key": peer_key(self.workspace, peer),
        }

    # -- scopes and queries ------------------------------------------------------------------

    def scope_size(self, scope: Scope) -> int:
        if scope.kind == "session":
            return int(self.session_size[scope.index])
        if scope.kind == "peer":
            return int(self.peer_size[scope.index])
        return self.size

    def scope_rows(self, scope: Scope) -> npt.NDArray[np.intp]:
        n = self.size
        if scope.kind == "session":
            return np.flatnonzero(self.session_of[:n] == scope.index)
        if scope.kind == "peer":
            return np.flatnonzero(self.peer_of[:n] == scope.index)
        return np.arange(n, dtype=np.intp)

    def scopes(self, kind: Kind) -> list[Scope]:
        if kind == "session":
            return [Scope(kind, i, name) for i, name in enumerate(self.sessions)]
        if kind == "peer":
            return [Scope(kind, i, name) for i, name in enumerate(self.peers)]
        return [Scope(kind, 0, None)]

    def bucket_scopes(self, kind: Kind) -> dict[str, list[Scope]]:
        """The non-empty scopes of `kind` by size bucket (tests/bench/synthetic.BUCKETS)."""
        out: dict[str, list[Scope]] = {name: [] for name, _, _ in BUCKETS}
        for scope in self.scopes(kind):
            size = self.scope_size(scope)
            if size:
                out[bucket_of(size)].append(scope)
        return {name: scopes for name, scopes in out.items() if scopes}

    def queries(self, kind: Kind, count: int, rng: np.random.Generator) -> list[Query]:
        """`count` queries spread evenly over the non-empty buckets of `kind`: a random scope of
        the bucket, a random message of it, moved a little (cos ~0.89), and a question made of
        that message's topic and facet keywords."""
        groups = list(self.bucket_scopes(kind).items())
        out: list[Query] = []
        for k, (bucket, scopes) in enumerate(groups):
            share = count // len(groups) + (1 if k < count % len(groups) else 0)
            for _ in range(share):
                scope = scopes[int(rng.integers(0, len(scopes)))]
                members = self.scope_rows(scope)
                row = int(members[int(rng.integers(0, len(members)))])
                vector = self.space.near(self.vectors[row], rng)
                pick = int(rng.integers(0, 1 << 30))
                text = self.space.question(int(self.facet_of[row]), pick)
                out.append(Query(scope, bucket, len(members), vector, text))
        return out
