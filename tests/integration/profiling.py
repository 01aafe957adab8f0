"""What a statement read, from Neo4j's PROFILE of one run of it."""

from __future__ import annotations

from typing import Any

import cypher
from resolvers.services import Services


async def index_seek_rows(
    services: Services, name: str, label: str = "Observation", **params: Any
) -> int:
    """Rows that index seeks on `label` produced when the statement `name` ran."""
    catalog = cypher.catalog()
    text = f"{cypher.LANGUAGE} PROFILE {catalog.source(name)}"
    async with services.db.driver.session(database=services.db.database) as session:
        result = await session.run(text, params)
        await result.data()
        summary = await result.consume()
    assert summary.profile is not None

    def seeks(plan: dict[str, Any]) -> int:
        own = plan.get("rows", 0) if "IndexSeek" in plan["operatorType"] else 0
        details = str(plan.get("args", {}).get("Details", ""))
        own = own if f":{label}(" in details else 0
        return own + sum(seeks(child) for child in plan.get("children", []))

    return seeks(summary.profile)
