"""Records built in memory for pure tests: only what a test names differs between them."""

from __future__ import annotations

from datetime import UTC, datetime

from graph.records import MessageRecord


def message_record(
    id_: str, *, session: str = "s1", peer: str = "user", seq: int = 0
) -> MessageRecord:
    """A message of workspace "w" whose content is its id."""
    return MessageRecord(
        id=id_,
        workspace="w",
        session=session,
        peer=peer,
        content=id_,
        context=None,
        metadata={},
        created_at=datetime(2024, 1, 1, tzinfo=UTC),
        seq=seq,
        token_count=1,
    )
