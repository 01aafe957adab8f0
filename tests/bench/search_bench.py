"""Scoped observation search benchmark: recall@10 and latency of the scoped vector path against
exact search, a filter outside the index for contrast, full hybrid search and get_context, at
several corpus sizes spread over many (observer, observed) scopes.

Corpus (one workspace, grown from the smallest size to the largest and measured at each size):

- Scopes: ``--scopes`` (observer, observed) pairs over ``scopes / 4`` peers (each peer observes
  itself and the next three). Half of them are *dormant*: a fixed handful of beliefs
  (log-uniform 1-50) at every size. The other half are *active* and share the rest of the corpus
  by Zipf weights (rank^-1), so they grow with it: at 1M a few scopes hold tens of thousands of
  beliefs, at 10k the largest holds a few hundred.
- Embeddings (384 dims, numpy, seeded), clustered in three levels: 256 global topic directions
  (Zipf popularity); each scope holds 8 topics with its own centroid around the global one
  (cos ~0.9 to it, so scopes share topics); beliefs form *facets* inside a scope-topic (the same
  thing said several times: a new facet every ~15 beliefs, cos ~0.74 to the centroid), and each
  belief sits around its facet (cos ~0.86).
- Content: lower-case pseudo-words: the observed peer's name, a verb, two keywords of the topic
  and the two keywords of the facet, so fulltext finds facets and topics.
- Insert: ``tests/cypher/bench_insert_observations.cypher`` (one ``UNWIND``, no source
  message; OBSERVES edges count the beliefs) in transactions of ``--batch`` rows, then
  ``db.awaitIndexes``.

Queries (per size, spread evenly over the non-empty scope-size buckets): a random belief of a
random scope of the bucket, perturbed (cos ~0.89 to it), with a text made of its topic and facet
keywords. Each query runs, in rotating order: ours (``vector_candidates``, limit 10), the exact
scan (``exact``, the ground truth and the baseline), the naive workspace top 10 then the scope
filter, and hybrid ``search_observations`` (through a fake embedder that returns the
precomputed vector, so no model is timed). Plus ``get_context`` with and without a search
query, and *off-topic* queries (a belief of another scope) on the scopes that take the index
path.

Run: ``python -m tests.bench.search_bench --sizes 2000,10000 --scopes 100`` (development) or
``beliefgraph bench search`` (the default sizes 10k, 100k, 1M). Writes its section of
``docs/BENCHMARKS.md`` (between the ``bench:search`` markers) and a JSON file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import shlex
import shutil
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from graph import models
from graph.db import Database
from graph.keys import scope_key
from graph.props import Meta, node_props
from graph.repo import observation_search as search_repo
from graph.repo import peers, workspaces
from graph.repo.observation_search import ObservationQuery
from graph.repo.retrieval import OBSERVATIONS
from graph.settings import Settings
from reasoners.context.assemble import ContextRequest, get_context
from reasoners.deriver.dedup import exact_key
from reasoners.embeddings.tokens import MiniLMTokenCounter
from reasoners.search.hybrid import pool_size
from reasoners.search.observations import search_observations
from resolvers.runtime import close_services, open_services
from tests import statements
from tests.bench.common import (
    DOCS,
    add_instance_args,
    machine,
    neo4j_from_args,
    pct,
    run_interleaved,
    table,
    timed,
    write_section,
)
from tests.bench.synthetic import (
    BUCKETS,
    DIM,
    DORMANT_MAX,
    FACET_MEAN,
    QUERY_SPREAD,
    TOPICS,
    TOPICS_PER_SCOPE,
    Cluster,
    Matrix,
    PrimedEmbedder,
    TopicSpace,
    Vector,
    bucket_of,
    noise,
    scope_sizes,
    unit,
)

INSTANCE = "search-bench"
BOLT_PORT = 47687
HTTP_PORT = 47474
HEAP = "4g"
PAGECACHE = "6g"
LIMIT = 10
JSON_LIMIT = 16384
WARMUP_QUERIES = 10
PATHS = ("exact", "index", "wide index", "fallback")
OBSERVATION_VECTORS = "observation_vectors"  # cypher/schema/create_vector_index_observation.cypher
HUGE_DATA_DIR = 1 << 30  # delete the instance's data dir at the end when it is bigger

# -- the corpus plan (pure) ------------------------------------------------------------------


def peer_names(scopes: int) -> list[str]:
    return [f"p{i:03d}" for i in range((scopes + 3) // 4)]


def scope_pair(index: int, names: Sequence[str]) -> tuple[str, str]:
    """Scope i: peer i//4 observes itself (i%4 == 0) or one of the next three peers."""
    observer = index // 4
    return names[observer], names[(observer + index % 4) % len(names)]


@dataclass
class ScopeState:
    index: int
    observer: str
    observed: str
    cluster: Cluster
    rows: list[int] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.rows)

    @property
    def query(self) -> ObservationQuery:
        return ObservationQuery(self.observer, self.observed)


# -- a recording database -------------------------------------------------------------------------


class RecordingDatabase(Database):
    """The same database, noting each vector round of a search (to tell the path it took)."""

    def __init__(self, inner: Database) -> None:
        super().__init__(inner.driver, inner.database)
        self.calls: list[tuple[int, int, int]] = []  # (total, asked, exact_scan_limit)

    async def read(self, statement: str, /, **params: Any) -> list[dict[str, Any]]:
        rows = await super().read(statement, **params)  # type: ignore[arg-type]
        if statement == "search_observations_vector" and rows:
            total = int(rows[0]["total"])
            asked = params["wide"] if total > params["wide_from"] else params["candidates"]
            self.calls.append((total, asked, params["exact_scan_limit"]))
        return rows

    def path(self) -> tuple[str, int, int]:
        """(path, index rounds, largest candidate count) of the last search."""
        if not self.calls:
            return "exact", 0, 0
        total, _, first_limit = self.calls[0]
        if total <= first_limit:
            return "exact", 0, 0
        rounds = [c for c in self.calls if c[0] > c[2]]
        biggest = max(asked for _, asked, _ in rounds)
        if len(rounds) < len(self.calls):
            return "fallback", len(rounds), biggest
        return ("wide index" if total > OBSERVATIONS.wide_from else "index"), len(rounds), biggest


