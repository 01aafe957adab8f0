"""`bench api --synthetic`: message search on a synthetic corpus (tests/bench/message_corpus.py)
of up to a million messages, written in bulk with seeded vectors instead of model embeddings.

Per size, per scope kind (workspace, session, peer) and per scope-size bucket: recall@10 of
`graph.repo.message_search.vector_candidates` against the exact cosine over the same scope
(numpy over the corpus vectors), and the latency of that call, of the hybrid
`reasoners.search.messages.search_messages` (with an embedder that returns the precomputed query
vector, so no model is timed), of its fulltext half, and of the exact Cypher scan
(`message_search.exact_scan`, the baseline), run back to back for every query in rotating order.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from cypher.statements import Statement
from graph import models
from graph.db import Database
from graph.migrations import MESSAGE_VECTORS
from graph.props import NO_META, Meta, node_props
from graph.repo import message_search as search_repo
from graph.repo import workspaces
from graph.repo.messages import MessageFilter
from graph.repo.retrieval import MESSAGES, WORKSPACE_MESSAGES
from graph.schema import statement_params
from reasoners.search.hybrid import pool_size
from reasoners.search.messages import search_messages
from tests import statements
from tests.bench.common import pct, run_interleaved, table, timed
from tests.bench.message_corpus import KINDS, Kind, MessageCorpus, Query, Scope
from tests.bench.synthetic import (
    BUCKETS,
    DIM,
    DORMANT_MAX,
    FACET_MEAN,
    TOPICS,
    TOPICS_PER_SCOPE,
    PrimedEmbedder,
)

LIMIT = 10
WARMUP_QUERIES = 5
PATHS = ("exact", "index", "wide index", "workspace", "fallback")
JSON_LIMIT = 16384
SETUP_BATCH = 5_000


class RecordingDatabase(Database):
    """The same database, noting each round of a message vector search (the path it took)."""

    def __init__(self, inner: Database) -> None:
        super().__init__(inner.driver, inner.database)
        self.calls: list[tuple[str, int]] = []  # (path, candidates asked)

    async def read(self, statement: str, /, **params: Any) -> list[dict[str, Any]]:
        rows = await super().read(statement, **params)  # type: ignore[arg-type]
        if statement == "search_messages_vector" and rows:
            total = rows[0]["total"]
            if rows[0]["dominant"] is not None:
                self.calls.append(("workspace", int(rows[0]["dominant"])))
            elif total is None:
                self.calls.append(("wide index", int(params["wide"])))
            elif int(total) > int(params["exact_scan_limit"]):
                self.calls.append(("index", int(params["candidates"])))
            else:
                self.calls.append(("exact", 0))
        elif statement == "search_messages_exact":
            self.calls.append(("fallback", 0))
        return rows

    def path(self) -> tuple[str, int, int]:
        """(path, index rounds, largest candidate count) of the last search."""
        rounds = [asked for path, asked in self.calls if path not in ("exact", "fallback")]
        if any(path == "fallback" for path, _ in self.calls):
            return "fallback", len(rounds), max(rounds, default=0)
        if not rounds:
            return "exact", 0, 0
        return self.calls[0][0], len(rounds), max(rounds)


def dominant_strategy() -> dict[str, int]:
    """The peers' whole-workspace rule, for the report (empty when there is none)."""
    rule = MESSAGES.dominant
    if rule is None:
        return {}
    return {
        "dominant min_size": rule.min_size,
        "dominant hits_per_wanted": rule.hits_per_wanted,
        "dominant rounds from": rule.rounds[0],
        "dominant rounds to": rule.rounds[1],
    }


# -- fill ------------------------------------------------------------------------------------


