"""What a running beliefgraph holds: settings, the database, the embedder, the tokenizer (and
the shared looks its subscriptions watch)."""

from __future__ import annotations

from dataclasses import dataclass, field

from graph.db import Database
from graph.keys import Representation
from graph.settings import Settings
from reasoners.dialectic.levels import ReasoningLevels
from reasoners.embeddings.model import Embedder
from reasoners.embeddings.tokens import TokenCounter
from reasoners.llm.interface import LLM
from reasoners.slots import Slots, SlotsByOwner
from resolvers.shared_look import QueueLook, SharedLook, dream_counts, queue_statuses

UPLOADS_AT_ONCE = 2
UPLOADS_WAITING = 8
# One workspace's share of those: two keys of one tenant kept every tenant's uploads refused.
WORKSPACE_UPLOADS_AT_ONCE = 1
WORKSPACE_UPLOADS_WAITING = 4
KEYLESS_AT_ONCE = 2
KEYLESS_WAITING = 16


@dataclass
class Services:
    settings: Settings
    db: Database
    embedder: Embedder
    tokens: TokenCounter
    llm: LLM | None = None  # None: the extractive provider (no LLM configured)
    _dream_watch: SharedLook[Representation, int] | None = field(
        default=None, repr=False, compare=False
    )
    _queue_watch: QueueLook | None = field(default=None, repr=False, compare=False)
    # Uploads read, split and embed whole documents: a 3.9 MB one took 750 MB while it ran,
    # so a few at once (any peer key may upload) could take the machine's memory.
    # With auth on, requests without a key (health, the schema) take turns: validating any
    # document costs the event loop, and they have no key to hold to account.
    keyless: Slots = field(
        default_factory=lambda: Slots(KEYLESS_AT_ONCE, KEYLESS_WAITING, "requests without a key"),
        repr=False,
        compare=False,
    )
    uploads: Slots = field(
        default_factory=lambda: Slots(UPLOADS_AT_ONCE, UPLOADS_WAITING, "uploads"),
        repr=False,
        compare=False,
    )
    workspace_uploads: SlotsByOwner = field(default_factory=SlotsByOwner, repr=False, compare=False)
    # With auth on, each key holder's and workspace's share of operations at once (GraphQL and
    # REST: resolvers/fair_share.py).
    shares: SlotsByOwner = field(default_factory=SlotsByOwner, repr=False, compare=False)

    @property
    def reasoning_levels(self) -> ReasoningLevels:
        """The dialectic's levels and tool time, as the settings give them."""
        return ReasoningLevels.parse(
            self.settings.dialectic_levels, tool_seconds=self.settings.dialectic_tool_seconds
        )

    @property
    def dream_watch(self) -> SharedLook[Representation, int]:
        """The one look at dream counts that this process's dreamEvents streams share."""
        if self._dream_watch is None:
            self._dream_watch = dream_counts(self.db)
        return self._dream_watch

    @property
    def queue_watch(self) -> QueueLook:
        """The one look at queue statuses that this process's queueStatus streams share."""
        if self._queue_watch is None:
            self._queue_watch = queue_statuses(self.db)
        return self._queue_watch
