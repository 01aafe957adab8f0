"""`beliefgraph serve`: the managed Neo4j (unless external), then the API under uvicorn."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from types import FrameType

import uvicorn

from graph.errors import BeliefgraphError, Unavailable
from graph.server.probe import port_free
from graph.server.process import ManagedNeo4j
from graph.server.watch import Neo4jWatch
from graph.settings import Settings
from resolvers.app import create_app
from resolvers.graphql.websocket import MAX_FRAME_BYTES
from resolvers.head_timeout import HeadTimeoutProtocol
from resolvers.runtime import (
    build_worker,
    check_dream_mode,
    close_services,
    neo4j_password,
    open_services,
    preflight,
)
from resolvers.startup_errors import StartupErrors
from resolvers.web import assets

log = logging.getLogger("beliefgraph")
# Seconds requests get to finish after SIGTERM or SIGINT before they are cancelled.
SHUTDOWN_SECONDS = 30


def configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # The driver warns at each of its own retries of a transaction ("will be retried in 1.1s",
    # up to 10 a second in an outage); ours log what is left when they stop (graph/db.py).
    logging.getLogger("neo4j.session").setLevel(logging.ERROR)
    logging.getLogger("neo4j.pool").setLevel(logging.ERROR)


def _exit_on_signal(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def serve(settings: Settings, *, manage_neo4j: bool) -> int:
    configure_logging()
    # From the start, not once the API runs: a SIGTERM while Neo4j starts (a minute the first
    # time) killed serve with no `finally`, and left the server it began running for good.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    preflight(settings, os.environ)  # before Neo4j starts; the CLI prints what it refuses
    check_dream_mode(settings, os.environ)
    # Before Neo4j, the model and the worker start (25 s), not when uvicorn binds after them.
    if not port_free(settings.port, settings.host):
        raise Unavailable(
            f"port {settings.port} on {settings.host} (the API) is taken by another program: "
            "stop it, or set BELIEFGRAPH_PORT to a free port"
        )
    if not manage_neo4j:
        if settings.neo4j_uri:
            _run_api(settings)
        else:  # the managed Neo4j another serve runs: in use while this one runs, and the
            # last of its users stops it
            server = ManagedNeo4j(settings)
            try:
                with server.in_use():
                    _run_api(settings)
            finally:
                _stop_if_last(server)
        return 0
    server = ManagedNeo4j(settings)
    # The last serve or worker using a Neo4j a serve started stops it, even when that is not
    # the serve that started it (a restart that began before the old one had ended).
    try:
        with server.in_use():
            # Marked when it runs, before it answers: a start cut short is still stopped. Only
            # a server this start launches is marked (one found running is someone's already).
            server.start(mark=True)  # waits until it answers
            log.info(
                "Neo4j Browser: %s (user neo4j, password in %s)",
                server.browser_url,
                server.paths.password_file,
            )
            watch, stop_watching = Neo4jWatch(server).start_thread()
            try:
                _run_api(settings)
            finally:
                stop_watching.set()
                # At once, unless it is starting Neo4j again: then until that start ends, so
                # the server it started is stopped below with the rest, not left running.
                watch.join(timeout=settings.neo4j_start_timeout + 30)
    finally:
        _stop_if_last(server)
    return 0


def _stop_if_last(server: ManagedNeo4j) -> None:
    """Stop a Neo4j a serve started unless another serve or worker still uses it."""
    if not server.serve_marker.exists():
        return
    if server.stop_unless_used() == "in use":
        log.info("another beliefgraph process uses this Neo4j: left running for it")
    else:
        server.serve_marker.unlink(missing_ok=True)
        log.info("stopped the Neo4j a serve started")


def _run_api(settings: Settings) -> None:
    try:
        assets.ensure(settings.home_path, settings.npm_registry)
    except BeliefgraphError as exc:
        log.warning("GraphiQL will not load until its files are downloaded: %s", exc.message)
    except OSError as exc:  # a home that cannot be written (a read-only container)
        log.warning("GraphiQL will not load: its files cannot be stored: %s", exc)
    password = neo4j_password(settings)
    app = create_app(
        settings,
        open_services=lambda: open_services(settings, password=password),
        close_services=close_services,
        run_worker=settings.worker == "on",
        warm_up=True,
    )
    # uvicorn drains requests on SIGINT/SIGTERM and then re-raises the signal to the handler
    # that was installed before it; make that handler an exception so `finally` still runs.
    signal.signal(signal.SIGTERM, _exit_on_signal)
    # WebSocket frames carry subscriptions: held far below the HTTP body limit (uvicorn's
    # default is 16 MB), as the first ones are parsed before any key is seen.
    guarded = StartupErrors(app)
    try:
        uvicorn.run(
            guarded,
            host=settings.host,
            port=settings.port,
            log_level="info",
            ws_max_size=min(settings.max_request_bytes, MAX_FRAME_BYTES),
            http=HeadTimeoutProtocol,
            # Requests still running this long after SIGTERM are cancelled (PDFs queued for a
            # reader made a shutdown wait ten seconds or more per PDF).
            timeout_graceful_shutdown=SHUTDOWN_SECONDS,
        )
    except SystemExit:  # uvicorn's exit 3 for a failed start: the CLI prints ours, exit 1
        if guarded.error is not None:
            raise guarded.error from None
        raise


def run_worker(settings: Settings, *, concurrency: int | None, workspace: str | None) -> int:
    """`beliefgraph worker`: a worker process until SIGINT/SIGTERM, then a graceful stop."""
    configure_logging()
    check_dream_mode(settings, os.environ)

    async def main() -> None:
        services = await open_services(settings, password=neo4j_password(settings))
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        worker = build_worker(services, concurrency=concurrency, workspace=workspace)
        log.info("worker %s running %d units at once", worker.owner, worker.config.concurrency)
        try:
            await worker.run(stop)
        finally:
            await close_services(services)
        log.info(
            "worker stopped: %d units done, %d failed", worker.processed_units, worker.failed_units
        )

    if not settings.managed:
        asyncio.run(main())
        return 0
    server = ManagedNeo4j(settings)
    try:
        with server.in_use():
            asyncio.run(main())
    finally:
        _stop_if_last(server)
    return 0