async def setup(db: Database, corpus: MessageCorpus, args: argparse.Namespace) -> None:
    """The workspace, its peers and its sessions (bulk, validated maps)."""
    ws = corpus.workspace
    recipe = {"bench": "api", "synthetic": True, "seed": args.seed}
    await workspaces.get_or_create(db, ws, Meta.of(recipe, None, limit=JSON_LIMIT))
    stamp = datetime.now(UTC)
    for kind, names, model in (
        ("peers", corpus.peers, models.Peer),
        ("sessions", corpus.sessions, models.Session),
    ):
        extra: dict[str, Any] = {"active": True, "next_seq": 0} if kind == "sessions" else {}
        maps = [
            node_props(
                model,
                {"workspace": ws, "name": name, **NO_META.created(), **extra}
                | {"created_at": stamp},
            )
            for name in names
        ]
        for first in range(0, len(maps), SETUP_BATCH):
            chunk = maps[first : first + SETUP_BATCH]
            # Named at the call, where the catalog test checks each statement's parameters.
            if kind == "peers":
                await statements.write(db, "bench_create_peers", workspace=ws, peers=chunk)
            else:
                await statements.write(db, "bench_create_sessions", workspace=ws, sessions=chunk)


@dataclass
class Fill:
    size: int
    added: int = 0
    reused: bool = False  # held already by a workspace an earlier run kept (--reuse-workspace)
    build_s: float = 0.0
    insert_s: float = 0.0
    await_s: float = 0.0
    vector_indexes: int = 0
    message_graph: dict[str, int] = field(default_factory=dict)  # the index's HNSW settings

    def summary(self) -> dict[str, Any]:
        loading = self.insert_s + self.await_s
        return {
            "size": self.size,
            "added": self.added,
            "reused": self.reused,
            "build_s": self.build_s,
            "insert_s": self.insert_s,
            "await_indexes_s": self.await_s,
            "insert_per_s": self.added / loading if loading else 0.0,
            "vector_indexes": self.vector_indexes,
            "message_graph": self.message_graph,
        }


def validated(corpus: MessageCorpus, row: int) -> dict[str, Any]:
    """`corpus.props(row)` through graph.models (one row per batch: checks the fast path)."""
    fast = corpus.props(row)
    data = {("uid" if k == "id" else k): v for k, v in fast.items()}
    slow = {k: v for k, v in node_props(models.Message, data).items() if v is not None}
    if set(slow) != set(fast) or any(slow[k] != fast[k] for k in fast if k != "embedding"):
        raise AssertionError(f"bench props drifted from graph.models: {sorted(slow)}")
    return slow


async def fill(
    db: Database, corpus: MessageCorpus, total: int, batch: int, *, rebuild: bool = False
) -> Fill:
    """Grow the corpus to `total` messages. With `rebuild`, the message_vectors index is dropped
    before the insert and created again after it (with the schema's own statement), so it is
    built in one population instead of one vector at a time: several times faster on a big
    fill, but searches of every workspace lack the index meanwhile (a bench database only)."""
    started = time.perf_counter()
    rows = corpus.extend(total)
    result = Fill(total, len(rows), build_s=time.perf_counter() - started)
    if rebuild:
        await db.write("drop_index", name=MESSAGE_VECTORS)
    for first in range(rows.start, rows.stop, batch):
        chunk = range(first, min(first + batch, rows.stop))
        props = [validated(corpus, r) if r == first else corpus.props(r) for r in chunk]
        start = time.perf_counter()
        await statements.write(
            db, "bench_fill_messages", workspace=corpus.workspace, messages=props
        )
        result.insert_s += time.perf_counter() - start
        done = chunk.stop - rows.start
        if done % (batch * 10) == 0 or chunk.stop == rows.stop:
            rate = done / result.insert_s if result.insert_s else 0.0
            print(f"  fill {chunk.stop:,}/{total:,} ({rate:,.0f}/s)", file=sys.stderr, flush=True)
    start = time.perf_counter()
    if rebuild:
        name: Statement = "create_vector_index_message"
        await db.write(name, **statement_params(name, DIM))
    await db.write("await_indexes", timeout_seconds=7200)
    result.await_s = time.perf_counter() - start
    await describe_indexes(db, result)
    return result


REUSE_SAMPLE = 200  # stored messages compared with the regenerated corpus


