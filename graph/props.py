"""Property maps for write statements, validated and deflated through the neomodel models.

Each write statement takes one map parameter per node (`$props`), built here, so the set of
properties written can never drift from `graph.models`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from neomodel import StructuredNode
from neomodel.exceptions import DeflateError, RequiredProperty

from graph.configuration import ConfigKind, check_configuration
from graph.errors import InvalidInput, LimitExceeded


def node_props(model: type[StructuredNode], data: Mapping[str, Any]) -> dict[str, Any]:
    """Validate `data` against `model` and return the map to store (db property names)."""
    unknown = set(data) - set(model.defined_properties(rels=False))
    if unknown:
        raise InvalidInput(f"unknown {model.__label__} properties: {sorted(unknown)}")
    try:
        props: dict[str, Any] = model.deflate(dict(data))
    except (DeflateError, RequiredProperty, ValueError) as exc:
        raise InvalidInput(f"invalid {model.__label__}: {exc}") from exc
    return {key: _quiet(value) for key, value in props.items()}


class Numbers(list[float]):
    """A vector parameter, sent as the list it is, but shown in a few characters: the driver
    writes out every parameter of a statement (repr) before sending it, whatever the log
    level, and a write of a thousand beliefs spent a tenth of a second on the event loop
    writing out their vectors' floats."""

    def __repr__(self) -> str:
        return f"<{len(self)} numbers>"


def _quiet(value: Any) -> Any:
    """`value` with its vectors (lists of floats, or lists of them) as Numbers."""
    if isinstance(value, list) and value and isinstance(value[0], list):
        return [_quiet(v) for v in value]
    if isinstance(value, list) and len(value) > 16 and isinstance(value[0], float):
        return Numbers(value)
    return value


def _json(value: Any, what: str) -> str:
    """Compact, key-sorted JSON. NaN and infinities are refused: a stored one could not be
    answered again (JSON has no such number), so every read returning it would fail."""
    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:
        raise InvalidInput(f"{what} holds a number JSON cannot carry (NaN or infinity)") from exc


def dump_json(value: Mapping[str, Any] | None, *, limit: int, what: str) -> str:
    """JSON text for a metadata-like map, refusing values over `limit` bytes. The size is the
    JSON's in UTF-8, as a client sends it: the stored text escapes every non-ASCII character
    (six bytes for an "é", twelve for an emoji), and counting those refused accented, Cyrillic
    or Chinese text at a third to a sixth of the limit."""
    given = dict(value or {})
    text = _json(given, what)
    plain = json.dumps(given, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    size = len(plain.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise LimitExceeded(f"{what} is {size} bytes; the limit is {limit}", limit="metadata")
    return text


def checked_filter(
    value: Mapping[str, Any] | None, *, limit: int, what: str
) -> Mapping[str, Any] | None:
    """A metadata filter no larger than stored metadata may be (`limit`): a larger one could
    match nothing, and one of 300,000 keys held the server for a second and a half."""
    if value:
        dump_json(value, limit=limit, what=what)
    return value


def meta_kv(value: Mapping[str, Any] | None) -> list[str]:
    """One "key=<json value>" entry per top-level key: lets Cypher filter by equality."""
    return [f"{key}={_json(val, 'metadata')}" for key, val in sorted((value or {}).items())]


@dataclass(frozen=True)
class Meta:
    """A workspace's, peer's or session's metadata and configuration, checked and serialized.

    None means "not given": a create stores "{}", an update leaves the stored value alone.
    """

    metadata: str | None = None
    meta_kv: list[str] | None = None
    configuration: str | None = None

    @classmethod
    def of(
        cls,
        metadata: Mapping[str, Any] | None,
        configuration: Mapping[str, Any] | None,
        *,
        limit: int,
        kind: ConfigKind | None = None,
    ) -> Meta:
        """`kind`: whose configuration it is, so that the keys Honcho clients read back are
        checked (graph/configuration.py); None when no configuration can be given."""
        if configuration is not None:
            if kind is None:
                raise ValueError("a configuration needs its kind to be checked")
            check_configuration(kind, configuration)
        return cls(
            metadata=None
            if metadata is None
            else dump_json(metadata, limit=limit, what="metadata"),
            meta_kv=None if metadata is None else meta_kv(metadata),
            configuration=None
            if configuration is None
            else dump_json(configuration, limit=limit, what="configuration"),
        )

    def created(self) -> dict[str, Any]:
        """The three properties of a new node (defaults for what was not given)."""
        return {
            "metadata": self.metadata or "{}",
            "meta_kv": self.meta_kv or [],
            "configuration": self.configuration or "{}",
        }

    def updated(self) -> dict[str, Any]:
        """The parameters of an update statement (null leaves the stored value)."""
        return {
            "metadata": self.metadata,
            "meta_kv": self.meta_kv,
            "configuration": self.configuration,
        }


NO_META = Meta()
