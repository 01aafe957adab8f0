"""Passages for messages stored before passages existed, embedded by the workers.

A message stored by an earlier beliefgraph has no passage vectors, so search scores it by its
own vector alone (still correct, only blind to a fact mentioned in passing). Each worker runs
this every BACKFILL_SECONDS beside its jobs: one batch at a time, so it never holds the
embedding model long, until a scan finds nothing left; then it looks again every
BACKFILL_RECHECK_SECONDS (messages stored meanwhile by a process with passages off, or by an
older beliefgraph beside this one, are found then). Each batch is stored on its own, and
only on messages whose content is still the one embedded, so a crash or a concurrent edit
loses nothing; several workers may embed the same batch, and the first write wins.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from graph.db import Database
from graph.repo import message_passages
from reasoners.embeddings.model import Embedder
from reasoners.embeddings.passages import embed_messages

log = logging.getLogger("beliefgraph.backfill")

BACKFILL_BATCH = 32
BACKFILL_SECONDS = 1.0
# After a scan found nothing: a scan reads every message, so it is not repeated every second.
BACKFILL_RECHECK_SECONDS = 600.0


@dataclass
class PassageBackfill:
    db: Database
    embedder: Embedder
    workspace: str | None = None  # only this workspace's messages (None: every workspace)
    batch: int = BACKFILL_BATCH
    recheck: float = BACKFILL_RECHECK_SECONDS
    clock: Callable[[], float] = time.monotonic
    stored: int = 0
    idle_until: float | None = None  # a scan found nothing: no other scan before this time
    after: str = ""  # where this pass is, by message id

    @property
    def finished(self) -> bool:
        return self.idle_until is not None and self.clock() < self.idle_until

    async def __call__(self) -> int:
        """Embed one batch; returns how many messages got their passages."""
        if self.finished:
            return 0
        pending = await message_passages.without_passages(
            self.db, self.batch, self.workspace, self.after
        )
        if not pending:
            # The pass is over: the next starts from the first id again.
            self.after = ""
            self.idle_until = self.clock() + self.recheck
            if self.stored:
                log.info("passages embedded for %d earlier messages; none left", self.stored)
                self.stored = 0
            return 0
        self.idle_until = None
        self.after = pending[-1].id
        vectors = await embed_messages(self.embedder, [m.content for m in pending])
        stored = await message_passages.set_passages(
            self.db, [(m, v.passages or []) for m, v in zip(pending, vectors, strict=True)]
        )
        self.stored += stored
        return stored
