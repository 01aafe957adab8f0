"""An exhausted connection pool (too much asked at once, Neo4j up) is UNAVAILABLE at once, as
'busy', without the outage cooldown and without a traceback per request: it was INTERNAL, with
two tracebacks in the log for each request."""

from __future__ import annotations

import logging

import pytest
from neo4j import AsyncGraphDatabase

from graph.db import BUSY, Database
from graph.errors import Unavailable
from graph.server.layout import ADMIN_USER
from graph.settings import Settings

pytestmark = pytest.mark.integration


async def test_an_exhausted_pool_is_busy_not_down(
    test_settings: Settings, neo4j_password: str, caplog: pytest.LogCaptureFixture
) -> None:
    user = ADMIN_USER if test_settings.managed else test_settings.neo4j_user
    driver = AsyncGraphDatabase.driver(
        test_settings.bolt_uri,
        auth=(user, neo4j_password),
        max_connection_pool_size=1,
        connection_acquisition_timeout=0.3,
    )
    db = Database(driver, test_settings.neo4j_database, timeout=0.3)
    try:
        async with driver.session(database=test_settings.neo4j_database) as held:
            tx = await held.begin_transaction()  # the pool's one connection
            await (await tx.run("RETURN 1")).consume()
            with caplog.at_level(logging.WARNING, logger="beliefgraph"):
                for _ in range(3):
                    with pytest.raises(Unavailable, match=BUSY):
                        await db.read("ping")
                with pytest.raises(Unavailable, match=BUSY):
                    await db.write("ping")
            await tx.rollback()
        # Not taken for an outage: the next request runs at once.
        row = await db.read_one("ping")
        assert row is not None and row["ok"] == 1
        warnings = [r for r in caplog.records if "came free" in r.getMessage()]
        assert len(warnings) == 1 and warnings[0].exc_info is None
    finally:
        await driver.close()