# -- corpus ----------------------------------------------------------------------------------


@dataclass
class Fill:
    size: int
    added: int
    build_s: float
    insert_s: float
    await_s: float
    indexed: int
    in_workspace: int
    vector_indexes: int = 0

    def summary(self) -> dict[str, Any]:
        return {
            "vector_indexes": self.vector_indexes,
            "size": self.size,
            "added": self.added,
            "build_s": self.build_s,
            "insert_s": self.insert_s,
            "await_indexes_s": self.await_s,
            "insert_per_s": self.added / (self.insert_s + self.await_s)
            if self.insert_s + self.await_s
            else 0.0,
            "indexed_observations": self.indexed,
            "workspace_observations": self.in_workspace,
        }


class Corpus:
    def __init__(self, workspace: str, scopes: int, capacity: int, seed: int) -> None:
        self.workspace = workspace
        self.seed = seed
        self.space = TopicSpace(seed)
        self.names = peer_names(scopes)
        self.scopes = [
            ScopeState(i, *scope_pair(i, self.names), self.space.cluster()) for i in range(scopes)
        ]
        self.vectors: Matrix = np.zeros((capacity, DIM), dtype=np.float32)
        self.scope_of = np.zeros(capacity, dtype=np.int32)
        self.facet_of = np.zeros(capacity, dtype=np.int32)
        self.ids: list[str] = []
        self.row_of: dict[str, int] = {}
        self.rng = np.random.default_rng(seed + 1)

    @property
    def size(self) -> int:
        return len(self.ids)

    def plan(self, total: int) -> list[tuple[ScopeState, int]]:
        target = scope_sizes(total, len(self.scopes), self.seed)
        deltas = [(s, int(target[s.index]) - s.size) for s in self.scopes]
        if any(d < 0 for _, d in deltas):
            raise AssertionError("scope sizes must grow with the corpus")
        return [(s, d) for s, d in deltas if d > 0]

    def extend(self, total: int) -> list[int]:
        """Generate the beliefs that bring the corpus to `total`; returns their rows, in a
        shuffled insertion order (scopes interleave, as they would in real use)."""
        start = self.size
        parts: list[tuple[ScopeState, Matrix, list[int]]] = []
        for scope, delta in self.plan(total):
            vectors, facets = self.space.grow(scope.cluster, delta)
            parts.append((scope, vectors, facets))
        order = self.rng.permutation(total - start)
        row = start + order  # the k-th generated belief goes to row `row[k]`
        k = 0
        for scope, vectors, facets in parts:
            rows = row[k : k + len(facets)]
            self.vectors[rows] = vectors
            self.scope_of[rows] = scope.index
            self.facet_of[rows] = facets
            scope.rows.extend(int(r) for r in rows)
            k += len(facets)
        id_rng = np.random.default_rng(self.seed * 7919 + total)
        for _ in range(start, total):
            new_id = str(uuid.UUID(bytes=id_rng.bytes(16), version=4))
            self.row_of[new_id] = len(self.ids)
            self.ids.append(new_id)
        return list(range(start, total))

    def content(self, row: int) -> str:
        scope = self.scopes[int(self.scope_of[row])]
        return self.space.content(scope.observed, int(self.facet_of[row]), row)

    def props(self, row: int, created: datetime) -> dict[str, Any]:
        """The Observation map create_explicit_observations would store (one map per node):
        what write_explicit gives a fresh explicit fact of the default dream mode, with no close
        belief (near_ids empty) and not yet read by a dream; `times_derived` varies as repeats
        would make it. The keys left None are the ones a later dream, invalidation or merge
        sets."""
        scope = self.scopes[int(self.scope_of[row])]
        content = self.content(row)
        return {
            "id": self.ids[row],
            "workspace": self.workspace,
            "observer": scope.observer,
            "observed": scope.observed,
            "level": "explicit",
            "content": content,
            "content_key": content,  # lower-case ASCII words: exact_key(content) == content
            "scope_key": scope_key(self.workspace, scope.observer, scope.observed),
            "embedding": self.vectors[row].tolist(),
            "created_at": created,
            "valid_at": created,
            "session": f"chat-{row % 97}",
            "confidence": None,
            "pattern_type": None,
            "times_derived": 1 + row % 3,
            "stale": False,
            "stale_reason": None,
            "stale_at": None,
            "reconcile_pending": None,
            "facets": [],
            "superseded_at": None,
            "deleted_at": None,
            "origin": "deriver",
            "dream_pending": True,
            "dedup_pending": None,
            "slot": None,
            "claim_key": None,
            "near_ids": [],
            "near_similarities": [],
        }

    def validated(self, row: int, created: datetime) -> dict[str, Any]:
        """`props` through graph.models (for one row per batch: checks the fast path). Every
        model property must be named, None included, so a property added to the model stops
        the bench until its value here is decided; the values must survive deflation."""
        fast = self.props(row, created)
        data = {("uid" if k == "id" else k): v for k, v in fast.items()}
        slow = node_props(models.Observation, data)
        missing, extra = sorted(set(slow) - set(fast)), sorted(set(fast) - set(slow))
        changed = sorted(k for k in set(slow) & set(fast) if slow[k] != fast[k])
        if missing or extra or changed or exact_key(fast["content"]) != fast["content_key"]:
            raise AssertionError(
                f"bench props drifted from graph.models: missing {missing}, extra {extra}, "
                f"changed by deflation {changed}"
            )
        return slow

    def bucket_scopes(self) -> dict[str, list[ScopeState]]:
        out: dict[str, list[ScopeState]] = {name: [] for name, _, _ in BUCKETS}
        for scope in self.scopes:
            if scope.size:
                out[bucket_of(scope.size)].append(scope)
        return out


