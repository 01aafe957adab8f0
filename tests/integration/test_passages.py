"""Passages on the real graph: stored at ingest and on edit, scored by every message search,
and embedded in the background for messages stored before passages existed."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from graph.repo import message_passages, message_search
from graph.repo.messages import MessageFilter
from graph.repo.retrieval import MESSAGES
from graph.repo.sessions import MemberSettings
from reasoners.embeddings.passages import passages
from reasoners.ingest.backfill import PassageBackfill
from reasoners.peers.invalidation import edit_message
from resolvers.runtime import build_worker
from resolvers.services import Services
from tests import statements
from tests.integration.derive_helpers import make_peers, make_session, post
from tests.unit.test_passages import COUGH

pytestmark = pytest.mark.integration

QUESTION = "How many doctor's appointments did I go to in March?"
INDEX_ALWAYS = replace(MESSAGES, exact_scan_limit=0, min_candidates=2, min_wide=2)


async def seed(services: Services, workspace: str) -> None:
    await make_peers(services, workspace, "user", "assistant")
    members = [MemberSettings("user"), MemberSettings("assistant")]
    await make_session(services, workspace, "s1", members)
    await post(
        services,
        workspace,
        "s1",
        ("user", COUGH),
        ("assistant", "Honey and warm fluids help. Rest as much as you can."),
        ("user", "My sister is visiting next week."),
    )


async def stored(services: Services, workspace: str) -> dict[str, Any]:
    rows = await statements.read(services.db, "message_passages", workspace=workspace)
    return {r["content"]: r["passages"] for r in rows}


def expected_score(services: Services, query: list[float], text: str) -> tuple[float, float]:
    """(the message's own similarity, its best passage's), on the index's 0-1 scale."""
    q = np.asarray(query)
    own = float(np.asarray(services.embedder.embed([text])[0]) @ q)
    parts = np.asarray(services.embedder.embed(passages(text)))
    return (1 + own) / 2, (1 + float((parts @ q).max())) / 2


async def test_ingest_stores_a_vector_per_passage(services: Services, workspace: str) -> None:
    await seed(services, workspace)
    dim = services.embedder.dimension
    found = await stored(services, workspace)
    assert len(found[COUGH]) == 2 * dim
    vectors = np.asarray(found[COUGH]).reshape(2, dim)
    assert np.allclose(vectors, services.embedder.embed(passages(COUGH)), atol=1e-6)
    # A message of one passage stores an empty list: nothing to add, nothing to backfill.
    assert found["My sister is visiting next week."] == []


@pytest.mark.parametrize("thresholds", [MESSAGES, INDEX_ALWAYS], ids=["exact", "index"])
async def test_a_fact_in_passing_scores_by_its_passage(
    services: Services, workspace: str, thresholds: Any
) -> None:
    await seed(services, workspace)
    [query] = services.embedder.embed([QUESTION])
    own, best = expected_score(services, query, COUGH)
    # The point of passages: the visit sentence is closer than the cough message as a whole.
    assert best > own + 0.02
    hits = await message_search.vector_candidates(
        services.db, workspace, query, MessageFilter(), 10, thresholds=thresholds
    )
    scores = {m.content: s for m, s in hits}
    assert scores[COUGH] == pytest.approx(best, abs=1e-5)
    assert next(iter(scores)) == COUGH
    # The exact scan and the fulltext half score it the same way, so fusion compares alike.
    exact = await message_search.exact_scan(services.db, workspace, query, MessageFilter(), 10)
    assert {m.content: s for m, s in exact}[COUGH] == pytest.approx(best, abs=1e-5)
    text = await message_search.text_candidates(
        services.db, workspace, "doctor March", MessageFilter(), 10, embedding=query
    )
    [(message, _, similarity)] = text
    assert message.content == COUGH and similarity == pytest.approx(best, abs=1e-5)


