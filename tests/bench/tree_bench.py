"""Sub-peer tree benchmark: what an aggregated read of a 1,000-peer MEMBER_OF tree costs.

The tree (--peers, default 1,000): a root, then each peer under a random earlier peer less than
--depth levels down, and about --extra of them under a second parent at the same level (the
tree is many-to-many and its longest chain stays --depth). Every edge goes through the
product's checked write (members.add). One observer holds --observations beliefs (default
100,000) about the tree's peers, Zipf-sized per peer, with clustered random unit vectors (what
the vector index costs does not depend on what the vectors mean).

Measured, per query, from the root at depth ALL and from random inner peers at depth ALL:
- the aggregation set (members.aggregation_set, one breadth-first MEMBER_OF traversal), beside
  a baseline that enumerates every MEMBER_OF path (a plain variable-length match);
- the aggregated vector search the product runs (observation_search.vector_candidates over
  the set's scope keys: the exact scan when the set is small, the filtered index otherwise),
  beside the exact cosine over the same scopes, with recall@10 against it.

Run: ``python -m tests.bench.tree_bench --peers 1000 --observations 100000``.
"""

from __future__ import annotations

import argparse
import contextlib
import shlex
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from graph import models
from graph.errors import NotFound
from graph.keys import scope_key
from graph.props import node_props
from graph.repo import members, observation_search, peers, workspaces
from graph.repo.observation_search import ObservationQuery
from resolvers.services import Services
from tests import statements
from tests.bench.common import DOCS, add_instance_args, machine, pct, run_bench, table

BOLT_PORT = 48687
HTTP_PORT = 48474
OBSERVER = "agent"
CHUNK = 1_000
TOPICS = 64
K = 10


@dataclass(frozen=True)
class Tree:
    names: list[str]
    edges: list[tuple[str, str]]  # (parent, child)
    level: list[int]


def plan_tree(peers_count: int, depth: int, extra: float, rng: np.random.Generator) -> Tree:
    """A random rooted DAG: peer i under an earlier peer above level `depth`, sometimes also
    under a second earlier peer of the same level (so no chain gets longer)."""
    names = [f"p{i:04d}" for i in range(peers_count)]
    level = [0]
    edges: list[tuple[str, str]] = []
    for i in range(1, peers_count):
        open_parents = [j for j in range(i) if level[j] < depth]
        parent = int(rng.choice(open_parents))
        level.append(level[parent] + 1)
        edges.append((names[parent], names[i]))
        if rng.random() < extra:
            peers_alike = [j for j in open_parents if level[j] == level[parent] and j != parent]
            if peers_alike:
                edges.append((names[int(rng.choice(peers_alike))], names[i]))
    return Tree(names, edges, level)


def zipf_sizes(total: int, count: int, rng: np.random.Generator) -> list[int]:
    """`total` beliefs over `count` peers, Zipf by a random rank, each at least one."""
    weights = 1.0 / np.arange(1, count + 1)
    rng.shuffle(weights)
    sizes = np.maximum(1, np.floor(weights / weights.sum() * (total - count)).astype(int) + 1)
    sizes[int(np.argmax(sizes))] += total - int(sizes.sum())
    return [int(s) for s in sizes]


