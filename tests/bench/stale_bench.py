"""Staleness propagation benchmark: its cost follows the beliefs it reaches, not the graph.

The graph: --background explicit beliefs (default 1,000,000) with no derivations, then two
derivation DAGs built on two of them:
- a wide one: --wide descendants (default 10,000) in levels of --fanout (default 10) per
  premise, each belief past the first level also resting on a second, random belief of the level
  above (so the number of paths to a belief grows much faster than the number of beliefs);
- a narrow one: a chain of --narrow descendants (default 10).

Measured, --repeats times each (the marks are reset between runs, outside the timing): the
product's propagation (graph.repo.invalidation.propagate, mark_stale_descendants.cypher) from
each root, beside a baseline in the same run: one pass over every belief of the workspace, the
least that a propagation scanning the graph instead of walking from its roots would pay.

Run: ``python -m tests.bench.stale_bench`` (full size), or small:
``python -m tests.bench.stale_bench --background 20000 --wide 1000 --repeats 3``.
"""

from __future__ import annotations

import argparse
import shlex
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from graph.keys import scope_key
from graph.repo import invalidation, peers, workspaces
from graph.validation import now
from resolvers.services import Services
from tests import statements
from tests.bench.common import DOCS, add_instance_args, machine, pct, run_bench, table

BOLT_PORT = 49687
HTTP_PORT = 49474
CHUNK = 50_000  # beliefs per server-side create
EDGE_CHUNK = 5_000


def plan_wide(descendants: int, fanout: int) -> list[int]:
    """Sizes of the wide DAG's levels: fanout, fanout**2, ... until the total is reached."""
    levels: list[int] = []
    left, size = descendants, fanout
    while left > 0:
        levels.append(min(size, left))
        left -= levels[-1]
        size *= fanout
    return levels


async def create(
    services: Services, workspace: str, prefix: str, count: int, level: str = "explicit"
) -> list[str]:
    scope = scope_key(workspace, "agent", "alice")
    prefix = f"{workspace}-{prefix}"  # ids are unique across workspaces
    for first in range(0, count, CHUNK):
        await statements.write(
            services.db,
            "bench_create_bare_observations",
            workspace=workspace,
            prefix=prefix,
            first=first,
            last=min(count, first + CHUNK) - 1,
            observer="agent",
            observed="alice",
            level=level,
            scope=scope,
            now=now(),
        )
    return [f"{prefix}{i}" for i in range(count)]


async def link(services: Services, edges: list[dict[str, str]]) -> None:
    for at in range(0, len(edges), EDGE_CHUNK):
        await statements.write(
            services.db, "bench_link_premises", edges=edges[at : at + EDGE_CHUNK]
        )


