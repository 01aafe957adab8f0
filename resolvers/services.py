"""What a running beliefgraph holds: settings, the database, the embedder, the tokenizer."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database
from graph.settings import Settings
from reasoners.embeddings.model import Embedder
from reasoners.embeddings.tokens import TokenCounter
from reasoners.llm.interface import LLM


@dataclass
class Services:
    settings: Settings
    db: Database
    embedder: Embedder
    tokens: TokenCounter
    llm: LLM | None = None  # None: the extractive provider (no LLM configured)