BASE_TIME = datetime(2024, 1, 1, tzinfo=UTC)


async def stored(db: Database, workspace: str) -> tuple[int, int]:
    """(observations in the vector index, all workspaces; observations of `workspace`)."""
    row = await statements.read_one(db, "bench_count_indexed_observations", workspace=workspace)
    return (int(row["indexed"]), int(row["in_workspace"])) if row else (0, 0)


async def fill(
    db: Database, corpus: Corpus, total: int, batch: int, existing: int, *, rebuild: bool = False
) -> Fill:
    """Grow the corpus to `total`; the rows a reused workspace already holds are only
    regenerated (the corpus is deterministic), not inserted again. With `rebuild`, the
    observation_vectors index is dropped before the insert and created again after it (the
    schema's statement): one population instead of a vector at a time, several times faster,
    but every search lacks the index meanwhile (a bench database only)."""
    started = time.perf_counter()
    rows = corpus.extend(total)
    build_s = time.perf_counter() - started
    if existing > total:  # a reused workspace beyond this size: not measured
        return Fill(total, 0, build_s, 0.0, 0.0, 0, 0)
    if existing == total:
        indexed, in_workspace = await stored(db, corpus.workspace)
        return Fill(total, 0, build_s, 0.0, 0.0, indexed, in_workspace, await vector_indexes(db))
    insert_s = 0.0
    if rebuild:
        await db.write("drop_index", name=OBSERVATION_VECTORS)
    for first in range(0, len(rows), batch):
        chunk = rows[first : first + batch]
        props = [
            corpus.props(r, BASE_TIME + timedelta(seconds=30 * r))
            if k
            else corpus.validated(r, BASE_TIME + timedelta(seconds=30 * r))
            for k, r in enumerate(chunk)
        ]
        start = time.perf_counter()
        await statements.write(
            db, "bench_insert_observations", workspace=corpus.workspace, observations=props
        )
        insert_s += time.perf_counter() - start
        done = first + len(chunk)
        if done % (batch * 10) == 0 or done == len(rows):
            rate = done / insert_s if insert_s else 0.0
            print(
                f"  fill {corpus.size - len(rows) + done:,}/{total:,} ({rate:,.0f}/s)",
                file=sys.stderr,
                flush=True,
            )
    start = time.perf_counter()
    if rebuild:
        await db.write("create_vector_index_observation", dimensions=DIM)
    await db.write("await_indexes", timeout_seconds=7200)
    await_s = time.perf_counter() - start
    indexed, in_workspace = await stored(db, corpus.workspace)
    indexes = await vector_indexes(db)
    return Fill(total, len(rows), build_s, insert_s, await_s, indexed, in_workspace, indexes)


async def vector_indexes(db: Database) -> int:
    """How many vector indexes the database holds (one per node kind, whatever the scopes)."""
    return len(await db.read("list_vector_indexes"))


# -- measurement -----------------------------------------------------------------------------


@dataclass
class Query:
    scope: ScopeState
    bucket: str
    vector: Vector
    text: str


@dataclass
class Samples:
    ours: list[float] = field(default_factory=list)
    exact: list[float] = field(default_factory=list)
    naive: list[float] = field(default_factory=list)
    hybrid: list[float] = field(default_factory=list)
    fulltext: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    naive_recall: list[float] = field(default_factory=list)
    exact_agrees: list[float] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    candidates: list[int] = field(default_factory=list)
    scopes: set[int] = field(default_factory=set)

    def summary(self) -> dict[str, Any]:
        def ms(values: list[float], q: float) -> float:
            return pct(values, q) * 1000

        n = len(self.ours)
        index_rounds = [r for r in self.rounds if r]
        return {
            "queries": n,
            "scopes_queried": len(self.scopes),
            "recall_at_10": float(np.mean(self.recall)) if self.recall else 0.0,
            "recall_at_10_min": float(np.min(self.recall)) if self.recall else 0.0,
            "naive_recall_at_10": float(np.mean(self.naive_recall)) if self.naive_recall else 0.0,
            "exact_agrees_with_numpy": float(np.mean(self.exact_agrees))
            if self.exact_agrees
            else 0.0,
            "path": {p: self.paths.count(p) for p in PATHS},
            "index_rounds_mean": float(np.mean(index_rounds)) if index_rounds else 0.0,
            "candidates_max": max(self.candidates, default=0),
            **{
                f"{name}_p{q}_ms": ms(getattr(self, name), q)
                for name in ("ours", "exact", "naive", "hybrid", "fulltext")
                for q in (50, 95)
            },
        }


