"""The Neo4j Browser guide's queries run, the README shows its first three, and counts of what a
peer believes leave out deleted and superseded beliefs, as the API does."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from graph.repo import members, observations, peers
from graph.repo.observation_search import ObservationQuery
from reasoners.peers import invalidation
from resolvers.services import Services
from tests.integration.dream_helpers import (
    belief_id,
    conversation,
    derive,
    dream_now,
    say,
    with_dreams,
)
from tests.integration.test_read_path import seed_beliefs

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "resolvers" / "web" / "static" / "guide.html"
README = ROOT / "README.md"


def guide_queries() -> list[str]:
    blocks = re.findall(r'<pre class="[^"]*runnable">(.*?)</pre>', GUIDE.read_text(), re.S)
    return [html.unescape(b).strip() for b in blocks if not b.startswith(":")]


def readme_queries() -> list[str]:
    text = README.read_text()
    section = text[text.index("## Exploring the belief graph") : text.index("## GraphQL by")]
    blocks = re.findall(r"```cypher\n(.*?)```", section, re.S)
    return [
        "\n".join(line for line in b.splitlines() if not line.startswith("//"))
        .replace("'demo'", "$workspace")
        .strip()
        for b in blocks
    ]


def test_the_readme_shows_the_guides_first_queries() -> None:
    assert readme_queries() == guide_queries()[:3]


async def run(services: Services, query: str, workspace: str) -> list[dict[str, Any]]:
    db = services.db
    async with db.driver.session(database=db.database) as session:
        result = await session.run(query, {"workspace": workspace})
        return [record.data() for record in await result.fetch(1000)]


async def test_every_guide_query_runs_and_counts_only_current_beliefs(
    services: Services, workspace: str
) -> None:
    """The counts included deleted and superseded beliefs: 19 where the API listed 16."""
    await seed_beliefs(services, workspace)
    query = ObservationQuery("bob", "alice")
    listed = await observations.list_page(services.db, workspace, query, after=None, limit=10)
    await invalidation.delete_observation(
        services.db, services.settings, workspace, listed.items[0].id
    )
    queries = guide_queries()
    assert len(queries) == 6
    for text in queries:
        await run(services, text, workspace)
    counts = {
        (r["observer"], r["observed"]): r["beliefs"]
        for r in await run(services, queries[1], workspace)
    }
    assert counts[("bob", "alice")] == 3 and counts[("carol", "alice")] == 1
    current = await run(services, queries[0], workspace)
    assert len({r["o"]["content"] for r in current}) == 3


def readme_graph_queries(heading: str) -> list[str]:
    """The Cypher blocks after `heading`, up to the next section, as the guide words them."""
    text = README.read_text()
    section = text[text.index(heading) :]
    section = section[: section.index("\n## ")]
    return [
        "\n".join(line for line in b.splitlines() if not line.startswith("//"))
        .replace("'demo'", "$workspace")
        .strip()
        for b in re.findall(r"```cypher\n(.*?)```", section, re.S)
    ]


async def test_the_chain_and_premise_queries_leave_out_deleted_beliefs(
    services: Services, workspace: str
) -> None:
    """A contradiction a deletion had dropped was still shown as a derived belief."""
    s = with_dreams(services, dream_mode="rules", dream_threshold=0)
    await conversation(s, workspace, "s1", "s2")
    await say(s, workspace, "s1", "2024-01-05", "I eat meat every day.")
    await say(s, workspace, "s2", "2024-02-05", "I don't eat meat every day.")
    await derive(s, workspace)
    await dream_now(s, workspace, "agent", "alice")
    contradiction = await belief_id(s, workspace, "Contradiction")
    queries = guide_queries()[3:5]
    assert readme_graph_queries("In Neo4j Browser (the guide has these too)") == queries
    premises = queries[1].replace("'bob'", "'agent'")

    async def shown() -> set[str]:
        return {r["path"][0]["id"] for r in await run(s, premises, workspace)}

    assert contradiction in await shown()
    await invalidation.delete_observation(s.db, s.settings, workspace, contradiction)
    assert contradiction not in await shown()


async def test_the_readmes_tree_query_counts_current_beliefs(
    services: Services, workspace: str
) -> None:
    """It counted deleted and superseded beliefs too (5,215 where 5,065 were current)."""
    await seed_beliefs(services, workspace)
    listed = await observations.list_page(
        services.db, workspace, ObservationQuery("bob", "alice"), after=None, limit=10
    )
    await invalidation.delete_observation(
        services.db, services.settings, workspace, listed.items[0].id
    )
    await peers.get_or_create(services.db, workspace, "engineering-team")
    await members.add(services.db, workspace, "engineering-team", "alice", max_depth=10)
    text = README.read_text()
    [tree] = [
        b.replace("'demo'", "$workspace")
        for b in re.findall(r"```cypher\n(.*?)```", text, re.S)
        if "MEMBER_OF" in b
    ]
    [row] = await run(services, tree, workspace)
    current = 0
    for observer in ("alice", "bob", "carol"):
        query = ObservationQuery(observer, "alice")
        page = await observations.list_page(services.db, workspace, query, after=None, limit=50)
        current += len(page.items)
    assert f"alice: {current} beliefs" in row["counts"]
