"""Every type, field, argument, input field and enum value of the served schema has a description
(GraphiQL's documentation explorer shows them)."""

from __future__ import annotations

import pytest
from graphql import (
    GraphQLEnumType,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLObjectType,
    GraphQLScalarType,
    GraphQLSchema,
    GraphQLUnionType,
)

from graph.settings import Settings
from resolvers.graphql.schema import build_schema

pytestmark = pytest.mark.unit

BUILT_IN_SCALARS = {"String", "Int", "Float", "Boolean", "ID"}


def blank(description: str | None) -> bool:
    return description is None or not description.strip()


def undescribed(schema: GraphQLSchema) -> list[str]:
    """The schema's own items (not introspection's, nor the built-in scalars) lacking one."""
    missing: list[str] = []
    for name, named in sorted(schema.type_map.items()):
        if name.startswith("__") or name in BUILT_IN_SCALARS:
            continue
        if blank(named.description):
            missing.append(f"type {name}")
        if isinstance(named, GraphQLObjectType | GraphQLInterfaceType):
            for field_name, field in named.fields.items():
                if blank(field.description):
                    missing.append(f"field {name}.{field_name}")
                for arg_name, arg in field.args.items():
                    if blank(arg.description):
                        missing.append(f"argument {name}.{field_name}({arg_name})")
        elif isinstance(named, GraphQLInputObjectType):
            for field_name, input_field in named.fields.items():
                if blank(input_field.description):
                    missing.append(f"input field {name}.{field_name}")
        elif isinstance(named, GraphQLEnumType):
            for value_name, value in named.values.items():
                if blank(value.description):
                    missing.append(f"enum value {name}.{value_name}")
        else:
            assert isinstance(named, GraphQLScalarType | GraphQLUnionType), name
    return missing


def test_every_item_of_the_schema_is_described() -> None:
    schema = build_schema(Settings.from_env({}))
    missing = undescribed(schema._schema)
    assert not missing, f"{len(missing)} items without a description:\n" + "\n".join(missing)


def test_the_walk_sees_a_missing_description() -> None:
    # The check itself: an item left without a description is listed.
    from graphql import build_schema as from_sdl

    schema = from_sdl('"The root."\ntype Query {\n  "Described."\n  a(x: Int): Int\n  b: Int\n}')
    assert undescribed(schema) == ["argument Query.a(x)", "field Query.b"]


def test_descriptions_stand_on_their_own() -> None:
    """No link out, and none of the library's texts: JSON's linked a standard's PDF, DateTime's
    said only "Date with time (isoformat)" (probe W)."""
    schema = build_schema(Settings.from_env({}))
    texts = {
        name: named.description or ""
        for name, named in schema._schema.type_map.items()
        if not name.startswith("__") and name not in BUILT_IN_SCALARS
    }
    assert not [n for n, text in texts.items() if "http" in text or "](" in text]
    assert "isoformat" not in texts["DateTime"] and "UTC" in texts["DateTime"]
