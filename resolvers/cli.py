"""The `beliefgraph` command.

Subcommands live in `COMMANDS`: each entry adds its arguments to a subparser and runs with the
parsed arguments and the settings. Add `serve`, `worker` or `bench` by adding an entry.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from graph.errors import BeliefgraphError, InvalidInput
from graph.server.probe import ping
from graph.server.process import ManagedNeo4j
from graph.settings import Settings
from graph.validation import check_name
from resolvers.auth import KeyScope, Principal, issue_key
from resolvers.web import assets


@dataclass(frozen=True)
class Command:
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Settings], int]


def _configure_neo4j(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=("start", "stop", "status"),
        help="start (and wait until it answers), stop, or show the managed local Neo4j; "
        "status exits 0 only when Neo4j answers",
    )
    parser.add_argument(
        "--instance",
        default="default",
        help="instance name: its own data, logs and password (default: %(default)s)",
    )


def _run_neo4j(args: argparse.Namespace, settings: Settings) -> int:
    if not settings.managed:
        return _external_neo4j(args.action, settings)
    server = ManagedNeo4j(settings, args.instance)
    if args.action == "start":
        server.start(wait=True)
        print(f"Neo4j is running: {server.bolt_uri} (user {server.user})")
        print(f"password file: {server.paths.password_file}")
        print(f"Neo4j Browser: {server.browser_url}")
        return 0
    if args.action == "stop":
        print("Neo4j stopped" if server.stop() else "Neo4j was not running")
        return 0
    status = server.status()
    print(f"bolt URI:      {status.bolt_uri}")
    print(f"Neo4j Browser: {status.browser_url}")
    print(f"pid:           {status.pid if status.pid is not None else '-'}")
    print(f"answering:     {'yes' if status.answering else 'no'}")
    return 0 if status.answering else 1


def _external_neo4j(action: str, settings: Settings) -> int:
    if action != "status":
        print(f"NEO4J_URI is set ({settings.neo4j_uri}): Neo4j is external; nothing to {action}")
        return 0
    ping(
        settings.neo4j_uri,
        settings.neo4j_user,
        settings.neo4j_password,
        settings.neo4j_database,
    )
    print(f"bolt URI:      {settings.neo4j_uri} (external, from NEO4J_URI)")
    print("answering:     yes")
    return 0


def _configure_serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-neo4j",
        action="store_true",
        help="do not start the managed Neo4j (it must already run, or NEO4J_URI be set)",
    )


def _run_serve(args: argparse.Namespace, settings: Settings) -> int:
    from resolvers.serve import serve

    return serve(settings, manage_neo4j=settings.managed and not args.no_neo4j)


def _configure_worker(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--concurrency",
        type=int,
        help="work units at once (default BELIEFGRAPH_WORKER_CONCURRENCY)",
    )
    parser.add_argument(
        "--workspace", help="only take this workspace's work (default: every workspace)"
    )


def _run_worker(args: argparse.Namespace, settings: Settings) -> int:
    from resolvers.serve import run_worker

    # -1 ran a worker with no slot, doing nothing; 0 silently took the setting's value.
    if args.concurrency is not None and args.concurrency < 1:
        raise InvalidInput(f"--concurrency must be at least 1, not {args.concurrency}")
    if args.workspace is not None:  # a name no workspace can have: a worker that never works
        check_name(args.workspace, "--workspace")

    return run_worker(settings, concurrency=args.concurrency, workspace=args.workspace)


def _configure_key(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scope", choices=[s.value for s in KeyScope], default="admin")
    parser.add_argument("--workspace")
    parser.add_argument("--peer")
    parser.add_argument("--session")
    parser.add_argument("--ttl-seconds", type=int, help="expiry; default: never")


def _run_key(args: argparse.Namespace, settings: Settings) -> int:
    if len(settings.auth_secret) < 32:
        raise InvalidInput("set BELIEFGRAPH_AUTH_SECRET (32+ characters) to issue keys")
    principal = Principal(KeyScope(args.scope), args.workspace, args.peer, args.session)
    print(issue_key(settings.auth_secret, principal, ttl_seconds=args.ttl_seconds))
    return 0


def _configure_web_assets(parser: argparse.ArgumentParser) -> None:
    parser.set_defaults()


def _run_web_assets(args: argparse.Namespace, settings: Settings) -> int:
    folder = assets.ensure(settings.home_path, settings.npm_registry)
    print(f"GraphiQL files in {folder}")
    return 0


def _configure_bench(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("suite", help="which bench to run: " + ", ".join(BENCH_SUITES))
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="arguments of that bench")


def _run_bench(args: argparse.Namespace, settings: Settings) -> int:
    # The harness is part of the source checkout (tests/bench), not of the installed package:
    # it runs as its own process from there, so this package never imports it.
    checkout = Path(__file__).resolve().parent.parent
    if not (checkout / "tests" / "bench").is_dir():
        raise InvalidInput("beliefgraph bench runs from a source checkout (tests/bench)")
    if args.suite not in BENCH_SUITES:
        raise InvalidInput(f"unknown bench {args.suite!r}; choose one of {sorted(BENCH_SUITES)}")
    command = [sys.executable, "-m", f"tests.bench.{BENCH_SUITES[args.suite]}", *args.rest]
    path = os.pathsep.join(filter(None, [str(checkout), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path}
    return subprocess.run(command, env=env, check=False).returncode


BENCH_SUITES = {
    "api": "api_bench",
    "search": "search_bench",
    "pipeline": "pipeline_bench",
    "memory": "memory_bench",
    "dream": "dream_bench",
    "tree": "tree_bench",
    "stale": "stale_bench",
    "rest": "rest_bench",
}

COMMANDS: dict[str, Command] = {
    "serve": Command("start Neo4j (managed), the API and the worker", _configure_serve, _run_serve),
    "worker": Command(
        "run a background worker (derive, summarize)", _configure_worker, _run_worker
    ),
    "neo4j": Command("manage the local Neo4j server", _configure_neo4j, _run_neo4j),
    "key": Command("issue an API key (needs BELIEFGRAPH_AUTH_SECRET)", _configure_key, _run_key),
    "web-assets": Command(
        "download GraphiQL's files from the npm registry (serve does it at start)",
        _configure_web_assets,
        _run_web_assets,
    ),
    "bench": Command(
        "run a benchmark and write its report under docs/", _configure_bench, _run_bench
    ),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="beliefgraph", description="Memory for AI agents.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        command.configure(subparsers.add_parser(name, help=command.help))
    return parser


# BELIEFGRAPH_* variables read outside Settings: the LLM's (llm/config.py), the scripts' venv,
# and the test suite's.
OTHER_VARIABLE_PREFIXES = ("BELIEFGRAPH_LLM_", "BELIEFGRAPH_TEST_", "BELIEFGRAPH_VENV")


def unknown_variables(env: Mapping[str, str]) -> list[str]:
    """BELIEFGRAPH_* variables that no setting reads: a misspelt name is otherwise ignored
    without a word (BELIEFGRAPH_AUTH_SECRT left auth without its secret)."""
    known = {str(f.metadata["env"]) for f in dataclasses.fields(Settings)}
    return sorted(
        name
        for name in env
        if name.startswith("BELIEFGRAPH_")
        and name not in known
        and not name.startswith(OTHER_VARIABLE_PREFIXES)
    )


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    for name in unknown_variables(os.environ):
        print(f"warning: {name} is not a setting (misspelt?): it is ignored", file=sys.stderr)
    try:
        settings = Settings.from_env()
        return COMMANDS[args.command].run(args, settings)
    except BeliefgraphError as exc:
        print(f"error [{exc.code}]: {exc.message}", file=sys.stderr)
        return 1
    except OSError as exc:  # a home that cannot be written, a disk full: said, not traced
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # Ctrl-C before the server ran (a first start): no traceback
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