async def reuse(db: Database, corpus: MessageCorpus, total: int, seed: int) -> Fill:
    """The corpus at `total` as a kept workspace already holds it: regenerated, not written.
    Refuses a workspace that holds another count, or whose sampled messages (vector, session,
    speaker) differ from the regenerated ones (other --seed, --sessions, --peers or --sizes)."""
    corpus.extend(total)
    rows = np.random.default_rng(seed).choice(total, size=min(REUSE_SAMPLE, total), replace=False)
    found = await statements.read(
        db,
        "bench_stored_messages",
        workspace=corpus.workspace,
        ids=[corpus.ids[r] for r in rows.tolist()],
    )
    stored = int(found[0]["total"]) if found else 0
    if stored != total:
        raise SystemExit(
            f"--reuse-workspace {corpus.workspace}: holds {stored:,} messages, not {total:,}"
        )
    for row, record in zip(rows.tolist(), found, strict=True):
        same = (
            record["embedding"] is not None
            and np.allclose(record["embedding"], corpus.vectors[row], atol=1e-6)
            and record["session"] == corpus.sessions[int(corpus.session_of[row])]
            and record["peer"] == corpus.peers[int(corpus.peer_of[row])]
        )
        if not same:
            raise SystemExit(
                f"--reuse-workspace {corpus.workspace}: message {record['id']} is not the one "
                "this corpus generates (run with the --seed, --sessions, --peers and --sizes "
                "that filled it)"
            )
    result = Fill(total, reused=True)
    await describe_indexes(db, result)
    return result


async def describe_indexes(db: Database, result: Fill) -> None:
    indexes = await db.read("list_vector_indexes")
    result.vector_indexes = len(indexes)
    result.message_graph = {
        key: int(row[key])
        for row in indexes
        if row["name"] == MESSAGE_VECTORS
        for key in ("hnsw_m", "hnsw_ef_construction")
    }


# -- measurement -----------------------------------------------------------------------------


TIMED = ("ours", "exact", "hybrid", "fulltext")


@dataclass
class Samples:
    ours: list[float] = field(default_factory=list)
    exact: list[float] = field(default_factory=list)
    hybrid: list[float] = field(default_factory=list)
    fulltext: list[float] = field(default_factory=list)
    recall: list[float] = field(default_factory=list)
    exact_agrees: list[float] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    candidates: list[int] = field(default_factory=list)
    scopes: set[int] = field(default_factory=set)
    sizes: list[int] = field(default_factory=list)

    def add(self, other: Samples) -> None:
        for name in (*TIMED, "recall", "exact_agrees", "paths", "rounds", "candidates", "sizes"):
            getattr(self, name).extend(getattr(other, name))
        self.scopes |= other.scopes

    def summary(self) -> dict[str, Any]:
        index_rounds = [r for r in self.rounds if r]
        return {
            "queries": len(self.ours),
            "scopes_queried": len(self.scopes),
            "scope_size_max": max(self.sizes, default=0),
            "recall_at_10": float(np.mean(self.recall)) if self.recall else 0.0,
            "recall_at_10_min": float(np.min(self.recall)) if self.recall else 0.0,
            "exact_agrees_with_numpy": float(np.mean(self.exact_agrees))
            if self.exact_agrees
            else 0.0,
            "path": {p: self.paths.count(p) for p in PATHS},
            "index_rounds_mean": float(np.mean(index_rounds)) if index_rounds else 0.0,
            "candidates_max": max(self.candidates, default=0),
            **{
                f"{name}_p{q}_ms": pct(getattr(self, name), q) * 1000
                for name in TIMED
                for q in (50, 95)
            },
        }


def scope_filter(scope: Scope) -> MessageFilter:
    if scope.kind == "session":
        return MessageFilter(session=scope.name)
    if scope.kind == "peer":
        assert scope.name is not None
        return MessageFilter(peer=scope.name)
    return MessageFilter()