class Bench:
    def __init__(self, db: Database, corpus: Corpus, args: argparse.Namespace) -> None:
        self.db = db
        self.recording = RecordingDatabase(db)
        self.corpus = corpus
        self.args = args
        self.embedder = PrimedEmbedder()
        self.tokens = MiniLMTokenCounter()
        self.rng = np.random.default_rng(args.seed + 17)
        self.loads: list[tuple[str, float]] = []

    def sample_load(self, when: str) -> None:
        """Other processes share the machine: record the 1-minute load at each phase."""
        self.loads.append((when, os.getloadavg()[0]))

    def pick(self, scope: ScopeState, bucket: str, source: ScopeState | None = None) -> Query:
        """A perturbed belief of `source` (default: the scope itself) and its question."""
        origin = source or scope
        row = origin.rows[int(self.rng.integers(0, origin.size))]
        moved = self.corpus.vectors[row] + QUERY_SPREAD * noise(self.rng, (DIM,))
        pick = int(self.rng.integers(0, 1 << 30))
        text = self.corpus.space.question(int(self.corpus.facet_of[row]), pick)
        return Query(scope, bucket, unit(moved), text)

    def queries(self, count: int) -> list[Query]:
        """`count` queries spread evenly over the non-empty buckets, scopes drawn at random."""
        groups = [(name, s) for name, s in self.corpus.bucket_scopes().items() if s]
        out: list[Query] = []
        for k, (name, scopes) in enumerate(groups):
            share = count // len(groups) + (1 if k < count % len(groups) else 0)
            for _ in range(share):
                out.append(self.pick(scopes[int(self.rng.integers(0, len(scopes)))], name))
        return out

    def offtopic(self, count: int) -> list[Query]:
        """Queries about another scope's belief, on the scopes that use the vector index."""
        big = [s for s in self.corpus.scopes if s.size > OBSERVATIONS.exact_scan_limit]
        if not big:
            return []
        out = []
        for _ in range(count):
            scope = big[int(self.rng.integers(0, len(big)))]
            while True:
                other = self.corpus.scopes[int(self.rng.integers(0, len(self.corpus.scopes)))]
                if other is not scope and other.size:
                    break
            out.append(self.pick(scope, bucket_of(scope.size), source=other))
        return out

    def scores(self, query: Query, ids: Sequence[str]) -> list[float]:
        rows = np.asarray([self.corpus.row_of[i] for i in ids], dtype=np.intp)
        if not len(rows):
            return []
        return [float(x) for x in self.corpus.vectors[rows] @ query.vector]

    def recall(self, query: Query, truth: Sequence[str], got: Sequence[str]) -> float:
        """Share of the exact top 10 found; a hit scoring at least the exact 10th (within
        float rounding) counts, so equal scores never count as misses."""
        if not truth:
            return 1.0
        kth = min(self.scores(query, truth)) - 1e-5
        scope = query.scope.index
        good = sum(
            1
            for i, s in zip(got, self.scores(query, got), strict=True)
            if s >= kth and self.corpus.scope_of[self.corpus.row_of[i]] == scope
        )
        return min(good, len(truth)) / len(truth)

    def numpy_agrees(self, query: Query, truth: Sequence[str]) -> float:
        rows = np.asarray(query.scope.rows, dtype=np.intp)
        scores = self.corpus.vectors[rows] @ query.vector
        top = np.sort(scores)[::-1][:LIMIT]
        mine = sorted(self.scores(query, truth), reverse=True)
        return 1.0 if len(mine) == len(top) and np.allclose(mine, top, atol=1e-4) else 0.0

    async def one(self, query: Query, samples: Samples | None, turn: int) -> None:
        db, ws, vec = self.db, self.corpus.workspace, [float(x) for x in query.vector]
        scope = query.scope
        results: dict[str, Any] = {}

        async def ours() -> None:
            self.recording.calls.clear()
            results["ours"] = await search_repo.vector_candidates(
                self.recording, ws, vec, scope.query, LIMIT
            )

        async def exact() -> None:
            results["exact"] = await search_repo.exact(db, ws, vec, scope.query, LIMIT)

        async def naive() -> None:
            results["naive"] = await statements.read(
                db,
                "bench_naive_vector",
                workspace=ws,
                embedding=vec,
                k=LIMIT,
                scope_key=scope_key(ws, scope.observer, scope.observed),
            )

        async def hybrid() -> None:
            self.embedder.prime(query.text, vec)
            await search_observations(db, self.embedder, ws, query.text, scope.query, LIMIT)

        async def fulltext() -> None:
            # The fulltext half of hybrid search, as it runs there (pool, similarities).
            await search_repo.text_candidates(
                db, ws, query.text, scope.query, pool_size(LIMIT), embedding=vec
            )

        runs: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("ours", ours),
            ("exact", exact),
            ("naive", naive),
            ("hybrid", hybrid),
            ("fulltext", fulltext),
        ]
        seconds = await run_interleaved(runs, turn)
        if samples is None:
            return
        for name, spent in seconds.items():
            getattr(samples, name).append(spent)
        path, rounds, biggest = self.recording.path()
        truth = [o.id for o, _ in results["exact"]]
        samples.recall.append(self.recall(query, truth, [o.id for o, _ in results["ours"]]))
        samples.naive_recall.append(self.recall(query, truth, [r["id"] for r in results["naive"]]))
        samples.exact_agrees.append(self.numpy_agrees(query, truth))
        samples.paths.append(path)
        samples.rounds.append(rounds)
        samples.candidates.append(biggest)
        samples.scopes.add(scope.index)

    async def search(self, queries: list[Query], label: str) -> dict[str, Samples]:
        for k, query in enumerate(self.queries(WARMUP_QUERIES)):
            await self.one(query, None, k)
        by_bucket: dict[str, Samples] = {}
        overall = Samples()
        for k, query in enumerate(queries):
            samples = by_bucket.setdefault(query.bucket, Samples())
            await self.one(query, samples, k)
            if (k + 1) % 50 == 0:
                print(f"  {label}: {k + 1}/{len(queries)} queries", file=sys.stderr, flush=True)
        for samples in by_bucket.values():
            for name in (
                "ours",
                "exact",
                "naive",
                "hybrid",
                "fulltext",
                "recall",
                "naive_recall",
                "exact_agrees",
                "paths",
                "rounds",
                "candidates",
            ):
                getattr(overall, name).extend(getattr(samples, name))
            overall.scopes |= samples.scopes
        ordered = {name: by_bucket[name] for name, _, _ in BUCKETS if name in by_bucket}
        return {**ordered, "all": overall}

    async def context(self, queries: list[Query]) -> dict[str, Any]:
        with_search: list[float] = []
        without: list[float] = []
        pieces: list[int] = []
        ws = self.corpus.workspace
        for k, query in enumerate([*self.queries(WARMUP_QUERIES), *queries]):
            scope = query.scope
            self.embedder.prime(query.text, [float(x) for x in query.vector])
            searched = ContextRequest(
                workspace=ws,
                tokens=2000,
                peer_target=scope.observed,
                peer_perspective=scope.observer,
                search_query=query.text,
            )
            plain = ContextRequest(
                workspace=ws,
                tokens=2000,
                peer_target=scope.observed,
                peer_perspective=scope.observer,
            )
            pair: list[tuple[list[float], ContextRequest]] = [
                (with_search, searched),
                (without, plain),
            ]
            if k % 2:
                pair.reverse()
            for sink, request in pair:
                work = get_context(self.db, self.embedder, self.tokens, request)
                seconds, result = await timed(work)
                if k >= WARMUP_QUERIES:
                    sink.append(seconds)
                    if request is searched:
                        pieces.append(len(result.representation))
        return {
            "calls": len(with_search),
            "with_search_p50_ms": pct(with_search, 50) * 1000,
            "with_search_p95_ms": pct(with_search, 95) * 1000,
            "without_search_p50_ms": pct(without, 50) * 1000,
            "without_search_p95_ms": pct(without, 95) * 1000,
            "beliefs_packed_mean": float(np.mean(pieces)) if pieces else 0.0,
        }


