"""Beliefs an app states directly: validated as a batch, embedded, stored in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graph.db import Database
from graph.errors import InvalidInput, LimitExceeded
from graph.records import ObservationRecord
from graph.repo import stated_observations
from graph.repo.stated_observations import StatedBelief
from graph.settings import Settings
from graph.validation import check_name
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
            f"conclusions: {len(items)} in one batch; the limit is {settings.max_batch}"
        )
    for index, item in enumerate(items):
        for field, value in (("observer_id", item.observer), ("observed_id", item.observed)):
            try:
                check_name(value, "peer")
            except InvalidInput as exc:
                raise InvalidInput(f"conclusions[{index}].{field}: {exc.message}") from exc
        if not item.content.strip():
            raise InvalidInput(f"conclusions[{index}].content: content is empty")
        check_belief(item.content.strip(), f"conclusions[{index}].content")


async def add_beliefs(
    db: Database,
    embedder: Embedder,
    settings: Settings,
    workspace: str,
    items: Sequence[BeliefInput],
) -> list[ObservationRecord]:
    validate_beliefs(items, settings)
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
