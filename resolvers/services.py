"""What a running beliefgraph holds: settings, the database, the embedder, the tokenizer."""

from __future__ import annotations

from dataclasses import dataclass

from graph.db import Database
from graph.settings import Settings
from reasoners.embeddings import Embedder
from reasoners.tokens import TokenCounter


@dataclass
class Services:
    settings: Settings
    db: Database
    embedder: Embedder
    tokens: TokenCounter