# -- report ----------------------------------------------------------------------------------


def corpus_table(measures: Sequence[dict[str, Any]]) -> str:
    header = [
        "corpus",
        "added",
        "insert s",
        "await indexes s",
        "observations/s",
        "vector indexes in the database",
        "scopes per bucket (" + " / ".join(b for b, _, _ in BUCKETS) + ")",
        "largest scope",
    ]
    rows = []
    for m in measures:
        f = m["fill"]
        counts = " / ".join(str(m["buckets"].get(b, 0)) for b, _, _ in BUCKETS)
        rows.append(
            [
                f"{m['size']:,}",
                f"{f['added']:,}",
                f"{f['insert_s']:.0f}",
                f"{f['await_indexes_s']:.0f}",
                f"{f['insert_per_s']:,.0f}",
                str(f.get("vector_indexes", 0)),
                counts,
                f"{m['largest_scope']:,}",
            ]
        )
    return table(header, rows)


def path_text(path: dict[str, int]) -> str:
    return "/".join(str(path.get(p, 0)) for p in PATHS)


def measured_buckets(
    measures: Sequence[dict[str, Any]], key: str
) -> Iterator[tuple[dict[str, Any], str, dict[str, Any]]]:
    """(measure, bucket, summary) for each bucket of `key` that got queries."""
    for m in measures:
        for bucket, summary in m[key].items():
            if summary["queries"]:
                yield m, bucket, summary


def search_table(measures: Sequence[dict[str, Any]], key: str) -> str:
    header = [
        "corpus",
        "bucket",
        "queries (scopes)",
        "path " + "/".join(PATHS),
        "recall@10 ours",
        "recall@10 naive",
        "ours p50",
        "ours p95",
        "exact p50",
        "exact p95",
        "hybrid p50",
        "hybrid p95",
    ]
    rows = [
        [
            f"{m['size']:,}",
            f"**{bucket}**" if bucket == "all" else bucket,
            f"{s['queries']} ({s['scopes_queried']})",
            path_text(s["path"]),
            f"{s['recall_at_10']:.3f}",
            f"{s['naive_recall_at_10']:.3f}",
            *(
                f"{s[f'{path}_p{q}_ms']:.1f}"
                for path in ("ours", "exact", "hybrid")
                for q in (50, 95)
            ),
        ]
        for m, bucket, s in measured_buckets(measures, key)
    ]
    return table(header, rows)


def detail_table(measures: Sequence[dict[str, Any]], key: str) -> str:
    header = [
        "corpus",
        "bucket",
        "recall@10 min",
        "index rounds (mean)",
        "max candidates",
        "naive p50",
        "fulltext p50",
        "fulltext p95",
        "exact = numpy",
    ]
    rows = [
        [
            f"{m['size']:,}",
            bucket,
            f"{s['recall_at_10_min']:.2f}",
            f"{s['index_rounds_mean']:.1f}",
            f"{s['candidates_max']:,}",
            f"{s['naive_p50_ms']:.1f}",
            f"{s['fulltext_p50_ms']:.1f}",
            f"{s['fulltext_p95_ms']:.1f}",
            f"{s['exact_agrees_with_numpy']:.3f}",
        ]
        for m, bucket, s in measured_buckets(measures, key)
    ]
    return table(header, rows)


def context_table(measures: Sequence[dict[str, Any]]) -> str:
    header = [
        "corpus",
        "calls",
        "with search p50",
        "with search p95",
        "without search p50",
        "without search p95",
        "beliefs packed (mean)",
    ]
    rows = [
        [
            f"{m['size']:,}",
            str(c["calls"]),
            f"{c['with_search_p50_ms']:.1f}",
            f"{c['with_search_p95_ms']:.1f}",
            f"{c['without_search_p50_ms']:.1f}",
            f"{c['without_search_p95_ms']:.1f}",
            f"{c['beliefs_packed_mean']:.1f}",
        ]
        for m in measures
        for c in [m["context"]]
    ]
    return table(header, rows)


