"""`beliefgraph serve`: the managed Neo4j (unless external), then the API under uvicorn."""

from __future__ import annotations

import asyncio
import logging
import signal
from types import FrameType

import uvicorn

from graph.errors import BeliefgraphError
from graph.settings import Settings
from resolvers.app import create_app
from resolvers.runtime import build_worker, close_services, neo4j_password, open_services
from resolvers.web import assets

log = logging.getLogger("beliefgraph")


def _exit_on_signal(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def serve(settings: Settings, *, manage_neo4j: bool) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    server = None
    started_here = False
    if manage_neo4j:
        from graph.server.process import ManagedNeo4j

        server = ManagedNeo4j(settings)
        started_here = server.pid() is None
        server.start()
        log.info(
            "Neo4j Browser: %s (user neo4j, password in %s)",
            server.browser_url,
            server.paths.password_file,
        )
    try:
        assets.ensure(settings.home_path, settings.npm_registry)
    except BeliefgraphError as exc:
        log.warning("GraphiQL will not load until its files are downloaded: %s", exc.message)
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
    try:
        uvicorn.run(app, host=settings.host, port=settings.port, log_level="info")
    finally:
        if server is not None and started_here:
            log.info("stopping the Neo4j this process started")
            server.stop()
    return 0


def run_worker(settings: Settings, *, concurrency: int | None, workspace: str | None) -> int:
    """`beliefgraph worker`: a worker process until SIGINT/SIGTERM, then a graceful stop."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")

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

    asyncio.run(main())
    return 0
