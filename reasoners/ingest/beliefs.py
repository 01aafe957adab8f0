"""Beliefs an app states directly: validated as a batch, embedded, stored in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from graph.db import Database
from graph.errors import InvalidInput, LimitExceeded, NotFound
from graph.records import ObservationRecord
from graph.repo import sessions, stated_observations
from graph.repo.stated_observations import StatedBelief
from graph.settings import Settings
from graph.validation import check_name, without_nul
from reasoners.deriver.dedup import check_belief, exact_key
from reasoners.embeddings.model import Embedder, embed_async


@dataclass(frozen=True)
class BeliefInput:
    observer: str
    observed: str
    content: str
    session: str | None = None


def validate_beliefs(items: Sequence[BeliefInput], settings: Settings) -> None:
    if not items:
        raise InvalidInput("conclusions: send at least one")
    if len(items) > settings.max_batch:
        raise LimitExceeded(
            f"conclusions: {len(items)} in one batch; the limit is {settings.max_batch}",
            limit="batch",
        )
    for index, item in enumerate(items):
        for field, value in (("observer_id", item.observer), ("observed_id", item.observed)):
            try:
                check_name(value, "peer")
            except InvalidInput as exc:
                raise InvalidInput(f"conclusions[{index}].{field}: {exc.message}") from exc
        if item.session is not None:
            try:
                check_name(item.session, "session")
            except InvalidInput as exc:
                raise InvalidInput(f"conclusions[{index}].session_id: {exc.message}") from exc
        content = without_nul(item.content).strip()  # judged as it would be stored
        if not content:
            raise InvalidInput(f"conclusions[{index}].content: content is empty")
        check_belief(content, f"conclusions[{index}].content")


async def check_sessions(db: Database, workspace: str, items: Sequence[BeliefInput]) -> None:
    """A belief placed in a session must be one between two of its members (now or before):
    reads filtered by session take it as said there. One answer whether the session does not
    exist or they were not in it: a peer key learns nothing of sessions out of its reach."""
    for index, item in enumerate(items):
        if item.session is None:
            continue
        for peer in (item.observer, item.observed):
            if not await sessions.joined_by(db, workspace, peer, [item.session]):
                raise InvalidInput(
                    f"conclusions[{index}].session_id: peer {peer!r} has never been in "
                    f"session {item.session!r}"
                )
    # Both were in each one, so the caller may learn this: nothing is added to a deleted one,
    # as no message is.
    for session in sorted({i.session for i in items if i.session is not None}):
        if not (await sessions.get(db, workspace, session)).active:
            raise NotFound(f"session {session!r} was deleted")


async def add_beliefs(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    workspace: str,
    items: Sequence[BeliefInput],
) -> list[ObservationRecord]:
    items = [replace(item, content=without_nul(item.content)) for item in items]
    validate_beliefs(items, settings)
    await check_sessions(db, workspace, items)
    vectors = await embed_async(embedder, [item.content for item in items])
    return await stated_observations.create(
        db,
        workspace,
        [
            StatedBelief(
                i.observer, i.observed, i.content.strip(), exact_key(i.content), v, i.session
            )
            for i, v in zip(items, vectors, strict=True)
        ],
    )