async def build(services: Services, workspace: str, args: argparse.Namespace) -> dict[str, Any]:
    rng = np.random.default_rng(args.seed)
    await workspaces.get_or_create(services.db, workspace)
    for name in ("agent", "alice"):
        await peers.get_or_create(services.db, workspace, name)
    background = await create(services, workspace, "bg-", args.background)
    wide_root, narrow_root = background[0], background[1]
    edges: list[dict[str, str]] = []
    above = [wide_root]
    wide: list[str] = []
    for depth, size in enumerate(plan_wide(args.wide, args.fanout)):
        ids = await create(services, workspace, f"w{depth}-", size, "deductive")
        for i, child in enumerate(ids):
            edges.append({"child": child, "premise": above[i // args.fanout % len(above)]})
            if depth > 0:
                edges.append({"child": child, "premise": above[int(rng.integers(len(above)))]})
        wide += ids
        above = ids
    chain = await create(services, workspace, "n-", args.narrow, "deductive")
    for premise, child in zip([narrow_root, *chain], chain, strict=False):
        edges.append({"child": child, "premise": premise})
    await link(services, edges)
    return {"wide_root": wide_root, "narrow_root": narrow_root, "wide": wide, "narrow": chain}


async def timed_propagation(
    services: Services, workspace: str, root: str, expected: list[str], repeats: int
) -> list[float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        marked = await services.db.write_tx(
            lambda tx: invalidation.propagate(tx, workspace, [root], "bench", now())
        )
        times.append((time.perf_counter() - started) * 1000)
        assert sorted(marked.stale) == sorted(expected), "propagation missed or over-reached"
        await statements.write(services.db, "bench_reset_stale", workspace=workspace, ids=expected)
    return times


async def timed_scan(services: Services, workspace: str, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        await statements.read(services.db, "bench_scan_workspace_observations", workspace=workspace)
        times.append((time.perf_counter() - started) * 1000)
    return times


async def run(services: Services, args: argparse.Namespace) -> dict[str, Any]:
    workspace = f"stale-bench-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    graph = await build(services, workspace, args)
    built = time.perf_counter() - started
    total = args.background + len(graph["wide"]) + len(graph["narrow"])
    results = {
        "wide": await timed_propagation(
            services, workspace, graph["wide_root"], graph["wide"], args.repeats
        ),
        "narrow": await timed_propagation(
            services, workspace, graph["narrow_root"], graph["narrow"], args.repeats
        ),
        "baseline scan": await timed_scan(services, workspace, args.repeats),
    }
    if not args.keep_data:
        await workspaces.delete(services.db, workspace)
    return {
        "command": "python -m tests.bench.stale_bench " + shlex.join(args.argv),
        "machine": machine(),
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "load": Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3],
        "observations": total,
        "build_seconds": round(built, 1),
        "reached": {"wide": len(graph["wide"]), "narrow": len(graph["narrow"])},
        "ms": {name: {"p50": pct(v, 50), "max": max(v)} for name, v in results.items()},
    }


def ran(report: dict[str, Any]) -> str:
    """When, where and under what load the run was made (the fields a report has)."""
    m = report["machine"]
    text = f"Run on {m.get('cpu', '?')}, {m['cores']} cores, {m.get('ram_gib', '?')} GiB RAM"
    if "when" in report:
        text = text.replace("Run on", f"Run {report['when']} on", 1)
    if "load" in report:
        text += f", load average {' '.join(report['load'])} at the end"
    return text + ". "


def render(report: dict[str, Any]) -> str:
    ms = report["ms"]
    reached = report["reached"]
    rows = [
        [
            f"propagation, root with {reached['wide']:,} descendants",
            f"{reached['wide']:,}",
            f"{ms['wide']['p50']:.1f}",
            f"{ms['wide']['max']:.1f}",
        ],
        [
            f"propagation, root with {reached['narrow']:,} descendants",
            f"{reached['narrow']:,}",
            f"{ms['narrow']['p50']:.1f}",
            f"{ms['narrow']['max']:.1f}",
        ],
        [
            "baseline: one pass over the workspace",
            f"{report['observations']:,}",
            f"{ms['baseline scan']['p50']:.1f}",
            f"{ms['baseline scan']['max']:.1f}",
        ],
    ]
    wide_ok = ms["wide"]["p50"] <= 1000
    narrow_ok = ms["narrow"]["p50"] < 50
    return "\n".join(
        [
            "## Staleness propagation",
            "",
            f"{ran(report)}Command: `{report['command'].strip()}`. "
            f"{report['observations']:,} beliefs in one workspace (built in "
            f"{report['build_seconds']} s).",
            "",
            table(["statement", "beliefs reached / scanned", "p50 ms", "max ms"], rows),
            "",
            f"Targets: at most 1 s for the wide root ({'met' if wide_ok else 'not met'}), "
            f"milliseconds for the narrow one ({'met' if narrow_ok else 'not met'}).",
        ]
    )


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="beliefgraph bench stale", description=__doc__)
    parser.add_argument("--background", type=int, default=1_000_000)
    parser.add_argument("--wide", type=int, default=10_000, help="descendants of the wide root")
    parser.add_argument("--fanout", type=int, default=10)
    parser.add_argument("--narrow", type=int, default=10, help="descendants of the narrow root")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--report", type=Path, default=DOCS / "BENCHMARKS.md")
    parser.add_argument("--json", type=Path, default=DOCS / "bench-stale.json")
    parser.add_argument("--keep", action="store_true", help="keep the server running")
    parser.add_argument("--keep-data", action="store_true", help="keep the bench workspace")
    add_instance_args(
        parser,
        instance="stale-bench",
        bolt_port=BOLT_PORT,
        http_port=HTTP_PORT,
        heap="2g",
        pagecache="1g",
    )
    args = parser.parse_args(argv)
    args.argv = list(argv)
    if args.background < 2 or args.wide < 1 or args.narrow < 1 or args.fanout < 2:
        parser.error("need 2 background beliefs, 1 descendant per root, a fanout of 2 or more")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    return run_bench("stale", argv, parse, run, render)


if __name__ == "__main__":
    raise SystemExit(main())
