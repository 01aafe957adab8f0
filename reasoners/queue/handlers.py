"""The job handlers of a worker, by job kind, built from the process's components."""

from __future__ import annotations

from graph.db import Database
from graph.settings import Settings
from reasoners.deriver.extractors import ExtractiveExtractor, Extractor, LLMExtractor
from reasoners.deriver.handler import DeriverHandler
from reasoners.embeddings.model import Embedder
from reasoners.embeddings.tokens import TokenCounter
from reasoners.llm.interface import LLM
from reasoners.queue.schedule import DERIVE, SUMMARIZE
from reasoners.queue.worker import Handler
from reasoners.summarizer.handler import SummarizerHandler


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
    }
