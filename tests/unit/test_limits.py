"""Document limits: depth counted once per fragment, introspection allowed, cost linear."""

from __future__ import annotations

import time

import pytest
from graphql import get_introspection_query, parse, specified_rules, validate

from graph.settings import Settings
from resolvers.graphql.limits import (
    MAX_FRAGMENTS,
    count_tokens,
    document_shape,
    operations_of,
    unnamed_among_several,
)
from resolvers.graphql.schema import build_schema, validation_rules

pytestmark = pytest.mark.unit

SETTINGS = Settings.from_env({})
SCHEMA = build_schema(SETTINGS)


def errors(document: str) -> list[str]:
    rules = [*specified_rules, *validation_rules(SETTINGS)]
    return [str(e.message) for e in validate(SCHEMA._schema, parse(document), rules)]


def bomb(levels: int) -> str:
    parts = [f"query {{ ...F{levels} }}", "fragment F0 on Query { health { ok } }"]
    parts += [f"fragment F{i} on Query {{ ...F{i - 1} ...F{i - 1} }}" for i in range(1, levels + 1)]
    return "\n".join(parts)


def test_fragment_fan_out_is_validated_in_linear_time() -> None:
    # The most fragments a document may define, each spreading the previous twice: validation
    # stays well under 100 ms (the best of three runs, against other load on the machine).
    for levels in (10, 30, MAX_FRAGMENTS - 1):
        document = bomb(levels)
        assert errors(document) == []
        times = []
        for _ in range(3):
            started = time.perf_counter()
            errors(document)
            times.append(time.perf_counter() - started)
        assert min(times) < 0.1, (levels, times)


def test_nesting_and_fragment_counts_are_read_by_the_lexer() -> None:
    shape = document_shape(bomb(100), 10_000)
    assert shape.fragments == 101 and shape.nesting == 2
    deep = "{" * 900 + "}" * 900
    assert document_shape(deep, 10_000).nesting == 900


def test_depth_is_counted_through_fragments() -> None:
    shallow = 'query { workspace(name: "w") { ...A } } fragment A on Workspace { name }'
    assert errors(shallow) == []
    # Eleven levels, each a fragment nesting the next one level deeper (the names need not
    # exist: the depth rule reads the document's shape).
    parts = ["query { ...L0 }"]
    parts += [f"fragment L{i} on Query {{ f{i} {{ ...L{i + 1} }} }}" for i in range(10)]
    parts.append("fragment L10 on Query { f10 }")
    assert "query depth 11 exceeds the limit of 10" in errors("\n".join(parts))


def test_the_standard_introspection_query_is_allowed_and_deeper_is_not() -> None:
    assert errors(get_introspection_query()) == []
    deep = "{ __schema { types { " + "ofType { " * 30 + "name" + " }" * 30 + " } } }"
    assert any("introspection depth" in e for e in errors(deep))


def test_token_count_stops_early() -> None:
    assert count_tokens("{ a b c }", 100) == 5
    assert count_tokens("{ " + "a " * 10_000 + "}", 10) == 11


def test_the_longest_number_literal_is_read_by_the_lexer() -> None:
    """Python reads at most 4,300 digits into an int: a longer Int literal failed inside
    graphql-core (INTERNAL, with tracebacks in the log, even without a key)."""
    shape = document_shape('{ a(n: 12, f: -1.5e10, s: "1234567") }', 100)
    assert shape.longest_number == 7
    assert document_shape("{ a(n: " + "9" * 5000 + ") }", 100).longest_number == 5000


@pytest.mark.parametrize(
    ("document", "operations"),
    [
        ("{ a }", 1),
        ("query { a }", 1),
        ("query Q($x: Int = 1) { a(x: $x) { b } }", 1),
        ("{ a } fragment F on Q { b }", 1),
        ("fragment F on Q { b } query A { ...F }", 1),
        ("mutation B { a } query A { b }", 2),
        ("{ a } { b }", 2),
        ("query A { a } subscription S { s } mutation M { m }", 3),
        ('query A { a(s: "query {") } ', 1),
    ],
)
def test_operations_are_counted_by_the_lexer(document: str, operations: int) -> None:
    assert document_shape(document, 100).operations == operations


def test_several_operations_need_a_name() -> None:
    assert unnamed_among_several("mutation B { a } query A { b }", None, 100)
    assert not unnamed_among_several("mutation B { a } query A { b }", "A", 100)
    assert not unnamed_among_several("query A { b }", None, 100)
    # A description before an operation hid it: the first of the two ran.
    assert unnamed_among_several('"a" query A { b } """b""" mutation B { a }', None, 100)


def test_a_described_mutation_is_a_mutation() -> None:
    """Counted as nothing, it was stopped as a read when its client left."""
    shape = operations_of('"why" mutation M { a }', 100)
    assert shape is not None and (shape.operations, shape.mutations) == (1, 1)
    shape = operations_of('"""why""" query Q { a }', 100)
    assert shape is not None and (shape.operations, shape.mutations) == (1, 0)
