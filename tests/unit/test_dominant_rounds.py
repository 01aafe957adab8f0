"""A dominant peers' round (the whole workspace, theirs kept after) and what follows it, against
scripted rows of the search statement: the logic in graph/repo/message_search.py."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from graph.db import Database
from graph.repo import message_search
from graph.repo.messages import MessageFilter
from graph.repo.retrieval import MESSAGES, Dominant

RULE = Dominant(min_size=10, hits_per_wanted=3, rounds=(500, 1_500))
THRESHOLDS = replace(MESSAGES, dominant=RULE, max_candidates=1_200)


def message(n: int) -> dict[str, Any]:
    return {
        "id": f"m{n}",
        "workspace": "w",
        "session": "s",
        "peer": "alice",
        "content": f"message {n}",
        "context": None,
        "metadata": {},
        "created_at": datetime(2026, 1, 1, tzinfo=UTC),
        "seq": n,
        "token_count": 2,
        "client_id": None,
        "received_at": datetime(2026, 1, 1, tzinfo=UTC),
    }


def row(kept: int, raw: int, dominant: int | None = None) -> dict[str, Any]:
    found = [{"message": message(n), "score": 0.9 - n / 100} for n in range(kept)]
    return {"total": None, "dominant": dominant, "raw": raw, "found": found}


class ScriptedDatabase(Database):
    """Answers each search statement with the next scripted row, noting its parameters."""

    def __init__(self, *rows: dict[str, Any]) -> None:  # no driver: nothing reaches Neo4j
        self.rows = list(rows)
        self.params: list[dict[str, Any]] = []
        self.statements: list[str] = []

    async def read(self, statement: str, /, **params: Any) -> list[dict[str, Any]]:  # type: ignore[override]
        self.statements.append(statement)
        self.params.append(params)
        if statement == "search_messages_exact":
            return []
        return [self.rows.pop(0)]


async def search(db: ScriptedDatabase, **filters: Any) -> list[str]:
    hits = await message_search.vector_candidates(
        db, "w", [1.0, 0.0], MessageFilter(**filters), 3, thresholds=THRESHOLDS
    )
    return [m.id for m, _ in hits]


async def test_a_full_dominant_round_is_the_answer() -> None:
    db = ScriptedDatabase(row(kept=3, raw=500, dominant=500))
    assert await search(db, peer="alice") == ["m0", "m1", "m2"]
    [params] = db.params
    assert params["dominant_hits"] == 9  # 3 wanted, 3 of the peer's per wanted hit
    assert params["dominant_rounds"] == [500, 1_500]
    assert params["dominant_min_size"] == 10


async def test_a_short_dominant_round_goes_on_with_the_peers_own_rounds() -> None:
    # The filters kept one of the workspace's 500 nearest: the peer's filtered rounds follow
    # (no dominant round again), growing until the page fills.
    db = ScriptedDatabase(
        row(kept=1, raw=500, dominant=500), row(kept=2, raw=300), row(kept=3, raw=1_200)
    )
    assert await search(db, peer="alice") == ["m0", "m1", "m2"]
    assert [p["dominant_hits"] for p in db.params] == [9, None, None]
    assert [p["wide"] for p in db.params[1:]] == [300, 1_200]


async def test_a_short_dominant_round_over_the_whole_workspace_is_complete() -> None:
    db = ScriptedDatabase(row(kept=1, raw=40, dominant=500))
    assert await search(db, peer="alice") == ["m0"]
    assert len(db.params) == 1


async def test_short_filtered_rounds_still_end_in_the_exact_scan() -> None:
    db = ScriptedDatabase(row(kept=0, raw=500, dominant=500), row(0, 300), row(0, 1_200))
    assert await search(db, peer="alice") == []
    assert db.statements[-1] == "search_messages_exact"


async def test_only_peers_without_a_session_ask_for_a_dominant_round() -> None:
    for filters in ({}, {"session": "s", "peer": "alice"}):
        db = ScriptedDatabase(row(kept=3, raw=300))
        await search(db, **filters)
        assert db.params[0]["dominant_hits"] is None, filters
