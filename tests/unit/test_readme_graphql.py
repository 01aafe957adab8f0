"""Every GraphQL example in the README is a valid document for the schema, as pasted whole into
GraphiQL: fields and arguments that exist, and named operations where a block holds several
(GraphiQL runs none of several anonymous ones)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from graphql import parse, validate

from graph.settings import Settings
from resolvers.graphql.schema import build_schema

README = Path(__file__).resolve().parents[2] / "README.md"
BLOCKS = re.findall(r"```graphql\n(.*?)```", README.read_text(), re.S)


def test_the_readme_has_graphql_examples() -> None:
    assert len(BLOCKS) >= 10


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block-{i}" for i in range(len(BLOCKS))])
def test_a_readme_example_is_valid(block: str) -> None:
    schema = build_schema(Settings.from_env({}))
    errors = validate(schema._schema, parse(block))
    assert not errors, "\n".join(e.message for e in errors) + "\n" + block
