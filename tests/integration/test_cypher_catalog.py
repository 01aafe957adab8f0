"""Every statement in cypher/ compiles on the server, and every caller passes its $params."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import cypher
from graph.db import ParameterMismatch, check_params
from graph.schema import schema_statements
from resolvers.services import Services
from tests import statements

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
STATEMENT_NAME = re.compile(r"[a-z][a-z0-9_]*")
# Runner methods, with the position of the statement name among their arguments (for calls of
# tests/statements.py it comes after the database: one more).
RUNNER_METHODS = {
    "read": 0,
    "read_one": 0,
    "write": 0,
    "write_one": 0,
    "rows": 0,
    "one": 0,
    "read_within": 1,  # after the time budget
    "autocommit": 0,  # tests/statements.py, in a session fixture
}
# Schema and SHOW commands cannot be EXPLAINed; install_schema runs them in every session.
NOT_EXPLAINABLE_PREFIXES = (
    "create_",
    "drop_",
    "list_vector_indexes",
    "list_indexes",
)


def catalog_calls(test_only: bool = False) -> list[tuple[str, str, set[str], bool]]:
    """(where, statement, keyword names, has **splat) for each runner call in our code: calls
    of the shipped catalog (`db.read("name", ...)`), or with `test_only` the calls of
    tests/statements.py (`statements.read(db, "name", ...)`)."""
    calls = []
    for folder in ("graph", "reasoners", "resolvers", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in RUNNER_METHODS
                ):
                    continue
                position = RUNNER_METHODS[node.func.attr] + (1 if test_only else 0)
                if not (
                    len(node.args) > position
                    and isinstance(node.args[position], ast.Constant)
                    and isinstance(node.args[position].value, str)
                    # file.write("...") and the like are not statement calls
                    and STATEMENT_NAME.fullmatch(node.args[position].value)
                    and (
                        isinstance(node.func.value, ast.Name) and node.func.value.id == "statements"
                    )
                    == test_only
                ):
                    continue
                names = {k.arg for k in node.keywords if k.arg is not None}
                splat = any(k.arg is None for k in node.keywords)
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                calls.append((where, node.args[position].value, names, splat))
    return calls


def test_callers_pass_exactly_the_statement_parameters() -> None:
    calls = catalog_calls()
    assert len(calls) > 30, "the scan found too few calls: has the runner API changed?"
    for where, name, names, splat in calls:
        assert name in cypher.names(), f"{where}: no cypher/{name}.cypher"
        expected = cypher.parameters(name)
        if splat:
            assert names <= expected, f"{where}: {sorted(names - expected)} not in {name}"
        else:
            assert names == expected, (
                f"{where}: {name} wants {sorted(expected)}, got {sorted(names)}"
            )


def test_every_statement_is_used() -> None:
    used = {name for _, name, _, _ in catalog_calls()}
    schema = set(schema_statements())
    assert cypher.names() - used - schema == set()


def test_test_statements_get_exactly_their_parameters() -> None:
    calls = catalog_calls(test_only=True)
    assert len(calls) > 5, "the scan found too few calls of tests/statements.py"
    for where, name, names, splat in calls:
        assert name in statements.CATALOG.names(), f"{where}: no tests/cypher/{name}.cypher"
        expected = statements.CATALOG.parameters(name)
        assert names <= expected if splat else names == expected, f"{where}: {name}"
    assert statements.CATALOG.names() - {name for _, name, _, _ in calls} == set()
    # A test statement may not shadow a shipped one: each name means one statement.
    assert statements.CATALOG.names() & cypher.names() == set()


def test_runner_refuses_a_mismatch() -> None:
    with pytest.raises(ParameterMismatch):
        check_params("get_peer", {"workspace": "w"})


@pytest.mark.parametrize(
    "name", sorted(n for n in cypher.names() if not n.startswith(NOT_EXPLAINABLE_PREFIXES))
)
async def test_statement_compiles(services: Services, name: str) -> None:
    await _explains(services, cypher.catalog(), name)


@pytest.mark.parametrize(
    "name",
    sorted(n for n in statements.CATALOG.names() if not n.startswith(NOT_EXPLAINABLE_PREFIXES)),
)
async def test_test_statement_compiles(services: Services, name: str) -> None:
    await _explains(services, statements.CATALOG, name)


async def _explains(services: Services, catalog: cypher.Catalog, name: str) -> None:
    params = {p: None for p in catalog.parameters(name)}
    async with services.db.driver.session(database=services.db.database) as session:
        result = await session.run(f"{cypher.LANGUAGE} EXPLAIN {catalog.source(name)}", params)
        summary = await result.consume()
    assert summary.plan is not None


# Statements that may read a whole label or relationship type: start-up and upgrade steps that
# visit every node of it once, and the warm-up's degree counts. Any other statement finds its
# nodes through an index: a label scan there reads every tenant's nodes on each call.
SCANS_ALLOWED = {
    "clear_scope_index_marks",  # upgrade
    "find_interrupted_purges",  # start-up
    "find_lapsed_deletions",  # periodic, over workspace nodes only (one per tenant)
    "largest_peers",  # warm-up
    "largest_views",  # warm-up
    "list_chunks_without_embedding",  # start-up
    "list_observes_cards",  # upgrade
    "list_unkeyed_sessions",  # upgrade
    "mark_schema",  # one node
    "read_message_properties",  # upgrade
    "read_observation_properties",  # upgrade
    "set_missing_valid_at",  # upgrade
    "set_schema_version",  # one node
}
SCANS = ("NodeByLabelScan", "AllNodesScan", "RelationshipTypeScan")


async def test_only_start_up_and_upgrade_statements_scan_a_label(services: Services) -> None:
    scanning = set()
    catalog = cypher.catalog()
    async with services.db.driver.session(database=services.db.database) as session:
        for name in catalog.names():
            if name.startswith(NOT_EXPLAINABLE_PREFIXES):
                continue
            params = {p: None for p in catalog.parameters(name)}
            result = await session.run(f"{cypher.LANGUAGE} EXPLAIN {catalog.source(name)}", params)
            plan = (await result.consume()).plan
            assert plan is not None
            if any(scan in op for op in _operators(plan) for scan in SCANS):
                scanning.add(name)
    assert scanning == SCANS_ALLOWED


def _operators(plan: dict[str, Any]) -> Iterator[str]:
    yield str(plan["operatorType"])
    for child in plan.get("children", []):
        yield from _operators(child)


def _details(plan: dict[str, Any]) -> Iterator[str]:
    yield str(plan.get("args", {}).get("Details", ""))
    for child in plan.get("children", []):
        yield from _details(child)


@pytest.mark.parametrize(
    "name", ["list_unit_head_jobs", "find_ready_units", "ready_units_at_token_target"]
)
async def test_a_units_unfinished_jobs_are_found_without_its_finished_ones(
    services: Services, name: str
) -> None:
    """By the unit alone, each claim read every done job the unit kept (seven days of them)."""
    catalog = cypher.catalog()
    params = {p: None for p in catalog.parameters(name)}
    async with services.db.driver.session(database=services.db.database) as session:
        result = await session.run(f"{cypher.LANGUAGE} EXPLAIN {catalog.source(name)}", params)
        plan = (await result.consume()).plan
    assert plan is not None
    by_unit = [d for d in _details(plan) if "Job(work_unit" in d]
    assert by_unit and all("Job(work_unit, status, seq)" in d for d in by_unit), by_unit


@pytest.mark.parametrize(
    ("name", "index"),
    [
        ("list_messages", "Message(workspace, created_at)"),
        ("list_session_messages", "Message(workspace, session, created_at)"),
    ],
)
async def test_a_page_of_messages_stops_reading_once_full(
    services: Services, name: str, index: str
) -> None:
    """Each page read and sorted every message of the workspace (a session's too)."""
    catalog = cypher.catalog()
    params = {p: None for p in catalog.parameters(name)}
    async with services.db.driver.session(database=services.db.database) as session:
        source = catalog.source(name)
        result = await session.run(f"{cypher.LANGUAGE} EXPLAIN {source}", params)
        plan = (await result.consume()).plan
    assert plan is not None
    assert "PartialTop@neo4j" in list(_operators(plan))
    assert any(index in d for d in _details(plan))