def warm_up(count: int) -> str:
    if count <= WARMUP_QUERIES:
        return f"{count} warm-up queries each"
    return (
        f"{count} warm-up queries each: the first {WARMUP_QUERIES} through every path, the "
        "rest without the exact scan"
    )


class Search:
    """Runs every path for each query and scores ours against numpy's exact top 10."""

    def __init__(self, db: Database, corpus: MessageCorpus, warmup: int = WARMUP_QUERIES) -> None:
        self.db = db
        self.warmup = warmup  # uncounted queries of each kind before the measured ones
        self.recording = RecordingDatabase(db)
        self.corpus = corpus
        self.embedder = PrimedEmbedder()
        self.row_of: dict[str, int] = {}

    def index_ids(self) -> None:
        for row in range(len(self.row_of), self.corpus.size):
            self.row_of[self.corpus.ids[row]] = row

    def truth(self, query: Query) -> tuple[float, list[float]]:
        """(score of the exact 10th best in scope, the exact top scores), by numpy."""
        n = self.corpus.size
        scores = self.corpus.vectors[:n] @ query.vector
        if query.scope.kind != "workspace":
            scores = scores[self.corpus.scope_rows(query.scope)]
        top = np.sort(scores)[::-1][:LIMIT]
        return float(top[-1]), [float(x) for x in top]

    def recall(self, query: Query, kth: float, wanted: int, got: Sequence[str]) -> float:
        """Share of the exact top 10 found; a hit in scope scoring at least the exact 10th
        (within float rounding) counts, so equal scores never count as misses."""
        c = self.corpus
        good = 0
        for message_id in got:
            row = self.row_of[message_id]
            in_scope = (
                query.scope.kind == "workspace"
                or (query.scope.kind == "session" and c.session_of[row] == query.scope.index)
                or (query.scope.kind == "peer" and c.peer_of[row] == query.scope.index)
            )
            if in_scope and float(c.vectors[row] @ query.vector) >= kth - 1e-4:
                good += 1
        return min(good, wanted) / wanted

    async def one(
        self, query: Query, samples: Samples | None, turn: int, *, exact_between: bool = True
    ) -> None:
        """One query through every contender, interleaved; with `exact_between` off, the exact
        scan is left for `exact_pass`."""
        db, ws = self.db, self.corpus.workspace
        vec = [float(x) for x in query.vector]
        filters = scope_filter(query.scope)
        results: dict[str, Any] = {}

        async def ours() -> None:
            self.recording.calls.clear()
            results["ours"] = await search_repo.vector_candidates(
                self.recording, ws, vec, filters, LIMIT
            )

        async def exact() -> None:
            results["exact"] = await search_repo.exact_scan(db, ws, vec, filters, LIMIT)

        async def hybrid() -> None:
            self.embedder.prime(query.text, vec)
            await search_messages(db, self.embedder, ws, query.text, filters, LIMIT)

        async def fulltext() -> None:
            # The fulltext half of hybrid search, as it runs there (pool, similarities).
            await search_repo.text_candidates(
                db, ws, query.text, filters, pool_size(LIMIT), embedding=vec
            )

        runs: list[tuple[str, Callable[[], Awaitable[None]]]] = [
            ("ours", ours),
            *([("exact", exact)] if exact_between else []),
            ("hybrid", hybrid),
            ("fulltext", fulltext),
        ]
        seconds = await run_interleaved(runs, turn)
        if samples is None:
            return
        for name, spent in seconds.items():
            getattr(samples, name).append(spent)
        kth, top = self.truth(query)
        got = [m.id for m, _ in results["ours"]]
        samples.recall.append(self.recall(query, kth, len(top), got))
        if exact_between:
            samples.exact_agrees.append(self.agrees(results["exact"], top))
        path, rounds, biggest = self.recording.path()
        samples.paths.append(path)
        samples.rounds.append(rounds)
        samples.candidates.append(biggest)
        samples.scopes.add(query.scope.index)
        samples.sizes.append(query.size)

    @staticmethod
    def agrees(exact: Sequence[tuple[Any, float]], top: Sequence[float]) -> float:
        """1.0 when the exact Cypher scan's scores match numpy's top scores."""
        # Neo4j's cosine score is (1 + cos) / 2.
        mine = sorted((2 * score - 1 for _, score in exact), reverse=True)
        return 1.0 if len(mine) == len(top) and bool(np.allclose(mine, top, atol=1e-4)) else 0.0

    async def exact_pass(self, queries: Sequence[Query], by_bucket: dict[str, Samples]) -> None:
        """The exact scans of `queries`, after all their index queries ran."""
        db, ws = self.db, self.corpus.workspace
        for query in queries:
            vec = [float(x) for x in query.vector]
            spent, exact = await timed(
                search_repo.exact_scan(db, ws, vec, scope_filter(query.scope), LIMIT)
            )
            samples = by_bucket[query.bucket]
            samples.exact.append(spent)
            samples.exact_agrees.append(self.agrees(exact, self.truth(query)[1]))

    async def kind(self, kind: Kind, count: int, rng: np.random.Generator) -> dict[str, Samples]:
        """Samples per bucket of `kind` (plus "all" when there are several buckets).

        A whole-workspace exact scan reads every message of the store (about 30 s at 1M), so
        those scans run after the index queries rather than between them, where they could
        push the index's files out of memory (the 100,000-scope run measured the bucket no
        faster this way, so that was not the cause there)."""
        between = kind != "workspace"
        for k, query in enumerate(self.corpus.queries(kind, self.warmup, rng)):
            # The first few run every path; any more (--warmup) leave out the exact scan,
            # which would take hours at 1M: they warm the index as a server's steady traffic.
            await self.one(query, None, k, exact_between=between and k < WARMUP_QUERIES)
        by_bucket: dict[str, Samples] = {}
        queries = self.corpus.queries(kind, count, rng)
        for k, query in enumerate(queries):
            samples = by_bucket.setdefault(query.bucket, Samples())
            await self.one(query, samples, k, exact_between=between)
            if (k + 1) % 50 == 0:
                print(f"  {kind}: {k + 1}/{len(queries)} queries", file=sys.stderr, flush=True)
        if not between:
            await self.exact_pass(queries, by_bucket)
        ordered = {name: by_bucket[name] for name, _, _ in BUCKETS if name in by_bucket}
        if len(ordered) > 1:
            overall = Samples()
            for samples in ordered.values():
                overall.add(samples)
            ordered["all"] = overall
        return ordered