def verdict(measures: Sequence[dict[str, Any]]) -> list[str]:
    """One line per size: the lowest bucket recall@10 and the p95 over all buckets and of the
    slowest one (the aims hold in every bucket: a small bucket's p95 hides in the overall)."""
    lines = []
    for m in measures:
        buckets = [(b, s) for b, s in m["search"].items() if b != "all" and s["queries"]]
        worst = min((s["recall_at_10"], b) for b, s in buckets)
        slowest = max((s["ours_p95_ms"], b) for b, s in buckets)
        p95 = m["search"]["all"]["ours_p95_ms"]
        lines.append(
            f"- {m['size']:,}: lowest bucket recall@10 {worst[0]:.3f} ({worst[1]}; aim >= 0.98), "
            f"scoped search p95 {p95:.1f} ms over all buckets and {slowest[0]:.1f} ms in the "
            f"slowest ({slowest[1]}; aim < 50 ms at 1M in every bucket)."
        )
    return lines


def merged_lines(report: dict[str, Any]) -> list[str]:
    earlier = report.get("merged")
    if not earlier:
        return []
    sizes = ", ".join(f"{s:,}" for s in earlier["sizes"])
    loads = ", ".join(f"{x['load']:.1f} {x['when']}" for x in earlier["load_1min"])
    return [
        f"- Sizes {sizes} come from an earlier run of the same code, seed and scopes on "
        f"{earlier['date']}: `{earlier['command']}` (run time {earlier['run_s'] / 60:.0f} min; "
        f"Neo4j {earlier['where']}; 1-minute load average: {loads}). The larger sizes reuse "
        "a workspace kept from before (`--workspace`, `--keep`), so they are measured here "
        "without inserting again."
    ]


def merge(report: dict[str, Any], path: Path) -> None:
    """Put the sizes measured by an earlier run (its JSON) in front of this run's."""
    earlier = json.loads(path.read_text(encoding="utf-8"))
    if (earlier["scopes"], earlier["strategy"]) != (report["scopes"], report["strategy"]):
        raise SystemExit(f"{path}: another strategy or scope count; not merged")
    mine = {m["size"] for m in report["measures"]}
    kept = [m for m in earlier["measures"] if m["size"] not in mine]
    report["merged"] = {
        "date": earlier["date"],
        "command": earlier["command"],
        "run_s": earlier["run_s"],
        "where": earlier["environment"]["neo4j"]["where"],
        "load_1min": earlier["environment"]["load_1min"],
        "sizes": [m["size"] for m in kept],
    }
    report["measures"] = sorted(kept + report["measures"], key=lambda m: m["size"])
    report["sizes"] = [m["size"] for m in report["measures"]]


def render(report: dict[str, Any]) -> str:
    env = report["environment"]
    m = env["machine"]
    server = env["neo4j"]
    measures = report["measures"]
    index = server.get("vector_index", {})
    lines = [
        f"## Scoped observation search and get_context ({report['scopes']:,} scopes)",
        "",
        f"- Date: {report['date']}",
        f"- Machine: {m.get('cores')} cores ({m.get('cpu', 'unknown CPU')}), "
        f"{m.get('ram_gib', '?')} GiB RAM, Python {m.get('python')}; no GPU. Whatever else runs "
        "on these cores shows in the load averages below; absolute times are noisy, so "
        "compare ours with the exact baseline of the same run.",
        f"- Neo4j: {server['version']} {server['edition']} ({server['where']}); observation "
        f"vector index: {index.get('config', '?')}",
        "- 1-minute load average: "
        + ", ".join(f"{x['load']:.1f} {x['when']}" for x in env["load_1min"]),
        f"- Command: `{report['command']}` (run time {report['run_s'] / 60:.0f} min)",
        "- Search strategy measured: `graph/repo/observation_search.py` over the "
        "`observation_vectors` index (filter properties workspace, scope_key, level), with "
        + ", ".join(f"{k}={v:,}" for k, v in report["strategy"].items()),
        *merged_lines(report),
        "",
        "### Corpus",
        "",
        f"One workspace grown through {', '.join(f'{s:,}' for s in report['sizes'])} "
        f"synthetic observations (measured at each size) over {report['scopes']:,} "
        f"(observer, observed) scopes of skewed sizes: half are dormant (a fixed 1-{DORMANT_MAX} "
        "beliefs, log-uniform), half are active and share the rest by Zipf weights rank^-1. "
        f"Embeddings: {DIM}-dim seeded unit vectors in three levels of clusters: {TOPICS} "
        f"global topics (Zipf popularity), {TOPICS_PER_SCOPE} topics per scope with a "
        "scope-specific centroid (cos ~0.89 to the global topic, so scopes overlap), facets "
        f"of ~{FACET_MEAN} beliefs saying the same thing (cos ~0.74 to the centroid), beliefs "
        "around their facet (cos ~0.86). Content: pseudo-words (peer, verb, topic and facet "
        "keywords). Inserted with `tests/cypher/bench_insert_observations.cypher` "
        f"(raw `UNWIND`, {report['batch']:,} per transaction, no source messages; the "
        "OBSERVES edges count them as the deriver's writes do), then `db.awaitIndexes`"
        + (
            " (the observation_vectors index was dropped before each fill and created again "
            "after it with the schema's statement, so await indexes is its whole population)"
            if report.get("rebuild_vector_index")
            else ""
        )
        + ". Observations/s counts insert plus index catch-up. The vector indexes column counts "
        "every vector index in the database: one per node kind, however many scopes there are.",
        "",
        corpus_table(measures),
        "",
        "### Scoped search: recall@10 and latency (ms)",
        "",
        f"{report['queries']} queries per size (after {WARMUP_QUERIES} warm-up queries), spread "
        "evenly over the non-empty scope-size buckets, a random scope of the bucket each. Query "
        "vector: a random belief of the scope, perturbed (cos ~0.89). Every query runs all "
        "paths back to back, order rotated: **ours** = `vector_candidates(..., limit 10)` "
        "(one statement: up to exact_scan_limit beliefs the exact scan, else the "
        "observation_vectors index filtered inside by the scope's key, asked for `candidates` "
        "or, above wide_from beliefs, `wide` nearest; more rounds only if filters empty the "
        "page); **exact** = `exact(...)`, the exact cosine scan of the scope: the ground truth "
        "and the baseline; **naive** = the same index filtered by workspace only, top 10, "
        "then the scope filter after it (`tests/cypher/bench_naive_vector.cypher`: what a "
        "filter outside the index gives); **hybrid** = `search_observations` "
        "(vector pool 30 and fulltext pool 30 side by side, score fusion) with a fake "
        "embedder returning the "
        "precomputed vector (no model time). recall@10 = share of the exact top 10 found "
        "(a hit scoring at least the exact 10th counts, so ties are not misses; a scope "
        "with fewer than 10 beliefs needs all of them). path = how many queries ours "
        "answered by the exact scan, by an index round, by a wide index round, or by index "
        "rounds then the exact fallback.",
        "",
        search_table(measures, "search"),
        "",
        "Details: lowest single-query recall, index rounds of the queries that used the index, "
        "largest candidate count asked, naive latency, the fulltext half of hybrid "
        "(`text_candidates`, pool 30) and whether the exact scan agreed with a numpy cosine "
        "over the same vectors (sanity check of the ground truth).",
        "",
        detail_table(measures, "search"),
        "",
        "### Off-topic queries on index-path scopes",
        "",
        f"{report['offtopic_queries']} queries per size on scopes above exact_scan_limit whose "
        "vector is a perturbed belief of *another* scope (a question about something this peer "
        "never said): the scope's share of the global neighbours is then only its share of the "
        "corpus, the worst case for a filter applied after the index.",
        "",
        search_table(measures, "offtopic")
        if any(m["offtopic"] for m in measures)
        else "(no scope above exact_scan_limit at these sizes)",
        "",
        "### get_context (ms)",
        "",
        f"{report['context_queries']} calls per size (after {WARMUP_QUERIES} warm-up calls), "
        "scopes drawn like the search queries: `get_context(db, embedder, "
        "MiniLMTokenCounter(), ContextRequest(peer_target=observed, peer_perspective=observer, "
        "search_query=..., tokens=2000))`, no session. Baseline: the same request without "
        "`search_query` (only the most-derived / most-recent slice and the peer card), run "
        "back to back with it, order alternating.",
        "",
        context_table(measures),
        "",
        "### Against the aim",
        "",
        *verdict(measures),
        "",
    ]
    return "\n".join(lines)


