"""The job handlers of a worker, by job kind, built from the process's components."""

from __future__ import annotations

from graph.db import Database
from graph.settings import Settings
from reasoners.deriver import DeriverHandler
from reasoners.embeddings import Embedder
from reasoners.extractors import ExtractiveExtractor, Extractor, LLMExtractor
from reasoners.llm import LLM
from reasoners.pipeline import DERIVE, SUMMARIZE
from reasoners.summarizer import SummarizerHandler
from reasoners.tokens import TokenCounter
from reasoners.worker import Handler


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
