"""Per-request batch loaders: fields that each list's items would otherwise query one by one.

`sessions { summaries }` on a page of 100 sessions runs one statement, not 100.
"""

from __future__ import annotations

from strawberry.dataloader import DataLoader

from graph.db import Database
from graph.records import SummaryRecord
from graph.repo import summaries

# (workspace, session, kind or None, limit)
SummaryKey = tuple[str, str, str | None, int]


def summaries_loader(db: Database) -> DataLoader[SummaryKey, list[SummaryRecord]]:
    async def load(keys: list[SummaryKey]) -> list[list[SummaryRecord]]:
        groups: dict[tuple[str, str | None, int], set[str]] = {}
        for workspace, session, kind, limit in keys:
            groups.setdefault((workspace, kind, limit), set()).add(session)
        found: dict[SummaryKey, list[SummaryRecord]] = {}
        for (workspace, kind, limit), names in groups.items():
            by_session = await summaries.list_for_sessions(
                db, workspace, sorted(names), kind=kind, limit=limit
            )
            for session, records in by_session.items():
                found[(workspace, session, kind, limit)] = records
        return [found[key] for key in keys]

    return DataLoader(load_fn=load)
