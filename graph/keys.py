"""Identifiers of a representation: the (workspace, observer, observed) triple and its key.

The key is one alphanumeric token, so it can stand in a Lucene query and in an index filter
without escaping, and it never mixes two triples (the parts are joined with a separator that
names cannot contain).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass


def scope_key(workspace: str, observer: str, observed: str) -> str:
    """A stable, single-token name for the scope (hex, so no analyzer splits it)."""
    digest = hashlib.sha256("\x1f".join((workspace, observer, observed)).encode("utf-8"))
    return "s" + digest.hexdigest()[:32]


@dataclass(frozen=True)
class Representation:
    workspace: str
    observer: str
    observed: str

    @property
    def key(self) -> str:
        return scope_key(self.workspace, self.observer, self.observed)

    def params(self) -> dict[str, str]:
        return {"workspace": self.workspace, "observer": self.observer, "observed": self.observed}
