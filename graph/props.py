"""Property maps for write statements, validated and deflated through the neomodel models.

Each write statement takes one map parameter per node (`$props`), built here, so the set of
properties written can never drift from `graph.models`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from neomodel import StructuredNode
from neomodel.exceptions import DeflateError, RequiredProperty

from graph.errors import InvalidInput


def node_props(model: type[StructuredNode], data: Mapping[str, Any]) -> dict[str, Any]:
    """Validate `data` against `model` and return the map to store (db property names)."""
    unknown = set(data) - set(model.defined_properties(rels=False))
    if unknown:
        raise InvalidInput(f"unknown {model.__label__} properties: {sorted(unknown)}")
    try:
        props: dict[str, Any] = model.deflate(dict(data))
    except (DeflateError, RequiredProperty, ValueError) as exc:
        raise InvalidInput(f"invalid {model.__label__}: {exc}") from exc
    return props


def dump_json(value: Mapping[str, Any] | None, *, limit: int, what: str) -> str:
    """JSON text for a metadata-like map, refusing values over `limit` bytes."""
    text = json.dumps(dict(value or {}), sort_keys=True, separators=(",", ":"))
    if len(text.encode()) > limit:
        raise InvalidInput(f"{what} is {len(text.encode())} bytes; the limit is {limit}")
    return text


def meta_kv(value: Mapping[str, Any] | None) -> list[str]:
    """One "key=<json value>" entry per top-level key: lets Cypher filter by equality."""
    return [
        f"{key}={json.dumps(val, sort_keys=True, separators=(',', ':'))}"
        for key, val in sorted((value or {}).items())
    ]
