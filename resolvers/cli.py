"""The `beliefgraph` command.

Subcommands live in `COMMANDS`: each entry adds its arguments to a subparser and runs with the
parsed arguments and the settings. Add `serve`, `worker` or `bench` by adding an entry.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

from graph.errors import BeliefgraphError
from graph.server import ManagedNeo4j, ping
from graph.settings import Settings


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


COMMANDS: dict[str, Command] = {
    "neo4j": Command("manage the local Neo4j server", _configure_neo4j, _run_neo4j),
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="beliefgraph", description="Memory for AI agents.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, command in COMMANDS.items():
        command.configure(subparsers.add_parser(name, help=command.help))
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        settings = Settings.from_env()
        return COMMANDS[args.command].run(args, settings)
    except BeliefgraphError as exc:
        print(f"error [{exc.code}]: {exc.message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