# -- driver ----------------------------------------------------------------------------------


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="beliefgraph bench search",
        description="scoped observation search and get_context benchmark",
    )
    parser.add_argument(
        "--sizes",
        default="10000,100000,1000000",
        help="corpus sizes, ascending (one workspace grown through them)",
    )
    parser.add_argument("--scopes", type=int, default=1000)
    parser.add_argument("--queries", type=int, default=300, help="search queries per size")
    parser.add_argument("--context-queries", type=int, default=100, help="per size")
    parser.add_argument("--offtopic-queries", type=int, default=60, help="per size")
    parser.add_argument("--batch", type=int, default=5000, help="observations per transaction")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--report", type=Path, default=DOCS / "BENCHMARKS.md")
    parser.add_argument("--json", type=Path, default=DOCS / "bench-search.json")
    parser.add_argument(
        "--section",
        default="search",
        help="name of the report section (bench:<name>), so runs with other --scopes can sit "
        "beside the default one",
    )
    parser.add_argument(
        "--workspace",
        help="workspace name (default: a new one); an existing one made by the same --seed, "
        "--scopes and --sizes is reused: sizes it already holds are measured without inserting",
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the workspace and leave the managed Neo4j running"
    )
    parser.add_argument(
        "--rebuild-vector-index",
        action="store_true",
        help="drop the observation_vectors index before each fill and create it again after "
        "(one population instead of a vector at a time; only on a bench database)",
    )
    add_instance_args(
        parser,
        instance=INSTANCE,
        bolt_port=BOLT_PORT,
        http_port=HTTP_PORT,
        heap=HEAP,
        pagecache=PAGECACHE,
    )
    parser.add_argument(
        "--merge",
        type=Path,
        help="JSON report of an earlier run (same seed, scopes and strategy) whose sizes join "
        "this report: measure small sizes in a fresh workspace, then reuse a kept big one",
    )
    args = parser.parse_args(list(argv))
    try:
        args.size_list = [int(s) for s in args.sizes.split(",") if s.strip()]
    except ValueError:
        parser.error("--sizes takes comma-separated integers")
    if not args.size_list or args.size_list != sorted(set(args.size_list)):
        parser.error("--sizes must be distinct and ascending")
    if args.scopes < 4:
        parser.error("--scopes must be at least 4")
    try:
        scope_sizes(args.size_list[0], args.scopes, args.seed)
    except ValueError as exc:
        parser.error(str(exc))
    return args


def command_line(argv: Sequence[str]) -> str:
    if Path(sys.argv[0]).name == "beliefgraph":
        return shlex.join(["beliefgraph", "bench", "search", *argv])
    return shlex.join(["python", "-m", "tests.bench.search_bench", *argv])