async def run_synthetic(
    db: Database, args: argparse.Namespace, workspace: str, loads: list[tuple[str, float]]
) -> dict[str, Any]:
    """Grow the synthetic corpus through `args.size_list`, measuring search at each size."""
    corpus = MessageCorpus(workspace, args.sessions, args.peers, args.size_list[-1], args.seed)
    reusing = args.reuse_workspace is not None
    if not reusing:
        await setup(db, corpus, args)
    search = Search(db, corpus, args.warmup)
    measures: list[dict[str, Any]] = []
    for size in args.size_list:
        if reusing and size != args.size_list[-1]:
            # The kept workspace holds the last size only: the corpus is grown the same way
            # (its messages depend on the steps), without writing or measuring.
            corpus.extend(size)
            continue
        print(f"synthetic corpus {size:,} ...", file=sys.stderr, flush=True)
        if reusing:
            grown = await reuse(db, corpus, size, args.seed)
        else:
            grown = await fill(db, corpus, size, args.fill_batch, rebuild=args.rebuild_vector_index)
        loads.append((f"after fill to {size:,}", os.getloadavg()[0]))
        search.index_ids()
        rng = np.random.default_rng(args.seed * 1_000_003 + size)
        kinds: dict[str, dict[str, Any]] = {}
        for kind in KINDS:
            count = args.workspace_queries if kind == "workspace" else args.queries
            measured = await search.kind(kind, count, rng)
            kinds[kind] = {bucket: s.summary() for bucket, s in measured.items()}
        loads.append((f"after search at {size:,}", os.getloadavg()[0]))
        measures.append(
            {
                "size": size,
                "fill": grown.summary(),
                "buckets": {
                    kind: {b: len(s) for b, s in corpus.bucket_scopes(kind).items()}
                    for kind in ("session", "peer")
                },
                "largest": {
                    "session": int(corpus.session_size.max()),
                    "peer": int(corpus.peer_size.max()),
                },
                "search": kinds,
            }
        )
        print(search_table(measures[-1:]), file=sys.stderr, flush=True)
    return {
        "sessions": args.sessions,
        "peers": args.peers,
        "fill_batch": args.fill_batch,
        "rebuild_vector_index": args.rebuild_vector_index,
        "queries": args.queries,
        "workspace_queries": args.workspace_queries,
        "warmup": args.warmup,
        "strategy": {
            "exact_scan_limit": MESSAGES.exact_scan_limit,
            "candidates": MESSAGES.first_round(LIMIT)[0],
            "wide": MESSAGES.first_round(LIMIT)[1],
            "workspace wide": WORKSPACE_MESSAGES.first_round(LIMIT)[1],
            "max_candidates": MESSAGES.max_candidates,
            **dominant_strategy(),
            **measures[-1]["fill"]["message_graph"],
        },
        "measures": measures,
    }