def unit(rows: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    scaled: np.ndarray[Any, Any] = rows / np.linalg.norm(rows, axis=-1, keepdims=True)
    return scaled.astype(np.float32)


def vectors(count: int, centers: np.ndarray[Any, Any], rng: np.random.Generator) -> Any:
    topic = rng.integers(0, len(centers), count)
    return unit(centers[topic] + 0.9 * unit(rng.standard_normal((count, centers.shape[1]))))


def topic_centers(args: argparse.Namespace, dim: int) -> Any:
    return unit(np.random.default_rng(args.seed).standard_normal((TOPICS, dim)))


async def built(services: Services, workspace: str, args: argparse.Namespace) -> bool:
    """Whether a run with these arguments already built this workspace (--reuse)."""
    rows = await statements.read(services.db, "count_workspace_nodes", workspace=workspace)
    # Its peers (the observer too) and beliefs; the Workspace node has no `workspace`.
    return bool(rows) and int(rows[0]["total"]) == args.peers + 1 + args.observations


async def build(services: Services, workspace: str, tree: Tree, args: argparse.Namespace) -> None:
    db = services.db
    await workspaces.get_or_create(db, workspace)
    for name in [OBSERVER, *tree.names]:
        await peers.get_or_create(db, workspace, name)
    for parent, child in tree.edges:
        await members.add(db, workspace, parent, child, max_depth=args.depth)
    rng = np.random.default_rng(args.seed + 1)
    centers = topic_centers(args, services.settings.embedding_dim)
    sizes = zipf_sizes(args.observations, len(tree.names), rng)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    rows: list[dict[str, Any]] = []
    for name, size in zip(tree.names, sizes, strict=True):
        for n, vector in enumerate(vectors(size, centers, rng)):
            at = start + timedelta(minutes=len(rows))
            rows.append(
                node_props(
                    models.Observation,
                    {
                        "uid": str(uuid.uuid4()),
                        "workspace": workspace,
                        "observer": OBSERVER,
                        "observed": name,
                        "level": "explicit",
                        "content": f"{name} note {n}",
                        "scope_key": scope_key(workspace, OBSERVER, name),
                        "embedding": [float(x) for x in vector],
                        "created_at": at,
                        "valid_at": at,
                        "session": "bench",
                        "times_derived": 1,
                        "stale": False,
                        "facets": [],
                    },
                )
            )
        if len(rows) >= CHUNK:
            await insert(services, workspace, rows)
            rows = []
    await insert(services, workspace, rows)
    await db.write("await_indexes", timeout_seconds=7200)


async def insert(services: Services, workspace: str, rows: list[dict[str, Any]]) -> None:
    for at in range(0, len(rows), CHUNK):
        await statements.write(
            services.db,
            "bench_insert_observations",
            workspace=workspace,
            observations=rows[at : at + CHUNK],
        )


async def timed(work: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    result = await work
    return (time.perf_counter() - started) * 1000, result


async def measure_start(
    services: Services,
    workspace: str,
    start: str,
    queries: Any,
    max_peers: int,
) -> dict[str, Any]:
    db = services.db
    set_ms, naive_ms, search_ms, exact_ms, recalls = [], [], [], [], []
    covered: list[str] = []
    for query_vector in queries:
        ms, covered = await timed(
            members.aggregation_set(db, workspace, start, depth=members.ALL, max_peers=max_peers)
        )
        set_ms.append(ms)
        ms, rows = await timed(
            statements.read(db, "bench_naive_aggregation", workspace=workspace, peer=start)
        )
        naive_ms.append(ms)
        assert {str(r["name"]) for r in rows} == set(covered[1:]), "the two sets differ"
        query = ObservationQuery(OBSERVER, start, aggregated=tuple(covered[1:]))
        embedding = [float(x) for x in query_vector]
        ms, found = await timed(
            observation_search.vector_candidates(db, workspace, embedding, query, K)
        )
        search_ms.append(ms)
        ms, truth = await timed(observation_search.exact(db, workspace, embedding, query, K))
        exact_ms.append(ms)
        wanted = {o.id for o, _ in truth}
        recalls.append(len(wanted & {o.id for o, _ in found}) / max(1, len(wanted)))
    return {
        "start": start,
        "peers": len(covered),
        "queries": len(set_ms),
        "set_p50": pct(set_ms, 50),
        "set_p95": pct(set_ms, 95),
        "naive_set_p50": pct(naive_ms, 50),
        "naive_set_p95": pct(naive_ms, 95),
        "search_p50": pct(search_ms, 50),
        "search_p95": pct(search_ms, 95),
        "exact_p50": pct(exact_ms, 50),
        "exact_p95": pct(exact_ms, 95),
        "recall_at_10": float(np.mean(recalls)),
        "min_recall_at_10": float(np.min(recalls)),
    }


async def run(services: Services, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed)
    tree = plan_tree(args.peers, args.depth, args.extra, rng)
    # The corpus is deterministic in the arguments, so a kept server can serve it again.
    workspace = f"tree-bench-{args.seed}-{args.peers}-{args.depth}-{args.observations}"
    started = time.perf_counter()
    reused = args.reuse and await built(services, workspace, args)
    if not reused:
        with contextlib.suppress(NotFound):  # what an interrupted run left
            await workspaces.delete(services.db, workspace)
        await build(services, workspace, tree, args)
    build_s = time.perf_counter() - started
    centers = topic_centers(args, services.settings.embedding_dim)
    settings = services.settings
    inner = [n for n, lv in zip(tree.names, tree.level, strict=True) if 1 <= lv <= 3]
    starts = [tree.names[0], *[str(x) for x in rng.choice(inner, args.inner, replace=False)]]
    # Warm-up: statements into the query cache, the index into the page cache.
    await measure_start(services, workspace, starts[0], vectors(5, centers, rng), 100_000)
    rows = [
        await measure_start(
            services,
            workspace,
            start,
            vectors(args.queries, centers, rng),
            max(settings.max_aggregation_peers, args.peers),
        )
        for start in starts
    ]
    return {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3],
        "command": "python -m tests.bench.tree_bench " + shlex.join(args.argv),
        "peers": args.peers,
        "edges": len(tree.edges),
        "longest_chain": max(tree.level),
        "observations": args.observations,
        "build_s": round(build_s, 1),
        "reused": reused,
        "rows": rows,
    }


def build_text(report: dict[str, Any]) -> str:
    if report.get("reused"):
        return "built by an earlier run with the same arguments and reused"
    return f"build and index: {report['build_s']:.0f} s"


def render(report: dict[str, Any]) -> str:
    m = report["machine"]
    rows = report["rows"]
    root = rows[0]
    inner = rows[1:]

    def ms(value: float) -> str:
        return f"{value:.1f}"

    body = [
        [
            f"{r['start']}{' (root)' if r is root else ''}",
            f"{r['peers']:,}",
            f"{ms(r['set_p50'])} / {ms(r['set_p95'])}",
            f"{ms(r['naive_set_p50'])} / {ms(r['naive_set_p95'])}",
            f"{ms(r['search_p50'])} / {ms(r['search_p95'])}",
            f"{ms(r['exact_p50'])} / {ms(r['exact_p95'])}",
            f"{r['recall_at_10']:.3f} (min {r['min_recall_at_10']:.2f})",
        ]
        for r in rows
    ]
    worst_set = max(r["set_p95"] for r in rows)
    worst_search = max(r["search_p95"] for r in rows)
    worst_recall = min(r["recall_at_10"] for r in rows)
    lines = [
        "## Sub-peer trees: aggregated reads",
        "",
        f"Run {report['when']} on {m.get('cpu', '?')}, {m['cores']} cores, "
        f"{m.get('ram_gib', '?')} GiB RAM, Python {m['python']}, load average "
        f"{' '.join(report['load'])} at the end. Command: `{report['command']}`.",
        "",
        f"A MEMBER_OF tree of {report['peers']:,} peers and {report['edges']:,} edges (some "
        f"peers have two parents; longest chain {report['longest_chain']}), built through the "
        f"checked write, and {report['observations']:,} beliefs of one observer about them, "
        f"Zipf-sized per peer ({build_text(report)}). Each row reads at "
        f"depth ALL from one peer, {root['queries']} queries: the aggregation set (one "
        "breadth-first traversal) beside a plain variable-length match over every path; the "
        "product's aggregated vector search over the set's scopes beside the exact cosine over "
        "the same scopes, recall@10 against it. Times in ms, p50 / p95.",
        "",
        table(
            [
                "from",
                "peers covered",
                "set",
                "set, all paths (baseline)",
                "search",
                "exact scan (baseline)",
                "recall@10",
            ],
            body,
        ),
        "",
        f"Aims: the set in at most 20 ms p95 (worst row {worst_set:.1f} ms: "
        f"{'met' if worst_set <= 20 else 'not met'}); the search in at most 100 ms p95 (worst "
        f"row {worst_search:.1f} ms: {'met' if worst_search <= 100 else 'not met'}); recall@10 "
        f"at least 0.98 against exact (worst row {worst_recall:.3f}: "
        f"{'met' if worst_recall >= 0.98 else 'not met'}). {len(inner)} inner starts were "
        "drawn at random from levels 1 to 3.",
    ]
    return "\n".join(lines)


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="beliefgraph bench tree", description=__doc__)
    parser.add_argument("--peers", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=10, help="longest chain of the tree")
    parser.add_argument("--extra", type=float, default=0.05, help="share with a second parent")
    parser.add_argument("--observations", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=50, help="queries per starting peer")
    parser.add_argument("--inner", type=int, default=4, help="inner starting peers")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--report", type=Path, default=DOCS / "BENCHMARKS.md")
    parser.add_argument("--json", type=Path, default=DOCS / "bench-tree.json")
    parser.add_argument("--keep", action="store_true", help="keep the server running")
    parser.add_argument(
        "--reuse", action="store_true", help="reuse the corpus an earlier run left in the server"
    )
    add_instance_args(
        parser,
        instance="tree-bench",
        bolt_port=BOLT_PORT,
        http_port=HTTP_PORT,
        heap="2g",
        pagecache="2g",
    )
    args = parser.parse_args(argv)
    args.argv = list(argv)
    if not args.peers >= 2 or not 1 <= args.depth <= 32 or args.observations < args.peers:
        parser.error("need at least 2 peers, a depth of 1 to 32, and a belief per peer")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    return run_bench("tree", argv, parse, run, render)


if __name__ == "__main__":
    raise SystemExit(main())
