"""What a running beliefgraph holds: settings, the database, the embedder, the tokenizer (and
the dream counts its subscriptions watch)."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph.db import Database
from graph.settings import Settings
from reasoners.embeddings.model import Embedder
from reasoners.embeddings.tokens import TokenCounter
from reasoners.llm.interface import LLM
from resolvers.dream_watch import DreamWatch


@dataclass
class Services:
    settings: Settings
    db: Database
    embedder: Embedder
    tokens: TokenCounter
    llm: LLM | None = None  # None: the extractive provider (no LLM configured)
    _dream_watch: DreamWatch | None = field(default=None, repr=False, compare=False)

    @property
    def dream_watch(self) -> DreamWatch:
        """The one look at dream counts that this process's dreamEvents streams share."""
        if self._dream_watch is None:
            self._dream_watch = DreamWatch(self.db)
        return self._dream_watch