async def test_an_edit_replaces_the_passages(services: Services, workspace: str) -> None:
    await seed(services, workspace)
    [message] = [
        m
        for m, _ in await message_search.exact_scan(
            services.db, workspace, services.embedder.embed([COUGH])[0], MessageFilter(), 1
        )
    ]
    await edit_message(
        services.db,
        services.embedder,
        services.tokens,
        services.settings,
        workspace,
        message.id,
        "I stayed home all week.",
    )
    found = await stored(services, workspace)
    assert COUGH not in found
    assert found["I stayed home all week."] == []


async def test_the_backfill_embeds_passages_of_earlier_messages(
    services: Services, workspace: str
) -> None:
    await seed(services, workspace)
    fresh = await stored(services, workspace)
    await statements.write(services.db, "forget_message_passages", workspace=workspace)
    assert set((await stored(services, workspace)).values()) == {None}
    clock = [1000.0]
    backfill = PassageBackfill(
        services.db, services.embedder, workspace, batch=2, recheck=60.0, clock=lambda: clock[0]
    )
    done = [await backfill() for _ in range(3)]
    assert done == [2, 1, 0] and backfill.finished
    again = await stored(services, workspace)
    assert again.keys() == fresh.keys()
    for content, vectors in fresh.items():
        assert np.allclose(again[content], vectors, atol=1e-6)
    # Finished: no scan until the recheck time, then messages stored meanwhile are found.
    await statements.write(services.db, "forget_message_passages", workspace=workspace)
    clock[0] += 59.0
    assert await backfill() == 0 and backfill.finished
    clock[0] += 1.0
    assert not backfill.finished
    assert await backfill() == 2 and await backfill() == 1


async def test_the_backfill_never_overwrites_a_changed_message(
    services: Services, workspace: str
) -> None:
    await seed(services, workspace)
    await statements.write(services.db, "forget_message_passages", workspace=workspace)
    pending = await message_passages.without_passages(services.db, 10, workspace)
    assert len(pending) == 3
    # Listed, then edited before the write: the stale vectors must not land.
    changed = replace(pending[0], content="something else")
    assert await message_passages.set_passages(services.db, [(changed, [0.5] * 4)]) == 0
    assert await message_passages.set_passages(services.db, [(pending[1], [])]) == 1
    # Stored once: a second worker's write of the same batch changes nothing.
    assert await message_passages.set_passages(services.db, [(pending[1], [0.5])]) == 0
    assert (await stored(services, workspace))[pending[1].content] == []


async def test_every_worker_runs_the_backfill_in_its_own_scope(
    services: Services, workspace: str
) -> None:
    worker = build_worker(services, workspace=workspace)
    [task] = [t for t in worker.periodic if t.name == "passage backfill"]
    assert isinstance(task.run, PassageBackfill) and task.run.workspace == workspace
    await seed(services, workspace)
    await statements.write(services.db, "forget_message_passages", workspace=workspace)
    assert await task.run() == 3


async def test_passages_off_stores_none_and_on_again_backfills_them(
    services: Services, workspace: str
) -> None:
    off = replace(services, settings=replace(services.settings, message_passages="off"))
    assert not [t for t in build_worker(off, workspace=workspace).periodic if "passage" in t.name]
    await seed(off, workspace)
    assert set((await stored(services, workspace)).values()) == {None}
    [message] = [
        m
        for m, _ in await message_search.exact_scan(
            services.db, workspace, services.embedder.embed([COUGH])[0], MessageFilter(), 1
        )
    ]
    edited = f"{COUGH} It is better now."
    await edit_message(
        off.db, off.embedder, off.tokens, off.settings, workspace, message.id, edited
    )
    assert (await stored(services, workspace))[edited] is None
    # On again: the workers embed what was stored without them.
    [task] = [
        t for t in build_worker(services, workspace=workspace).periodic if "passage" in t.name
    ]
    assert await task.run() == 3
    found = await stored(services, workspace)
    assert len(found[edited]) == len(passages(edited)) * services.embedder.dimension > 0
    assert found["My sister is visiting next week."] == []