# -- report ----------------------------------------------------------------------------------


def fill_table(measures: Sequence[dict[str, Any]]) -> str:
    buckets = " / ".join(b for b, _, _ in BUCKETS)
    header = ["corpus", "added", "insert s", "await indexes s", "messages/s",
              "vector indexes in the database", f"sessions per bucket ({buckets})",
              f"peers per bucket ({buckets})", "largest session", "largest peer"]  # fmt: skip
    rows = []
    for m in measures:
        f = m["fill"]
        per = {k: " / ".join(str(m["buckets"][k].get(b, 0)) for b, _, _ in BUCKETS)
               for k in ("session", "peer")}  # fmt: skip
        rows.append(
            [
                f"{m['size']:,}",
                f"{f['added']:,}" + (" (reused)" if f.get("reused") else ""),
                f"{f['insert_s']:.0f}",
                f"{f['await_indexes_s']:.0f}",
                f"{f['insert_per_s']:,.0f}",
                str(f["vector_indexes"]),
                per["session"],
                per["peer"],
                f"{m['largest']['session']:,}",
                f"{m['largest']['peer']:,}",
            ]
        )
    return table(header, rows)


def search_table(measures: Sequence[dict[str, Any]]) -> str:
    header = ["corpus", "scope", "bucket", "queries (scopes)", "path " + "/".join(PATHS),
              "recall@10 ours", "recall@10 min", "ours p50", "ours p95", "exact p50",
              "exact p95", "hybrid p50", "hybrid p95", "fulltext p50",
              "exact = numpy"]  # fmt: skip
    rows = []
    for m in measures:
        for kind, buckets in m["search"].items():
            for bucket, s in buckets.items():
                label = f"**{bucket}**" if bucket == "all" else bucket
                rows.append(
                    [
                        f"{m['size']:,}",
                        kind,
                        label,
                        f"{s['queries']} ({s['scopes_queried']})",
                        "/".join(str(s["path"].get(p, 0)) for p in PATHS),
                        f"{s['recall_at_10']:.3f}",
                        f"{s['recall_at_10_min']:.2f}",
                        *(f"{s[f'{p}_p{q}_ms']:.1f}" for p in TIMED[:3] for q in (50, 95)),
                        f"{s['fulltext_p50_ms']:.1f}",
                        f"{s['exact_agrees_with_numpy']:.3f}",
                    ]
                )
    return table(header, rows)


