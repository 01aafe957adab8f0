"""The start-up backfills end when what they list cannot be keyed, instead of listing it again
and again (a belief or a session whose names are missing matches no batch update)."""

import asyncio
from typing import Any, cast

import pytest

from graph.db import Database
from graph.migrations import backfill_message_keys, backfill_scope_keys

pytestmark = pytest.mark.unit


class StuckGraph:
    """Lists the same unkeyable item on every read; no batch update ever matches it."""

    def __init__(self) -> None:
        self.reads = 0

    async def read(self, statement: str, **params: Any) -> list[dict[str, Any]]:
        self.reads += 1
        await asyncio.sleep(0)  # a real read yields, so the timeout below can end a loop
        if statement == "list_observations_missing_scope_key":
            return [{"workspace": None, "observer": "a", "observed": "b"}]
        if statement == "list_unkeyed_sessions":
            return [{"workspace": None, "session": "s"}]
        return []

    async def write_one(self, statement: str, **params: Any) -> dict[str, Any]:
        return {"updated": 0}


@pytest.mark.parametrize("backfill", [backfill_scope_keys, backfill_message_keys])
async def test_a_backfill_that_keys_nothing_stops(backfill: Any) -> None:
    graph = StuckGraph()
    assert await asyncio.wait_for(backfill(cast(Database, graph)), timeout=5) == 0
    assert graph.reads <= 2
