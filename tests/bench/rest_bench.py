"""REST bench: the Honcho-compatible routes of the SDK's common flow beside the same GraphQL
operations, in one run, through the same in-process app (httpx over ASGI), interleaved per
iteration so both see the same load. What it measures is what the REST layer adds.

Run: ``python -m tests.bench.rest_bench --messages 200 --iterations 200``.
Writes its section of ``docs/BENCHMARKS.md`` (between the ``bench:rest`` markers) and a JSON file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from graph.repo import workspaces
from graph.settings import Settings
from resolvers.app import create_app
from resolvers.runtime import close_services, open_services
from tests.bench.common import (
    DOCS,
    add_instance_args,
    machine,
    neo4j_from_args,
    pct,
    publish,
    table,
)

BOLT_PORT = 38687
HTTP_PORT = 38474
WARMUP = 3
AIM_MS = 5.0  # what REST may add at p50

Call = Callable[[], Awaitable[httpx.Response]]


@dataclass(frozen=True)
class Pair:
    name: str
    rest: Call
    graphql: Call


def pairs(http: httpx.AsyncClient, ws: str) -> list[Pair]:
    v3 = f"/v3/workspaces/{ws}"

    def gql(query: str, **variables: Any) -> Call:
        return lambda: http.post(
            "/graphql", json={"query": query, "variables": {"w": ws, **variables}}
        )

    def counter() -> Callable[[], str]:
        count = iter(range(10**9))
        return lambda: f"bench message {next(count)} about the garden and the budget"

    rest_text, gql_text = counter(), counter()
    return [
        Pair(
            "get-or-create peer",
            lambda: http.post(f"{v3}/peers", json={"id": "alice"}),
            gql('mutation($w: String!) { createPeer(workspace: $w, name: "alice") { name } }'),
        ),
        Pair(
            "get-or-create session",
            lambda: http.post(f"{v3}/sessions", json={"id": "s1"}),
            gql('mutation($w: String!) { createSession(workspace: $w, name: "s1") { name } }'),
        ),
        Pair(
            "add one message",
            lambda: http.post(
                f"{v3}/sessions/s1/messages",
                json={"messages": [{"peer_id": "alice", "content": rest_text()}]},
            ),
            lambda: http.post(
                "/graphql",
                json={
                    "query": "mutation($w: String!, $c: String!) { addMessages(workspace: $w, "
                    'session: "s1", messages: [{peer: "alice", content: $c}]) { created } }',
                    "variables": {"w": ws, "c": gql_text()},
                },
            ),
        ),
        Pair(
            "list 50 messages",
            lambda: http.post(f"{v3}/sessions/s1/messages/list", params={"size": 50}),
            gql(
                'query($w: String!) { messages(workspace: $w, filter: {session: "s1"}, '
                "first: 50) { nodes { id content } } }"
            ),
        ),
        Pair(
            "session context",
            lambda: http.get(f"{v3}/sessions/s1/context", params={"tokens": 4000}),
            gql(
                'query($w: String!) { context(workspace: $w, session: "s1", tokens: 4000) '
                "{ text } }"
            ),
        ),
        Pair(
            "session search",
            lambda: http.post(
                f"{v3}/sessions/s1/search", json={"query": "garden budget", "limit": 10}
            ),
            gql(
                'query($w: String!) { searchMessages(workspace: $w, query: "garden budget", '
                'filter: {session: "s1"}, limit: 10) { message { id } } }'
            ),
        ),
        Pair(
            "chat (extractive)",
            lambda: http.post(
                f"{v3}/peers/alice/chat", json={"query": "What about the garden?", "stream": False}
            ),
            gql(
                'query($w: String!) { chat(workspace: $w, peer: "alice", '
                'query: "What about the garden?") { answer } }'
            ),
        ),
        Pair(
            "peer card",
            lambda: http.get(f"{v3}/peers/alice/card"),
            gql('query($w: String!) { peerCard(workspace: $w, observer: "alice") { entries } }'),
        ),
    ]


async def timed(call: Call) -> float:
    started = time.perf_counter()
    response = await call()
    elapsed = (time.perf_counter() - started) * 1000
    assert response.status_code < 300, response.text
    if response.request.url.path == "/graphql":
        assert not response.json().get("errors"), response.text
    return elapsed


async def run(args: argparse.Namespace) -> dict[str, Any]:
    neo4j = neo4j_from_args(args)
    settings: Settings = neo4j.settings
    services = await open_services(settings, password=neo4j.password, llm=None)
    ws = f"rest-bench-{uuid.uuid4().hex[:8]}"
    try:
        app = create_app(services.settings, services)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://127.0.0.1", timeout=60
        ) as http:
            await http.post("/v3/workspaces", json={"id": ws})
            for start in range(0, args.messages, 100):
                batch = [
                    {"peer_id": "alice", "content": f"seed {i}: the garden, the budget, a trip"}
                    for i in range(start, min(start + 100, args.messages))
                ]
                r = await http.post(
                    f"/v3/workspaces/{ws}/sessions/s1/messages", json={"messages": batch}
                )
                assert r.status_code == 201, r.text
            rows = []
            for pair in pairs(http, ws):
                for _ in range(WARMUP):
                    await timed(pair.rest)
                    await timed(pair.graphql)
                rest_ms, gql_ms = [], []
                for _ in range(args.iterations):
                    rest_ms.append(await timed(pair.rest))
                    gql_ms.append(await timed(pair.graphql))
                rows.append(
                    {
                        "operation": pair.name,
                        "rest_p50": pct(rest_ms, 50),
                        "rest_p95": pct(rest_ms, 95),
                        "graphql_p50": pct(gql_ms, 50),
                        "graphql_p95": pct(gql_ms, 95),
                    }
                )
    finally:
        await workspaces.delete(services.db, ws)
        await close_services(services)
        neo4j.done(args.keep)
    return {
        "when": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": [f"{x:.2f}" for x in os.getloadavg()],
        "command": "beliefgraph bench rest " + shlex.join(args.argv),
        "where": neo4j.where,
        "messages": args.messages,
        "iterations": args.iterations,
        "rows": rows,
    }


def render(report: dict[str, Any]) -> str:
    m = report["machine"]
    rows = report["rows"]
    body = [
        [
            r["operation"],
            f"{r['rest_p50']:.1f} / {r['rest_p95']:.1f}",
            f"{r['graphql_p50']:.1f} / {r['graphql_p95']:.1f}",
            f"{r['rest_p50'] - r['graphql_p50']:+.1f}",
        ]
        for r in rows
    ]
    worst = max(r["rest_p50"] - r["graphql_p50"] for r in rows)
    return "\n".join(
        [
            "## Honcho REST routes beside GraphQL",
            "",
            f"Run {report['when']} on {m.get('cpu', '?')}, {m['cores']} cores, "
            f"{m.get('ram_gib', '?')} GiB RAM, Python {m['python']}, load average "
            f"{' '.join(report['load'])} at the end; {report['where']}. "
            f"Command: `{report['command']}`.",
            "",
            f"A session of {report['messages']:,} messages; each operation of the Honcho SDK's "
            f"common flow runs {report['iterations']} times through the REST route and through "
            "the same GraphQL operation, alternately, in process (no network). Times in ms, "
            "p50 / p95.",
            "",
            table(["operation", "REST", "GraphQL (baseline)", "REST adds, p50"], body),
            "",
            f"Aim: REST adds at most {AIM_MS:.0f} ms at p50 (worst row {worst:+.1f} ms: "
            f"{'met' if worst <= AIM_MS else 'not met'}).",
        ]
    )


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="beliefgraph bench rest", description=__doc__)
    parser.add_argument("--messages", type=int, default=200, help="messages in the session")
    parser.add_argument("--iterations", type=int, default=200, help="runs per operation")
    parser.add_argument("--report", type=Path, default=DOCS / "BENCHMARKS.md")
    parser.add_argument("--json", type=Path, default=DOCS / "bench-rest.json")
    parser.add_argument("--keep", action="store_true", help="keep the server running")
    add_instance_args(parser, instance="rest-bench", bolt_port=BOLT_PORT, http_port=HTTP_PORT)
    args = parser.parse_args(argv)
    args.argv = list(argv)
    if args.messages < 1 or args.iterations < 1:
        parser.error("need at least one message and one iteration")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    report = asyncio.run(run(args))
    publish(args.report, args.json, "rest", render(report), report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
