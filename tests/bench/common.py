"""Helpers shared by the bench commands: machine facts, percentiles, tables, report sections."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import re
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from graph.settings import Settings

if TYPE_CHECKING:
    from graph.server.process import ManagedNeo4j
    from resolvers.services import Services

Report = dict[str, Any]

REPORT_HEADER = (
    "# Benchmarks\n\nEach section is written by its bench command and compares against a "
    "baseline measured in the same run.\n\n"
)


# Reports go to the checkout's docs/ whatever the working directory (a relative default wrote
# docs/ wherever the bench was started).
DOCS = Path(__file__).resolve().parents[2] / "docs"


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"cores": os.cpu_count(), "python": platform.python_version()}
    try:
        meminfo = Path("/proc/meminfo").read_text(encoding="utf-8")
        match = re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.MULTILINE)
        if match:
            info["ram_gib"] = round(int(match.group(1)) / 1024 / 1024, 1)
        cpuinfo = Path("/proc/cpuinfo").read_text(encoding="utf-8")
        model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.MULTILINE)
        if model:
            info["cpu"] = model.group(1).strip()
    except OSError:
        pass
    return info


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(np.asarray(values, dtype=np.float64), q)) if values else 0.0


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def markers(name: str) -> tuple[str, str]:
    return f"<!-- bench:{name}:start -->", f"<!-- bench:{name}:end -->"


def publish(report: Path, json_path: Path, name: str, text: str, data: Any) -> None:
    """Print a bench's rendered section, write it into the report and its data beside it."""
    print(text)
    write_section(report, name, text)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    json_path.write_text(json.dumps(data, indent=2), encoding="utf-8")


def write_section(path: Path, name: str, body: str) -> None:
    """Replace this bench's section of the report (between its markers), keeping the others."""
    start_mark, end_mark = markers(name)
    section = f"{start_mark}\n{body.strip()}\n{end_mark}"
    if path.exists():
        text = path.read_text(encoding="utf-8")
        start, end = text.find(start_mark), text.find(end_mark)
        if start != -1 and end > start:
            text = text[:start] + section + text[end + len(end_mark) :]
        else:
            text = text.rstrip("\n") + "\n\n" + section + "\n"
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = REPORT_HEADER + section + "\n"
    path.write_text(text, encoding="utf-8")


@dataclass
class BenchNeo4j:
    """The Neo4j a bench runs against: `NEO4J_URI` when set, else a managed instance, held in
    use (the lock serve and worker take) until `done`."""

    settings: Settings
    password: str
    where: str  # for the report
    server: ManagedNeo4j | None = None
    started_here: bool = False  # the managed instance was not running before
    held: contextlib.ExitStack | None = None

    def done(self, keep: bool) -> bool:
        """Let go of the server, and stop it when a bench started it (without --keep) and no
        other process uses it: a bench ending while another still runs on the same instance
        stopped it under that one. True when it was stopped here."""
        if self.held is not None:
            self.held.close()
            self.held = None
        if self.server is None or keep or not bench_marker(self.server).exists():
            return False
        if self.server.stop_unless_used() == "in use":
            return False  # the last bench using it stops it
        bench_marker(self.server).unlink(missing_ok=True)
        return True


def bench_marker(server: ManagedNeo4j) -> Path:
    """Present while the instance runs because a bench started it (not serve, not `neo4j
    start`): only then may a bench stop it."""
    return server.paths.root / "bench.started"


def bench_neo4j(
    instance: str, *, bolt_port: int, http_port: int, keep: bool = False, **overrides: Any
) -> BenchNeo4j:
    """Connect to `NEO4J_URI`, or start (if needed) the managed `instance` on its own ports
    (`overrides`: other settings, e.g. heap and page cache). Call `done` when finished."""
    if os.environ.get("NEO4J_URI"):
        settings = Settings.from_env(os.environ)
        return BenchNeo4j(settings, settings.neo4j_password, f"NEO4J_URI {settings.bolt_uri}")
    from graph.server.process import ManagedNeo4j

    settings = Settings.from_env(
        os.environ, neo4j_bolt_port=bolt_port, neo4j_http_port=http_port, **overrides
    )
    server = ManagedNeo4j(settings, instance=instance)
    held = contextlib.ExitStack()
    held.enter_context(server.in_use())
    try:
        started_here = server.pid() is None
        server.start()
    except BaseException:
        held.close()
        raise
    if started_here and not keep:
        bench_marker(server).touch()
    where = (
        f"managed instance '{instance}', heap {settings.neo4j_heap}, "
        f"page cache {settings.neo4j_pagecache}"
    )
    return BenchNeo4j(settings, server.password(), where, server, started_here, held)


def add_instance_args(
    parser: argparse.ArgumentParser,
    *,
    instance: str,
    bolt_port: int,
    http_port: int,
    heap: str | None = None,
    pagecache: str | None = None,
) -> None:
    """Which managed Neo4j a bench starts (ignored when NEO4J_URI names one): its own instance
    and ports, so two benches can run side by side."""
    parser.add_argument("--instance", default=instance, help="managed Neo4j instance")
    parser.add_argument("--bolt-port", type=int, default=bolt_port)
    parser.add_argument("--http-port", type=int, default=http_port)
    parser.add_argument(
        "--heap", default=heap, help="managed Neo4j heap (default: BELIEFGRAPH_NEO4J_HEAP)"
    )
    parser.add_argument(
        "--pagecache",
        default=pagecache,
        help="managed Neo4j page cache (default: BELIEFGRAPH_NEO4J_PAGECACHE)",
    )


def neo4j_from_args(args: argparse.Namespace) -> BenchNeo4j:
    """bench_neo4j as the add_instance_args options ask."""
    memory = {
        key: value
        for key, value in (("neo4j_heap", args.heap), ("neo4j_pagecache", args.pagecache))
        if value
    }
    return bench_neo4j(
        args.instance,
        bolt_port=args.bolt_port,
        http_port=args.http_port,
        keep=bool(getattr(args, "keep", False)),
        **memory,
    )


def run_bench(
    name: str,
    argv: Sequence[str] | None,
    parse: Callable[[Sequence[str]], argparse.Namespace],
    run: Callable[[Services, argparse.Namespace], Awaitable[Report]],
    render: Callable[[Report], str],
) -> int:
    """A bench command: parse its arguments (`parse` adds add_instance_args' options), run it
    against its own Neo4j (stopped after, if this run started it and --keep is not given), and
    publish its section of the report."""
    from resolvers.runtime import close_services, open_services

    args = parse(sys.argv[1:] if argv is None else argv)

    async def measured() -> Report:
        neo4j = neo4j_from_args(args)
        services = await open_services(neo4j.settings, password=neo4j.password, llm=None)
        try:
            return await run(services, args)
        finally:
            await close_services(services)
            neo4j.done(args.keep)

    report = asyncio.run(measured())
    publish(args.report, args.json, name, render(report), report)
    return 0


async def timed(work: Awaitable[Any]) -> tuple[float, Any]:
    """(seconds, result) of awaiting `work`."""
    start = time.perf_counter()
    result = await work
    return time.perf_counter() - start, result


async def run_interleaved(
    runs: Sequence[tuple[str, Callable[[], Awaitable[None]]]], turn: int
) -> dict[str, float]:
    """Each run once, in an order rotated by `turn` (so no contender always goes first, on a
    warm or a cold cache); seconds by name."""
    shift = turn % len(runs) if runs else 0
    seconds: dict[str, float] = {}
    for name, work in [*runs[shift:], *runs[:shift]]:
        seconds[name], _ = await timed(work())
    return seconds