async def setup(db: Database, corpus: Corpus, args: argparse.Namespace) -> int:
    """Create (or reuse) the workspace, its peers and scopes; returns the observations it
    already holds. A reused workspace must hold the corpus of the same seed, scopes and sizes."""
    ws = corpus.workspace
    recipe = {"bench": "search", "seed": args.seed, "scopes": args.scopes, "sizes": args.sizes}
    record = await workspaces.get_or_create(db, ws, Meta.of(recipe, None, limit=JSON_LIMIT))
    if record.metadata != recipe:
        raise SystemExit(f"workspace {ws} holds another corpus ({record.metadata}); not {recipe}")
    _, existing = await stored(db, ws)
    if existing and existing not in args.size_list:
        raise SystemExit(f"workspace {ws} holds {existing:,} observations, none of --sizes")
    for name in corpus.names:
        await peers.get_or_create(db, ws, name)
    scopes = [{"observer": s.observer, "observed": s.observed} for s in corpus.scopes]
    await statements.write(db, "bench_create_scopes", workspace=ws, scopes=scopes)
    return existing


async def run(
    settings: Settings, password: str, args: argparse.Namespace, where: str, argv: Sequence[str]
) -> dict[str, Any]:
    started = time.perf_counter()
    services = await open_services(settings, password=password, embedder=PrimedEmbedder())
    db = services.db
    name = args.workspace or f"bench-search-{uuid.uuid4().hex[:8]}"
    corpus = Corpus(name, args.scopes, args.size_list[-1], args.seed)
    bench = Bench(db, corpus, args)
    measures: list[dict[str, Any]] = []
    existing = 0
    try:
        component = await statements.read_one(db, "bench_neo4j_version")
        config = await statements.read_one(
            db, "bench_vector_index_config", name="observation_vectors"
        )
        existing = await setup(db, corpus, args)
        indexed, _ = await stored(db, corpus.workspace)
        if indexed > existing:
            print(
                f"warning: the vector index also holds {indexed - existing:,} observations "
                "of other workspaces; they count in every index query",
                file=sys.stderr,
            )
        bench.sample_load("start")
        for size in args.size_list:
            print(f"corpus {size:,} ...", file=sys.stderr, flush=True)
            grown = await fill(
                db, corpus, size, args.batch, existing, rebuild=args.rebuild_vector_index
            )
            if existing > size:
                print(f"  skipped: {corpus.workspace} already holds more", file=sys.stderr)
                continue
            bench.sample_load(f"after fill to {size:,}")
            bench.rng = np.random.default_rng(args.seed * 1_000_003 + size)
            buckets = {b: len(s) for b, s in corpus.bucket_scopes().items()}
            search = await bench.search(bench.queries(args.queries), f"search {size:,}")
            offtopic = await bench.search(bench.offtopic(args.offtopic_queries), "off-topic")
            bench.sample_load(f"after search at {size:,}")
            context = await bench.context(bench.queries(args.context_queries))
            measures.append(
                {
                    "size": size,
                    "fill": grown.summary(),
                    "buckets": buckets,
                    "largest_scope": max(s.size for s in corpus.scopes),
                    "search": {b: s.summary() for b, s in search.items()},
                    "offtopic": {b: s.summary() for b, s in offtopic.items() if s.ours},
                    "context": context,
                }
            )
            print(search_table(measures[-1:], "search"), file=sys.stderr, flush=True)
    finally:
        # A big corpus on the managed instance goes with its data dir (see main).
        leave = args.keep or (settings.managed and corpus.size > 200_000)
        if not leave:
            seconds, deleted = await timed(workspaces.delete(db, corpus.workspace))
            print(
                f"deleted {corpus.workspace}: {deleted:,} nodes in {seconds:.1f} s", file=sys.stderr
            )
        await close_services(services)
    index_config = "?"
    if config:
        options = config["options"].get("indexConfig", {})
        index_config = ", ".join(f"`{k}` {v}" for k, v in sorted(options.items()))
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command_line(argv),
        "run_s": time.perf_counter() - started,
        "environment": {
            "machine": machine(),
            "neo4j": {
                "version": component["version"] if component else "?",
                "edition": component["edition"] if component else "?",
                "where": where,
                "vector_index": {"config": index_config},
            },
            "load_1min": [{"when": when, "load": load} for when, load in bench.loads],
        },
        "strategy": {
            "exact_scan_limit": OBSERVATIONS.exact_scan_limit,
            "candidates": OBSERVATIONS.first_round(LIMIT)[0],
            "wide_from": OBSERVATIONS.wide_from,
            "wide": OBSERVATIONS.first_round(LIMIT)[1],
            "max_candidates": OBSERVATIONS.max_candidates,
            "text_overfetch": OBSERVATIONS.text_overfetch,
        },
        "sizes": args.size_list,
        "scopes": args.scopes,
        "batch": args.batch,
        "rebuild_vector_index": args.rebuild_vector_index,
        "queries": args.queries,
        "offtopic_queries": args.offtopic_queries,
        "context_queries": args.context_queries,
        "workspace": corpus.workspace,
        "measures": measures,
    }


def dir_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    logging.getLogger("neo4j.notifications").setLevel(logging.ERROR)
    neo4j = neo4j_from_args(args)
    try:
        report = asyncio.run(run(neo4j.settings, neo4j.password, args, neo4j.where, argv))
    finally:
        server = neo4j.server
        if server is not None and neo4j.done(args.keep):
            data = server.paths.data
            if data.exists() and dir_size(data) > HUGE_DATA_DIR:
                print(f"deleting {data} ({dir_size(data) / 2**30:.1f} GiB)", file=sys.stderr)
                shutil.rmtree(data)
    if args.merge:
        merge(report, args.merge)
    section = render(report)
    print(section)
    write_section(args.report, args.section, section)
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.report} and {args.json}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
