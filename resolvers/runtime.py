"""Opening and closing the services a process needs (API server, worker, tests, bench)."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path

from graph.db import Database
from graph.errors import InvalidInput, Unavailable
from graph.schema import install_schema
from graph.settings import Settings
from graph.validation import now as utc_now
from reasoners.deriver.extractors import ExtractiveExtractor, Extractor, LLMExtractor
from reasoners.deriver.handler import DeriverHandler
from reasoners.dialectic.levels import ReasoningLevels
from reasoners.dreamer import scheduling
from reasoners.dreamer.handler import DreamHandler
from reasoners.dreamer.scheduling import DREAM
from reasoners.embeddings.model import Embedder, SentenceTransformerEmbedder
from reasoners.embeddings.tokens import MiniLMTokenCounter, TokenCounter
from reasoners.ingest.backfill import BACKFILL_SECONDS, PassageBackfill
from reasoners.llm.config import llm_config_from_env
from reasoners.llm.interface import LLM
from reasoners.llm.openai_compatible import OpenAICompatibleLLM
from reasoners.peers import purge_resume
from reasoners.peers.files import embed_missing_chunks
from reasoners.peers.merges import RestructureHandler
from reasoners.peers.splits import SplitHandler
from reasoners.peers.starts import RESTRUCTURE, SPLIT
from reasoners.queue import deletions, retention
from reasoners.queue.schedule import DERIVE, SUMMARIZE
from reasoners.queue.worker import Handler, Periodic, Worker, WorkerConfig
from reasoners.summarizer.handler import SummarizerHandler
from resolvers.services import Services

log = logging.getLogger("beliefgraph")


def neo4j_password(settings: Settings) -> str:
    """NEO4J_PASSWORD for your own Neo4j; the managed server's generated one otherwise (a
    NEO4J_PASSWORD set for another server must not lock the app out of its own)."""
    if not settings.managed:
        return settings.neo4j_password
    from graph.server.process import ManagedNeo4j

    return ManagedNeo4j(settings).password()


def preflight(settings: Settings, env: Mapping[str, str]) -> None:
    """The settings read outside Settings, checked before anything starts: a bad value fails
    `serve` and `worker` at once, naming its variable, not later (or in a traceback from the
    server's start-up)."""
    ReasoningLevels.parse(settings.dialectic_levels)
    llm_config_from_env(env)


def check_dream_mode(settings: Settings, env: Mapping[str, str]) -> None:
    """`BELIEFGRAPH_DREAM_MODE=llm` with no LLM configured, refused before anything starts
    (open_services refuses it too, after Neo4j and the model were up)."""
    if settings.dream_mode == "llm" and llm_config_from_env(env) is None:
        raise InvalidInput(LLM_DREAMS_NEED_AN_LLM)


LLM_DREAMS_NEED_AN_LLM = (
    "BELIEFGRAPH_DREAM_MODE=llm needs an LLM endpoint; configure one, or use auto (the zero-key "
    "dreamer when there is none) or rules"
)


async def open_services(
    settings: Settings,
    *,
    password: str | None = None,
    embedder: Embedder | None = None,
    tokens: TokenCounter | None = None,
    llm: LLM | None = None,
    env: Mapping[str, str] | None = None,
) -> Services:
    """Open the database, load the embedder, install the schema, pick the LLM provider.

    `llm` overrides the provider (tests pass a scripted one); otherwise an OpenAI-compatible
    endpoint is used when configured in `env`, and the extractive provider when not.
    """
    preflight(settings, os.environ if env is None else env)
    db = Database.connect(settings, password if password is not None else neo4j_password(settings))
    try:
        if (refused := await db.refusal()) is not None:
            raise Unavailable(
                f"Neo4j at {settings.bolt_uri}: {refused}; "
                + (
                    "check NEO4J_URI, NEO4J_USER, NEO4J_PASSWORD and NEO4J_DATABASE"
                    if settings.neo4j_uri
                    else "start it with `beliefgraph neo4j start`, or set NEO4J_URI / "
                    "NEO4J_PASSWORD"
                )
            )
        if embedder is None:
            embedder = await asyncio.to_thread(
                SentenceTransformerEmbedder,
                settings.embedding_model,
                batch_size=settings.embedding_batch_size,
            )
        if embedder.dimension != settings.embedding_dim:
            raise Unavailable(
                f"the embedding model gives {embedder.dimension} dimensions but "
                f"BELIEFGRAPH_EMBEDDING_DIM is {settings.embedding_dim}; set them to agree"
            )
        await install_schema(db, settings.embedding_dim)
        await embed_missing_chunks(db, embedder)
    except BaseException:
        await db.close()
        raise
    counter = tokens or MiniLMTokenCounter(
        Path(settings.embedding_model) / "tokenizer.json" if settings.embedding_model else None
    )
    if llm is None:
        config = llm_config_from_env(os.environ if env is None else env)
        llm = OpenAICompatibleLLM(config) if config is not None else None
    if settings.dream_mode == "llm" and llm is None:
        await db.close()
        raise InvalidInput(LLM_DREAMS_NEED_AN_LLM)
    log.info("provider: %s", "extractive (no LLM configured)" if llm is None else llm.mode)
    return Services(settings=settings, db=db, embedder=embedder, tokens=counter, llm=llm)


async def close_services(services: Services) -> None:
    try:
        if services.llm is not None:
            await services.llm.aclose()
    finally:
        await services.db.close()


def extractor_for(llm: LLM | None) -> Extractor:
    return ExtractiveExtractor() if llm is None else LLMExtractor(llm)


def build_handlers(
    db: Database,
    embedder: Embedder,
    tokens: TokenCounter,
    llm: LLM | None,
    settings: Settings,
) -> dict[str, Handler]:
    return {
        DERIVE: DeriverHandler(db, embedder, extractor_for(llm), settings),
        SUMMARIZE: SummarizerHandler(db, llm, tokens, settings),
        DREAM: DreamHandler(db, embedder, llm, settings),
        RESTRUCTURE: RestructureHandler(db, settings, embedder=embedder),
        SPLIT: SplitHandler(db, settings),
    }


def build_worker(
    services: Services, *, concurrency: int | None = None, workspace: str | None = None
) -> Worker:
    settings = services.settings
    config = WorkerConfig(
        workspace=workspace,
        concurrency=settings.worker_concurrency if concurrency is None else concurrency,
        lease=timedelta(seconds=settings.job_lease),
        backoff=timedelta(seconds=settings.job_backoff),
        max_backoff=timedelta(seconds=settings.job_max_backoff),
    )
    handlers = build_handlers(
        services.db, services.embedder, services.tokens, services.llm, settings
    )

    async def interrupted_purges() -> int:
        return await purge_resume.resume_interrupted(
            services.db, settings, workspace=config.workspace
        )

    async def interrupted_deletions() -> int:
        return await deletions.resume_deletions(services.db, workspace=config.workspace)

    periodic = [
        Periodic("interrupted purges", purge_resume.RESUME_SECONDS, interrupted_purges),
        Periodic("interrupted deletions", deletions.RESUME_SECONDS, interrupted_deletions),
    ]
    if settings.job_retention_days > 0:

        async def finished_jobs() -> int:
            return await retention.delete_finished_jobs(services.db, settings, config.workspace)

        periodic.append(Periodic("finished job cleanup", retention.CLEANUP_SECONDS, finished_jobs))
    if scheduling.idle_at(settings, utc_now()) is not None:

        async def idle_dreams() -> int:
            return await scheduling.idle_scan(services.db, settings, config.workspace)

        periodic.append(Periodic("idle dream scan", scheduling.IDLE_SCAN_SECONDS, idle_dreams))
    if settings.passages_enabled:
        backfill = PassageBackfill(services.db, services.embedder, config.workspace)
        periodic.append(Periodic("passage backfill", BACKFILL_SECONDS, backfill))
    return Worker(services.db, handlers, config, periodic=periodic)
