"""Every statement in cypher/ compiles on the server, and every caller passes its $params."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import cypher
from graph.db import ParameterMismatch, check_params
from graph.schema import schema_statements
from resolvers.services import Services

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
STATEMENT_NAME = re.compile(r"[a-z][a-z0-9_]*")
RUNNER_METHODS = {"read", "read_one", "write", "write_one", "rows", "one"}
# Schema and SHOW commands cannot be EXPLAINed; install_schema runs them in every session.
NOT_EXPLAINABLE_PREFIXES = (
    "create_",
    "drop_",
    "list_vector_indexes",
    "list_indexes",
    "find_index",
    "await_index",
)


def catalog_calls() -> list[tuple[str, str, set[str], bool]]:
    """(where, statement, keyword names, has **splat) for each runner call in our code."""
    calls = []
    for folder in ("graph", "reasoners", "resolvers", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in RUNNER_METHODS
                    and node.args
                    and isinstance(node.args[0], ast.Constant)
                    and isinstance(node.args[0].value, str)
                    # file.write("...") and the like are not statement calls
                    and STATEMENT_NAME.fullmatch(node.args[0].value)
                ):
                    continue
                names = {k.arg for k in node.keywords if k.arg is not None}
                splat = any(k.arg is None for k in node.keywords)
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                calls.append((where, node.args[0].value, names, splat))
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


def test_runner_refuses_a_mismatch() -> None:
    with pytest.raises(ParameterMismatch):
        check_params("get_peer", {"workspace": "w"})


@pytest.mark.parametrize(
    "name", sorted(n for n in cypher.names() if not n.startswith(NOT_EXPLAINABLE_PREFIXES))
)
async def test_statement_compiles(services: Services, name: str) -> None:
    params = {p: None for p in cypher.parameters(name)}
    async with services.db.driver.session(database=services.db.database) as session:
        result = await session.run("EXPLAIN " + cypher.statement(name), params)  # type: ignore[arg-type]
        summary = await result.consume()
    assert summary.plan is not None