def verdict(measures: Sequence[dict[str, Any]]) -> list[str]:
    lines = []
    for m in measures:
        rows = [
            (s["recall_at_10"], f"{kind} {bucket}")
            for kind, buckets in m["search"].items()
            for bucket, s in buckets.items()
            if bucket != "all" and s["queries"]
        ]
        worst = min(rows)
        p95 = max(
            s["ours_p95_ms"]
            for buckets in m["search"].values()
            for bucket, s in buckets.items()
            if bucket != "all"
        )
        lines.append(
            f"- {m['size']:,}: lowest bucket recall@10 {worst[0]:.3f} ({worst[1]}; aim >= 0.98); "
            f"highest bucket p95 of `vector_candidates` {p95:.1f} ms (aim <= 50 ms at 1M)."
        )
    return lines


def render_search(synthetic: dict[str, Any]) -> list[str]:
    """The message search part of the report section, synthetic mode."""
    measures = synthetic["measures"]
    sizes = ", ".join(f"{m['size']:,}" for m in measures)
    strategy = ", ".join(f"{k}={v:,}" for k, v in synthetic["strategy"].items())
    return [
        "### Message search (synthetic corpus)",
        "",
        f"One workspace grown through {sizes} "
        f"messages (measured at each size) over {synthetic['sessions']:,} sessions and "
        f"{synthetic['peers']:,} peers, both of skewed sizes: half dormant (a fixed "
        f"1-{DORMANT_MAX}, log-uniform), half active sharing the rest by Zipf weights rank^-1; "
        "each message's session and speaker are drawn independently. Embeddings: "
        f"{DIM}-dim seeded unit vectors (`tests/bench/synthetic.py`, as `bench search`): "
        f"{TOPICS} global topics, {TOPICS_PER_SCOPE} per session around a centroid of its own, "
        f"facets of ~{FACET_MEAN} messages saying the same thing. Content: the speaker's name, "
        "a verb, topic and facet keywords (pseudo-words), so fulltext matches. Inserted with "
        f"`tests/cypher/bench_fill_messages.cypher` ({synthetic['fill_batch']:,} per "
        "transaction; sessions' next_seq counts them), then `db.awaitIndexes`"
        + (
            " (the message_vectors index was dropped before each fill and created again after "
            "it with the schema's statement, so await indexes is its whole population)"
            if synthetic["rebuild_vector_index"]
            else " (the message_vectors index took each vector as it was inserted)"
        )
        + ". The vector indexes column counts every vector index in the database.",
        "",
        fill_table(measures),
        "",
        f"Queries per size: {synthetic['queries']} per kind (session, peer) spread evenly over "
        f"its non-empty size buckets, {synthetic['workspace_queries']} for the workspace "
        f"(after {warm_up(synthetic.get('warmup', WARMUP_QUERIES))}); a random scope of "
        "the bucket, a "
        "random message of it moved a little (cos ~0.89) and a question of its keywords. "
        "Every query runs all paths back to back, order rotated (the whole workspace's exact "
        "scans run after all its index queries of that size: each reads the whole store, which "
        "could push the index out of memory): **ours** = "
        f"`message_search.vector_candidates(..., limit {LIMIT})` ({strategy}); **exact** = "
        "`message_search.exact_scan` (the exact Cypher cosine over the scope: the baseline); "
        "**hybrid** = `search_messages` (vector and fulltext candidates side by side, pool 30 "
        "each, score fusion) with an "
        "embedder that returns the precomputed vector (no model time); **fulltext** = its "
        "fulltext half alone (pool 30). recall@10 = share of the numpy exact top 10 of the "
        "scope found by ours (a hit scoring at least the exact 10th counts, so ties are not "
        "misses). path = queries answered by the exact scan / an index round / a wide index "
        "round (peers and the workspace: size not counted; the whole workspace's first round is "
        "`workspace wide`) / a round over the whole workspace, the peer's kept after (a peer "
        "that sent a large share of the messages: `dominant` in the strategy) / index rounds "
        "then the exact fallback. exact = numpy: share of queries where the Cypher exact "
        "scan's top scores equal numpy's (a check of the ground truth). Times in ms.",
        "",
        search_table(measures),
        "",
        *verdict(measures),
    ]
