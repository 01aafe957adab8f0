"""/health's ping runs on connections of its own: with every connection of the service's work
pool held (a flood of requests), it timed out waiting for one and answered 503, Neo4j up."""

from __future__ import annotations

import pytest

from cypher import statement
from graph.db import Database
from graph.errors import Unavailable
from graph.settings import Settings

pytestmark = pytest.mark.integration


async def test_a_busy_pool_leaves_the_ping_its_own_connection(
    test_settings: Settings, neo4j_password: str
) -> None:
    db = Database.connect(test_settings, neo4j_password, pool_size=1)
    try:
        async with db.driver.session(database=db.database) as session:
            held = await session.begin_transaction()
            try:
                await (await held.run(statement("ping"))).consume()  # the pool's one connection
                with pytest.raises(Unavailable, match="every Neo4j connection is in use"):
                    await db.read("ping")
                assert await db.refusal(timeout=1.0) is None
                assert await db.ping()
            finally:
                await held.rollback()
    finally:
        await db.close()
