"""Asking a Neo4j server whether it answers: Bolt, Browser's HTTP, and free ports."""

from __future__ import annotations

import os
import socket
import urllib.error
import urllib.request
from pathlib import Path

import neo4j
from neo4j.exceptions import AuthError, DriverError, Neo4jError

import cypher
from graph.errors import Unavailable


def tail(path: Path, lines: int = 25) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - 16_384))
            text = handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def ping(uri: str, user: str, password: str, database: str, timeout: float = 5.0) -> None:
    """Run the ping statement once, without retries; raise Unavailable saying why it failed."""
    try:
        with neo4j.GraphDatabase.driver(
            uri, auth=(user, password), connection_timeout=timeout, max_connection_pool_size=1
        ) as driver:
            ping_driver(driver, database)
    except AuthError as exc:
        raise Unavailable(f"Neo4j at {uri} refused user {user!r}: {exc.message}") from exc
    except (Neo4jError, DriverError, OSError, ValueError) as exc:
        raise Unavailable(f"Neo4j at {uri} does not answer: {exc}") from exc


def ping_driver(driver: neo4j.Driver, database: str) -> None:
    # session.run, not execute_query: no retry loop, so a down server fails fast.
    with driver.session(database=database) as session:
        session.run(cypher.statement("ping")).consume()


def browser_answers(url: str, timeout: float = 2.0) -> bool:
    # No proxy: an http_proxy in the environment must not intercept a loopback request.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=timeout) as response:
            return int(response.status) == 200
    except (urllib.error.URLError, OSError):
        return False


def port_free(port: int, host: str = "127.0.0.1") -> bool:
    try:
        family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except OSError:
        return True  # a host that does not resolve: the server's own bind says so
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        # Like the servers' own binds: a port still in TIME_WAIT counts as free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError:
            return False
    return True
